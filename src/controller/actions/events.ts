// Action: Kubernetes Events on a GlooHA (what `kubectl describe` shows). An identical event (same
// object, type, reason and message) is not re-sent within the dedupe window, so a condition that
// persists does not turn every reconcile into a write. Events are best effort: a failed one is logged
// and does not fail the reconcile — unless the reconcile's term ended, which must stop it at once.
//
// Bounded, as client-go's event broadcaster is: the reconciler does not wait for its events (they were
// 43% of a cold start's writes), so without a bound every reconcile that finished added its events to
// the requests in flight, and a slow API server let them grow with the reconciles done — each one a
// request, a connection of the pool, and memory held until it was answered. At most `maxInFlight`
// are sent at once (the controller passes its concurrency: no more event writes than reconciles),
// later ones wait in a FIFO of at most `maxQueued` (client-go's maxQueuedEvents, 1000), and past that
// an event is dropped and counted (glooha_events_dropped_total), never waited for: waiting would hand
// the back-pressure to the reconciles, whose writes matter more than their Events.
import type { CoreV1Event } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import type { HAObject } from '../../api/types.js';
import { NotLeaderError } from '../../leader/leadership.js';
import { abortReason } from '../../runtime/clock.js';
import type { Logger } from '../../log.js';
import type { PlannedEvent } from '../plan-types.js';
import type { ObjectWriter } from './writer.js';

const DEDUPE_MS = 10 * 60_000;
const MAX_REMEMBERED = 10_000;
const COMPONENT = 'glooha-operator';
/** Events waiting for a free slot at most (client-go's maxQueuedEvents). */
export const MAX_QUEUED_EVENTS = 1000;

export interface EventLimits {
  /** Event writes in flight at most (default 4, the default concurrency). */
  maxInFlight?: number;
  /** Events waiting for a slot at most (default MAX_QUEUED_EVENTS); past it they are dropped. */
  maxQueued?: number;
  /** An event was dropped because the queue was full. */
  onDropped?: () => void;
}

export class EventRecorder {
  private readonly recent = new Map<string, number>();
  private readonly maxInFlight: number;
  private readonly maxQueued: number;
  private readonly onDropped: () => void;
  private active = 0;
  /** Sends waiting for a slot, in the order they were recorded. */
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly writer: ObjectWriter,
    private readonly log: Logger,
    /** Wall-clock milliseconds (event timestamps and the dedupe window). */
    private readonly now: () => number = () => Date.now(),
    private readonly instance: string = process.env.POD_NAME ?? COMPONENT,
    limits: EventLimits = {},
  ) {
    this.maxInFlight = Math.max(1, Math.floor(limits.maxInFlight ?? 4));
    this.maxQueued = Math.max(0, Math.floor(limits.maxQueued ?? MAX_QUEUED_EVENTS));
    this.onDropped = limits.onDropped ?? (() => {});
  }

  /** Event writes in flight, and events waiting for one to end. */
  get pending(): { inFlight: number; queued: number } {
    return { inFlight: this.active, queued: this.waiting.length };
  }

  async record(obj: HAObject, e: PlannedEvent, signal: AbortSignal): Promise<void> {
    const key = `${obj.metadata.uid}|${e.type}|${e.reason}|${e.message}`;
    const now = this.now();
    const last = this.recent.get(key);
    if (last !== undefined && now - last < DEDUPE_MS) return;
    this.recent.set(key, now);
    if (this.recent.size > MAX_REMEMBERED) this.prune(now);
    const namespace = obj.metadata.namespace ?? 'default';
    const ts = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const event: CoreV1Event = {
      metadata: { name: `${obj.metadata.name}.${randomBytes(8).toString('hex')}`, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: obj.metadata.name,
        namespace,
        uid: obj.metadata.uid,
        resourceVersion: obj.metadata.resourceVersion,
      },
      type: e.type,
      reason: e.reason,
      message: e.message.slice(0, 1024),
      source: { component: COMPONENT },
      reportingComponent: COMPONENT,
      reportingInstance: this.instance,
      firstTimestamp: ts as unknown as Date,
      lastTimestamp: ts as unknown as Date,
      count: 1,
    };
    const slot = this.acquire();
    // Synchronous when a slot is free: the write starts in this call, as it did before the bound.
    if (!(typeof slot === 'boolean' ? slot : await slot)) {
      this.recent.delete(key); // not sent: the next identical one may be
      this.onDropped();
      this.log.debug('event dropped: too many waiting to be sent', { reason: e.reason });
      return;
    }
    try {
      // The term may have ended while it waited for a slot: nothing to send any more.
      if (typeof slot !== 'boolean' && signal.aborted) {
        this.recent.delete(key);
        throw abortReason(signal);
      }
      await this.writer.createEvent(event, signal);
    } catch (err) {
      if (signal.aborted || err instanceof NotLeaderError) throw err;
      this.recent.delete(key);
      this.log.warn('could not record event', { reason: e.reason, err });
    } finally {
      this.release();
    }
  }

  /** True once a send may start (a slot is taken); false when the queue is full (drop it). */
  private acquire(): boolean | Promise<boolean> {
    if (this.active < this.maxInFlight) {
      this.active++;
      return true;
    }
    if (this.waiting.length >= this.maxQueued) return false;
    // The slot is handed over in release(), so no newer record() can take it first.
    return new Promise((resolve) => this.waiting.push(() => resolve(true)));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  /** Forgets the events of a GlooHA that is gone (by uid). */
  forget(uid: string | undefined): void {
    if (!uid) return;
    for (const k of this.recent.keys()) if (k.startsWith(`${uid}|`)) this.recent.delete(k);
  }

  private prune(now: number): void {
    for (const [k, t] of this.recent) if (now - t >= DEDUPE_MS) this.recent.delete(k);
  }
}
