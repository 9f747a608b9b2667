// The reconciler against a real API server, running as the chart's ServiceAccount with only the
// chart's RBAC. Gloo installs are simulated the way Gloo's chart lays them out (Deployments, SAs,
// labels, an HPA); pods run on kwok's simulated nodes, so readiness, PDB status and evictions are real.
import {
  AppsV1Api,
  AutoscalingV2Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type V1Deployment,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../src/api/constants.js';
import { PLURAL } from '../../src/products/gloo/api.js';
import type { GlooHA, GlooHASpec } from '../../src/products/gloo/types.js';
import { HANDOVER_MANAGER } from '../../src/controller/drift.js';
import { APPLIED_ANNOTATION } from '../../src/controller/plan-types.js';
import { formatMicroTime } from '../../src/leader/lease-client.js';
import { auditWrites, describeAudit } from '../support/audit.js';
import { adminKubeConfig, controlPlane, createNamespace, kubeConfigFor } from '../support/cluster.js';
import { createGlooInstall } from '../support/gloo-install.js';
import { createGlooHA, deleteGlooHA, getGlooHA } from '../support/glooha.js';
import { ownsReplicas } from '../support/managed-fields.js';
import {
  installOperatorRbac,
  metricValue,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { eventually, httpStatusOf } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const core = admin.makeApiClient(CoreV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const policy = admin.makeApiClient(PolicyV1Api);
const autoscaling = admin.makeApiClient(AutoscalingV2Api);
const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
const leases = admin.makeApiClient(CoordinationV1Api);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

let id: OperatorIdentity;
let operator: InProcessOperator;

async function patchSpec(namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
  await custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: { spec } },
    mergePatch,
  );
}

function condition(g: GlooHA, type: string) {
  return g.status?.conditions?.find((c) => c.type === type);
}

async function waitCondition(
  namespace: string,
  name: string,
  type: string,
  status: string,
  reason?: string,
  timeoutMs = 60_000,
): Promise<GlooHA> {
  return eventually(
    `${namespace}/${name} ${type}=${status}${reason ? ` (${reason})` : ''}`,
    () => getGlooHA(namespace, name),
    (g) => {
      const c = condition(g, type);
      return (
        c?.status === status &&
        (reason === undefined || c.reason === reason) &&
        c.observedGeneration === g.metadata.generation
      );
    },
    { timeoutMs },
  );
}

const deployment = (namespace: string, name: string) => apps.readNamespacedDeployment({ name, namespace });

async function scaleAs(
  namespace: string,
  name: string,
  replicas: number,
  fieldManager: string,
): Promise<void> {
  await apps.patchNamespacedDeploymentScale(
    { name, namespace, body: { spec: { replicas } }, fieldManager },
    mergePatch,
  );
}

const productionSpec: GlooHASpec = {
  gloo: {
    replicas: 3,
    leaderElection: { enabled: true, leaseDuration: '20s', renewDeadline: '15s', retryPeriod: '3s' },
    podDisruptionBudget: { maxUnavailable: 1 },
    antiAffinity: 'preferred',
  },
  discovery: { replicas: 1 },
  gatewayProxies: {
    gatewayProxy: { replicas: 2, podDisruptionBudget: { maxUnavailable: 1 } },
    publicGw: { autoscaling: { minReplicas: 3, maxReplicas: 6 }, podDisruptionBudget: { minAvailable: 2 } },
  },
};

async function newInstall(prefix: string, spec: GlooHASpec = productionSpec): Promise<string> {
  const ns = await createNamespace(prefix);
  await createGlooInstall(admin, {
    namespace: ns,
    discovery: true,
    proxies: ['gateway-proxy', 'public-gw'],
    autoscaled: { 'public-gw': { minReplicas: 2, maxReplicas: 5 } },
  });
  await createGlooHA(ns, 'gloo', spec);
  return ns;
}

describe('GlooHA reconciler (as the chart ServiceAccount)', () => {
  // This block's operator; stopped before the next block starts its own (both would reconcile).
  beforeAll(async () => {
    const ns = await createNamespace('glooha-system');
    id = await installOperatorRbac(ns);
    operator = await startOperatorInProcess(id, { args: ['--resync-period=10m'] });
    await eventually(
      'the operator to lead',
      () => metricValue(operator.metricsUrl, 'leader_election_master_status'),
      (v) => v === 1,
    );
  });

  afterAll(async () => {
    await operator?.shutdown('test end');
  });

  let ns: string;

  it('applies a GlooHA: replicas, lease env, PDBs, lease RBAC, HPA bounds, Helm values; then Ready', async () => {
    const t0 = Date.now();
    ns = await newInstall('prod');
    const ready = await waitCondition(ns, 'gloo', 'Ready', 'True', undefined, 90_000);
    const createToReady = Date.now() - t0;
    console.log(`create → Ready: ${createToReady} ms`);

    const gloo = await deployment(ns, 'gloo');
    expect(gloo.spec?.replicas).toBe(3);
    const env = gloo.spec?.template.spec?.containers.find((c) => c.name === 'gloo')?.env ?? [];
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'LEADER_ELECTION_LEASE_DURATION', value: '20s' },
        { name: 'LEADER_ELECTION_RENEW_PERIOD', value: '15s' },
        { name: 'LEADER_ELECTION_RETRY_PERIOD', value: '3s' },
        expect.objectContaining({ name: 'POD_NAMESPACE' }), // Helm's env stays
      ]),
    );
    expect(
      gloo.spec?.template.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution,
    ).toBeDefined();
    expect((await deployment(ns, 'gateway-proxy')).spec?.replicas).toBe(2);

    const pdbs = (await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items;
    const pdbFor = (app: string) =>
      pdbs.find(
        (p) =>
          p.spec?.selector?.matchLabels?.gloo === app &&
          (app !== 'gateway-proxy' || p.spec.selector.matchLabels['gateway-proxy-id'] === 'gateway-proxy'),
      );
    expect(pdbFor('gloo')?.spec?.selector?.matchLabels).toEqual({ gloo: 'gloo' });
    expect(pdbFor('gloo')?.spec?.maxUnavailable).toBe(1);
    expect(
      pdbs.find((p) => p.spec?.selector?.matchLabels?.['gateway-proxy-id'] === 'public-gw')?.spec
        ?.minAvailable,
    ).toBe(2);
    expect(pdbFor('gloo')?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'GlooHA',
      name: 'gloo',
      controller: true,
    });

    // The autoscaled proxy: the chart's HPA gets the bounds, the Deployment's replicas stay the HPA's.
    const hpa = await autoscaling.readNamespacedHorizontalPodAutoscaler({
      name: 'public-gw-hpa',
      namespace: ns,
    });
    expect([hpa.spec?.minReplicas, hpa.spec?.maxReplicas]).toEqual([3, 6]);
    const publicGw = await deployment(ns, 'public-gw');
    const ours = publicGw.metadata?.managedFields?.find((m) => m.manager === 'glooha-operator');
    expect(JSON.stringify(ours?.fieldsV1 ?? {})).not.toContain('"f:replicas"');
    await eventually(
      'the HPA to scale public-gw to its new minimum',
      () => deployment(ns, 'public-gw'),
      (d) => d.status?.readyReplicas === 3,
    );

    // Least-privilege lease RBAC for Gloo's ServiceAccount, proven with its own token.
    const asGloo = (await kubeConfigFor(ns, 'gloo')).makeApiClient(CoordinationV1Api);
    expect(
      await httpStatusOf(
        asGloo.createNamespacedLease({
          namespace: ns,
          body: { metadata: { name: 'gloo' }, spec: { holderIdentity: 'gloo-0' } },
        }),
      ),
    ).toBe(200);
    expect(await httpStatusOf(asGloo.readNamespacedLease({ name: 'gloo', namespace: ns }))).toBe(200);
    expect(await httpStatusOf(asGloo.readNamespacedLease({ name: 'other', namespace: ns }))).toBe(403);
    expect(await httpStatusOf(asGloo.deleteNamespacedLease({ name: 'gloo', namespace: ns }))).toBe(403);
    const roles = (await rbac.listNamespacedRole({ namespace: ns })).items;
    expect(JSON.stringify(roles)).not.toContain('configmaps');

    const cm = await core.readNamespacedConfigMap({ name: 'gloo-helm-values', namespace: ns });
    expect(Object.values(cm.data ?? {}).join('\n')).toContain('replicas: 3');

    expect(ready.status?.components?.gloo).toMatchObject({
      deploymentName: 'gloo',
      desiredReplicas: 3,
      readyReplicas: 3,
    });
    expect(ready.status?.observedGeneration).toBe(ready.metadata.generation);
  });

  it('on a spec update writes only what changed', async () => {
    const since = new Date();
    const t0 = Date.now();
    await patchSpec(ns, 'gloo', { gloo: { replicas: 4 } });
    await eventually(
      'gloo to be scaled to 4',
      () => deployment(ns, 'gloo'),
      (d) => d.spec?.replicas === 4,
    );
    console.log(`update → applied: ${Date.now() - t0} ms`);
    await waitCondition(ns, 'gloo', 'Ready', 'True');
    // The apply took spec.replicas; the operator then gives up owning it (value kept).
    await eventually(
      'the operator to release spec.replicas of gloo',
      () => deployment(ns, 'gloo'),
      (d) => d.spec?.replicas === 4 && !ownsReplicas(d, 'glooha-operator'),
    );
    const writes = auditWrites({ username: id.username, since }).filter(
      (e) => e.objectRef?.resource !== 'leases' && e.objectRef?.resource !== 'events',
    );
    const targets = new Set(
      writes.map(
        (e) =>
          `${e.objectRef?.resource}${e.objectRef?.subresource ? '/' + e.objectRef.subresource : ''}/${e.objectRef?.name}`,
      ),
    );
    // The gloo Deployment (replicas), the Helm values (gloo.deployment.replicas), the replicas floor
    // the scale policy reads (core/replicas-floors.ts) and the status; nothing else.
    expect([...targets].sort(), writes.map(describeAudit).join('\n')).toEqual([
      'configmaps/gloo-glooha-replicas-floors',
      'configmaps/gloo-helm-values',
      'deployments/gloo',
      'gloohas/status/gloo',
    ]);
    // The apply, then the metadata-only release of spec.replicas (replicas-ownership.ts); a release
    // based on a resourceVersion the Deployment controller moved on from is refused (409) and retried.
    const deploymentWrites = writes.filter((e) => e.objectRef?.resource === 'deployments');
    const refused = deploymentWrites.filter((e) => e.responseStatus?.code === 409);
    console.log(
      `deployment writes on a spec update: ${deploymentWrites.length} (${refused.length} refused, 409)`,
    );
    expect(deploymentWrites.length - refused.length, writes.map(describeAudit).join('\n')).toBe(2);
    // Measured 0 and 2: each 409 is a status write of the Deployment controller's rollout landing
    // between the release's read and its write, so at most about one per status change of the rollout
    // (3 -> 4 pods on kwok: a handful); a loop would not stop at 8.
    expect(refused.length).toBeLessThanOrEqual(8);
  });

  it('drift: enforce restores within seconds and says who; warn only reports', async () => {
    await scaleAs(ns, 'gloo', 1, 'kubectl-scale');
    const t0 = Date.now();
    await eventually(
      'drift to be corrected',
      () => deployment(ns, 'gloo'),
      (d) => d.spec?.replicas === 4,
      { timeoutMs: 15_000 },
    );
    console.log(`drift corrected after ${Date.now() - t0} ms`);
    const corrected = await eventually(
      'the Drifted condition',
      () => getGlooHA(ns, 'gloo'),
      (g) => condition(g, 'Drifted')?.reason === 'DriftCorrected',
    );
    // The operator owns no replica count (replicas-ownership.ts), so the API server records the /scale
    // write under no field manager: the message names the path, not a manager it cannot know.
    expect(condition(corrected, 'Drifted')?.message).toMatch(
      /gloo.*spec\.replicas.*changed by a write through the scale subresource/,
    );
    const events = (await core.listNamespacedEvent({ namespace: ns })).items;
    expect(
      events.some(
        (e) => e.reason === 'DriftCorrected' && e.message?.includes('through the scale subresource'),
      ),
    ).toBe(true);
    expect(await metricValue(operator.metricsUrl, 'glooha_drift_corrections_total')).toBeGreaterThan(0);

    // An edit to a PDB the operator owns is drift too.
    const pdb = (
      await policy.listNamespacedPodDisruptionBudget({
        namespace: ns,
        labelSelector: 'glooha.io/component=gloo',
      })
    ).items[0]!;
    await policy.patchNamespacedPodDisruptionBudget(
      {
        name: pdb.metadata!.name!,
        namespace: ns,
        body: { spec: { maxUnavailable: 3 } },
        fieldManager: 'someone',
      },
      mergePatch,
    );
    await eventually(
      'the PDB to be restored',
      () => policy.readNamespacedPodDisruptionBudget({ name: pdb.metadata!.name!, namespace: ns }),
      (p) => p.spec?.maxUnavailable === 1,
      { timeoutMs: 15_000 },
    );

    await patchSpec(ns, 'gloo', { driftPolicy: 'warn' });
    await waitCondition(ns, 'gloo', 'Ready', 'True');
    await scaleAs(ns, 'gloo', 2, 'kubectl-scale');
    const warned = await waitCondition(ns, 'gloo', 'Drifted', 'True', 'DriftDetected', 15_000);
    expect(condition(warned, 'Drifted')?.message).toContain('through the scale subresource');
    await new Promise((r) => setTimeout(r, 3000));
    expect((await deployment(ns, 'gloo')).spec?.replicas).toBe(2);

    await patchSpec(ns, 'gloo', { driftPolicy: 'enforce' });
    await eventually(
      'enforce to restore replicas',
      () => deployment(ns, 'gloo'),
      (d) => d.spec?.replicas === 4,
      { timeoutMs: 15_000 },
    );
  });

  it('driftPolicy ignore: once the operator has seen it, a drift is neither corrected nor reported', async () => {
    const reconciles = () =>
      metricValue(operator.metricsUrl, 'controller_runtime_reconcile_total', { controller: 'glooha' });
    await patchSpec(ns, 'gloo', { driftPolicy: 'ignore' });
    const generation = (await getGlooHA(ns, 'gloo')).metadata.generation;
    // Sync point 1: the operator has reconciled the spec that says `ignore` (warn would pass a test that
    // only checks the replicas stay changed).
    await eventually(
      'the operator to observe driftPolicy ignore',
      () => getGlooHA(ns, 'gloo'),
      (g) => g.status?.observedGeneration === generation,
    );
    await eventually(
      'reconciles to settle',
      async () => {
        const a = await reconciles();
        await new Promise((r) => setTimeout(r, 1000));
        return a === (await reconciles());
      },
      (quiet) => quiet,
      { timeoutMs: 30_000, intervalMs: 0 },
    );
    const before = await reconciles();
    const detectedBefore = (await core.listNamespacedEvent({ namespace: ns })).items.filter(
      (e) => e.reason === 'DriftDetected',
    ).length;
    await scaleAs(ns, 'gloo', 3, 'kubectl-scale');
    // Sync point 2: the operator has reconciled after the drift (the Deployment event enqueued it).
    await eventually('a reconcile after the drift', reconciles, (n) => n > before, { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 500));
    expect((await deployment(ns, 'gloo')).spec?.replicas).toBe(3); // not corrected (enforce would)
    const g = await getGlooHA(ns, 'gloo');
    expect(condition(g, 'Drifted')?.status).not.toBe('True'); // not reported (warn would)
    expect(condition(g, 'Drifted')?.message ?? '').not.toContain('replicas 3');
    const detectedAfter = (await core.listNamespacedEvent({ namespace: ns })).items.filter(
      (e) => e.reason === 'DriftDetected',
    ).length;
    expect(detectedAfter).toBe(detectedBefore);

    await patchSpec(ns, 'gloo', { driftPolicy: 'enforce' });
    await eventually(
      'enforce to restore replicas',
      () => deployment(ns, 'gloo'),
      (d) => d.spec?.replicas === 4,
      { timeoutMs: 15_000 },
    );
  });

  it('reports who leads Gloo while its Lease is renewed, and a stale Gloo leader once renewals stop', async () => {
    await waitCondition(ns, 'gloo', 'Ready', 'True');
    // Gloo's leader, simulated: renews the `gloo` Lease every 2 s, as Gloo does.
    const now = () => formatMicroTime(new Date());
    await leases.patchNamespacedLease(
      {
        name: 'gloo',
        namespace: ns,
        body: {
          spec: {
            holderIdentity: 'gloo-7d9f-abcde',
            leaseDurationSeconds: 6,
            acquireTime: now(),
            renewTime: now(),
          },
        },
      },
      mergePatch,
    );
    await eventually(
      'the status to show the Gloo leader',
      () => getGlooHA(ns, 'gloo'),
      (g) => g.status?.leader?.holder === 'gloo-7d9f-abcde' && g.status.leader.fresh === true,
    );
    let renewals = 0;
    const renewErrors: unknown[] = [];
    const renewer = setInterval(() => {
      renewals++;
      leases
        .patchNamespacedLease(
          { name: 'gloo', namespace: ns, body: { spec: { renewTime: now() } } },
          mergePatch,
        )
        .catch((err: unknown) => renewErrors.push(err));
    }, 2000);
    try {
      // Renewals keep the leader fresh (they are swallowed: zero reconciles and zero writes in a steady
      // state is measured once, over 60 s with two replicas, in operator-ha.test.ts).
      await new Promise((r) => setTimeout(r, 7_000));
      expect(renewals).toBeGreaterThanOrEqual(3);
      expect(renewErrors).toEqual([]);
      expect((await getGlooHA(ns, 'gloo')).status?.leader?.fresh).toBe(true);
    } finally {
      clearInterval(renewer);
    }
    // No renewals for leaseDuration: the operator notices on its own clock and reports it.
    const degraded = await waitCondition(ns, 'gloo', 'Degraded', 'True', 'GlooLeaderLost', 20_000);
    expect(degraded.status?.leader?.fresh).toBe(false);
  });

  it('drain: evictions respect the PDBs it made; gloo never drops below its budget', async () => {
    await patchSpec(ns, 'gloo', { gloo: { replicas: 3 } });
    await waitCondition(ns, 'gloo', 'Ready', 'True');
    const nodes = controlPlane().nodes;
    const cordon = (unschedulable: boolean) =>
      Promise.all(
        nodes.map((name) => core.patchNode({ name, body: { spec: { unschedulable } } }, mergePatch)),
      );
    await eventually(
      'the gloo PDB to allow one disruption',
      () =>
        policy.listNamespacedPodDisruptionBudget({
          namespace: ns,
          labelSelector: 'glooha.io/component=gloo',
        }),
      (l) => l.items[0]?.status?.disruptionsAllowed === 1,
    );
    await cordon(true);
    try {
      const pods = (await core.listNamespacedPod({ namespace: ns, labelSelector: 'gloo=gloo' })).items.filter(
        (p) => !p.metadata?.deletionTimestamp,
      );
      const codes: number[] = [];
      let minReady = Infinity;
      for (const pod of pods) {
        codes.push(
          (await httpStatusOf(
            core.createNamespacedPodEviction({
              name: pod.metadata!.name!,
              namespace: ns,
              body: {
                apiVersion: 'policy/v1',
                kind: 'Eviction',
                metadata: { name: pod.metadata!.name!, namespace: ns },
              },
            }),
          )) ?? 0,
        );
        minReady = Math.min(minReady, (await deployment(ns, 'gloo')).status?.readyReplicas ?? 0);
      }
      expect(codes.sort()).toEqual([200, 429, 429]);
      expect(minReady).toBeGreaterThanOrEqual(2);
    } finally {
      await cordon(false);
    }
  });

  it('deleting the GlooHA leaves the running replicas as they are and removes what it owned', async () => {
    await waitCondition(ns, 'gloo', 'Ready', 'True');
    const before = await deployment(ns, 'gloo');
    await deleteGlooHA(ns, 'gloo');
    const after: V1Deployment = await deployment(ns, 'gloo');
    expect(after.spec?.replicas).toBe(before.spec?.replicas);
    expect(after.spec?.template.spec?.containers[0]?.env).toEqual(
      before.spec?.template.spec?.containers[0]?.env,
    );
    const managers = (after.metadata?.managedFields ?? []).map((m) => m.manager);
    expect(managers).not.toContain('glooha-operator');
    // Released to no manager (handover.ts): nothing left that a later helm upgrade would conflict with.
    expect(managers).not.toContain(HANDOVER_MANAGER);
    expect(after.metadata?.annotations?.[APPLIED_ANNOTATION]).toBeUndefined();
    expect(
      (await autoscaling.readNamespacedHorizontalPodAutoscaler({ name: 'public-gw-hpa', namespace: ns })).spec
        ?.minReplicas,
    ).toBe(3);
    await eventually(
      'garbage collection of the owned objects',
      async () => {
        const [p, r, c] = await Promise.all([
          policy.listNamespacedPodDisruptionBudget({
            namespace: ns,
            labelSelector: 'app.kubernetes.io/managed-by=glooha-operator',
          }),
          rbac.listNamespacedRole({
            namespace: ns,
            labelSelector: 'app.kubernetes.io/managed-by=glooha-operator',
          }),
          core.listNamespacedConfigMap({
            namespace: ns,
            labelSelector: 'app.kubernetes.io/managed-by=glooha-operator',
          }),
        ]);
        return p.items.length + r.items.length + c.items.length;
      },
      (n) => n === 0,
      { timeoutMs: 60_000 },
    );
  });

  it('reconciles two installs independently; a second GlooHA for the same install is Stalled and changes nothing', async () => {
    const [a, b] = await Promise.all([
      newInstall('two-a', { gloo: { replicas: 2 } }),
      newInstall('two-b', { gloo: { replicas: 3 } }),
    ]);
    await Promise.all([waitCondition(a, 'gloo', 'Ready', 'True'), waitCondition(b, 'gloo', 'Ready', 'True')]);
    expect((await deployment(a, 'gloo')).spec?.replicas).toBe(2);
    expect((await deployment(b, 'gloo')).spec?.replicas).toBe(3);
    await createGlooHA(a, 'rival', { gloo: { replicas: 5 } });
    const rival = await waitCondition(a, 'rival', 'Stalled', 'True', 'ConflictingGlooHA');
    expect(condition(rival, 'Stalled')?.message).toContain(`${a}/gloo`);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await deployment(a, 'gloo')).spec?.replicas).toBe(2);
    expect(condition(await getGlooHA(a, 'gloo'), 'Ready')?.status).toBe('True');
  });

  it('waits for a missing install (Stalled TargetNotFound), then reconciles it when it appears', async () => {
    const empty = await createNamespace('late');
    await createGlooHA(empty, 'gloo', { gloo: { replicas: 2 } });
    const stalled = await waitCondition(empty, 'gloo', 'Stalled', 'True', 'TargetNotFound');
    expect(condition(stalled, 'Stalled')?.message).toMatch(/gloo=gloo/);
    await createGlooInstall(admin, { namespace: empty });
    await waitCondition(empty, 'gloo', 'Ready', 'True');
    expect((await deployment(empty, 'gloo')).spec?.replicas).toBe(2);
  });

  it('runs with the chart RBAC only: it cannot read Secrets', async () => {
    const asOperator = id.kubeConfig.makeApiClient(CoreV1Api);
    expect(await httpStatusOf(asOperator.listSecretForAllNamespaces())).toBe(403);
    expect(await httpStatusOf(asOperator.readNamespacedSecret({ name: 'x', namespace: id.namespace }))).toBe(
      403,
    );
  });
});

