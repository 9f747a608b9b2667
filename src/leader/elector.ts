// Leader election over a coordination.k8s.io/v1 Lease, in the spirit of client-go's
// tools/leaderelection, plus the two things client-go leaves out: fencing (canWrite) and a watch so a
// released Lease is taken over in milliseconds instead of up to a retry period.
//
// STATES
//
//   idle ──start()──▶ candidate ──acquired──▶ leader ──renew deadline passed / lease taken──▶ stepping-down
//                        ▲                                                                      │
//                        └───────────── onStoppedLeading() settled ◀────────────────────────────┘
//   any ──stop()──▶ stopping ──(end term, release the Lease if we hold it)──▶ stopped
//
// TIME
//
// Every decision uses the local MONOTONIC clock (Clock.now). A candidate never reads the holder's
// renewTime as a time: it notes WHEN IT SAW the record change, and considers the Lease expired once
// leaseDurationSeconds (from the record) have passed on its own clock since then. Skewed or stuck
// wall clocks on either side therefore cannot cause a premature takeover.
//
// SAFETY ARGUMENT (why canWrite() is a sound fence against other replicas of this operator)
//
// Let a renew be SENT at local time s. The API server applies it at some moment ≥ s, and any other
// candidate observes the new record at some moment ≥ that, so it will not take over before
// s + leaseDuration (measured by a clock running at a similar rate). The leader lets itself write only
// until s + renewDeadline (canWrite compares against the send time, not the response time). Because
// renewDeadline < leaseDuration, the leader's right to write ends at least leaseDuration −
// renewDeadline (5 s by default) before anyone else may start — that margin absorbs clock-rate
// differences and writes already on the wire. A process frozen (SIGSTOP, GC pause, VM stall) past its
// renew deadline sees canWrite() === false on the very first instruction after it wakes, because the
// check is pure arithmetic on the monotonic clock and needs no timer to have fired.
// Remaining gap (as for every lease-based lock without server-side fencing tokens): a write that
// passed canWrite() and then had the process frozen before its bytes left the socket is sent late.
// The transport (src/kube/client.ts) re-checks right before handing a write to the network and keeps
// connections alive, so that window is normally a few synchronous steps; on a new connection it
// spans the TCP/TLS handshake, and a stall during it lets the write out seconds late. The chart's
// admission policy closes that gap server-side (docs/leader-election.md, "The fence's layers").
//
// CONCURRENCY
//
// Optimistic: every write carries the resourceVersion we last read; a 409 means someone else wrote in
// between (a lost race, not an error) and we re-read. At most one Lease request of ours is in flight.

import { isOlderResourceVersion } from '../kube/resource-version.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { realClock, type Clock, type TimerHandle } from '../runtime/clock.js';
import { formatDuration, JITTER_FACTOR, type LeaderElectionTimings } from './config.js';
import { NotLeaderError, type Leadership } from './leadership.js';
import {
  formatMicroTime,
  LeaseConflictError,
  type LeaseClient,
  type LeaseRecord,
  type LeaseWatch,
  type LeaseWatchEventType,
  type ObservedLease,
} from './lease-client.js';
import { noLeaderElectionMetrics, type LeaderElectionMetrics, type RenewResult } from './metrics.js';

export type ElectorState = 'idle' | 'candidate' | 'leader' | 'stepping-down' | 'stopping' | 'stopped';

export type StepDownReason = 'renew-deadline-exceeded' | 'lease-lost' | 'shutdown';

export interface StoppedLeadingInfo {
  reason: StepDownReason;
  message: string;
  /** The term that ended. */
  term: number;
}

/** One continuous period of leadership. Reconcile code started in a term should check the term, not the elector. */
export interface LeaderTerm {
  readonly id: number;
  /** Aborted when this term ends. */
  readonly signal: AbortSignal;
  /** elector.canWrite() AND this is still the current term (a later term does not revive an old one). */
  canWrite(): boolean;
  assertLeading(): void;
}

