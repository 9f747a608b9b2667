// Snapshots for the plan/reconciler tests: a GlooHA, Gloo's Deployments as the chart lays them out,
// and a small "API server" that turns planned applies into live objects (so a second plan can be
// checked against the state the first one produced), merging lists as the served schema says.
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { FINALIZER, type Plan, type Snapshot } from '../../../src/controller/plan-types.js';
import { OWNED_KINDS } from '../../../src/controller/kinds.js';
import { chartLabels, proxyDeploymentName } from '../../../src/products/gloo/install.js';
import type { GlooHA, GlooHASpec } from '../../../src/products/gloo/types.js';
import { glooHA, NS } from '../core/fixtures.js';
import { mergeApplied } from '../../../src/kube/list-types.js';
import { SERVED_LIST_TYPES } from '../../../src/kube/served-list-types.js';

export { NS };

export function deployment(name: string, labels: Record<string, string>, container: string): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS, labels: { app: 'gloo', ...labels }, generation: 1 },
    spec: {
      replicas: 1,
      selector: { matchLabels: { ...labels } },
      template: {
        metadata: { labels: { ...labels } },
        spec: { serviceAccountName: name, containers: [{ name: container, image: `img/${name}` }] },
      },
    },
    status: {
      observedGeneration: 1,
      replicas: 1,
      readyReplicas: 1,
      updatedReplicas: 1,
      availableReplicas: 1,
    },
  };
}

/** Gloo's Deployments for a spec's proxies, as the chart names and labels them. */
export function chartDeployments(spec: GlooHASpec): V1Deployment[] {
  return [
    deployment('gloo', chartLabels.gloo, 'gloo'),
    deployment('discovery', chartLabels.discovery, 'discovery'),
    ...Object.entries(spec.gatewayProxies ?? {}).map(([key, p]) =>
      deployment(proxyDeploymentName(key, p?.deploymentName), chartLabels.gatewayProxy(key), key),
    ),
  ];
}

/** A GlooHA with our finalizer (past its first reconcile). */
export function finalizedGlooHA(spec: GlooHASpec, meta: Partial<GlooHA['metadata']> = {}): GlooHA {
  return glooHA(spec, {
    finalizers: [FINALIZER],
    generation: 1,
    resourceVersion: '10',
    creationTimestamp: '2030-01-01T00:00:00Z',
    ...meta,
  });
}

export function snapshotOf(g: GlooHA | undefined, extra: Partial<Snapshot> = {}): Snapshot {
  return {
    key: `${NS}/ha`,
    object: g,
    sameNamespace: g ? [g] : [],
    deployments: g ? chartDeployments(g.spec ?? {}) : [],
    hpas: [],
    pdbs: [],
    owned: new Map(OWNED_KINDS.map((k) => [k.kind, []])),
    leader: undefined,
    lastCorrections: [],
    ownApplies: new Map(),
    now: new Date('2030-01-02T00:00:00Z'),
    listTypes: SERVED_LIST_TYPES,
    ...extra,
  };
}

/**
 * Server-side apply of `patch` onto `live`, merging each list as the served schema says (a snapshot of
 * Kubernetes' OpenAPI: list-maps by their keys, atomic lists replaced), the way the API server would.
 */
export function merge(live: unknown, patch: unknown, kind = 'apps/v1/Deployment'): unknown {
  return mergeApplied(live, patch, SERVED_LIST_TYPES[kind]);
}

/** The snapshot after the API server carried out `plan`'s applies and prunes. */
export function afterPlan(s: Snapshot, plan: Plan): Snapshot {
  const deployments = s.deployments.map((d) => {
    const a = plan.applies.find(
      (x) => x.body.kind === 'Deployment' && x.body.metadata?.name === d.metadata?.name,
    );
    const next = a ? (merge(d, a.body) as V1Deployment) : d;
    // The Deployment controller rolls out: every replica updated and ready.
    const n = next.spec?.replicas ?? 1;
    return {
      ...next,
      status: {
        observedGeneration: 1,
        replicas: n,
        readyReplicas: n,
        updatedReplicas: n,
        availableReplicas: n,
      },
    };
  });
  const owned = new Map(s.owned);
  for (const a of plan.applies) {
    if (a.body.kind === 'Deployment' || !owned.has(a.body.kind ?? '')) continue;
    const list = [...(owned.get(a.body.kind ?? '') ?? [])].filter(
      (o) => o.metadata?.name !== a.body.metadata?.name,
    );
    list.push(structuredClone<KubernetesObject>(a.body));
    owned.set(a.body.kind ?? '', list);
  }
  for (const p of plan.prunes) {
    owned.set(
      p.kind,
      (owned.get(p.kind) ?? []).filter(
        (o) => o.metadata?.name !== p.name || o.metadata?.namespace !== p.namespace,
      ),
    );
  }
  const object = s.object && plan.status ? { ...s.object, status: plan.status } : s.object;
  return { ...s, object, deployments, owned };
}
