// plan(snapshot): every branch of what one reconcile decides to write, without I/O.
import { describe, expect, it } from 'vitest';
import type { KubernetesObject } from '@kubernetes/client-node';
import { KGATEWAY_KIND } from '../../../src/products/kgateway/api.js';
import { MANAGER, RECONCILE_REQUEST_ANNOTATION } from '../../../src/api/constants.js';
import { HANDOVER_MANAGER } from '../../../src/controller/drift.js';
import { terminalFailure } from '../../../src/controller/failures.js';
import {
  decideApply,
  plan as planFor,
  stalledPlan,
  TARGET_REQUEUE_MS,
} from '../../../src/controller/plan.js';
import { APPLIED_ANNOTATION, FINALIZER, type Snapshot } from '../../../src/controller/plan-types.js';
import type { Product } from '../../../src/controller/product.js';
import { GLOO, glooProduct } from '../../../src/products/gloo/index.js';
import { desired } from '../../../src/products/gloo/desired.js';
import type { GlooHA } from '../../../src/products/gloo/types.js';
import { glooHA } from '../core/fixtures.js';
import { controllerSelectorLabels } from '../../../src/products/kgateway/facts.js';
import { KGATEWAY } from '../../../src/products/kgateway/index.js';
import { afterPlan, chartDeployments, deployment, finalizedGlooHA, NS, snapshotOf } from './snapshots.js';

const spec = {
  gloo: { replicas: 3 },
  gatewayProxies: {
    gatewayProxy: { replicas: 2 },
    publicGw: { autoscaling: { minReplicas: 2, maxReplicas: 5 } },
  },
};

/** A GlooHA's plan (the product these tests exercise). */
const plan = (s: Snapshot, product: Product = GLOO) => planFor(s, product);

const condition = (
  status: { conditions?: { type: string; status: string; reason?: string }[] } | undefined,
  type: string,
) => status?.conditions?.find((c) => c.type === type);

function settled(s: Snapshot): Snapshot {
  // Two rounds: the first creates and patches, the second sees its own result and writes nothing.
  const first = afterPlan(s, plan(s));
  return afterPlan(first, plan(first));
}

describe('plan: lifecycle branches', () => {
  it('gone: forgets what was kept, writes nothing', () => {
    const p = plan(snapshotOf(undefined));
    expect(p).toMatchObject({ forget: true, applies: [], prunes: [], handover: [], events: [] });
    expect(p.status).toBeUndefined();
  });

  it('no finalizer yet: adds it (keeping others) and plans the rest in the same reconcile', () => {
    const g = glooHA(spec, { finalizers: ['other/keep'] });
    const p = plan(snapshotOf(g));
    expect(p.finalizers).toEqual(['other/keep', FINALIZER]);
    const withFinalizer = plan(snapshotOf(finalizedGlooHA(spec)));
    expect(p.applies.map((a) => a.what)).toEqual(withFinalizer.applies.map((a) => a.what));
    expect(p.applies.length).toBeGreaterThan(3);
    expect(p.status).toBeDefined();
  });

  it('no finalizer yet on a stalled GlooHA: the finalizer still goes on', () => {
    const g = glooHA(spec);
    const p = plan({ ...snapshotOf(g), deployments: [] });
    expect(p.finalizers).toEqual([FINALIZER]);
    expect(p.stall?.reason).toBe('TargetNotFound');
  });

  it('deleting: hands over the fields we applied on Gloo objects, then removes the finalizer', () => {
    const g = finalizedGlooHA(spec);
    const s = settled(snapshotOf(g));
    const gloo = s.deployments.find((d) => d.metadata?.name === 'gloo')!;
    gloo.metadata!.managedFields = [
      { manager: MANAGER, operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
    ];
    const deleting = {
      ...s,
      object: {
        ...g,
        metadata: {
          ...g.metadata,
          deletionTimestamp: '2030-01-03T00:00:00Z' as never,
          finalizers: [FINALIZER, 'other/keep'],
        },
      },
    };
    const p = plan(deleting);
    expect(p.applies).toEqual([]);
    expect(p.finalizers).toEqual(['other/keep']);
    const h = p.handover.find((x) => x.what === `Deployment ${NS}/gloo`)!;
    // The release drops our managedFields entries and annotations (the hash and the replicas floor),
    // changes no value, and is based on the resourceVersion it was decided from.
    expect(h.release).not.toHaveProperty('spec');
    expect(h.release.metadata).toHaveProperty('resourceVersion');
    expect(h.release.metadata?.annotations).toEqual({
      [APPLIED_ANNOTATION]: null,
      'glooha.io/min-replicas': null,
      'glooha.io/owner': null,
      'glooha.io/owner-kind': null,
      'glooha.io/helm-values': null,
      'glooha.io/helm-upgrade': null,
    });
    expect((h.release.metadata?.managedFields ?? []).map((m) => m.manager)).not.toContain(MANAGER);
    // Every Deployment carrying our hash annotation gets it removed (the others hold no field of ours
    // here, so only the annotation goes); one we never applied to is left alone.
    expect(p.handover.map((x) => x.what).sort()).toEqual(
      s.deployments
        .filter((d) => d.metadata?.annotations?.[APPLIED_ANNOTATION])
        .map((d) => `Deployment ${NS}/${d.metadata?.name}`)
        .sort(),
    );
    const untouched = { ...gloo, metadata: { ...gloo.metadata, annotations: {}, managedFields: [] } };
    expect(plan({ ...deleting, deployments: [untouched] }).handover).toEqual([]);
    // Owned objects in the GlooHA's own namespace go by garbage collection: not pruned here.
    expect(p.prunes).toEqual([]);
    expect(HANDOVER_MANAGER).not.toBe(MANAGER);
  });

  it('deleting with the install in another namespace: deletes the owned objects GC cannot reach', () => {
    const g = finalizedGlooHA({ ...spec, target: { namespace: 'elsewhere' } }, { namespace: 'ops' });
    const s = snapshotOf(g, {
      key: 'ops/ha',
      deployments: chartDeployments(spec).map((d) => ({
        ...d,
        metadata: { ...d.metadata, namespace: 'elsewhere' },
      })),
    });
    const created = afterPlan(s, plan(s));
    const pdbs = created.owned.get('PodDisruptionBudget')!;
    expect(pdbs.length).toBeGreaterThan(0);
    const deleting = {
      ...created,
      object: { ...g, metadata: { ...g.metadata, deletionTimestamp: '2030-01-03T00:00:00Z' as never } },
    };
    const p = plan(deleting);
    expect(p.prunes.map((r) => `${r.kind}/${r.namespace}`)).toContain('PodDisruptionBudget/elsewhere');
    expect(p.prunes.every((r) => r.namespace === 'elsewhere')).toBe(true);
    expect(p.finalizers).toEqual([]);
  });

  it('deleting without our finalizer: nothing to do', () => {
    const g = glooHA(spec, {
      deletionTimestamp: '2030-01-03T00:00:00Z',
      finalizers: ['other/keep'],
    });
    const p = plan(snapshotOf(g));
    expect(p.finalizers).toBeUndefined();
    expect(p.handover).toEqual([]);
  });
});

describe('plan: lists merged by the served schema', () => {
  it("another manager's hostname spread constraint beside ours (server-side apply keeps both): no write, no drift", () => {
    const g = finalizedGlooHA({
      gloo: {
        replicas: 3,
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
        ],
      },
    });
    const s = settled(snapshotOf(g));
    const gloo = s.deployments.find((d) => d.metadata?.name === 'gloo')!;
    const podSpec = gloo.spec!.template.spec!;
    podSpec.topologySpreadConstraints = [
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { gloo: 'gloo' } },
      },
      ...(podSpec.topologySpreadConstraints ?? []),
    ];
    const p = plan(s);
    expect(p.applies.map((a) => `${a.reason} ${a.what}`)).toEqual([]);
    expect(p.events.filter((e) => e.reason.startsWith('Drift'))).toEqual([]);
    expect(condition(p.status ?? s.object?.status, 'Drifted')?.status ?? 'False').toBe('False');
  });
});

