// A KgatewayHA's gateway proxies: their PDB and HPA are kgateway's rendering of the GatewayParameters
// fields glooha writes (2.3 and newer), checked against the schema the API server serves; a field the
// installed GatewayParameters lack is reported (GatewayParametersCannotExpress) and nothing is guessed
// or made in its place; objects an earlier glooha made on kgateway 2.2 stay until kgateway's are
// there; and an autoscaled proxy's spec.replicas is handed from the deployer to the HPA step by step
// (no fall back to 1 replica).
import type {
  KubernetesObject,
  V1Deployment,
  V1ManagedFieldsEntry,
  V1PodDisruptionBudget,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KGATEWAY_KIND } from '../../../src/products/kgateway/api.js';
import { MANAGER } from '../../../src/api/constants.js';
import type { ComponentStatus } from '../../../src/api/types.js';
import { plan } from '../../../src/controller/plan.js';
import type { Plan, Snapshot } from '../../../src/controller/plan-types.js';
import { ownerLabels, ownerOf } from '../../../src/core/ownership.js';
import { controllerSelectorLabels, proxySelectorLabels } from '../../../src/products/kgateway/facts.js';
import { KGATEWAY, gatewayParametersFields } from '../../../src/products/kgateway/index.js';
import { HANDOFF_REQUEUE_MS, replicasHandoff } from '../../../src/products/kgateway/desired.js';
import { deployment, finalizedGlooHA, NS, snapshotOf } from '../controller/snapshots.js';

const GP_KEY = 'gateway.kgateway.dev/v1alpha1/GatewayParameters';
const BOTH = { [GP_KEY]: ['spec.kube.podDisruptionBudget', 'spec.kube.horizontalPodAutoscaler'] };
const NEITHER = { [GP_KEY]: [] };
const PDB_ONLY = { [GP_KEY]: ['spec.kube.podDisruptionBudget'] };

function kgatewayHA(web: Record<string, unknown>) {
  const k = finalizedGlooHA({}, { name: 'kgw', uid: 'uid-kgw' });
  Object.assign(k, { kind: KGATEWAY_KIND, spec: { controller: { replicas: 2 }, gateways: { web } } });
  return k;
}

const owner = ownerOf(kgatewayHA({}));

function proxy(replicas: number, appliers: string[] = []): V1Deployment {
  const labels = { ...proxySelectorLabels('web'), kgateway: 'kube-gateway' };
  const d = deployment('web', proxySelectorLabels('web'), 'kgateway-proxy');
  d.metadata!.labels = labels;
  d.spec!.replicas = replicas;
  d.spec!.template.metadata!.labels = { ...labels };
  d.metadata!.managedFields = appliers.map((manager): V1ManagedFieldsEntry => ({
    manager,
    operation: 'Apply',
    apiVersion: 'apps/v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:replicas': {} } },
  }));
  return d;
}

/** The PDB or HPA kgateway's deployer renders for proxy web: its name, the Deployment's labels. */
const renderedPdb: V1PodDisruptionBudget = {
  metadata: {
    name: 'web',
    namespace: NS,
    labels: { ...proxySelectorLabels('web'), kgateway: 'kube-gateway' },
  },
  spec: { selector: { matchLabels: proxySelectorLabels('web') }, maxUnavailable: 1 },
};
const renderedHpa: V2HorizontalPodAutoscaler = {
  metadata: {
    name: 'web',
    namespace: NS,
    labels: { ...proxySelectorLabels('web'), kgateway: 'kube-gateway' },
  },
  spec: {
    scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
    minReplicas: 3,
    maxReplicas: 6,
  },
};
const ours = (kind: 'PodDisruptionBudget' | 'HorizontalPodAutoscaler'): KubernetesObject =>
  ({
    apiVersion: kind === 'PodDisruptionBudget' ? 'policy/v1' : 'autoscaling/v2',
    kind,
    metadata: { name: 'web-glooha', namespace: NS, labels: ownerLabels(owner, 'web') },
    spec:
      kind === 'PodDisruptionBudget'
        ? { selector: { matchLabels: proxySelectorLabels('web') }, maxUnavailable: 1 }
        : { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 3, maxReplicas: 6 },
  }) as KubernetesObject;