export interface LeaderCallbacks {
  /**
   * This replica became leader. Start the workers; give `signal` to everything they do. Called once
   * per term; renewals never call it again. Errors (sync or async) are logged, not acted upon.
   */
  onStartedLeading(signal: AbortSignal, term: LeaderTerm): void | Promise<void>;
  /**
   * This replica stopped leading (signal already aborted, canWrite already false). Stop the workers
   * and wait for in-flight reconciles here: the elector awaits the returned promise before it
   * re-enters the candidate loop, or — on stop() — before it releases the Lease, so the next leader
   * never overlaps with this one's stragglers.
   */
  onStoppedLeading(info: StoppedLeadingInfo): void | Promise<void>;
  /** The Lease names a new holder (possibly this replica). Not called for renewals or for a release. */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectorOptions extends LeaderElectionTimings {
  lease: LeaseClient;
  /** Unique per process: pod name + random suffix (see makeIdentity). */
  identity: string;
  /** Label value for the metrics (normally the Lease name). */
  name: string;
  callbacks: LeaderCallbacks;
  /** On stop(), clear the holder so another candidate takes over at once. Default true. */
  releaseOnCancel?: boolean;
  /**
   * On stop(), release no sooner than this long after the term ended (the drain counts towards it).
   * A write the ended term had already put on the wire is cancelled only on our side; the guard gives
   * it time to reach the API server while the Lease still names us, instead of landing in the next
   * leader's term. A function is asked at release time (the operator drops the guard while the API
   * server's fencing policy refuses such a write anyway). Default 0.
   */
  releaseGuardMs?: number | (() => number);
  /** Upper bound for one Lease request. Default renewDeadline / 2 (so the leader gets ≥ 2 tries). */
  requestTimeoutMs?: number;
  /** Watch the Lease (default true). Without it candidates poll every retryPeriod. */
  watch?: boolean;
  clock?: Clock;
  /** Uniform [0,1) source for jitter; injectable for tests. */
  random?: () => number;
  logger?: Logger;
  metrics?: LeaderElectionMetrics;
}

export interface ElectorStatus {
  state: ElectorState;
  identity: string;
  /** Holder named by the last Lease record seen ('' if released, undefined if unknown). */
  leader: string | undefined;
  term: number | undefined;
  canWrite: boolean;
  /** Milliseconds since the last successful acquire/renew was sent (leader only). */
  sinceLastRenewMs: number | undefined;
  watching: boolean;
}

type Outcome =
  { kind: 'ok' } | { kind: 'held'; holder: string } | { kind: 'conflict' } | { kind: 'error'; err: unknown };

function recordKey(r: LeaseRecord): string {
  return JSON.stringify([
    r.holderIdentity,
    r.leaseDurationSeconds,
    r.acquireTime,
    r.renewTime,
    r.leaseTransitions,
  ]);
}

export class LeaderElector implements Leadership {
  readonly identity: string;
  readonly name: string;
  private readonly lease: LeaseClient;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly requestTimeoutMs: number;
  private readonly releaseOnCancel: boolean;
  private readonly releaseGuardMs: () => number;
  private readonly watchEnabled: boolean;
  private readonly callbacks: LeaderCallbacks;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly log: Logger;
  private readonly metrics: LeaderElectionMetrics;
  private readonly notLeading: AbortSignal;

  private state: ElectorState = 'idle';

  // What we know about the Lease. `observedAt` is the monotonic time at which we first saw the
  // current record (holder, times, transitions): the start of the holder's validity from our side.
  private observed: ObservedLease | undefined;
  private observedKey: string | undefined;
  private observedAt = 0;
  /** The Lease does not exist (404 / DELETED). `observed` then still holds the last record seen. */
  private leaseMissing = false;
  /** Re-read the Lease before the next attempt instead of trusting the cached copy. */
  private forceGet = false;
  private lastLeader: string | undefined;

  private term: { id: number; controller: AbortController; view: LeaderTerm; startedAt: number } | undefined;
  private termSeq = 0;
  /** Monotonic time at which the last successful acquire/renew was SENT. */
  private lastRenewAt = Number.NEGATIVE_INFINITY;
  /** Monotonic time at which the last term ended (its signal was aborted). */
  private termEndedAt = Number.NEGATIVE_INFINITY;

  // undefined when none is set (TimerHandle is unknown, which includes it).
  private tickTimer: TimerHandle;
  private tickDue = Number.POSITIVE_INFINITY;
  private deadlineTimer: TimerHandle;
  private attempt: AbortController | undefined;
  private attemptDone: Promise<void> | undefined;
  private rerun = false;
  private errorStreak = 0;

