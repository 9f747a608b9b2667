// One watch on a namespace's Deployments that records, with a timestamp, every change of each one's
// spec.replicas and status.availableReplicas, from the moment it starts: a dip that lasts one watch
// event counts, which sampling at the end of a test would miss.
import { AppsV1Api, Watch, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';

export interface DeploymentChange {
  deployment: string;
  field: 'replicas' | 'available';
  from: number | undefined;
  to: number | undefined;
  /** ms since start(). */
  atMs: number;
}

export class AvailabilityWatch {
  readonly changes: DeploymentChange[] = [];
  private readonly last = new Map<string, { replicas?: number; available?: number }>();
  private abort?: AbortController;
  private started = 0;

  constructor(
    private readonly kc: KubeConfig,
    private readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    this.started = performance.now();
    const list = await this.kc
      .makeApiClient(AppsV1Api)
      .listNamespacedDeployment({ namespace: this.namespace });
    for (const d of list.items)
      this.last.set(d.metadata?.name ?? '', {
        replicas: d.spec?.replicas,
        available: d.status?.availableReplicas,
      });
    this.abort = await new Watch(this.kc).watch(
      `/apis/apps/v1/namespaces/${this.namespace}/deployments`,
      { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: false },
      (type: string, d: V1Deployment) => {
        if (type === 'DELETED' || type === 'BOOKMARK') return;
        const name = d.metadata?.name ?? '';
        const before = this.last.get(name) ?? {};
        const now = { replicas: d.spec?.replicas, available: d.status?.availableReplicas };
        const atMs = Math.round(performance.now() - this.started);
        if (before.replicas !== now.replicas)
          this.changes.push({
            deployment: name,
            field: 'replicas',
            from: before.replicas,
            to: now.replicas,
            atMs,
          });
        if (before.available !== now.available)
          this.changes.push({
            deployment: name,
            field: 'available',
            from: before.available,
            to: now.available,
            atMs,
          });
        this.last.set(name, now);
      },
      (err: unknown) => {
        if (err && !this.abort?.signal.aborted)
          this.changes.push({
            deployment: `watch ended: ${err instanceof Error ? err.message : JSON.stringify(err)}`,
            field: 'replicas',
            from: undefined,
            to: undefined,
            atMs: -1,
          });
      },
    );
  }

  stop(): DeploymentChange[] {
    this.abort?.abort();
    return [...this.changes];
  }

  /** The lowest availableReplicas `deployment` reported since start (its value at start included). */
  static lowestAvailable(changes: DeploymentChange[], deployment: string, atStart: number): number {
    return changes
      .filter((c) => c.deployment === deployment && c.field === 'available')
      .reduce((min, c) => Math.min(min, c.to ?? 0), atStart);
  }

  static describe(changes: DeploymentChange[]): string {
    return (
      changes.map((c) => `${c.atMs}ms ${c.deployment} ${c.field} ${c.from}→${c.to}`).join('; ') || 'none'
    );
  }
}
