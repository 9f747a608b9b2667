// Deterministic stand-ins for the elector's clock and Lease API.
//
// FakeClock: time only moves when a test says so. `advance(ms)` fires due timers in order and lets
// promise chains settle between them; `freeze(ms)` moves time WITHOUT running anything, which is
// what a SIGSTOP or a long GC pause looks like from inside the process.
//
// FakeLeaseServer: one Lease with a resourceVersion, optimistic concurrency (409 on a stale version
// or an existing name), watchers, and a log of writes. Each elector gets its own FakeLeaseClient so a
// test can break one replica's connection (errors, hangs) or hold back its watch events (frozen).

import type { Clock, TimerHandle } from '../../../src/runtime/clock.js';
import {
  LeaseConflictError,
  type LeaseClient,
  type LeaseRecord,
  type LeaseWatch,
  type LeaseWatchEventType,
  type LeaseWatchHandlers,
  type ObservedLease,
} from '../../../src/leader/lease-client.js';
import type { LeaderElectionMetrics, RenewResult } from '../../../src/leader/metrics.js';
import type { Logger, LogFields } from '../../../src/log.js';

/** Lets every pending promise reaction and immediate run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

interface FakeTimer {
  due: number;
  seq: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private t = 0;
  private seq = 0;
  private readonly timers = new Map<number, FakeTimer>();
  /** Wall clock = wallBase + monotonic time; change it to simulate a skewed node clock. */
  wallBase = Date.parse('2030-01-01T00:00:00.000Z');

  now(): number {
    return this.t;
  }
  wallNow(): Date {
    return new Date(this.wallBase + this.t);
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { due: this.t + Math.max(0, ms), seq: id, fn });
    return id;
  }
  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }
  pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * Moves time forward by `ms`, firing due timers in order and settling promises after each instant.
   * Timers due at the same instant all fire before anything settles, as concurrent processes would.
   */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      let due = Number.POSITIVE_INFINITY;
      for (const timer of this.timers.values()) if (timer.due <= end) due = Math.min(due, timer.due);
      if (due === Number.POSITIVE_INFINITY) break;
      const batch = [...this.timers.entries()]
        .filter(([, t]) => t.due === due)
        .sort((x, y) => x[1].seq - y[1].seq);
      this.t = Math.max(this.t, due);
      for (const [id, timer] of batch) {
        if (!this.timers.delete(id)) continue; // cleared by an earlier timer of the batch
        timer.fn();
      }
      await settle();
    }
    this.t = end;
    await settle();
  }

  /** Time passes but nothing runs (SIGSTOP / stop-the-world GC). Overdue timers fire on the next advance. */
  freeze(ms: number): void {
    this.t += ms;
  }

  /** Runs `check` every `step` ms for `total` ms. */
  async advanceChecking(total: number, step: number, check: () => void): Promise<void> {
    for (let elapsed = 0; elapsed < total; elapsed += step) {
      await this.advance(step);
      check();
    }
  }
}

/** Advances several clocks in lock-step (several processes sharing real time). */
export async function advanceAll(clocks: FakeClock[], ms: number, step = 50): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    const d = Math.min(step, ms - done);
    for (const c of clocks) await c.advance(d);
  }
}

export interface WriteLogEntry {
  at: number;
  client: string;
  op: 'create' | 'update';
  record: LeaseRecord;
}

export class FakeLeaseServer {
  private lease: { record: LeaseRecord; rv: number } | undefined;
  private rv = 100;
  readonly watchers = new Set<FakeWatch>();
  readonly writes: WriteLogEntry[] = [];

  constructor(readonly clock: { now(): number }) {}

  current(): ObservedLease | undefined {
    return this.lease
      ? { record: { ...this.lease.record }, resourceVersion: String(this.lease.rv) }
      : undefined;
  }

  /** A write by someone outside the electors under test (another process, a human). */
  put(record: LeaseRecord): ObservedLease {
    this.lease = { record: { ...record }, rv: ++this.rv };
    const snap = this.current() as ObservedLease;
    this.broadcast(this.writes.length === 0 ? 'ADDED' : 'MODIFIED', snap);
    return snap;
  }

  delete(): void {
    const snap = this.current();
    this.lease = undefined;
    if (snap) this.broadcast('DELETED', { ...snap, resourceVersion: String(++this.rv) });
  }

  create(client: string, record: LeaseRecord): ObservedLease {
    if (this.lease) throw new LeaseConflictError('exists');
    this.lease = { record: { ...record }, rv: ++this.rv };
    this.writes.push({ at: this.clock.now(), client, op: 'create', record: { ...record } });
    const snap = this.current() as ObservedLease;
    this.broadcast('ADDED', snap);
    return snap;
  }

  update(client: string, record: LeaseRecord, rv: string): ObservedLease {
    if (!this.lease || String(this.lease.rv) !== rv) throw new LeaseConflictError('stale');
    this.lease = { record: { ...record }, rv: ++this.rv };
    this.writes.push({ at: this.clock.now(), client, op: 'update', record: { ...record } });
    const snap = this.current() as ObservedLease;
    this.broadcast('MODIFIED', snap);
    return snap;
  }

  private broadcast(type: LeaseWatchEventType, lease: ObservedLease): void {
    for (const w of this.watchers) w.deliver(type, lease);
  }

  client(name: string): FakeLeaseClient {
    return new FakeLeaseClient(this, name);
  }
}