describe('namespaced mode (--watch-namespaces, the chart with watchNamespaces)', () => {
  it('reconciles in its namespaces with per-namespace Roles, and reports a missing permission as Stalled/Forbidden', async () => {
    const opNs = await createNamespace('glooha-ns-mode');
    const installNs = await createNamespace('gloo-ns-mode');
    const nsId = await installOperatorRbac(opNs, { watchNamespaces: [installNs] });
    const nsOperator = await startOperatorInProcess(nsId, { args: [`--watch-namespaces=${installNs}`] });
    try {
      // Caches synced (readyz) and leading, before a permission is taken away: an informer that cannot
      // list never syncs, and the operator (like controller-runtime) does not reconcile before it has.
      await eventually(
        'the namespaced operator to be ready',
        () => fetch(`${nsOperator.metricsUrl}/readyz`).then((r) => r.status),
        (c) => c === 200,
      );
      await eventually(
        'the namespaced operator to lead',
        () => metricValue(nsOperator.metricsUrl, 'leader_election_master_status'),
        (v) => v === 1,
      );
      // Take away the PDB permissions of the chart's Role in the install namespace.
      const role = (await rbac.listNamespacedRole({ namespace: installNs })).items.find((r) =>
        r.metadata?.name?.startsWith('glooha-'),
      )!;
      const fullRules = role.rules ?? [];
      await rbac.patchNamespacedRole(
        {
          name: role.metadata!.name!,
          namespace: installNs,
          body: { rules: fullRules.filter((r) => !r.resources?.includes('poddisruptionbudgets')) },
        },
        mergePatch,
      );
      await createGlooInstall(admin, { namespace: installNs });
      await createGlooHA(installNs, 'gloo', { gloo: { replicas: 2 } });
      const stalled = await waitCondition(installNs, 'gloo', 'Stalled', 'True', 'Forbidden');
      expect(condition(stalled, 'Stalled')?.message).toMatch(
        /poddisruptionbudgets.*Grant the operator's ServiceAccount/,
      );

      await rbac.patchNamespacedRole(
        { name: role.metadata!.name!, namespace: installNs, body: { rules: fullRules } },
        mergePatch,
      );
      // Any change re-queues it; without one the operator re-checks within a minute.
      await custom.patchNamespacedCustomObject(
        {
          group: GROUP,
          version: VERSION,
          namespace: installNs,
          plural: PLURAL,
          name: 'gloo',
          body: { metadata: { annotations: { poke: '1' } } },
        },
        mergePatch,
      );
      await waitCondition(installNs, 'gloo', 'Ready', 'True');
      expect((await deployment(installNs, 'gloo')).spec?.replicas).toBe(2);
      expect((await policy.listNamespacedPodDisruptionBudget({ namespace: installNs })).items).toHaveLength(
        1,
      );
    } finally {
      await nsOperator.shutdown('test end');
    }
  });
});
