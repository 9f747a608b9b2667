// A rate-limiting work queue with the semantics of client-go's workqueue (which controller-runtime
// builds on), driving a handler with bounded concurrency:
//
// - Keys are strings (`namespace/name`). Adding a key that is already waiting is a no-op, so a burst
//   of events for one object collapses into one run of the handler (coalescing).
// - A key is never handled by two workers at once: a key re-added while it is being handled is marked
//   dirty and queued again once the running handler finishes, so the change is not lost.
// - Different keys run concurrently, up to `concurrency` at a time.
// - `addRateLimited` retries a key after a per-key exponential backoff with jitter; `forget` resets
//   it. `addAfter` schedules a key (requeue-after, periodic resync); of two pending delays for one
//   key the earlier wins.
// - Every add has a priority (ready-queue.ts: LOW for bulk re-queues such as a term's initial lists
//   and resyncs, NORMAL for live events; controller-runtime's priority queue). Ready keys are handed
//   out highest priority first, FIFO within one. A key waiting at a lower priority moves up when it is
//   added at a higher one and never moves down; one re-added while it runs keeps the highest priority
//   it was added at; a delayed add carries its priority to the moment it comes due; a retry (backoff,
//   requeue, requeue-after) comes back at the priority the key ran with. A priority may be a function:
//   for a key being handled it is asked only once the handler has finished — an event that arrives
//   while a reconcile runs is most often the echo of that reconcile's own write, and the reconcile
//   can only recognise its writes once it has their answers (the echo tends to come first).
// - The handler gets an AbortSignal that fires when the `signal` option does (the manager passes the
//   leader term's) or on `shutDown({ abort: true })`, so a replica that loses its leader lease cancels
//   in-flight reconciles — and the API calls they pass it to — instead of writing as a non-leader.
//
// The handler's outcome drives retries the way controller-runtime's reconcile result does: a throw
// retries with backoff, `{ requeueAfterMs }` forgets the failures and schedules the key, `{ requeue:
// true }` retries with backoff, anything else forgets the failures.
import { setMaxListeners } from 'node:events';
// The real one, even where a test installs fake timers: yielding is about the event loop, not time.
import { setImmediate as yieldImmediate } from 'node:timers';
import { realClock, type Clock } from './clock.js';
import { defaultControllerRateLimiter, type RateLimiter } from './ratelimit.js';
import { Priority, ReadyQueue } from './ready-queue.js';
import { noWorkqueueMetrics, type WorkqueueMetrics } from './workqueue-metrics.js';
import { silentLogger, type Logger } from '../log.js';

/**
 * How long handlers may run back to back without letting the event loop turn. A handler that ends
 * without I/O (a reconcile refused by the client-side fence, a no-op plan) resolves in a microtask,
 * and done() → pump() starts the next one in the same microtask chain: a queue of thousands of keys
 * then ran for 30 s without the event loop reaching its timers, so the leader's renew and
 * renew-deadline timers fired 41 s late and it lost its own Lease. Past this budget the next handler
 * waits for one turn of the loop (setImmediate: after due timers and I/O).
 */
export const EVENT_LOOP_BUDGET_MS = 10;
/** When the current run of handlers without an event-loop turn began. */
let sliceStarted = 0;
/** Whether the event loop has turned since sliceStarted (a marker setImmediate ran). */
let turned = true;

function newSlice(): void {
  sliceStarted = performance.now();
  turned = false;
  yieldImmediate(() => {
    turned = true;
  });
}

/** A promise to wait for when handlers have kept the loop busy past the budget, else undefined. */
function yieldIfBusy(): Promise<void> | undefined {
  // The loop turned since the slice began: nothing is starved, start a new slice (no wait).
  if (turned) {
    newSlice();
    return undefined;
  }
  if (performance.now() - sliceStarted < EVENT_LOOP_BUDGET_MS) return undefined;
  return new Promise<void>((resolve) => yieldImmediate(resolve)).then(newSlice);
}

/** A priority function's answer; one that throws counts as NORMAL (it must not lose the key). */
function askPriority(ask: () => number): number {
  try {
    const p = ask();
    return Number.isFinite(p) ? p : Priority.normal;
  } catch {
    return Priority.normal;
  }
}