class FakeWatch implements LeaseWatch {
  constructor(
    private readonly owner: FakeLeaseClient,
    readonly handlers: LeaseWatchHandlers,
  ) {}
  deliver(type: LeaseWatchEventType, lease: ObservedLease): void {
    this.owner.enqueue(() =>
      this.handlers.onEvent(type, { record: { ...lease.record }, resourceVersion: lease.resourceVersion }),
    );
  }
  stop(): void {
    this.owner.server.watchers.delete(this);
    this.owner.watches.delete(this);
  }
}

export type FailureMode = 'ok' | 'error' | 'hang';

export class FakeLeaseClient implements LeaseClient {
  readonly description: string;
  /** How API calls behave: succeed, fail at once (connection refused), or hang until aborted. */
  mode: FailureMode = 'ok';
  /** Fail the next n calls with an error, then behave per `mode`. */
  failNext = 0;
  /** Watch: throw from watch() itself / report an error at once and deliver nothing (a 403). */
  watchMode: 'ok' | 'throw' | 'fail' = 'ok';
  readonly calls: { at: number; op: string; signalAborted?: boolean }[] = [];
  readonly watches = new Set<FakeWatch>();
  watchStarts = 0;
  private frozen = false;
  private backlog: (() => void)[] = [];

  constructor(
    readonly server: FakeLeaseServer,
    readonly name: string,
  ) {
    this.description = `test/${name}`;
  }

  /** Holds back watch events (the process is frozen); `thaw()` delivers them. */
  freeze(): void {
    this.frozen = true;
  }
  thaw(): void {
    this.frozen = false;
    const backlog = this.backlog;
    this.backlog = [];
    for (const fn of backlog) queueMicrotask(fn);
  }
  enqueue(fn: () => void): void {
    if (this.frozen) this.backlog.push(fn);
    else queueMicrotask(fn);
  }

  private gates = new Map<string, Promise<void>>();

  /** Calls of `op` wait until the returned function is called (a slow request). */
  hold(op: string): () => void {
    let open: () => void = () => {};
    this.gates.set(op, new Promise<void>((resolve) => (open = resolve)));
    return () => {
      this.gates.delete(op);
      open();
    };
  }

  private async call<T>(op: string, signal: AbortSignal, fn: () => T): Promise<T> {
    const entry = { at: this.server.clock.now(), op, signalAborted: false };
    this.calls.push(entry);
    await Promise.resolve();
    const gate = this.gates.get(op);
    if (gate) await gate;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error(`connect ECONNREFUSED (fake ${op})`);
    }
    if (this.mode === 'error') throw new Error(`connect ECONNREFUSED (fake ${op})`);
    if (this.mode === 'hang') {
      await new Promise<never>((_, reject) => {
        const onAbort = () => {
          entry.signalAborted = true;
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    return fn();
  }

  get(signal: AbortSignal): Promise<ObservedLease | undefined> {
    return this.call('get', signal, () => this.server.current());
  }
  create(record: LeaseRecord, signal: AbortSignal): Promise<ObservedLease> {
    return this.call('create', signal, () => this.server.create(this.name, record));
  }
  /** The next n updates are committed, but the caller gets an error (a 504 after the commit). */
  commitThenFailUpdates = 0;
  update(record: LeaseRecord, resourceVersion: string, signal: AbortSignal): Promise<ObservedLease> {
    return this.call('update', signal, () => {
      const written = this.server.update(this.name, record, resourceVersion);
      if (this.commitThenFailUpdates > 0) {
        this.commitThenFailUpdates--;
        throw new Error('HTTP 504: the request timed out (but was committed)');
      }
      return written;
    });
  }

  watch(handlers: LeaseWatchHandlers): LeaseWatch {
    this.watchStarts++;
    if (this.watchMode === 'throw') throw new Error('fake watch() threw');
    const w = new FakeWatch(this, handlers);
    if (this.watchMode === 'fail') {
      this.enqueue(() => handlers.onError(new Error('fake watch failed: 403')));
      return w;
    }
    this.server.watchers.add(w);
    this.watches.add(w);
    const snap = this.server.current();
    if (snap) w.deliver('ADDED', snap);
    return w;
  }

  /** Reports `err` on every open watch session of this client (which keeps going, as a reconnecting watch does). */
  failWatches(err: unknown): void {
    for (const w of [...this.watches]) this.enqueue(() => w.handlers.onError(err));
  }

  count(op: string): number {
    return this.calls.filter((c) => c.op === op).length;
  }
}

/** Records what the elector reports through its metrics hooks. */
export class RecordingMetrics implements LeaderElectionMetrics {
  leading = new Map<string, boolean>();
  transitions = 0;
  renews: { result: RenewResult; seconds: number; wallTime: Date }[] = [];
  setLeading(name: string, leading: boolean): void {
    this.leading.set(name, leading);
  }
  leaderChanged(): void {
    this.transitions++;
  }
  renewAttempt(_name: string, result: RenewResult, seconds: number, wallTime: Date): void {
    this.renews.push({ result, seconds, wallTime });
  }
}

export interface LogLine {
  level: string;
  msg: string;
  fields: LogFields;
}

/** A Logger that keeps lines in memory. */
export function memoryLogger(lines: LogLine[] = [], base: LogFields = {}): Logger & { lines: LogLine[] } {
  const mk = (level: string) => (msg: string, fields?: LogFields) =>
    lines.push({ level, msg, fields: { ...base, ...fields } });
  return {
    lines,
    debug: mk('debug'),
    info: mk('info'),
    warn: mk('warn'),
    error: mk('error'),
    child: (fields) => memoryLogger(lines, { ...base, ...fields }),
  };
}