describe("plan: deletion leaves a rollout strategy safe at the chart's single replica", () => {
  const required = { gloo: { replicas: 3, antiAffinity: 'required' as const } };
  const deletingWith = (managedFields: unknown[]) => {
    const g = finalizedGlooHA(required);
    const s = settled(snapshotOf(g));
    const gloo = s.deployments.find((d) => d.metadata?.name === 'gloo')!;
    expect(gloo.spec?.strategy?.rollingUpdate).toEqual({ maxSurge: 0, maxUnavailable: 1 });
    gloo.metadata!.managedFields = managedFields as never;
    gloo.metadata!.resourceVersion = '42';
    const p = plan({
      ...s,
      object: { ...g, metadata: { ...g.metadata, deletionTimestamp: '2030-01-03T00:00:00Z' } },
    });
    return p.handover.find((h) => h.what === `Deployment ${NS}/gloo`)!;
  };

  it('our maxSurge 0 goes back to the API default (25%/25%) before ownership is released', () => {
    const h = deletingWith([
      {
        manager: MANAGER,
        operation: 'Apply',
        fieldsV1: {
          'f:spec': { 'f:replicas': {}, 'f:strategy': { 'f:rollingUpdate': { 'f:maxSurge': {} } } },
        },
      },
    ]);
    expect(h.prepare).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gloo', namespace: NS, resourceVersion: '42' },
      spec: {
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      },
    });
    expect(h.release.metadata?.resourceVersion).toBe('42');
  });

  it('a strategy someone else set is left as it is', () => {
    const h = deletingWith([
      { manager: MANAGER, operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
      { manager: 'kubectl-edit', operation: 'Update', fieldsV1: { 'f:spec': { 'f:strategy': {} } } },
    ]);
    expect(h.prepare).toBeUndefined();
  });
});