export interface WorkContext {
  /** Fires when the queue is shut down with `abort` (e.g. the leader lease was lost). */
  signal: AbortSignal;
  /** How many times this key has been retried with backoff since it last succeeded. */
  retries: number;
}

export interface WorkResult {
  /** Retry the key with the rate limiter's backoff (as if the handler had failed, but without logging). */
  requeue?: boolean;
  /** Handle the key again after this many milliseconds (resets its backoff). */
  requeueAfterMs?: number;
}

/** A priority, or how to decide it (see the module comment: asked late for a key being handled). */
export type PriorityOf = number | (() => number);

export type WorkHandler = (key: string, ctx: WorkContext) => Promise<WorkResult | void> | WorkResult | void;

export interface WorkqueueOptions {
  /** For log lines. */
  name?: string;
  /** Keys handled at the same time (default 1). */
  concurrency?: number;
  /** Default: controller-runtime's (5ms..1000s per key with jitter, max with 10 qps / burst 100 overall). */
  rateLimiter?: RateLimiter;
  metrics?: WorkqueueMetrics;
  clock?: Clock;
  logger?: Logger;
  /**
   * The handlers' AbortSignal also fires when this one does (a leader term's signal): work started in
   * a term is cancelled the moment the term ends, before anyone calls shutDown.
   */
  signal?: AbortSignal;
}

export interface ShutDownOptions {
  /** Fire the handlers' AbortSignal so in-flight work stops early (its errors are not retried). */
  abort?: boolean;
  /** Handle every key already queued (not the delayed ones) before resolving, instead of dropping them. */
  drain?: boolean;
}

interface Delayed {
  readyAt: number;
  priority: number;
  handle: unknown;
}

export class Workqueue {
  readonly name: string;
  private readonly handler: WorkHandler;
  private readonly concurrency: number;
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: WorkqueueMetrics;
  private readonly clock: Clock;
  private readonly log: Logger;

  /** Keys ready to be handled, by priority then FIFO. */
  private readonly ready = new ReadyQueue();
  /**
   * Keys that need handling — ready ones plus those re-added while being handled — each with the
   * highest priority it was added at since it was last handed out.
   */
  private readonly dirty = new Map<string, number>();
  /** Keys being handled, each with the priority it was handed out at (its retries keep it). */
  private readonly processing = new Map<string, number>();
  /** For keys re-added while being handled: the priorities to ask once the handler has finished. */
  private readonly deferred = new Map<string, (() => number)[]>();
  /** When (clock ms) each key in `processing` was handed to a worker: in-flight ages for the metrics. */
  private readonly processingSince = new Map<string, number>();
  private readonly addedAt = new Map<string, number>();
  private readonly delayed = new Map<string, Delayed>();
  private readonly abortController = new AbortController();
  private readonly idleWaiters = new Set<() => void>();
  private readonly unlinkSignal: () => void;
  private running = false;
  private shuttingDown = false;
  private draining = false;