  private watchSession: LeaseWatch | undefined;
  private watchHealthy = false;
  private watchFailures = 0;

  private stepDownDone: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;

  constructor(options: LeaderElectorOptions) {
    this.identity = options.identity;
    this.name = options.name;
    this.lease = options.lease;
    this.leaseDurationMs = options.leaseDurationMs;
    this.renewDeadlineMs = options.renewDeadlineMs;
    this.retryPeriodMs = options.retryPeriodMs;
    this.requestTimeoutMs = options.requestTimeoutMs ?? Math.max(1, Math.floor(options.renewDeadlineMs / 2));
    this.releaseOnCancel = options.releaseOnCancel ?? true;
    const guard = options.releaseGuardMs ?? 0;
    this.releaseGuardMs = typeof guard === 'number' ? () => guard : guard;
    this.watchEnabled = options.watch ?? true;
    this.callbacks = options.callbacks;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.metrics = options.metrics ?? noLeaderElectionMetrics;
    this.log = (options.logger ?? silentLogger).child({
      component: 'leader-election',
      lease: options.lease.description,
      identity: options.identity,
    });
    this.notLeading = AbortSignal.abort(new NotLeaderError('not leading'));
  }

  // ---------------------------------------------------------------- public API

  /** Joins the election as a candidate. Returns at once; callbacks report the outcome. */
  start(): void {
    if (this.state !== 'idle') throw new Error(`leader elector already ${this.state}`);
    this.state = 'candidate';
    this.metrics.setLeading(this.name, false);
    this.log.info('joining leader election', {
      leaseDurationMs: this.leaseDurationMs,
      renewDeadlineMs: this.renewDeadlineMs,
      retryPeriodMs: this.retryPeriodMs,
    });
    this.startWatch();
    this.scheduleTick(0);
  }

  /**
   * Leaves the election (SIGTERM): ends the term (signal aborted, onStoppedLeading awaited), then —
   * with releaseOnCancel — clears the holder so a candidate takes over at once. Idempotent.
   */
  stop(): Promise<void> {
    this.stopPromise ??= this.doStop();
    return this.stopPromise;
  }

  isLeader(): boolean {
    return this.state === 'leader';
  }

  canWrite(): boolean {
    return (
      this.state === 'leader' &&
      this.term !== undefined &&
      !this.term.controller.signal.aborted &&
      this.clock.now() - this.lastRenewAt < this.renewDeadlineMs
    );
  }

  assertLeading(): void {
    if (this.canWrite()) return;
    if (this.state !== 'leader') throw new NotLeaderError(`this replica is ${this.state}`);
    const since = this.clock.now() - this.lastRenewAt;
    throw new NotLeaderError(
      `last successful lease renew was ${formatDuration(Math.round(since))} ago (renew deadline ${formatDuration(this.renewDeadlineMs)})`,
    );
  }

  get leadingSignal(): AbortSignal {
    return this.state === 'leader' && this.term ? this.term.controller.signal : this.notLeading;
  }

  /** The current term while leading. */
  get currentTerm(): LeaderTerm | undefined {
    return this.state === 'leader' ? this.term?.view : undefined;
  }

  /** Holder named by the last Lease record seen ('' = released; undefined = not known yet). */
  get leader(): string | undefined {
    if (this.observed === undefined) return undefined;
    return this.leaseMissing ? '' : this.observed.record.holderIdentity;
  }

  status(): ElectorStatus {
    return {
      state: this.state,
      identity: this.identity,
      leader: this.leader,
      term: this.term?.id,
      canWrite: this.canWrite(),
      sinceLastRenewMs: this.state === 'leader' ? Math.round(this.clock.now() - this.lastRenewAt) : undefined,
      watching: this.watchHealthy,
    };
  }

  // ---------------------------------------------------------------- the acquire/renew loop

  private active(): boolean {
    return this.state === 'candidate' || this.state === 'leader';
  }

  private jitter(base: number): number {
    return base * (1 + this.random() * (JITTER_FACTOR - 1));
  }