describe('plan: deletion hands over only what this GlooHA wrote', () => {
  const single = { gloo: { replicas: 3 } };
  // Two Gloo releases in one namespace, told apart by their Helm release (as `helm install a` and
  // `helm install b` with distinct names would leave them).
  const releaseDeployments = (r: string) =>
    chartDeployments(single).map((d) => ({
      ...d,
      metadata: {
        ...d.metadata,
        name: `${d.metadata!.name}-${r}`,
        annotations: { 'meta.helm.sh/release-name': r },
      },
    }));
  const ours = [{ manager: MANAGER, operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
  const withOurFields = (s: Snapshot): Snapshot => ({
    ...s,
    deployments: s.deployments.map((d) => ({ ...d, metadata: { ...d.metadata, managedFields: ours } })),
  });
  const deleting = (g: GlooHA): GlooHA => ({
    ...g,
    metadata: { ...g.metadata, deletionTimestamp: '2030-01-03T00:00:00Z' },
  });
  const settle = (s: Snapshot) => {
    const first = afterPlan(s, plan(s));
    return afterPlan(first, plan(first));
  };

  it('deleting GlooHA a (release a) leaves release b and its GlooHA alone', () => {
    const a = finalizedGlooHA({ ...single, target: { helmRelease: 'a' } }, { name: 'a' });
    const b = finalizedGlooHA({ ...single, target: { helmRelease: 'b' } }, { name: 'b' });
    const both = {
      sameNamespace: [a, b],
      deployments: [...releaseDeployments('a'), ...releaseDeployments('b')],
    };
    const afterA = settle(snapshotOf(a, { key: `${NS}/a`, ...both }));
    const afterB = settle({ ...afterA, key: `${NS}/b`, object: b });
    const live = withOurFields(afterB);
    // b's floor is on gloo-b, a's on gloo-a: both were applied.
    const floorOf = (name: string) =>
      live.deployments.find((d) => d.metadata?.name === name)?.metadata?.annotations?.['glooha.io/owner'];
    expect([floorOf('gloo-a'), floorOf('gloo-b')]).toEqual([`${NS}/a`, `${NS}/b`]);

    const p = plan({ ...live, key: `${NS}/a`, object: deleting(a), sameNamespace: [deleting(a), b] });
    expect(p.handover.map((h) => h.what).sort()).toEqual([
      `Deployment ${NS}/discovery-a`,
      `Deployment ${NS}/gloo-a`,
    ]);
    expect(p.finalizers).toEqual([]);
  });

  it('a Deployment whose replicas floor names another GlooHA is not handed over', () => {
    const a = finalizedGlooHA(single, { name: 'a' });
    const s = withOurFields(settle(snapshotOf(a, { key: `${NS}/a` })));
    const gloo = s.deployments.find((d) => d.metadata?.name === 'gloo')!;
    gloo.metadata!.annotations = { ...gloo.metadata!.annotations, 'glooha.io/owner': `${NS}/someone-else` };
    const p = plan({ ...s, object: deleting(a), sameNamespace: [deleting(a)] });
    expect(p.handover.map((h) => h.what)).toEqual([`Deployment ${NS}/discovery`]);
  });

  it("deleting a stalled younger rival hands over nothing: the install is the older GlooHA's", () => {
    const older = finalizedGlooHA(single, {
      name: 'first',
      creationTimestamp: '2029-01-01T00:00:00Z',
    });
    const younger = finalizedGlooHA(single, { name: 'second' });
    const s = withOurFields(
      settle(snapshotOf(older, { key: `${NS}/first`, sameNamespace: [older, younger] })),
    );
    const stalled = plan({ ...s, key: `${NS}/second`, object: younger });
    expect(stalled.stall?.reason).toBe('ConflictingGlooHA');
    const p = plan({
      ...s,
      key: `${NS}/second`,
      object: deleting(younger),
      sameNamespace: [older, deleting(younger)],
    });
    expect(p.handover).toEqual([]);
    expect(p.finalizers).toEqual([]);
    // The older one, deleted while the younger still stands, does hand its install over.
    const q = plan({ ...s, object: deleting(older), sameNamespace: [deleting(older), younger] });
    expect(q.handover.map((h) => h.what)).toContain(`Deployment ${NS}/gloo`);
  });
});

describe('plan: stalls (nothing written but status and a Warning event)', () => {
  it('an older GlooHA manages the same install: ConflictingGlooHA', () => {
    const older = finalizedGlooHA(spec, {
      name: 'first',
      creationTimestamp: '2029-01-01T00:00:00Z',
    });
    const g = finalizedGlooHA(spec);
    const p = plan(snapshotOf(g, { sameNamespace: [older, g] }));
    expect(p.applies).toEqual([]);
    expect(p.stall?.reason).toBe('ConflictingGlooHA');
    expect(p.stall?.message).toContain(`GlooHA ${NS}/first`);
    expect(condition(p.status, 'Stalled')).toMatchObject({ status: 'True', reason: 'ConflictingGlooHA' });
    expect(p.events).toEqual([{ type: 'Warning', reason: 'ConflictingGlooHA', message: p.stall?.message }]);
    // the older one is not stalled by the younger
    expect(plan(snapshotOf(older, { key: `${NS}/first`, sameNamespace: [older, g] })).stall).toBeUndefined();
    // different selectors: not rivals
    const other = finalizedGlooHA(
      { ...spec, target: { selector: { matchLabels: { x: 'y' } } } },
      { name: 'first', creationTimestamp: '2029-01-01T00:00:00Z' },
    );
    expect(plan(snapshotOf(g, { sameNamespace: [other, g] })).stall).toBeUndefined();
  });

  it('no gloo Deployment: TargetNotFound, checked again in a minute', () => {
    const g = finalizedGlooHA(spec);
    const p = plan(snapshotOf(g, { deployments: [] }));
    expect(p.stall?.reason).toBe('TargetNotFound');
    expect(p.requeueAfterMs).toBe(TARGET_REQUEUE_MS);
    expect(p.applies).toEqual([]);
  });

  it('a spec the validator rejects: InvalidSpec naming the field', () => {
    const g = finalizedGlooHA({ gloo: { replicas: 0 } });
    const p = plan(snapshotOf(g));
    expect(p.stall?.reason).toBe('InvalidSpec');
    expect(p.stall?.message).toMatch(/spec\.gloo\.replicas/);
    expect(p.applies).toEqual([]);
  });

  // The rule table rejects two proxies on one Deployment before desired() runs (issue 11); the guard
  // below still holds for anything the validator lets through.
  it('two proxies on one Deployment: the validator stops it first → InvalidSpec, nothing written', () => {
    const s2 = {
      gloo: { replicas: 2 },
      gatewayProxies: {
        gatewayProxy: { replicas: 2 },
        gwCopy: { deploymentName: 'gateway-proxy', replicas: 3 },
      },
    };
    const g = finalizedGlooHA(s2);
    const s = snapshotOf(g, { deployments: chartDeployments({ gatewayProxies: { gatewayProxy: {} } }) });
    const p = plan(s);
    expect(p.stall?.reason).toBe('InvalidSpec');
    expect(p.stall?.message).toMatch(/must not manage the same Deployment/);
    expect(p.applies).toEqual([]);
    expect(p.prunes).toEqual([]);
  });

  it('self-conflict guard holds whatever the validator lets through (injected desired state)', () => {
    const g = finalizedGlooHA(spec);
    const twice = (gg: GlooHA, observed: Parameters<typeof desired>[1]) => {
      const r = desired(gg, observed);
      if (!r.ok) return r;
      const dep = r.desired.patches.find((b) => b.kind === 'Deployment')!;
      const other = structuredClone(dep);
      (other.spec as { replicas?: number }).replicas = 7;
      return { ok: true as const, desired: { ...r.desired, patches: [...r.desired.patches, other] } };
    };
    const p = plan(snapshotOf(g), glooProduct(twice));
    expect(p.stall?.reason).toBe('ConflictingDesiredObjects');
    expect(p.stall?.message).toMatch(/deploymentName\); nothing was written for this GlooHA$/);
    expect(p.applies).toEqual([]);
    expect(condition(p.status, 'Stalled')?.status).toBe('True');
    // identical duplicates are harmless: no stall
    const same = (gg: GlooHA, observed: Parameters<typeof desired>[1]) => {
      const r = desired(gg, observed);
      if (!r.ok) return r;
      return {
        ok: true as const,
        desired: { ...r.desired, patches: [...r.desired.patches, structuredClone(r.desired.patches[0]!)] },
      };
    };
    expect(plan(snapshotOf(g), glooProduct(same)).stall).toBeUndefined();
  });

  it('a KgatewayHA whose Gateways share one GatewayParameters with different settings: the message speaks of Gateways and GatewayParameters', () => {
    const k = finalizedGlooHA({}, { name: 'kgw' });
    Object.assign(k, {
      kind: KGATEWAY_KIND,
      spec: { controller: { replicas: 2 }, gateways: { a: { replicas: 2 }, b: { replicas: 3 } } },
    });
    const gateway = (name: string) => ({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name, namespace: NS },
      spec: {
        infrastructure: {
          parametersRef: { group: 'gateway.kgateway.dev', kind: 'GatewayParameters', name: 'shared' },
        },
      },
    });
    // A tested kgateway line, whose GatewayParameters are known to take the proxies' PDBs.
    const controller = deployment('kgateway', controllerSelectorLabels('kgateway'), 'controller');
    controller.metadata!.labels!['app.kubernetes.io/version'] = 'v2.4.2';
    const p = plan(
      snapshotOf(k, {
        key: `${NS}/kgw`,
        deployments: [controller],
        related: new Map<string, KubernetesObject[]>([
          ['Gateway', [gateway('a'), gateway('b')]],
          [
            'GatewayParameters',
            [
              {
                apiVersion: 'gateway.kgateway.dev/v1alpha1',
                kind: 'GatewayParameters',
                metadata: { name: 'shared', namespace: NS },
              },
            ],
          ],
        ]),
      }),
      KGATEWAY,
    );
    expect(p.stall?.reason).toBe('ConflictingDesiredObjects');
    expect(p.stall?.message).toContain(`GatewayParameters ${NS}/shared is wanted twice`);
    expect(p.stall?.message).toContain(
      "its own GatewayParameters (the Gateway's spec.infrastructure.parametersRef)",
    );
    expect(p.stall?.message).toMatch(/nothing was written for this KgatewayHA$/);
    expect(p.stall?.message).not.toMatch(/GlooHA|deploymentName|gateway proxy/);
    expect(p.applies).toEqual([]);
  });

  it("a KgatewayHA naming a Gateway after kgateway's controller Deployment: stalls with the Gateway's name and the fix, writes nothing", () => {
    // kgateway's deployer names a proxy's Deployment (and its PDB and HPA) after the Gateway, in
    // the controller's namespace: a Gateway named like the controller would take its Deployment's name.
    const k = finalizedGlooHA({}, { name: 'kgw' });
    Object.assign(k, {
      kind: KGATEWAY_KIND,
      spec: { controller: { replicas: 2 }, gateways: { kgateway: { replicas: 2 } } },
    });
    const p = plan(
      snapshotOf(k, {
        key: `${NS}/kgw`,
        deployments: [deployment('kgateway', controllerSelectorLabels('kgateway'), 'controller')],
        related: new Map<string, KubernetesObject[]>([
          [
            'Gateway',
            [
              {
                apiVersion: 'gateway.networking.k8s.io/v1',
                kind: 'Gateway',
                metadata: { name: 'kgateway', namespace: NS },
              },
            ],
          ],
          ['GatewayParameters', []],
        ]),
      }),
      KGATEWAY,
    );
    expect(p.stall?.reason).toBe('GatewayNamedAsController');
    expect(p.stall?.message).toContain(`Gateway ${NS}/kgateway`);
    expect(p.stall?.message).toContain('spec.gateways[kgateway]');
    expect(p.stall?.message).toMatch(/Rename the Gateway/);
    expect(p.stall?.message).not.toMatch(/GlooHA|deploymentName|ConflictingDesiredObjects/);
    expect(p.applies).toEqual([]);
  });

  it("deleting a KgatewayHA: releases the operator's fields on the GatewayParameters of its namespace, and only ours", () => {
    const k = finalizedGlooHA({}, { name: 'kgw' });
    Object.assign(k, {
      kind: KGATEWAY_KIND,
      spec: { gateways: { http: { replicas: 2 } } },
      metadata: { ...k.metadata, deletionTimestamp: '2030-01-03T00:00:00Z', finalizers: [FINALIZER] },
    });
    const parameters = (name: string, namespace: string, managers: string[]) => ({
      apiVersion: 'gateway.kgateway.dev/v1alpha1',
      kind: 'GatewayParameters',
      metadata: {
        name,
        namespace,
        resourceVersion: '7',
        annotations: { [APPLIED_ANNOTATION]: 'abc' },
        managedFields: managers.map((manager) => ({
          manager,
          operation: 'Apply',
          fieldsV1: { 'f:spec': { 'f:kube': { 'f:deployment': { 'f:replicas': {} } } } },
        })),
      },
    });
    const p = plan(
      snapshotOf(k, {
        key: `${NS}/kgw`,
        deployments: [deployment('kgateway', controllerSelectorLabels('kgateway'), 'controller')],
        related: new Map<string, KubernetesObject[]>([
          ['Gateway', []],
          [
            'GatewayParameters',
            [parameters('http', NS, ['kubectl', MANAGER]), parameters('elsewhere', 'other-ns', [MANAGER])],
          ],
        ]),
      }),
      KGATEWAY,
    );
    const h = p.handover.find((x) => x.what.includes('/http'));
    expect(h, JSON.stringify(p.handover.map((x) => x.what))).toBeDefined();
    expect(h!.release).not.toHaveProperty('spec');
    expect((h!.release.metadata?.managedFields ?? []).map((m) => m.manager)).toEqual(['kubectl']);
    expect(p.handover.map((x) => x.what).join()).not.toContain('elsewhere');
    expect(p.finalizers).toEqual([]);
  });

  it('terminal write failures become a Stalled plan with the server message (403, 422)', () => {
    const g = finalizedGlooHA(spec);
    const s = snapshotOf(g);
    const invalid = Object.assign(new Error('HTTP-Code: 422'), {
      code: 422,
      body: JSON.stringify({
        kind: 'Status',
        message:
          'Deployment.apps "gloo" is invalid: spec.template.spec.topologySpreadConstraints[0].topologyKey: Required value',
      }),
    });
    const t = terminalFailure({ what: `Deployment ${NS}/gloo`, cause: invalid, code: 422 });
    expect(t?.kind).toBe('invalid');
    const p = stalledPlan(s, t!.stall);
    expect(p.applies).toEqual([]);
    expect(condition(p.status, 'Stalled')).toMatchObject({ status: 'True', reason: 'InvalidObject' });
    expect(p.stall?.message).toContain(
      `Deployment ${NS}/gloo: Deployment.apps "gloo" is invalid: spec.template.spec.topologySpreadConstraints[0].topologyKey: Required value`,
    );
    const forbidden = terminalFailure(
      Object.assign(new Error('403'), {
        code: 403,
        body: { message: 'deployments.apps "gloo" is forbidden: User "x" cannot patch' },
      }),
    );
    expect(forbidden?.stall).toMatchObject({ reason: 'Forbidden' });
    expect(forbidden?.stall.message).toContain('cannot patch');
    expect(terminalFailure(Object.assign(new Error('conflict'), { code: 409 }))).toBeUndefined();
    expect(terminalFailure(new Error('ECONNRESET'))).toBeUndefined();
  });
});