function snapshot(
  web: Record<string, unknown>,
  opts: {
    servedFields?: Snapshot['servedFields'];
    proxy?: V1Deployment;
    pdbs?: V1PodDisruptionBudget[];
    hpas?: V2HorizontalPodAutoscaler[];
    owned?: KubernetesObject[];
    /** The controller's chart version label (helm.sh/chart kgateway-<version>); v2.4.2 unless given. */
    version?: string | null;
  } = {},
): Snapshot {
  const k = kgatewayHA(web);
  const controller = deployment('kgateway', controllerSelectorLabels('kgateway'), 'controller');
  const version = opts.version === undefined ? 'v2.4.2' : opts.version;
  if (version !== null) controller.metadata!.labels!['helm.sh/chart'] = `kgateway-${version}`;
  const base = snapshotOf(k, {
    key: `${NS}/kgw`,
    deployments: [controller, ...(opts.proxy ? [opts.proxy] : [])],
    pdbs: opts.pdbs ?? [],
    hpas: opts.hpas ?? [],
    ...(opts.servedFields ? { servedFields: opts.servedFields } : {}),
    related: new Map<string, KubernetesObject[]>([
      [
        'Gateway',
        [
          {
            apiVersion: 'gateway.networking.k8s.io/v1',
            kind: 'Gateway',
            metadata: { name: 'web', namespace: NS },
            spec: {
              infrastructure: {
                parametersRef: { group: 'gateway.kgateway.dev', kind: 'GatewayParameters', name: 'web' },
              },
            },
          } as KubernetesObject,
        ],
      ],
      [
        'GatewayParameters',
        [
          {
            apiVersion: 'gateway.kgateway.dev/v1alpha1',
            kind: 'GatewayParameters',
            metadata: { name: 'web', namespace: NS },
          },
        ],
      ],
    ]),
  });
  const owned = new Map(base.owned);
  for (const o of opts.owned ?? []) owned.set(o.kind!, [...(owned.get(o.kind!) ?? []), o]);
  return { ...base, owned };
}

const applied = (p: Plan, kind: string, name = 'web') =>
  p.applies.find((a) => a.body.kind === kind && a.body.metadata?.name === name)?.body as
    (KubernetesObject & { spec: Record<string, unknown> }) | undefined;
const kube = (p: Plan) => (applied(p, 'GatewayParameters')?.spec as { kube: Record<string, unknown> }).kube;