  /** Runs tick() after `delayMs`, unless a tick is already due sooner. */
  private scheduleTick(delayMs: number): void {
    if (!this.active()) return;
    const delay = Math.max(0, delayMs);
    const due = this.clock.now() + delay;
    if (this.tickTimer !== undefined && this.tickDue <= due) return;
    this.cancelTick();
    this.tickDue = due;
    this.tickTimer = this.clock.setTimeout(() => {
      this.tickTimer = undefined;
      this.tickDue = Number.POSITIVE_INFINITY;
      this.tick().catch((err: unknown) => this.loopFailed(err));
    }, delay);
  }

  /**
   * A bug guard for the acquire/renew loop: an exception that escaped tick() (a throwing metrics hook,
   * a logger) must neither become an unhandled rejection nor stop the loop. A leader cannot vouch for
   * its renew state after one, so it steps down; everyone tries again after a retry period.
   */
  private loopFailed(err: unknown): void {
    this.attempt = undefined;
    try {
      this.log.error('leader election loop failed; retrying', { err });
    } catch {
      /* the logger itself failed: keep going */
    }
    if (this.state === 'leader') {
      void this.stepDown('lease-lost', `internal error in the renew loop: ${String(err)}`);
      return;
    }
    this.scheduleTick(this.retryPeriodMs);
  }

  private cancelTick(): void {
    if (this.tickTimer !== undefined) this.clock.clearTimeout(this.tickTimer);
    this.tickTimer = undefined;
    this.tickDue = Number.POSITIVE_INFINITY;
  }

  private renewExpired(): boolean {
    return this.clock.now() - this.lastRenewAt >= this.renewDeadlineMs;
  }

  private durationOf(record: LeaseRecord): number {
    return record.leaseDurationSeconds > 0 ? record.leaseDurationSeconds * 1000 : this.leaseDurationMs;
  }

  /** For a candidate: ms until the Lease may be taken (0 = now). */
  private candidateWait(): number {
    const rec = this.observed?.record;
    if (!rec) return 0;
    if (this.leaseMissing) {
      // Deleted while someone else held it: give that holder a full lease duration to notice and
      // re-create it, rather than racing it (see mustWaitForDeletedLease).
      return this.mustWaitForDeletedLease() ? this.observedAt + this.durationOf(rec) - this.clock.now() : 0;
    }
    if (rec.holderIdentity === '' || rec.holderIdentity === this.identity) return 0;
    return Math.max(0, this.observedAt + this.durationOf(rec) - this.clock.now());
  }

  private holderExpired(rec: LeaseRecord): boolean {
    return this.clock.now() - this.observedAt >= this.durationOf(rec);
  }

  private mustWaitForDeletedLease(): boolean {
    const prev = this.observed?.record;
    return (
      this.leaseMissing &&
      prev !== undefined &&
      prev.holderIdentity !== '' &&
      prev.holderIdentity !== this.identity &&
      !this.holderExpired(prev)
    );
  }

