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

  async start(): Promise<void> {
    this.started = performance.now();
    this.driftAtStart = await driftCorrections(this.metricsUrl);
    const apps = this.kc.makeApiClient(AppsV1Api);
    const core = this.kc.makeApiClient(CoreV1Api);
    const deps = await apps.listNamespacedDeployment({ namespace: this.namespace });
    for (const d of deps.items) this.replicas.set(d.metadata?.name ?? '', d.spec?.replicas);
    const pods = await core.listNamespacedPod({ namespace: this.namespace });
    const ns = this.namespace;
    this.aborts.push(
      await this.watchResuming(
        `/apis/apps/v1/namespaces/${ns}/deployments`,
        deps.metadata?.resourceVersion,
        (type: string, d: V1Deployment) => {
          const name = d.metadata?.name ?? '';
          if (type === 'DELETED') return;
          const before = this.replicas.get(name);
          if (this.replicas.has(name) && before !== d.spec?.replicas) {
            this.changes.push({
              deployment: name,
              from: before,
              to: d.spec?.replicas,
              atMs: performance.now() - this.started,
            });
          }
          this.replicas.set(name, d.spec?.replicas);
        },
      ),
      await this.watchResuming(
        `/api/v1/namespaces/${ns}/pods`,
        pods.metadata?.resourceVersion,
        (type: string, pod: V1Pod) => {
          if (type !== 'DELETED') return;
          if (!(pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'ReplicaSet')) return;
          const dep = deploymentOfPod(pod);
          this.restarts[dep] = (this.restarts[dep] ?? 0) + 1;
        },
      ),
    );
  }

  /**
   * A watch from `resourceVersion` that resumes from the last one seen when the API server ends it (a
   * quiet watch ends after ~35 s: a slow helm upgrade on a loaded machine outlasts it), so no stretch
   * of the window goes unwatched. Returns one controller that stops it for good.
   */
  private async watchResuming<T extends { metadata?: { resourceVersion?: string } }>(
    path: string,
    resourceVersion: string | undefined,
    onEvent: (type: string, obj: T) => void,
  ): Promise<AbortController> {
    const stop = new AbortController();
    let last = resourceVersion;
    let current: AbortController | undefined;
    let resumes = 0;
    const open = async (): Promise<void> => {
      // Bounded: a resourceVersion the API server no longer has (410) must not spin.
      if (stop.signal.aborted || resumes++ > 50) return;
      current = await new Watch(this.kc).watch(
        path,
        last ? { resourceVersion: last } : {},
        (type: string, obj: T) => {
          last = obj.metadata?.resourceVersion ?? last;
          onEvent(type, obj);
        },
        () => void open().catch(() => undefined),
      );
    };
    await open();
    stop.signal.addEventListener('abort', () => current?.abort());
    return stop;
  }

  /** Stops after a quiet `settleMs` (events still in flight arrive), and returns what happened. */
  async stop(settleMs = 3_000): Promise<Measurement> {
    await sleep(settleMs);
    for (const a of this.aborts) a.abort();
    return {
      podRestarts: { ...this.restarts },
      replicaChanges: [...this.changes],
      driftCorrections: (await driftCorrections(this.metricsUrl)) - this.driftAtStart,
    };
  }
}
