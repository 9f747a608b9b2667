// Watches a Gloo install while a Helm command runs and records what users feel: pods of Gloo's
// Deployments that were deleted (restarted), every change of a Deployment's spec.replicas (with a
// timestamp, to measure how fast the operator restored it) and the operator's drift corrections
// (its glooha_drift_corrections_total metric). Hook-Job pods are not counted: only pods a ReplicaSet owns.
import {
  AppsV1Api,
  CoreV1Api,
  Watch,
  type KubeConfig,
  type V1Deployment,
  type V1Pod,
} from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { metricValue } from './operator.js';
import { eventually } from './wait.js';

export interface ReplicaChange {
  deployment: string;
  from: number | undefined;
  to: number | undefined;
  atMs: number;
}

export interface Measurement {
  /** Pods of Gloo's Deployments deleted during the window, by Deployment (from the pod's gloo/gateway-proxy-id label). */
  podRestarts: Record<string, number>;
  replicaChanges: ReplicaChange[];
  driftCorrections: number;
}

export function totalRestarts(m: Measurement): number {
  return Object.values(m.podRestarts).reduce((a, b) => a + b, 0);
}

export function describeMeasurement(m: Measurement): string {
  const restarts =
    Object.entries(m.podRestarts)
      .map(([d, n]) => `${d} ${n}`)
      .join(', ') || 'none';
  const changes = m.replicaChanges.map((c) => `${c.deployment} ${c.from}→${c.to}`).join(', ') || 'none';
  return `pod restarts: ${restarts}; replica changes: ${changes}; drift corrections: ${m.driftCorrections}`;
}

async function driftCorrections(metricsUrl: string): Promise<number> {
  // The counter appears with its first correction.
  return metricValue(metricsUrl, 'glooha_drift_corrections_total').catch(() => 0);
}

function deploymentOfPod(pod: V1Pod): string {
  const l = pod.metadata?.labels ?? {};
  return l['gateway-proxy-id'] ?? l.gloo ?? pod.metadata?.name ?? '';
}

export class InstallRecorder {
  private readonly restarts: Record<string, number> = {};
  private readonly changes: ReplicaChange[] = [];
  private readonly replicas = new Map<string, number | undefined>();
  private readonly aborts: AbortController[] = [];
  private driftAtStart = 0;
  private started = 0;

  constructor(
    private readonly kc: KubeConfig,
    private readonly namespace: string,
    private readonly metricsUrl: string,
  ) {}

  private stopped = false;
  /** The ReplicaSets' pods seen alive, by name (their deployment), to count deletions a watch gap hid. */
  private readonly pods = new Map<string, string>();

  async start(): Promise<void> {
    this.started = performance.now();
    this.driftAtStart = await driftCorrections(this.metricsUrl);
    await this.watchDeployments(true);
    await this.watchPods(true);
  }

  private recordReplicas(d: V1Deployment): void {
    const name = d.metadata?.name ?? '';
    const before = this.replicas.get(name);
    if (this.replicas.has(name) && before !== d.spec?.replicas)
      this.changes.push({
        deployment: name,
        from: before,
        to: d.spec?.replicas,
        atMs: performance.now() - this.started,
      });
    this.replicas.set(name, d.spec?.replicas);
  }

  /**
   * Lists, then watches from the list's resourceVersion. A watch the API server ends (on a loaded machine
   * it did, with events undelivered) is started again from a new list, whose differences are recorded
   * as the watch would have: nothing that happened in the gap goes unseen.
   */
  private async watchDeployments(first: boolean): Promise<void> {
    if (this.stopped) return;
    const apps = this.kc.makeApiClient(AppsV1Api);
    const deps = await apps.listNamespacedDeployment({ namespace: this.namespace });
    for (const d of deps.items) {
      if (first) this.replicas.set(d.metadata?.name ?? '', d.spec?.replicas);
      else this.recordReplicas(d);
    }
    this.aborts.push(
      await new Watch(this.kc).watch(
        `/apis/apps/v1/namespaces/${this.namespace}/deployments`,
        { resourceVersion: deps.metadata?.resourceVersion },
        (type: string, d: V1Deployment) => {
          if (type !== 'DELETED') this.recordReplicas(d);
        },
        () => void this.watchDeployments(false).catch(() => {}),
      ),
    );
  }

  private async watchPods(first: boolean): Promise<void> {
    if (this.stopped) return;
    const core = this.kc.makeApiClient(CoreV1Api);
    const list = await core.listNamespacedPod({ namespace: this.namespace });
    const owned = list.items.filter((p) =>
      (p.metadata?.ownerReferences ?? []).some((o) => o.kind === 'ReplicaSet'),
    );
    const alive = new Set(owned.map((p) => p.metadata?.name ?? ''));
    if (!first) for (const [name, dep] of this.pods) if (!alive.has(name)) this.podDeleted(name, dep);
    for (const p of owned) this.pods.set(p.metadata?.name ?? '', deploymentOfPod(p));
    this.aborts.push(
      await new Watch(this.kc).watch(
        `/api/v1/namespaces/${this.namespace}/pods`,
        { resourceVersion: list.metadata?.resourceVersion },
        (type: string, pod: V1Pod) => {
          if (!(pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'ReplicaSet')) return;
          const name = pod.metadata?.name ?? '';
          if (type === 'DELETED') this.podDeleted(name, deploymentOfPod(pod));
          else this.pods.set(name, deploymentOfPod(pod));
        },
        () => void this.watchPods(false).catch(() => {}),
      ),
    );
  }

  private podDeleted(name: string, dep: string): void {
    if (!this.pods.delete(name)) return;
    this.restarts[dep] = (this.restarts[dep] ?? 0) + 1;
  }

  /**
   * Stops after a quiet `settleMs` (the operator's reactions to what just happened) and once the
   * Deployments' watch has delivered every replica change up to now (on a loaded machine an event can
   * arrive after the settle time, and the change would be missed), and returns what happened.
   */
  async stop(settleMs = 3_000): Promise<Measurement> {
    await sleep(settleMs);
    const apps = this.kc.makeApiClient(AppsV1Api);
    // Caught up when the watch's view equals what the API server lists at that moment (compared anew on
    // each try: an HPA may still move a count).
    const behind = async () =>
      (await apps.listNamespacedDeployment({ namespace: this.namespace })).items
        .filter((d) => this.replicas.get(d.metadata?.name ?? '') !== d.spec?.replicas)
        .map((d) => `${d.metadata?.name} at ${d.spec?.replicas}`);
    await eventually(
      `the Deployments' watch in ${this.namespace} to deliver the replica counts the API server lists`,
      behind,
      (late) => late.length === 0,
      { timeoutMs: 60_000 },
    );
    this.stopped = true;
    for (const a of this.aborts) a.abort();
    return {
      podRestarts: { ...this.restarts },
      replicaChanges: [...this.changes],
      driftCorrections: (await driftCorrections(this.metricsUrl)) - this.driftAtStart,
    };
  }
}