  private async tick(): Promise<void> {
    if (!this.active()) return;
    if (this.attempt) {
      this.rerun = true; // coalesce: run again as soon as the current attempt finishes
      return;
    }
    if (this.state === 'leader' && this.renewExpired()) {
      // Typically: we were frozen past the deadline and this timer fired first on waking up.
      void this.stepDown('renew-deadline-exceeded', this.deadlineMessage());
      return;
    }
    const wasLeader = this.state === 'leader';
    const termAtStart = this.term?.id;
    const startedAt = this.clock.now();
    const controller = new AbortController();
    this.attempt = controller;
    this.rerun = false;
    const budget = wasLeader
      ? Math.max(0, Math.min(this.requestTimeoutMs, this.lastRenewAt + this.renewDeadlineMs - startedAt))
      : this.requestTimeoutMs;
    const timer = this.clock.setTimeout(
      () =>
        controller.abort(new Error(`lease request timed out after ${formatDuration(Math.round(budget))}`)),
      budget,
    );
    let outcome: Outcome;
    let finish: () => void = () => {};
    this.attemptDone = new Promise<void>((resolve) => (finish = resolve));
    try {
      outcome = await this.tryAcquireOrRenew(controller.signal, wasLeader);
    } catch (err) {
      outcome = { kind: 'error', err: controller.signal.aborted ? (controller.signal.reason ?? err) : err };
    } finally {
      this.clock.clearTimeout(timer);
      if (this.attempt === controller) this.attempt = undefined;
      finish();
    }
    // The world moved on while we waited (stepped down, stopping): the transition owns what's next.
    if (this.state !== (wasLeader ? 'leader' : 'candidate') || this.term?.id !== termAtStart) return;

    const seconds = (this.clock.now() - startedAt) / 1000;
    if (wasLeader) {
      const result: RenewResult =
        outcome.kind === 'ok' ? 'success' : outcome.kind === 'error' ? 'error' : 'conflict';
      this.metrics.renewAttempt(this.name, result, seconds, this.clock.wallNow());
      if (outcome.kind === 'ok') {
        this.errorStreak = 0;
        this.lastRenewAt = startedAt;
        this.armDeadline();
      } else if (outcome.kind === 'held') {
        void this.stepDown('lease-lost', `the Lease is now held by ${outcome.holder}`);
        return;
      } else {
        this.errorStreak++;
        this.log.warn('lease renew failed', {
          err: outcome.kind === 'error' ? outcome.err : 'conflict',
          failures: this.errorStreak,
          stepDownInMs: Math.max(0, Math.round(this.lastRenewAt + this.renewDeadlineMs - this.clock.now())),
        });
      }
      const next = this.rerun ? 0 : this.jitter(this.retryPeriodMs) - (this.clock.now() - startedAt);
      this.cancelTick();
      this.scheduleTick(next);
    } else {
      if (outcome.kind === 'ok') {
        this.errorStreak = 0;
        this.metrics.renewAttempt(this.name, 'success', seconds, this.clock.wallNow());
        this.becomeLeader(startedAt);
        return;
      }
      if (outcome.kind === 'error') {
        this.errorStreak++;
        const level = this.errorStreak === 1 || this.errorStreak % 30 === 0 ? 'warn' : 'debug';
        this.log[level]('lease acquire attempt failed', { err: outcome.err, failures: this.errorStreak });
      } else {
        this.errorStreak = 0;
      }
      // Held by someone else: come back when it expires (or earlier, on a watch event). After an error
      // or repeated conflicts: a full jittered retry period, never a tight loop.
      const backoff = this.jitter(this.retryPeriodMs);
      const delay = outcome.kind === 'held' ? Math.min(backoff, this.candidateWait() + 1) : backoff;
      this.cancelTick();
      this.scheduleTick(this.rerun ? 0 : delay);
    }
  }

  /**
   * One acquire-or-renew round (client-go's tryAcquireOrRenew): read the Lease unless our cached copy
   * is trustworthy, decide, write with the resourceVersion read. On a 409 re-read once and decide again.
   */
  private async tryAcquireOrRenew(signal: AbortSignal, leading: boolean): Promise<Outcome> {
    // The leader's cache is its own last successful write; a candidate's is fresh only while its watch
    // is healthy. A stale cache is harmless (the write then fails with 409), only slower.
    let useCache = this.observed !== undefined && !this.forceGet && (leading || this.watchHealthy);
    this.forceGet = false;
    for (let round = 0; round < 2; round++) {
      if (!useCache) this.observe(await this.lease.get(signal), 'get');
      useCache = false;
      if (signal.aborted) throw signal.reason;
      if (!this.active()) return { kind: 'conflict' }; // stopping: start no new write

      if (this.leaseMissing || this.observed === undefined) {
        if (this.mustWaitForDeletedLease())
          return { kind: 'held', holder: this.observed?.record.holderIdentity ?? '' };
        try {
          this.observe(await this.lease.create(this.nextRecord(undefined), signal), 'write');
          return { kind: 'ok' };
        } catch (err) {
          if (err instanceof LeaseConflictError) continue;
          throw err;
        }
      }

      const current = this.observed;
      const holder = current.record.holderIdentity;
      if (holder !== '' && holder !== this.identity) {
        // A leader never overwrites another holder: if someone else holds the Lease we have lost, even
        // if by our clock their record looks old. A candidate waits for it to expire.
        if (leading || !this.holderExpired(current.record)) return { kind: 'held', holder };
      }
      try {
        this.observe(
          await this.lease.update(this.nextRecord(current.record), current.resourceVersion, signal),
          'write',
        );
        return { kind: 'ok' };
      } catch (err) {
        if (err instanceof LeaseConflictError) continue;
        throw err;
      }
    }
    return { kind: 'conflict' };
  }

