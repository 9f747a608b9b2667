// Kubernetes Events on a GlooHA (what `kubectl describe` shows): creates, updates, drift, warnings.
// An identical event (same object, reason and message) is not re-sent within the dedupe window, so a
// condition that persists does not turn every reconcile into a write.
import type { CoreV1Api } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import type { GlooHA } from '../api/types.js';
import type { Logger } from '../log.js';

const DEDUPE_MS = 10 * 60_000;
const COMPONENT = 'glooha-operator';

export class EventRecorder {
  private readonly recent = new Map<string, number>();

  constructor(
    private readonly core: CoreV1Api,
    private readonly log: Logger,
    private readonly now: () => number = () => Date.now(),
  ) {}

  normal(obj: GlooHA, reason: string, message: string): Promise<void> {
    return this.record(obj, 'Normal', reason, message);
  }

  warn(obj: GlooHA, reason: string, message: string): Promise<void> {
    return this.record(obj, 'Warning', reason, message);
  }

  private async record(
    obj: GlooHA,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<void> {
    const key = `${obj.metadata.uid}|${type}|${reason}|${message}`;
    const now = this.now();
    const last = this.recent.get(key);
    if (last !== undefined && now - last < DEDUPE_MS) return;
    this.recent.set(key, now);
    if (this.recent.size > 10_000) this.prune(now);
    const namespace = obj.metadata.namespace ?? 'default';
    const ts = new Date(now);
    try {
      await this.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name: `${obj.metadata.name}.${randomBytes(8).toString('hex')}`, namespace },
          involvedObject: {
            apiVersion: obj.apiVersion,
            kind: obj.kind,
            name: obj.metadata.name,
            namespace,
            uid: obj.metadata.uid,
            resourceVersion: obj.metadata.resourceVersion,
          },
          type,
          reason,
          message: message.slice(0, 1024),
          source: { component: COMPONENT },
          reportingComponent: COMPONENT,
          reportingInstance: process.env.POD_NAME ?? COMPONENT,
          firstTimestamp: ts,
          lastTimestamp: ts,
          count: 1,
        },
      });
    } catch (err) {
      // An event is best effort: losing one must not fail (and retry) the reconcile that caused it,
      // except when we lost leadership — that must stop the reconcile at once.
      if ((err as { name?: string }).name === 'NotLeaderError') throw err;
      this.recent.delete(key);
      this.log.warn('could not record event', { reason, err: (err as Error).message });
    }
  }

  private prune(now: number): void {
    for (const [k, t] of this.recent) if (now - t >= DEDUPE_MS) this.recent.delete(k);
  }
}
