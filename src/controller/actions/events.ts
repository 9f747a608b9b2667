// Action: Kubernetes Events on a GlooHA (what `kubectl describe` shows). An identical event (same
// object, type, reason and message) is not re-sent within the dedupe window, so a condition that
// persists does not turn every reconcile into a write. Events are best effort: a failed one is logged
// and does not fail the reconcile — unless the reconcile's term ended, which must stop it at once.
import type { CoreV1Event } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import type { HAObject } from '../../api/types.js';
import { NotLeaderError } from '../../leader/leadership.js';
import type { Logger } from '../../log.js';
import type { PlannedEvent } from '../plan-types.js';
import type { ObjectWriter } from './writer.js';

const DEDUPE_MS = 10 * 60_000;
const MAX_REMEMBERED = 10_000;
const COMPONENT = 'glooha-operator';

export class EventRecorder {
  private readonly recent = new Map<string, number>();

  constructor(
    private readonly writer: ObjectWriter,
    private readonly log: Logger,
    /** Wall-clock milliseconds (event timestamps and the dedupe window). */
    private readonly now: () => number = () => Date.now(),
    private readonly instance: string = process.env.POD_NAME ?? COMPONENT,
  ) {}

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
    try {
      await this.writer.createEvent(event, signal);
    } catch (err) {
      if (signal.aborted || err instanceof NotLeaderError) throw err;
      this.recent.delete(key);
      this.log.warn('could not record event', { reason: e.reason, err });
    }
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