  private nextRecord(prev: LeaseRecord | undefined): LeaseRecord {
    const now = formatMicroTime(this.clock.wallNow());
    const mine = prev !== undefined && prev.holderIdentity === this.identity;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.round(this.leaseDurationMs / 1000),
      acquireTime: mine && prev.acquireTime ? prev.acquireTime : now,
      renewTime: now,
      leaseTransitions: prev === undefined ? 0 : mine ? prev.leaseTransitions : prev.leaseTransitions + 1,
    };
  }

  /** Records what we learned about the Lease (undefined = it does not exist). */
  private observe(lease: ObservedLease | undefined, source: 'get' | 'watch' | 'write'): void {
    if (lease === undefined) {
      if (!this.leaseMissing) {
        this.leaseMissing = true;
        this.observedKey = undefined;
        this.observedAt = this.clock.now();
      }
      return;
    }
    // A watch may deliver an event older than the response to our own write; don't go back in time.
    if (
      source === 'watch' &&
      this.observed !== undefined &&
      !this.leaseMissing &&
      isOlderResourceVersion(lease.resourceVersion, this.observed.resourceVersion)
    ) {
      return;
    }
    this.leaseMissing = false;
    const key = recordKey(lease.record);
    if (key !== this.observedKey) {
      this.observedKey = key;
      this.observedAt = this.clock.now();
    }
    this.observed = lease;
    this.noteLeader(lease.record.holderIdentity);
  }

  private noteLeader(holder: string): void {
    if (holder === '' || holder === this.lastLeader) return;
    this.lastLeader = holder;
    this.metrics.leaderChanged(this.name);
    this.log.info('new leader observed', { leader: holder, self: holder === this.identity });
    try {
      this.callbacks.onNewLeader?.(holder);
    } catch (err) {
      this.log.error('onNewLeader callback failed', { err });
    }
  }

  // ---------------------------------------------------------------- terms

  private becomeLeader(renewSentAt: number): void {
    this.state = 'leader';
    const id = ++this.termSeq;
    const controller = new AbortController();
    const view: LeaderTerm = {
      id,
      signal: controller.signal,
      canWrite: () => this.term?.id === id && this.canWrite(),
      assertLeading: () => {
        if (this.term?.id !== id) throw new NotLeaderError(`term ${id} has ended`);
        this.assertLeading();
      },
    };
    this.term = { id, controller, view, startedAt: this.clock.now() };
    this.lastRenewAt = renewSentAt;
    this.armDeadline();
    this.metrics.setLeading(this.name, true);
    this.log.info('started leading', {
      term: id,
      leaseTransitions: this.observed?.record.leaseTransitions,
      wallTime: this.clock.wallNow().toISOString(),
    });
    this.cancelTick();
    this.scheduleTick(this.jitter(this.retryPeriodMs));
    try {
      const result = this.callbacks.onStartedLeading(controller.signal, view);
      if (result && typeof result.then === 'function') {
        result.then(undefined, (err: unknown) =>
          this.log.error('onStartedLeading callback failed', { err, term: id }),
        );
      }
    } catch (err) {
      this.log.error('onStartedLeading callback failed', { err, term: id });
    }
  }

  private deadlineMessage(): string {
    const since = Math.round(this.clock.now() - this.lastRenewAt);
    return `no successful lease renew for ${formatDuration(since)} (renew deadline ${formatDuration(this.renewDeadlineMs)})`;
  }

  private armDeadline(): void {
    if (this.deadlineTimer !== undefined) this.clock.clearTimeout(this.deadlineTimer);
    const ms = this.lastRenewAt + this.renewDeadlineMs - this.clock.now();
    this.deadlineTimer = this.clock.setTimeout(() => {
      this.deadlineTimer = undefined;
      if (this.state !== 'leader') return;
      if (this.renewExpired()) void this.stepDown('renew-deadline-exceeded', this.deadlineMessage());
      else this.armDeadline();
    }, ms);
  }