  constructor(handler: WorkHandler, opts: WorkqueueOptions = {}) {
    this.handler = handler;
    this.name = opts.name ?? 'workqueue';
    this.concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1));
    this.clock = opts.clock ?? realClock;
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter({ bucket: { clock: this.clock } });
    this.metrics = opts.metrics ?? noWorkqueueMetrics;
    this.log = (opts.logger ?? silentLogger).child({ workqueue: this.name });
    // Every request of every handler listens on the handlers' signal until it ends: with concurrency 16
    // and an install's applies sent together that is more than Node's default of 10 at once, which
    // Node reports as a leak (MaxListenersExceededWarning) that is not one — each listener is removed
    // when its request ends (kube/client.ts linkedSignal).
    setMaxListeners(0, this.abortController.signal);
    const outer = opts.signal;
    const onOuterAbort = () => this.abortController.abort(outer?.reason);
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    this.unlinkSignal = () => outer?.removeEventListener('abort', onOuterAbort);
    this.metrics.trackInFlight(() => this.inFlightAges());
  }

  /** Seconds each key being handled right now has been running. */
  inFlightAges(): number[] {
    const now = this.clock.now();
    return [...this.processingSince.values()].map((since) => Math.max(0, now - since) / 1000);
  }

  /** Start handing keys to the handler. Keys added before `start` wait (coalesced) until then. */
  start(): void {
    if (this.shuttingDown) throw new Error(`workqueue ${this.name} is shut down`);
    this.running = true;
    this.pump();
  }

  /**
   * Queue `key` now at `priority` (default NORMAL). When it is already waiting this only raises its
   * priority (if higher); no-op once the queue is shutting down.
   */
  add(key: string, priorityOf: PriorityOf = Priority.normal): void {
    if (this.shuttingDown) return;
    let priority: number;
    if (typeof priorityOf === 'number') priority = priorityOf;
    else if (this.processing.has(key)) {
      // Asked in done(); until then the key is dirty at no priority of its own.
      const list = this.deferred.get(key);
      if (list) list.push(priorityOf);
      else this.deferred.set(key, [priorityOf]);
      priority = Number.NEGATIVE_INFINITY;
    } else priority = askPriority(priorityOf);
    const waiting = this.dirty.get(key);
    if (waiting !== undefined) {
      if (priority <= waiting) return;
      this.dirty.set(key, priority);
      // Not ready while it runs: done() queues it at the priority just raised.
      if (this.ready.has(key)) this.ready.push(key, priority);
      return;
    }
    this.dirty.set(key, priority);
    this.addedAt.set(key, this.clock.now());
    this.metrics.added(this.dirty.size);
    if (this.processing.has(key)) return; // queued again by done() when the running handler ends
    this.ready.push(key, priority);
    this.pump();
  }

  /**
   * Queue `key` at `priority` after `ms` milliseconds. Of two pending delays for one key the earlier
   * wins, and it comes due at the higher of their priorities.
   */
  addAfter(key: string, ms: number, priority: number = Priority.normal): void {
    if (this.shuttingDown) return;
    if (!(ms > 0)) {
      this.add(key, priority);
      return;
    }
    const readyAt = this.clock.now() + ms;
    const existing = this.delayed.get(key);
    if (existing) {
      if (existing.readyAt <= readyAt) {
        existing.priority = Math.max(existing.priority, priority);
        return;
      }
      this.clock.clearTimeout(existing.handle);
      priority = Math.max(existing.priority, priority);
    }
    const handle = this.clock.setTimeout(() => {
      const due = this.delayed.get(key);
      if (!due || due.handle !== handle) return;
      this.delayed.delete(key);
      this.add(key, due.priority);
    }, ms);
    this.delayed.set(key, { readyAt, priority, handle });
  }

  /** Queue `key` at `priority` after its rate-limited backoff (counts a failure for it). */
  addRateLimited(key: string, priority: number = Priority.normal): void {
    if (this.shuttingDown) return;
    this.metrics.retried();
    this.addAfter(key, this.rateLimiter.when(key), priority);
  }

  /** Reset `key`'s backoff (call on success; the default outcome handling does). */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /** Keys waiting to be handled (including ones re-added while being handled). */
  get depth(): number {
    return this.dirty.size;
  }

  /** Keys being handled right now. */
  get inFlight(): number {
    return this.processing.size;
  }

  /** Ready keys per priority (not those parked behind a running handler, nor delayed ones). */
  readyByPriority(): Map<number, number> {
    return this.ready.sizes();
  }

  /** Keys scheduled with a delay (requeue-after, backoff) that have not come due yet. */
  get pendingDelayed(): number {
    return this.delayed.size;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /**
   * Resolves once nothing is queued or in flight (delayed keys are not waited for), or when `signal`
   * aborts (a bounded wait): either way the waiter is unregistered.
   */
  whenIdle(signal?: AbortSignal): Promise<void> {
    if (this.isIdle() || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.idleWaiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.idleWaiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Callers waiting in whenIdle (for leak tests). */
  get idleWaiterCount(): number {
    return this.idleWaiters.size;
  }

  /**
   * Stop accepting keys, cancel delayed ones and wait for in-flight handlers to finish. Queued keys
   * are dropped unless `drain` (whoever starts next re-lists and re-queues everything anyway);
   * `abort` fires the handlers' signal first. The queue cannot be restarted: make a new one.
   */
  async shutDown(opts: ShutDownOptions = {}): Promise<void> {
    if (!this.shuttingDown) {
      this.shuttingDown = true;
      this.unlinkSignal();
      for (const d of this.delayed.values()) this.clock.clearTimeout(d.handle);
      this.delayed.clear();
    }
    if (opts.abort && !this.abortController.signal.aborted) {
      this.abortController.abort(new Error(`workqueue ${this.name} shut down`));
    }
    this.draining = Boolean(opts.drain) && this.running && !opts.abort;
    if (!this.draining) this.dropQueued();
    this.pump();
    await this.whenIdle();
  }

  private dropQueued(): void {
    this.ready.clear();
    this.deferred.clear();
    // Keys parked behind a running handler would be queued again by done(): drop them too.
    for (const key of this.dirty.keys()) this.addedAt.delete(key);
    this.dirty.clear();
    this.checkIdle();
  }

  private isIdle(): boolean {
    return this.ready.size === 0 && this.processing.size === 0;
  }

  private checkIdle(): void {
    if (!this.isIdle() || this.idleWaiters.size === 0) return;
    for (const w of [...this.idleWaiters]) w();
  }

  private pump(): void {
    if (!this.running) return;
    while (this.processing.size < this.concurrency && this.ready.size > 0) {
      const { key, priority } = this.ready.pop()!;
      this.dirty.delete(key);
      this.processing.set(key, priority);
      this.processingSince.set(key, this.clock.now());
      const addedAt = this.addedAt.get(key) ?? this.clock.now();
      this.addedAt.delete(key);
      this.metrics.started(this.dirty.size, Math.max(0, this.clock.now() - addedAt) / 1000);
      void this.process(key);
    }
    this.checkIdle();
  }

  private async process(key: string): Promise<void> {
    // Synchronous unless the loop needs a turn: an extra await would reorder every handler start.
    const turn = yieldIfBusy();
    if (turn) await turn;
    const started = this.clock.now();
    const signal = this.abortController.signal;
    const priority = this.processing.get(key) ?? Priority.normal;
    let result: WorkResult | void = undefined;
    let failed = false;
    let error: unknown;
    try {
      result = await this.handler(key, { signal, retries: this.rateLimiter.numRequeues(key) });
    } catch (err) {
      failed = true;
      error = err;
    }
    try {
      // Inside the try: a throwing metrics hook must not leave the key stuck in `processing`.
      this.metrics.finished(Math.max(0, this.clock.now() - started) / 1000);
      if (failed) {
        if (signal.aborted) {
          this.log.debug('handler ended after abort', { key, err: error });
        } else {
          this.log.warn('handler failed, retrying with backoff', {
            key,
            err: error,
            retries: this.rateLimiter.numRequeues(key),
          });
          this.addRateLimited(key, priority);
        }
      } else if (result && typeof result.requeueAfterMs === 'number' && result.requeueAfterMs > 0) {
        this.forget(key);
        this.addAfter(key, result.requeueAfterMs, priority);
      } else if (result && result.requeue) {
        this.addRateLimited(key, priority);
      } else {
        this.forget(key);
      }
    } catch (err) {
      this.log.error('work queue bookkeeping failed', { key, err });
    } finally {
      this.done(key);
    }
  }

  private done(key: string): void {
    this.processing.delete(key);
    this.processingSince.delete(key);
    let again = this.dirty.get(key);
    const late = this.deferred.get(key);
    this.deferred.delete(key);
    if (again !== undefined) {
      if (this.shuttingDown && !this.draining) {
        this.dirty.delete(key);
        this.addedAt.delete(key);
      } else {
        for (const ask of late ?? []) again = Math.max(again, askPriority(ask));
        this.dirty.set(key, again);
        this.ready.push(key, again);
      }
    }
    this.pump();
  }
}
