// A controller ties informers to a work queue, like controller-runtime's: each informer event is
// filtered, mapped to the keys it concerns (its own key for the primary resource; the owning
// resource's key for secondary ones) and only those keys are enqueued — the reconcile function then
// reads the current state from the caches, so it is level-triggered and a burst of events collapses
// into one reconcile. `start` waits for every cache to sync before the first reconcile (a reconcile
// on a half-filled cache would see objects as missing), and a periodic resync re-queues every primary
// key as a safety net against missed events and for time-based conditions.
//
// Priorities (see ready-queue.ts), as controller-runtime's handler does with its priority queue: what
// a cache's initial list brings — the adds before the informer first synced, and the replay of its
// cache when the controller registers (every key, at the start of each leader term) — and every
// resync go in at LOW priority; events after that at NORMAL, unless the watch's `lowPriority` says an
// event is only the echo of the controller's own write. So the backlog of a cold start is worked
// through in the order it was listed while a change made meanwhile is handled next.
import { realClock, type Clock } from './clock.js';
import { ignoreNoopUpdates, type EventFilter, type InformerEvent } from './filters.js';
import type { Informer } from './informer.js';
import type { RateLimiter } from './ratelimit.js';
import { Priority } from './ready-queue.js';
import { objectKey } from './store.js';
import { Workqueue, type PriorityOf, type ShutDownOptions, type WorkHandler } from './workqueue.js';
import type { WorkqueueMetrics } from './workqueue-metrics.js';
import { silentLogger, type Logger } from '../log.js';
import type { KubernetesObject } from '@kubernetes/client-node';

export interface ControllerOptions {
  name: string;
  reconcile: WorkHandler;
  /** Keys reconciled at the same time (default 1, as controller-runtime's MaxConcurrentReconciles). */
  concurrency?: number;
  rateLimiter?: RateLimiter;
  metrics?: WorkqueueMetrics;
  /** Re-queue every key of the `resync` informers this often, ±10% jitter (default: never). */
  resyncPeriodMs?: number;
  logger?: Logger;
  clock?: Clock;
  /** Cancels in-flight reconciles when it fires (the leader term's signal): see WorkqueueOptions. */
  signal?: AbortSignal;
}

export type KeyMapper<T> = (obj: T, event: InformerEvent<T>) => string | readonly string[] | undefined;

export interface ControllerWatchOptions<T> {
  /**
   * The keys an object's events concern. Default: the object's own `namespace/name` (the primary
   * resource). For an update both the old and the new object are mapped (a label change can move an
   * object from one owner to another). Return undefined or [] to enqueue nothing.
   */
  mapToKeys?: KeyMapper<T>;
  /** Events rejected here enqueue nothing. Default `ignoreNoopUpdates`; pass `() => true` to get every event. */
  filter?: EventFilter<T>;
  /** Include this informer's keys in the periodic resync (default: true when `mapToKeys` is not set). */
  resync?: boolean;
  /**
   * Events (after the initial list) this returns true for, for a key, are queued at LOW priority
   * instead of NORMAL: the echo of the controller's own write, or a status another controller
   * reported, which need a look but are no one's change. Must be cheap: it runs for every event and
   * key that passes the filter.
   */
  lowPriority?: (obj: T, key: string, event: InformerEvent<T>) => boolean;
}

interface Watched {
  informer: Informer<KubernetesObject>;
  mapToKeys?: KeyMapper<KubernetesObject>;
  resync: boolean;
  unregister: () => void;
}

export class Controller {
  readonly name: string;
  readonly queue: Workqueue;
  private readonly watched: Watched[] = [];
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly resyncPeriodMs: number;
  private resyncTimer: unknown;
  private readonly stopAbort = new AbortController();
  private state: 'new' | 'starting' | 'running' | 'stopped' = 'new';