describe('the served GatewayParameters have podDisruptionBudget and horizontalPodAutoscaler', () => {
  it("writes the proxy's PDB and HPA bounds into the GatewayParameters and creates none of its own", () => {
    const p = plan(
      snapshot({ autoscaling: { minReplicas: 3, maxReplicas: 6 } }, { servedFields: BOTH, proxy: proxy(3) }),
      KGATEWAY,
    );
    expect(kube(p)).toMatchObject({
      podDisruptionBudget: { spec: { maxUnavailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' } },
      horizontalPodAutoscaler: { spec: { minReplicas: 3, maxReplicas: 6 } },
    });
    expect(applied(p, 'PodDisruptionBudget', 'web-glooha')).toBeUndefined();
    expect(applied(p, 'HorizontalPodAutoscaler', 'web-glooha')).toBeUndefined();
  });

  it('fixed replicas: replicas and the PDB in the GatewayParameters, no HPA', () => {
    const p = plan(snapshot({ replicas: 3 }, { servedFields: BOTH, proxy: proxy(3) }), KGATEWAY);
    expect(kube(p)).toMatchObject({
      deployment: { replicas: 3 },
      podDisruptionBudget: { spec: { maxUnavailable: 1 } },
    });
    expect(kube(p)).not.toHaveProperty('horizontalPodAutoscaler');
  });

  it("objects an earlier glooha made on kgateway 2.2: kept until kgateway's are there, then pruned", () => {
    const web = { autoscaling: { minReplicas: 3, maxReplicas: 6 } };
    const owned = [ours('PodDisruptionBudget'), ours('HorizontalPodAutoscaler')];
    const before = plan(snapshot(web, { servedFields: BOTH, proxy: proxy(3), owned }), KGATEWAY);
    expect(kube(before)).toHaveProperty('podDisruptionBudget');
    expect(kube(before)).toHaveProperty('horizontalPodAutoscaler');
    expect(before.prunes).toEqual([]);
    const after = plan(
      snapshot(web, { servedFields: BOTH, proxy: proxy(3), owned, pdbs: [renderedPdb], hpas: [renderedHpa] }),
      KGATEWAY,
    );
    expect(after.prunes.map((r) => `${r.kind}/${r.name}`).sort()).toEqual([
      'HorizontalPodAutoscaler/web-glooha',
      'PodDisruptionBudget/web-glooha',
    ]);
    // kgateway's rendering is not a foreign PDB or HPA: no finding, and status names it.
    expect(after.status?.conditions?.find((c) => c.type === 'Degraded')?.message ?? '').not.toMatch(
      /PDB|HPA/,
    );
    const web2 = (after.status?.components?.gateways as Record<string, ComponentStatus> | undefined)?.web;
    expect(web2?.podDisruptionBudget).toMatchObject({ name: 'web', owned: false, maxUnavailable: 1 });
    expect(web2?.autoscaling).toMatchObject({ hpaName: 'web', minReplicas: 3, maxReplicas: 6 });
  });

  it("a user's own PDB on the proxy stands in: nothing written for kgateway to render beside it", () => {
    const user: V1PodDisruptionBudget = {
      metadata: { name: 'mine', namespace: NS },
      spec: { selector: { matchLabels: proxySelectorLabels('web') }, maxUnavailable: 1 },
    };
    const p = plan(
      snapshot({ replicas: 3 }, { servedFields: BOTH, proxy: proxy(3), pdbs: [user] }),
      KGATEWAY,
    );
    expect(kube(p)).not.toHaveProperty('podDisruptionBudget');
    expect(applied(p, 'PodDisruptionBudget', 'web-glooha')).toBeUndefined();
  });

  it('a tested line with its schema not read yet: the fields its GatewayParameters are known to have', () => {
    const p = plan(snapshot({ replicas: 3 }, { proxy: proxy(3), version: 'v2.3.6' }), KGATEWAY);
    expect(kube(p)).toMatchObject({ podDisruptionBudget: { spec: { maxUnavailable: 1 } } });
    expect(p.status?.conditions?.find((c) => c.type === 'Stalled')?.status).not.toBe('True');
  });
});

describe('gatewayParametersFields: the served schema decides; before it is read, only a tested line', () => {
  const both = ['spec.kube.podDisruptionBudget', 'spec.kube.horizontalPodAutoscaler'];
  it('the served schema, whatever the version says', () => {
    expect(gatewayParametersFields(BOTH, 'supported')).toEqual(both);
    expect(gatewayParametersFields(BOTH, 'untested')).toEqual(both);
    expect(gatewayParametersFields(BOTH, 'unknown')).toEqual(both);
    expect(gatewayParametersFields(NEITHER, 'supported')).toEqual([]);
    expect(gatewayParametersFields(PDB_ONLY, undefined)).toEqual(['spec.kube.podDisruptionBudget']);
  });
  it('not read: a tested line has both; an untested, unlabelled or unfound install nothing known', () => {
    expect(gatewayParametersFields(undefined, 'supported')).toEqual(both);
    expect(gatewayParametersFields({}, 'supported')).toEqual(both);
    expect(gatewayParametersFields(undefined, 'untested')).toBeUndefined();
    expect(gatewayParametersFields(undefined, 'unknown')).toBeUndefined();
    expect(gatewayParametersFields(undefined, undefined)).toBeUndefined();
  });
});

describe('GatewayParametersCannotExpress: a field the proxy needs is missing, and nothing is guessed', () => {
  const stalled = (p: Plan) => p.status?.conditions?.find((c) => c.type === 'Stalled');
  const noneOfOurs = (p: Plan) => {
    expect(applied(p, 'GatewayParameters')).toBeUndefined();
    expect(applied(p, 'PodDisruptionBudget', 'web-glooha')).toBeUndefined();
    expect(applied(p, 'HorizontalPodAutoscaler', 'web-glooha')).toBeUndefined();
    expect(applied(p, 'Deployment', 'web')).toBeUndefined();
  };

  it('served without either field (CRDs a Helm upgrade left behind, or a line that moved them): Stalled naming both, nothing written for the proxy', () => {
    const p = plan(
      snapshot(
        { autoscaling: { minReplicas: 3, maxReplicas: 6 } },
        { servedFields: NEITHER, proxy: proxy(3, ['kgateway.dev/kgateway']) },
      ),
      KGATEWAY,
    );
    noneOfOurs(p);
    expect(stalled(p)).toMatchObject({ status: 'True', reason: 'GatewayParametersCannotExpress' });
    expect(stalled(p)?.message).toMatch(
      /serves lack spec\.kube\.podDisruptionBudget and spec\.kube\.horizontalPodAutoscaler.*writes nothing for gateway web.*podDisruptionBudget and autoscaling out of spec\.gateways\[web\]/,
    );
  });

  it('only the HPA field missing: a fixed proxy is written (its PDB included), an autoscaled one is not', () => {
    const fixed = plan(snapshot({ replicas: 3 }, { servedFields: PDB_ONLY, proxy: proxy(3) }), KGATEWAY);
    expect(kube(fixed)).toMatchObject({ deployment: { replicas: 3 }, podDisruptionBudget: {} });
    expect(stalled(fixed)?.status).not.toBe('True');
    const auto = plan(
      snapshot(
        { autoscaling: { minReplicas: 3, maxReplicas: 6 } },
        { servedFields: PDB_ONLY, proxy: proxy(3) },
      ),
      KGATEWAY,
    );
    noneOfOurs(auto);
    expect(stalled(auto)?.message).toMatch(/lack spec\.kube\.horizontalPodAutoscaler,/);
    expect(stalled(auto)?.message).not.toMatch(/lack spec\.kube\.podDisruptionBudget/);
  });

  it('a proxy that needs neither (1 replica, no PDB) is written on any schema', () => {
    const p = plan(snapshot({ replicas: 1 }, { servedFields: NEITHER, proxy: proxy(1) }), KGATEWAY);
    expect(kube(p)).toEqual(expect.objectContaining({ deployment: { replicas: 1 } }));
    expect(kube(p)).not.toHaveProperty('podDisruptionBudget');
    expect(stalled(p)?.status).not.toBe('True');
  });

  it('an untested line (2.5) with its schema not read: not known, so reported, never assumed', () => {
    const p = plan(snapshot({ replicas: 3 }, { proxy: proxy(3), version: 'v2.5.0' }), KGATEWAY);
    noneOfOurs(p);
    expect(stalled(p)).toMatchObject({ status: 'True', reason: 'GatewayParametersCannotExpress' });
    expect(stalled(p)?.message).toMatch(/has not served their schema yet/);
    // Once it is served, it decides.
    const served = plan(
      snapshot({ replicas: 3 }, { proxy: proxy(3), version: 'v2.5.0', servedFields: BOTH }),
      KGATEWAY,
    );
    expect(kube(served)).toMatchObject({ podDisruptionBudget: { spec: { maxUnavailable: 1 } } });
    expect(served.status?.warnings?.map((w) => w.code)).toContain('KgatewayVersionUntested');
  });

  it('no version label, schema served: decided from the schema, with a warning saying so', () => {
    const p = plan(
      snapshot({ replicas: 3 }, { proxy: proxy(3), version: null, servedFields: BOTH }),
      KGATEWAY,
    );
    expect(kube(p)).toMatchObject({ podDisruptionBudget: { spec: { maxUnavailable: 1 } } });
    expect(p.status?.warnings).toContainEqual(
      expect.objectContaining({
        code: 'KgatewayVersionUnknown',
        message: expect.stringMatching(/has no version label/),
      }),
    );
  });
});

describe.each([
  ['served', BOTH],
  ['not read yet, a tested line', undefined],
])(
  'GatewayParameters %s: fixed 3 → autoscaled {min 3}: spec.replicas handed to the HPA step by step',
  (_v, served) => {
    const web = { autoscaling: { minReplicas: 3, maxReplicas: 6 } };
    const DEPLOYER = 'kgateway.dev/kgateway';
    const deploymentPatch = (p: Plan) => applied(p, 'Deployment');

    it('1. the deployer alone owns it: glooha co-owns the same count, the GatewayParameters keep it', () => {
      const p = plan(snapshot(web, { servedFields: served, proxy: proxy(3, [DEPLOYER]) }), KGATEWAY);
      expect(deploymentPatch(p)?.spec).toEqual({ replicas: 3 });
      expect(kube(p)).toMatchObject({ deployment: { replicas: 3 } });
      expect(p.releaseReplicas).toEqual([]);
    });

    it('2. both own it: the GatewayParameters drop it, glooha keeps its ownership', () => {
      const s = snapshot(web, { servedFields: served, proxy: proxy(3, [DEPLOYER, MANAGER]) });
      const p = plan(s, KGATEWAY);
      expect(kube(p)).not.toHaveProperty('deployment');
      expect(p.releaseReplicas).toEqual([]);
      expect(deploymentPatch(p)?.spec).toEqual({ replicas: 3 });
      // Once that apply is in the cache there is nothing to apply again, and the ownership stays.
      const live = proxy(3, [DEPLOYER, MANAGER]);
      live.metadata!.annotations = deploymentPatch(p)!.metadata!.annotations;
      const again = plan(snapshot(web, { servedFields: served, proxy: live }), KGATEWAY);
      expect(deploymentPatch(again)).toBeUndefined();
      expect(again.releaseReplicas).toEqual([]);
      // The deployer's next apply changes only managedFields, which no watch event reports: look again.
      expect(again.requeueAfterMs).toBe(HANDOFF_REQUEUE_MS);
    });

    it("3. glooha alone owns it: no more applies of it, and the engine gives up glooha's ownership, value kept", () => {
      const p = plan(snapshot(web, { servedFields: served, proxy: proxy(3, [MANAGER]) }), KGATEWAY);
      expect(deploymentPatch(p)).toBeUndefined();
      expect(kube(p)).not.toHaveProperty('deployment');
      expect(p.releaseReplicas.map((r) => r.what)).toEqual([`Deployment ${NS}/web`]);
      expect(p.requeueAfterMs).toBeUndefined();
    });

    it('nobody owns it (the HPA scales it): nothing to hand over', () => {
      const p = plan(snapshot(web, { servedFields: served, proxy: proxy(5) }), KGATEWAY);
      expect(deploymentPatch(p)).toBeUndefined();
      expect(kube(p)).not.toHaveProperty('deployment');
    });
  },
);

describe('replicasHandoff', () => {
  const intent = (autoscaling?: { minReplicas: number; maxReplicas: number }) => ({
    id: 'gateways.web',
    role: 'gatewayProxy',
    specPath: 'spec.gateways[web]',
    deploymentName: 'web',
    antiAffinity: 'preferred' as const,
    ...(autoscaling ? { autoscaling } : { replicas: 3 }),
  });
  const dep = (replicas: number, replicasAppliers: string[]) => ({
    name: 'web',
    selector: {},
    containers: [],
    replicas,
    replicasAppliers,
  });

  it('fixed replicas: nothing (the GatewayParameters set them)', () => {
    expect(replicasHandoff(intent(), dep(3, ['kgateway.dev/kgateway']))).toEqual({});
  });
  it('a proxy not rendered yet starts at minReplicas, not at 1', () => {
    expect(replicasHandoff(intent({ minReplicas: 3, maxReplicas: 6 }), undefined)).toEqual({ parameters: 3 });
  });
  it("holds the Deployment's own count within the HPA's bounds", () => {
    const a = intent({ minReplicas: 3, maxReplicas: 6 });
    expect(replicasHandoff(a, dep(1, ['kgateway.dev/kgateway']))).toEqual({ parameters: 3, deployment: 3 });
    expect(replicasHandoff(a, dep(5, ['kgateway.dev/kgateway']))).toEqual({ parameters: 5, deployment: 5 });
    expect(replicasHandoff(a, dep(9, ['kgateway.dev/kgateway', MANAGER]))).toEqual({ deployment: 6 });
  });
});