  private clearDeadline(): void {
    if (this.deadlineTimer !== undefined) this.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
  }

  /**
   * Involuntary end of a term. We REJOIN as a candidate rather than exit: the term's signal is
   * aborted and canWrite() is false before any callback runs, so stragglers are fenced; the process
   * keeps its warm caches and its HTTP endpoints; and a partition or API-server restart does not turn
   * into a crash loop with growing back-off (which would delay recovery by minutes).
   */
  private stepDown(reason: StepDownReason, message: string): Promise<void> {
    if (this.state !== 'leader') return this.stepDownDone ?? Promise.resolve();
    this.state = 'stepping-down';
    this.stepDownDone = this.endTerm(reason, message).then(() => {
      if (this.state !== 'stepping-down') return; // stop() took over meanwhile
      this.state = 'candidate';
      // A new candidacy: its first failed attempt is logged at warn. Carrying the renew failures over
      // put every acquire failure after a step-down at debug, so a replica that could not get its
      // Lease back under an overloaded API server logged nothing at all.
      this.errorStreak = 0;
      this.log.info('rejoined leader election as a candidate');
      this.scheduleTick(this.jitter(this.retryPeriodMs));
    });
    return this.stepDownDone;
  }

  private async endTerm(reason: StepDownReason, message: string): Promise<void> {
    const term = this.term;
    this.cancelTick();
    this.clearDeadline();
    const error = new NotLeaderError(message);
    this.attempt?.abort(error);
    term?.controller.abort(error);
    this.termEndedAt = this.clock.now();
    this.metrics.setLeading(this.name, false);
    const fields = {
      reason,
      term: term?.id,
      ledForMs: term ? Math.round(this.clock.now() - term.startedAt) : undefined,
      wallTime: this.clock.wallNow().toISOString(),
    };
    if (reason === 'shutdown') this.log.info(`stopped leading: ${message}`, fields);
    else this.log.warn(`stopped leading: ${message}`, fields);
    const started = this.clock.now();
    try {
      await this.callbacks.onStoppedLeading({ reason, message, term: term?.id ?? 0 });
    } catch (err) {
      this.log.error('onStoppedLeading callback failed', { err });
    }
    const tookMs = this.clock.now() - started;
    if (tookMs > this.renewDeadlineMs)
      this.log.warn('onStoppedLeading took long', { tookMs: Math.round(tookMs) });
  }

  private async doStop(): Promise<void> {
    const prev = this.state;
    if (prev === 'idle' || prev === 'stopped') {
      this.state = 'stopped';
      return;
    }
    const pendingStepDown = prev === 'stepping-down' ? this.stepDownDone : undefined;
    this.state = 'stopping';
    this.cancelTick();
    this.stopWatch();
    if (prev === 'leader') {
      this.attempt?.abort(new Error('leader elector stopping'));
      await this.endTerm('shutdown', 'shutting down');
    } else if (pendingStepDown) {
      await pendingStepDown;
    } else if (this.attempt) {
      // A candidate's acquire may be in flight: let it finish (it is bounded by the request timeout)
      // rather than abort it, so that if it did win we know, and release below.
      await this.attemptDone;
    }
    // Release whenever the last record we saw names us — also after an acquire that completed during
    // shutdown. An optimistic-concurrency update, so it never clears someone else's hold.
    if (
      this.releaseOnCancel &&
      !this.leaseMissing &&
      this.observed?.record.holderIdentity === this.identity
    ) {
      await this.releaseGuard();
      await this.release();
    }
    this.clearDeadline();
    this.term = undefined;
    this.state = 'stopped';
    this.metrics.setLeading(this.name, false);
    this.log.info('left leader election');
  }

  /** Waits until releaseGuardMs have passed since the term ended. */
  private async releaseGuard(): Promise<void> {
    const wait = this.termEndedAt + this.releaseGuardMs() - this.clock.now();
    if (wait > 0) await new Promise<void>((resolve) => this.clock.setTimeout(resolve, wait));
  }