  constructor(opts: ControllerOptions) {
    this.name = opts.name;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? silentLogger).child({ controller: opts.name });
    this.resyncPeriodMs = opts.resyncPeriodMs ?? 0;
    this.queue = new Workqueue(opts.reconcile, {
      name: opts.name,
      concurrency: opts.concurrency,
      rateLimiter: opts.rateLimiter,
      metrics: opts.metrics,
      clock: opts.clock,
      logger: opts.logger,
      signal: opts.signal,
    });
  }

  /** Enqueue the keys `informer`'s events map to. Call before or after `start` (late informers are started). */
  watch<T extends KubernetesObject>(informer: Informer<T>, opts: ControllerWatchOptions<T> = {}): void {
    if (this.state === 'stopped') throw new Error(`controller ${this.name} is stopped`);
    const filter = opts.filter ?? ignoreNoopUpdates;
    const map = opts.mapToKeys;
    const keysOf = (obj: T, ev: InformerEvent<T>): string[] => {
      const keys = map ? map(obj, ev) : objectKey(obj);
      if (keys === undefined) return [];
      return (typeof keys === 'string' ? [keys] : keys).filter((k) => !!k);
    };
    const low = opts.lowPriority;
    // Asked late for a key being reconciled (see PriorityOf): the hook can then tell the echo of that
    // reconcile's own write, whose answer it may not have had when the event came.
    const priorityOf = (obj: T, key: string, ev: InformerEvent<T>): PriorityOf =>
      low ? () => (low(obj, key, ev) ? Priority.low : Priority.normal) : Priority.normal;
    const enqueue = (obj: T, ev: InformerEvent<T>) => {
      for (const k of keysOf(obj, ev)) this.queue.add(k, priorityOf(obj, k, ev));
    };
    // True while addEventHandler replays the cache: those adds are the initial list, not events.
    let replaying = true;
    const unregister = informer.addEventHandler({
      filter,
      add: (obj) => {
        // Before the first sync an add is the reflector's initial list arriving (a re-list after that
        // emits only what changed, and those are events).
        if (replaying || !informer.hasSynced())
          for (const k of keysOf(obj, { type: 'add', obj })) this.queue.add(k, Priority.low);
        else enqueue(obj, { type: 'add', obj });
      },
      update: (old, obj) => {
        const ev: InformerEvent<T> = { type: 'update', old, obj };
        // Each key once: the queue hands a key to an idle worker as soon as it is added, so adding it
        // again for the new object would mark it dirty and reconcile it twice for one event.
        for (const k of new Set([...keysOf(old, ev), ...keysOf(obj, ev)]))
          this.queue.add(k, priorityOf(obj, k, ev));
      },
      delete: (obj, finalStateUnknown) => enqueue(obj, { type: 'delete', obj, finalStateUnknown }),
    });
    replaying = false;
    this.watched.push({
      informer: informer as unknown as Informer<KubernetesObject>,
      mapToKeys: map as KeyMapper<KubernetesObject> | undefined,
      resync: opts.resync ?? !map,
      unregister,
    });
    if (this.state !== 'new') informer.start();
  }

  /** True once `start` was called (whatever happened since). */
  isStarted(): boolean {
    return this.state !== 'new';
  }

  /** True once every watched informer has synced. */
  hasSynced(): boolean {
    return this.watched.every((w) => w.informer.hasSynced());
  }

  /**
   * Starts the informers (those not running yet), waits for their caches to sync, then starts the
   * workers and the resync timer. Rejects if `stop` is called before the caches synced.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`controller ${this.name} already started`);
    this.state = 'starting';
    for (const w of this.watched) if (!w.informer.isRunning()) w.informer.start();
    const started = this.clock.now();
    const waiting = setInterval(() => {
      const pending = this.watched.filter((w) => !w.informer.hasSynced()).map((w) => w.informer.name);
      this.log.warn('still waiting for caches to sync', {
        pending,
        waitedSeconds: Math.round((this.clock.now() - started) / 1000),
      });
    }, 30_000);
    try {
      await Promise.all(this.watched.map((w) => w.informer.waitForSync(this.stopAbort.signal)));
    } finally {
      clearInterval(waiting);
    }
    if (this.state !== 'starting')
      throw new Error(`controller ${this.name} stopped before its caches synced`);
    this.state = 'running';
    this.queue.start();
    this.scheduleResync();
    this.log.info('started', { informers: this.watched.map((w) => w.informer.name) });
  }

  /** Re-queues every key of the resync informers now, at LOW priority (nothing changed: a safety net). */
  resyncNow(): void {
    for (const w of this.watched) {
      if (!w.resync) continue;
      for (const obj of w.informer.store.list()) {
        const keys = w.mapToKeys ? w.mapToKeys(obj, { type: 'add', obj }) : objectKey(obj);
        if (keys === undefined) continue;
        for (const k of typeof keys === 'string' ? [keys] : keys) if (k) this.queue.add(k, Priority.low);
      }
    }
  }

  /**
   * Stops the resync, the workers (waiting for in-flight reconciles; `abort` cancels them) and, unless
   * `stopInformers` is false, the informers.
   */
  async stop(opts: ShutDownOptions & { stopInformers?: boolean } = {}): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.stopAbort.abort(new Error(`controller ${this.name} stopped`));
    this.clock.clearTimeout(this.resyncTimer);
    for (const w of this.watched) w.unregister();
    await Promise.all([
      this.queue.shutDown(opts),
      ...(opts.stopInformers === false ? [] : this.watched.map((w) => w.informer.stop())),
    ]);
    this.log.info('stopped');
  }

  private scheduleResync(): void {
    if (!(this.resyncPeriodMs > 0) || this.state !== 'running') return;
    const delay = this.resyncPeriodMs * (0.9 + Math.random() * 0.2);
    this.resyncTimer = this.clock.setTimeout(() => {
      if (this.state !== 'running') return;
      this.resyncNow();
      this.scheduleResync();
    }, delay);
  }
}
