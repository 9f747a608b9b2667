// Every record a Lease goes through, as a watch delivers it (a watch delivers each write, in order):
// who held it from when, when it was cleared. Ground truth for "a new holder N seconds after X" and
// "never cleared" in the tests and benches of the managed product's handover.
import { Watch, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { adminKubeConfig } from './cluster.js';
import { eventually } from './wait.js';

export interface LeaseRecord {
  /** Date.now() when the event arrived. */
  at: number;
  holder: string;
  resourceVersion: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
}

export class LeaseRecorder {
  readonly records: LeaseRecord[] = [];
  private abort?: AbortController;
  private stopped = false;

  private constructor(
    private readonly namespace: string,
    private readonly name: string,
    private readonly kc: KubeConfig,
  ) {}

  static async start(namespace: string, name: string, kc = adminKubeConfig()): Promise<LeaseRecorder> {
    const r = new LeaseRecorder(namespace, name, kc);
    await r.watch();
    return r;
  }

  private async watch(resourceVersion?: string): Promise<void> {
    if (this.stopped) return;
    const w = new Watch(this.kc);
    this.abort = await w.watch(
      `/apis/coordination.k8s.io/v1/namespaces/${this.namespace}/leases`,
      {
        fieldSelector: `metadata.name=${this.name}`,
        allowWatchBookmarks: false,
        ...(resourceVersion ? { resourceVersion } : {}),
      },
      (phase: string, l: V1Lease) => {
        if (phase !== 'ADDED' && phase !== 'MODIFIED') return;
        const rv = l.metadata?.resourceVersion ?? '';
        if (this.records.some((x) => x.resourceVersion === rv)) return;
        this.records.push({
          at: Date.now(),
          holder: l.spec?.holderIdentity ?? '',
          resourceVersion: rv,
          leaseDurationSeconds: l.spec?.leaseDurationSeconds,
          leaseTransitions: l.spec?.leaseTransitions,
        });
      },
      () => {
        // Resume from the last record seen (a watch ends after its timeout).
        if (!this.stopped) void this.watch(this.records.at(-1)?.resourceVersion).catch(() => undefined);
      },
    );
  }

  /** The current holder as last recorded. */
  holder(): string {
    return this.records.at(-1)?.holder ?? '';
  }

  /** Records from time `since` (Date.now() ms) on. */
  since(since: number): LeaseRecord[] {
    return this.records.filter((r) => r.at >= since);
  }

  /** The first record after `since` held by someone other than `previous` (and not empty). */
  nextHolder(since: number, previous: string): LeaseRecord | undefined {
    return this.since(since).find((r) => r.holder !== '' && r.holder !== previous);
  }

  /** Waits for nextHolder(since, previous); `what` names it in the timeout's error. */
  async awaitNextHolder(
    since: number,
    previous: string,
    what: string,
    timeoutMs: number,
  ): Promise<LeaseRecord> {
    const next = await eventually(
      what,
      async () => this.nextHolder(since, previous),
      (r) => r !== undefined,
      {
        timeoutMs,
        intervalMs: 50,
      },
    );
    return next!;
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }
}

/** The pod a controller-runtime identity names (`<pod>_<uuid>`). */
export const podOf = (holder: string): string => holder.split('_')[0] ?? '';