  /** client-go's ReleaseOnCancel: clear the holder (and shorten the lease) if it is still us. */
  private async release(): Promise<void> {
    const controller = new AbortController();
    const timer = this.clock.setTimeout(
      () => controller.abort(new Error('release timed out')),
      this.requestTimeoutMs,
    );
    try {
      let current = this.leaseMissing ? undefined : this.observed;
      for (let round = 0; round < 3; round++) {
        if (round > 0) current = await this.lease.get(controller.signal);
        if (!current || current.record.holderIdentity !== this.identity) {
          this.log.info('lease no longer ours; nothing to release');
          return;
        }
        const now = formatMicroTime(this.clock.wallNow());
        try {
          await this.lease.update(
            {
              holderIdentity: '',
              leaseDurationSeconds: 1,
              acquireTime: now,
              renewTime: now,
              leaseTransitions: current.record.leaseTransitions,
            },
            current.resourceVersion,
            controller.signal,
          );
          this.log.info('released the lease', { wallTime: this.clock.wallNow().toISOString() });
          return;
        } catch (err) {
          if (!(err instanceof LeaseConflictError)) throw err;
        }
      }
      this.log.warn('could not release the lease: it kept changing');
    } catch (err) {
      // A timeout or a 5xx does not say whether the update was committed (a release audited as 504
      // had been). Read the Lease back before calling it a failure.
      const after = await this.readBack();
      if (after !== undefined && after.holder !== this.identity) {
        this.log.info('released the lease', {
          wallTime: this.clock.wallNow().toISOString(),
          confirmedByReadBack: true,
          holder: after.holder,
          err,
        });
        return;
      }
      this.log.warn('could not release the lease; another replica takes over after the lease duration', {
        err,
        readBack: after === undefined ? 'failed' : 'still held by this replica',
      });
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /**
   * The Lease's holder as the API server has it now ('' if released or gone); undefined if unreadable.
   * Bounded by half the request timeout, so release plus read-back fit the shutdown budget.
   */
  private async readBack(): Promise<{ holder: string } | undefined> {
    const controller = new AbortController();
    const timer = this.clock.setTimeout(
      () => controller.abort(new Error('lease read-back timed out')),
      this.requestTimeoutMs / 2,
    );
    try {
      const lease = await this.lease.get(controller.signal);
      return { holder: lease?.record.holderIdentity ?? '' };
    } catch {
      return undefined;
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  // ---------------------------------------------------------------- the watch
  //
  // One watch for the elector's whole life. Reconnecting, resuming and backing off are the watch's own
  // job (KubeLeaseClient runs it on the operator's one informer loop); the elector only learns from
  // its events, and while it reports errors, candidates stop trusting their cached copy and poll.

  private startWatch(): void {
    if (!this.watchEnabled) return;
    this.watchHealthy = false;
    let session: LeaseWatch | undefined;
    const current = () => session !== undefined && this.watchSession === session;
    try {
      session = this.lease.watch({
        onEvent: (type, lease) => {
          if (current()) this.onWatchEvent(type, lease);
        },
        onError: (err) => {
          if (current()) this.onWatchError(err);
        },
      });
      this.watchSession = session;
    } catch (err) {
      this.onWatchError(err);
    }
  }

  private stopWatch(): void {
    this.watchHealthy = false;
    this.watchSession?.stop();
    this.watchSession = undefined;
  }

  private onWatchEvent(type: LeaseWatchEventType, lease: ObservedLease): void {
    if (!this.watchHealthy) this.log.debug('lease watch established');
    this.watchHealthy = true;
    this.watchFailures = 0;
    this.observe(type === 'DELETED' ? undefined : lease, 'watch');
    if (this.state === 'leader') {
      // Someone else's record (newer than our last write), or the Lease deleted: verify right away
      // with a fresh read rather than waiting for the next renew.
      if (this.leaseMissing || this.observed?.record.holderIdentity !== this.identity) {
        this.forceGet = true;
        this.scheduleTick(0);
      }
    } else if (this.state === 'candidate') {
      this.scheduleTick(this.candidateWait());
    }
  }

  private onWatchError(err: unknown): void {
    this.watchHealthy = false; // candidates poll with GET until the watch delivers again
    this.watchFailures++;
    const level = this.watchFailures === 1 || this.watchFailures % 20 === 0 ? 'warn' : 'debug';
    this.log[level]('lease watch failed; polling until it is back', { err, failures: this.watchFailures });
  }
}