describe('plan: applies', () => {
  it('create: applies every owned object and Gloo patch, events, Reconciling, requeue to settle', () => {
    const g = finalizedGlooHA(spec);
    const p = plan(snapshotOf(g));
    const kinds = p.applies.map((a) => `${a.reason} ${a.body.kind} ${a.body.metadata?.name}`);
    expect(kinds).toContain('create PodDisruptionBudget gloo-glooha');
    expect(kinds).toContain('create ConfigMap ha-helm-values');
    expect(kinds).toContain('create ConfigMap ha-glooha-replicas-floors');
    expect(kinds).toContain('create HorizontalPodAutoscaler public-gw-glooha');
    expect(kinds).toContain('update Deployment gloo');
    // owned objects first, then the partial applies to Gloo's objects
    const firstPatch = p.applies.findIndex((a) => a.body.kind === 'Deployment');
    expect(
      p.applies
        .slice(firstPatch)
        .every((a) => a.body.kind === 'Deployment' || a.body.kind === 'HorizontalPodAutoscaler'),
    ).toBe(true);
    for (const a of p.applies)
      expect(a.body.metadata?.annotations?.[APPLIED_ANNOTATION]).toMatch(/^[0-9a-f]{16}$/);
    // one event for the whole change set, naming every object created
    const normal = p.events.filter((e) => e.type === 'Normal');
    expect(normal).toHaveLength(1);
    expect(normal[0]!.reason).toBe('Applied');
    for (const a of p.applies) expect(normal[0]!.message).toContain(a.what);
    expect(normal[0]!.message).toMatch(/^created .*; updated Deployment /);
    // stages: owned objects (0), the RoleBinding after its Role (1), Gloo's objects (2)
    const stageOf = (kind: string) => p.applies.filter((a) => a.body.kind === kind).map((a) => a.stage);
    expect(stageOf('Role')).toEqual([0]);
    expect(stageOf('RoleBinding')).toEqual([1]);
    expect(stageOf('ConfigMap')).toEqual([0, 0]);
    expect(new Set(stageOf('Deployment'))).toEqual(new Set([2]));
    // no timed requeue: the applied objects' watch events bring the GlooHA back
    expect(p.requeueAfterMs).toBeUndefined();
    expect(condition(p.status, 'Reconciling')).toMatchObject({ status: 'True', reason: 'Applied' });
  });

  it('HPA owned: an autoscaled proxy gets our HPA and its Deployment patch leaves replicas alone', () => {
    const g = finalizedGlooHA(spec);
    const p = plan(snapshotOf(g));
    const dep = p.applies.find((a) => a.body.kind === 'Deployment' && a.body.metadata?.name === 'public-gw')!;
    expect((dep.body as { spec?: { replicas?: number } }).spec?.replicas).toBeUndefined();
    const hpa = p.applies.find((a) => a.body.kind === 'HorizontalPodAutoscaler')!;
    expect(hpa.body).toMatchObject({ spec: { minReplicas: 2, maxReplicas: 5 } });
  });

  it('steady state: the second plan writes nothing, not even status', () => {
    const g = finalizedGlooHA({ gloo: { replicas: 3 }, gatewayProxies: { gatewayProxy: { replicas: 2 } } });
    const s = settled(snapshotOf(g));
    const p = plan(s);
    expect(p.applies).toEqual([]);
    expect(p.prunes).toEqual([]);
    expect(p.status).toBeUndefined();
    expect(p.requeueAfterMs).toBeUndefined();
    expect(condition(s.object!.status, 'Ready')).toMatchObject({ status: 'True' });
  });

  it('replicas floors: the ConfigMap the scale policy reads holds each floor annotation, per Deployment; none without a floor', () => {
    const g = finalizedGlooHA({
      gloo: { replicas: 3 },
      gatewayProxies: { gatewayProxy: { replicas: 2 } },
    });
    const p = plan(snapshotOf(g));
    const floors = p.applies.find((a) => a.what.endsWith('/ha-glooha-replicas-floors'))!.body as {
      metadata: { labels: Record<string, string>; ownerReferences?: unknown[] };
      data: Record<string, string>;
    };
    expect(floors.metadata.labels['glooha.io/replicas-floors']).toBe('true');
    expect(floors.metadata.ownerReferences).toHaveLength(1);
    const deployment = (name: string) =>
      p.applies.find((a) => a.what === `Deployment gloo-system/${name}`)!.body.metadata as {
        annotations: Record<string, string>;
      };
    for (const name of ['gloo', 'gateway-proxy']) {
      const a = deployment(name).annotations;
      expect(floors.data[`min-replicas.${name}`], name).toBe(a['glooha.io/min-replicas']);
      expect(floors.data[`owner.${name}`], name).toBe(a['glooha.io/owner']);
      expect(floors.data[`owner-kind.${name}`], name).toBe('GlooHA');
      expect(floors.data[`helm-values.${name}`], name).toBe(a['glooha.io/helm-values']);
    }
    expect(floors.data['min-replicas.gloo']).toBe('3');
    expect(floors.data['min-replicas.gateway-proxy']).toBe('2');

    const warn = plan(snapshotOf(finalizedGlooHA({ gloo: { replicas: 3 }, driftPolicy: 'warn' })));
    expect(warn.applies.map((a) => a.what)).not.toContain('ConfigMap gloo-system/ha-glooha-replicas-floors');
  });

  it('a leaderless product: looks again when the spell reaches its failover bound, not before, not after', () => {
    const g = finalizedGlooHA({ gloo: { replicas: 3 }, gatewayProxies: { gatewayProxy: { replicas: 2 } } });
    const s = settled(snapshotOf(g));
    const spell = (seconds: number) => ({ seconds, leaseDurationSeconds: 15, retryPeriodSeconds: 2 });
    // Bound 25 s (leaderless-gap.ts failoverBound); 100 ms past it, so the spell is beyond it then.
    expect(plan({ ...s, leaderless: spell(20) }).requeueAfterMs).toBe(5_100);
    expect(plan({ ...s, leaderless: spell(30) }).requeueAfterMs).toBeUndefined();
  });

  /** A settled install whose GlooHA then asks for 4 gloo replicas (generation 2). */
  const replicasChanged = (): Snapshot => {
    const s = settled(snapshotOf(finalizedGlooHA(spec)));
    return {
      ...s,
      object: {
        ...s.object!,
        spec: { ...spec, gloo: { replicas: 4 } },
        metadata: { ...s.object!.metadata, generation: 2 },
      } as GlooHA,
    };
  };

  it('update: a spec change re-applies what it changes (hash mismatch), not drift', () => {
    const changed = replicasChanged();
    const p = plan(changed);
    const gloo = p.applies.find((a) => a.body.metadata?.name === 'gloo' && a.body.kind === 'Deployment');
    expect(gloo?.reason).toBe('update');
    expect(p.events.some((e) => e.reason === 'DriftCorrected')).toBe(false);
  });

  it('update: with the RBAC in place, the Deployment goes out with the ConfigMaps in one stage; a Role to write first holds it back', () => {
    const changed = replicasChanged();
    const stages = (p: ReturnType<typeof plan>) =>
      Object.fromEntries(p.applies.map((a) => [`${a.body.kind} ${a.body.metadata?.name}`, a.stage]));
    // Nothing the Deployment waits for is written: one round trip (both ConfigMaps carry the replicas).
    expect(stages(plan(changed))).toEqual({
      'ConfigMap ha-helm-values': 0,
      'ConfigMap ha-glooha-replicas-floors': 0,
      'Deployment gloo': 0,
    });
    // The Role is gone from the cache (deleted under us): it is written again first, RoleBinding
    // after it, and gloo's Deployment only after both.
    const noRole = {
      ...changed,
      owned: new Map([...changed.owned].map(([k, objs]) => [k, k === 'Role' ? [] : objs])),
    };
    const held = stages(plan(noRole));
    expect(held).toMatchObject({ 'ConfigMap ha-helm-values': 0, 'Deployment gloo': 2 });
    expect(Object.entries(held).find(([what]) => what.startsWith('Role '))?.[1]).toBe(0);
  });

  const drifted = (driftPolicy: 'enforce' | 'warn' | 'ignore') => {
    const g = finalizedGlooHA({ ...spec, driftPolicy });
    const s = settled(snapshotOf(g));
    const deployments = s.deployments.map((d) =>
      d.metadata?.name === 'gloo'
        ? {
            ...d,
            spec: { ...d.spec!, replicas: 1 },
            metadata: {
              ...d.metadata,
              managedFields: [
                {
                  manager: 'kubectl',
                  operation: 'Update',
                  time: '2030-01-02T00:00:00Z' as never,
                  fieldsV1: { 'f:spec': { 'f:replicas': {} } },
                },
              ],
            },
          }
        : d,
    );
    return plan({ ...s, deployments });
  };

  it('drift, enforce: restores the field, says what and who, remembers the correction', () => {
    const p = drifted('enforce');
    const fix = p.applies.find((a) => a.reason === 'drift')!;
    expect(fix.what).toBe(`Deployment ${NS}/gloo`);
    expect(fix.drift).toContain('replicas 1, want 3');
    expect(fix.drift).toContain('kubectl (Update)');
    expect(p.events).toContainEqual(expect.objectContaining({ reason: 'DriftCorrected' }));
    expect(p.corrections?.[0]?.corrected).toBe(true);
    expect(condition(p.status, 'Drifted')).toMatchObject({ status: 'False', reason: 'DriftCorrected' });
  });

  it('drift of spec.replicas that no manager owns: named as a scale-subresource write, not as the last other writer', () => {
    // The operator owns no replica count, and the API server records a /scale write to a field no one
    // owns under no manager: helm's entry must not be blamed.
    const s = settled(snapshotOf(finalizedGlooHA(spec)));
    const deployments = s.deployments.map((d) =>
      d.metadata?.name === 'gloo'
        ? {
            ...d,
            spec: { ...d.spec!, replicas: 1 },
            metadata: {
              ...d.metadata,
              managedFields: [
                {
                  manager: 'helm',
                  operation: 'Update',
                  time: '2030-01-02T00:00:00Z' as never,
                  fieldsV1: { 'f:spec': { 'f:template': {} } },
                },
              ],
            },
          }
        : d,
    );
    const fix = plan({ ...s, deployments }).applies.find((a) => a.reason === 'drift')!;
    expect(fix.drift).toContain('replicas 1, want 3) changed by a write through the scale subresource');
    expect(fix.drift).not.toContain('helm');
  });

  it('drift, warn: reports it (event, Drifted=True) and writes nothing', () => {
    const p = drifted('warn');
    expect(p.applies).toEqual([]);
    expect(p.events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'DriftDetected' }));
    expect(condition(p.status, 'Drifted')).toMatchObject({ status: 'True', reason: 'DriftDetected' });
  });

  it('drift, ignore: ignores it (no write, no event, no Drifted=True)', () => {
    const p = drifted('ignore');
    expect(p.applies).toEqual([]);
    expect(p.events.filter((e) => e.reason.startsWith('Drift'))).toEqual([]);
    expect(p.status === undefined || condition(p.status, 'Drifted')?.status !== 'True').toBe(true);
  });

  /** The settled install, with the operator's Apply entry owning spec.replicas of gloo (as after an apply). */
  const owningReplicas = (extra: Partial<GlooHA['spec']> = {}) => {
    const s = settled(snapshotOf(finalizedGlooHA({ ...spec, ...extra })));
    const ours = {
      manager: MANAGER,
      operation: 'Apply',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:annotations': {} }, 'f:spec': { 'f:replicas': {}, 'f:template': {} } },
    };
    const deployments = s.deployments.map((d) =>
      d.metadata?.name === 'gloo'
        ? { ...d, metadata: { ...d.metadata, resourceVersion: '77', managedFields: [ours] } }
        : d,
    );
    return { ...s, deployments };
  };

  it('replicas ownership: released, value unchanged, on a Deployment the plan does not apply; nothing else written', () => {
    const p = plan(owningReplicas());
    expect(p.releaseReplicas.map((r) => r.what)).toEqual([`Deployment ${NS}/gloo`]);
    expect(p.releaseReplicas[0]!.release.metadata?.resourceVersion).toBe('77');
    expect(p.releaseReplicas[0]!.release.metadata?.managedFields?.[0]?.fieldsV1).toEqual({
      'f:metadata': { 'f:annotations': {} },
      'f:spec': { 'f:template': {} },
    });
    expect(p.applies).toEqual([]);
    expect(p.events).toEqual([]);
    expect(p.status).toBeUndefined();
    // Released (the cache now shows no owner of replicas): the next plan writes nothing at all.
    const released = owningReplicas();
    released.deployments = released.deployments.map((d) =>
      d.metadata?.name === 'gloo'
        ? {
            ...d,
            metadata: { ...d.metadata, managedFields: p.releaseReplicas[0]!.release.metadata?.managedFields },
          }
        : d,
    );
    expect(plan(released).releaseReplicas).toEqual([]);
  });

  it('replicas ownership: not released in a plan that applies that Deployment (the apply takes it again; the next reconcile releases)', () => {
    const s = owningReplicas();
    const deployments = s.deployments.map((d) =>
      d.metadata?.name === 'gloo' ? { ...d, spec: { ...d.spec!, replicas: 1 } } : d,
    );
    const p = plan({ ...s, deployments });
    expect(p.applies.map((a) => a.what)).toEqual([`Deployment ${NS}/gloo`]);
    expect(p.releaseReplicas).toEqual([]);
  });

  it("replicas ownership: nothing released while suspended (no writes to Gloo's objects)", () => {
    expect(plan(owningReplicas({ suspend: true })).releaseReplicas).toEqual([]);
  });

  it('a past correction stays reported while nothing new drifted', () => {
    const g = finalizedGlooHA(spec);
    const s = settled(snapshotOf(g));
    const p = plan({
      ...s,
      object: { ...s.object!, status: undefined },
      lastCorrections: [{ message: 'restored Deployment gloo: spec.replicas', corrected: true }],
    });
    expect(condition(p.status, 'Drifted')).toMatchObject({
      reason: 'DriftCorrected',
      message: 'restored Deployment gloo: spec.replicas',
    });
  });

  it('suspended: writes nothing but status — no applies, prunes, events or requeue — and lists what it would write', () => {
    const g = finalizedGlooHA({ ...spec, suspend: true });
    const p = plan(snapshotOf(g));
    expect(p).toMatchObject({ applies: [], prunes: [], handover: [], events: [] });
    expect(p.requeueAfterMs).toBeUndefined();
    expect(p.finalizers).toBeUndefined();
    expect(condition(p.status, 'Reconciling')).toMatchObject({ status: 'False', reason: 'Suspended' });
    const ready = p.status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'Suspended' });
    expect(ready.message).toContain(`create PodDisruptionBudget ${NS}/gloo-glooha`);
    expect(ready.message).toContain(`update Deployment ${NS}/gloo`);
  });

  it('suspended under driftPolicy enforce: drift is reported (Drifted=True), not corrected, no event', () => {
    const g = finalizedGlooHA(spec);
    const s = settled(snapshotOf(g));
    const suspendedSnap = { ...s, object: { ...s.object!, spec: { ...s.object!.spec, suspend: true } } };
    const drifted = {
      ...suspendedSnap,
      deployments: suspendedSnap.deployments.map((d) =>
        d.metadata?.name === 'gloo' ? { ...d, spec: { ...d.spec!, replicas: 1 } } : d,
      ),
    };
    const p = plan(drifted);
    expect(p.applies).toEqual([]);
    expect(p.events).toEqual([]);
    expect(condition(p.status, 'Drifted')).toMatchObject({ status: 'True', reason: 'DriftDetected' });
  });

  it('suspended: a stall writes its status but no Warning event', () => {
    const g = glooHA({ gloo: { replicas: 2 }, suspend: true }, { finalizers: [FINALIZER] });
    const p = plan(snapshotOf(g, { deployments: [] }));
    expect(p.events).toEqual([]);
    expect(condition(p.status, 'Stalled')).toMatchObject({ status: 'True', reason: 'TargetNotFound' });
  });

  it('suspended: deletion still hands over and removes the finalizer', () => {
    const g = finalizedGlooHA({ ...spec, suspend: true });
    const deleting = snapshotOf({
      ...g,
      metadata: { ...g.metadata, deletionTimestamp: '2030-01-03T00:00:00Z' },
    });
    expect(plan(deleting).finalizers).toEqual([]);
  });

  it('a reconcile request is recorded in status.lastHandledReconcileAt (one status write, nothing else)', () => {
    const g = finalizedGlooHA({ gloo: { replicas: 3 }, gatewayProxies: { gatewayProxy: { replicas: 2 } } });
    const s = settled(snapshotOf(g));
    const requested = {
      ...s,
      object: {
        ...s.object!,
        metadata: { ...s.object!.metadata, annotations: { [RECONCILE_REQUEST_ANNOTATION]: '1700000000' } },
      },
    };
    const p = plan(requested);
    expect(p.applies).toEqual([]);
    expect(p.status?.lastHandledReconcileAt).toBe('1700000000');
    // Handled once: the next plan, with that status, writes nothing.
    expect(plan(afterPlan(requested, p)).status).toBeUndefined();
  });

  it('prune: owned objects of this GlooHA no longer wanted go; another owner’s stay', () => {
    const g = finalizedGlooHA(spec);
    const s = settled(snapshotOf(g));
    const stale = (owner: string): KubernetesObject => ({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: {
        name: `old-${owner}`,
        namespace: NS,
        labels: {
          'app.kubernetes.io/managed-by': MANAGER,
          'glooha.io/owner-name': owner,
          'glooha.io/owner-namespace': NS,
        },
      },
    });
    const owned = new Map(s.owned);
    owned.set('PodDisruptionBudget', [
      ...(owned.get('PodDisruptionBudget') ?? []),
      stale('ha'),
      stale('someone-else'),
    ]);
    const p = plan({ ...s, owned });
    expect(p.prunes).toEqual([
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', namespace: NS, name: 'old-ha' },
    ]);
    expect(p.events).toContainEqual({
      type: 'Normal',
      reason: 'Applied',
      message: `deleted PodDisruptionBudget ${NS}/old-ha`,
    });
    expect(p.requeueAfterMs).toBeUndefined();
  });

  it('decideApply: missing → create, other hash → update, same hash and subset → nothing', () => {
    const g = finalizedGlooHA(spec);
    const body = plan(snapshotOf(g)).applies[0]!.body as never;
    expect(decideApply(body, undefined, 'enforce').apply?.reason).toBe('create');
    const live = {
      ...(body as KubernetesObject),
      metadata: { ...(body as KubernetesObject).metadata, annotations: { [APPLIED_ANNOTATION]: 'other' } },
    };
    expect(decideApply(body, live, 'enforce').apply?.reason).toBe('update');
  });

  it('decideApply: a cached copy older than our own accepted apply of the same body is not applied again', () => {
    const g = finalizedGlooHA(spec);
    const body = plan(snapshotOf(g)).applies[0]!.body;
    // what an apply of this body sends (and the hash it carries)
    const planned = decideApply(body as never, undefined, 'enforce').apply!;
    const hash = planned.body.metadata!.annotations![APPLIED_ANNOTATION]!;
    // what the cache still holds: the object before our apply (no applied-hash yet)
    const stale = { ...body, metadata: { ...body.metadata, annotations: {}, resourceVersion: '41' } };
    const own = new Map([[planned.what, { hash, resourceVersion: '42' }]]);
    expect(decideApply(body as never, stale, 'enforce', own)).toEqual({});
    // the cache caught up with a change after ours (someone else's write): decided as usual
    const newer = { ...stale, metadata: { ...stale.metadata, resourceVersion: '43' } };
    expect(decideApply(body as never, newer, 'enforce', own).apply?.reason).toBe('update');
    // we applied a different body last time (the spec changed since): applied
    const otherHash = new Map([[planned.what, { hash: 'other', resourceVersion: '42' }]]);
    expect(decideApply(body as never, stale, 'enforce', otherHash).apply?.reason).toBe('update');
    // gone from the cache (perhaps deleted after our write): created again
    expect(decideApply(body as never, undefined, 'enforce', own).apply?.reason).toBe('create');
  });
});
