// Hands the managed product's leader Lease over once the kubelet reported that its holder's own
// process ended (docs/leader-election.md, "The managed product's leader: handing over a dead holder's
// Lease"): the products do not release their Lease when their leader stops, so without this every
// rolled, drained or crashed leader leaves the install leaderless until the Lease expires.
//
// Product-agnostic: the product names the pods that elect and maps a holder identity to one of them
// (Product.leaderPods); src/core/dead-holder.ts decides. This module keeps what the decision needs that
// a cache forgets (the last state of a deleted pod), and writes what client-go's release writes, as an
// update conditional on the resourceVersion the decision read. Only the operator's leader writes.
import type { V1Lease, V1Pod } from '@kubernetes/client-node';
import {
  decideHolderRelease,
  podFacts,
  timeMicros,
  type HolderDecision,
  type PodFacts,
} from '../core/dead-holder.js';
import { errorStatus, type KubeClient } from '../kube/client.js';
import { resourcePath } from '../kube/paths.js';
import { formatMicroTime } from '../leader/lease-client.js';
import { NotLeaderError, type Leadership } from '../leader/leadership.js';
import type { Logger } from '../log.js';
import type { Clock } from '../runtime/clock.js';
import { LEASES } from './kinds.js';

/** How long the last state of a deleted pod is kept: well past any Lease it could still hold. */
export const DELETED_POD_MEMORY_MS = 10 * 60_000;
const MAX_DELETED_PODS = 10_000;

export interface HolderReleaseDeps {
  client: KubeClient;
  leadership: Leadership;
  log: Logger;
  clock: Clock;
  /** The pod of that name in the cache (the product's elected pods only). */
  pod(namespace: string, name: string): V1Pod | undefined;
  /** The Lease in the cache. */
  lease(namespace: string): V1Lease | undefined;
  /** The pod a holder identity names (the product's mapping). */
  holderPod(holder: string): string | undefined;
  /** The container of those pods that runs the product's leader election. */
  electorContainer: string;
  /** Whether an HA object manages the install in that namespace (nothing else is touched). */
  managed(namespace: string): boolean;
  /** Called after a successful clear (metrics, tests). */
  onReleased?(namespace: string, holder: string, reason: string): void;
}

export class HolderRelease {
  private readonly deleted = new Map<string, { facts: PodFacts; atMono: number }>();
  /** The Lease records (namespace/resourceVersion) already written or decided on: never twice. */
  private readonly attempted = new Set<string>();

  constructor(private readonly deps: HolderReleaseDeps) {}

  /** A pod of the product was deleted: its final state is what its kubelet last reported. */
  podDeleted(pod: V1Pod): void {
    const ns = pod.metadata?.namespace ?? '';
    const now = this.deps.clock.now();
    this.deleted.set(`${ns}/${pod.metadata?.name ?? ''}`, {
      facts: podFacts(pod, this.deps.electorContainer),
      atMono: now,
    });
    for (const [k, v] of this.deleted)
      if (now - v.atMono > DELETED_POD_MEMORY_MS || this.deleted.size > MAX_DELETED_PODS)
        this.deleted.delete(k);
      else break; // insertion order: the rest are younger
  }

  /** The decision for the namespace's Lease as the caches stand (undefined: no Lease). */
  decide(namespace: string): HolderDecision | undefined {
    const lease = this.deps.lease(namespace);
    if (!lease) return undefined;
    const holder = lease.spec?.holderIdentity ?? '';
    const holderPod = holder ? this.deps.holderPod(holder) : undefined;
    const pod = holderPod ? this.deps.pod(namespace, holderPod) : undefined;
    const deleted = holderPod ? this.deleted.get(`${namespace}/${holderPod}`)?.facts : undefined;
    return decideHolderRelease({
      holder,
      acquireTimeUs: timeMicros(lease.spec?.acquireTime),
      renewTimeUs: timeMicros(lease.spec?.renewTime),
      ...(holderPod ? { holderPod } : {}),
      ...(pod ? { pod: podFacts(pod, this.deps.electorContainer) } : {}),
      ...(deleted ? { deleted } : {}),
    });
  }

  /** Decides for the namespace's Lease and, on the leader, clears a confirmed-dead holder. */
  async evaluate(namespace: string): Promise<boolean> {
    const { leadership, log } = this.deps;
    if (!leadership.canWrite() || !this.deps.managed(namespace)) return false;
    const lease = this.deps.lease(namespace);
    const rv = lease?.metadata?.resourceVersion;
    if (!lease || !rv) return false;
    const key = `${namespace}/${rv}`;
    if (this.attempted.has(key)) return false;
    const d = this.decide(namespace);
    if (!d?.release) return false;
    this.attempted.add(key);
    if (this.attempted.size > MAX_DELETED_PODS) this.attempted.clear();
    const holder = lease.spec?.holderIdentity ?? '';
    try {
      await this.clear(lease, leadership.leadingSignal);
    } catch (err) {
      if (err instanceof NotLeaderError) return false;
      // 409: the Lease changed since it was read (renewed or taken): nothing was written.
      const status = errorStatus(err);
      if (status === 409 || status === 404) {
        log.info('product Lease changed before its dead holder was cleared: left as it is', {
          namespace,
          lease: lease.metadata?.name,
          holder,
        });
        return false;
      }
      log.warn('could not clear the product Lease of a stopped holder', {
        namespace,
        lease: lease.metadata?.name,
        holder,
        error: err instanceof Error ? err.message : String(err),
      });
      this.attempted.delete(key);
      return false;
    }
    log.info("cleared the product's Lease: the kubelet reported its holder's process ended", {
      namespace,
      lease: lease.metadata?.name,
      holder,
      reason: d.reason,
    });
    this.deps.onReleased?.(namespace, holder, d.reason);
    return true;
  }

  /**
   * What client-go's LeaderElector.release() writes: no holder, leaseDurationSeconds 1, acquire and
   * renew time now, the transitions unchanged — as an update on the resourceVersion read.
   */
  private async clear(lease: V1Lease, signal: AbortSignal): Promise<void> {
    const now = formatMicroTime(this.deps.clock.wallNow());
    const { managedFields: _dropped, ...metadata } = lease.metadata ?? {};
    const spec = { ...(lease.spec ?? {}) } as Record<string, unknown>;
    delete spec.holderIdentity;
    const body = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata,
      spec: {
        ...spec,
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
      },
    };
    await this.deps.client.request(
      'PUT',
      resourcePath(LEASES, lease.metadata?.namespace, lease.metadata?.name),
      { body, signal },
    );
  }
}
