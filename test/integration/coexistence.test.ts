// Never fight another writer, on the real API server: a policy engine that adds its own topology
// spread constraint beside ours (server-side apply keeps both: no drift, no write), and a user's own
// `kubectl autoscale` / `kubectl create pdb` beside a GlooHA with fixed replicas (found by what they
// target and select, not by our labels: no replica fight, one PDB per pod). Replica and availability
// changes are recorded by one timestamped watch from before the other writer acts.
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, RECONCILE_REQUEST_ANNOTATION, VERSION } from '../../src/api/constants.js';
import { PLURAL } from '../../src/products/gloo/api.js';
import type { GlooHA } from '../../src/products/gloo/types.js';
import { LIST_TYPED_KINDS } from '../../src/controller/kinds.js';
import { KubeClient } from '../../src/kube/client.js';
import { ServedListTypes } from '../../src/kube/openapi-list-types.js';
import { SERVED_LIST_TYPES } from '../../src/kube/served-list-types.js';
import { auditWrites, describeAudit } from '../support/audit.js';
import { AvailabilityWatch } from '../support/availability-watch.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { createGlooInstall } from '../support/gloo-install.js';
import { createGlooHA, getGlooHA } from '../support/glooha.js';
import { kubectlOk } from '../support/kubectl.js';
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
const objects = KubernetesObjectApi.makeApiClient(admin);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

let id: OperatorIdentity;
let operator: InProcessOperator;

const condition = (g: GlooHA, type: string) => g.status?.conditions?.find((c) => c.type === type);

async function waitReady(ns: string, name = 'gloo'): Promise<GlooHA> {
  return eventually(
    `${ns}/${name} Ready=True`,
    () => getGlooHA(ns, name),
    (g) => condition(g, 'Ready')?.status === 'True' && g.status?.observedGeneration === g.metadata.generation,
    { timeoutMs: 90_000 },
  );
}

/** Asks for a reconcile and waits until the operator has handled it (its status echoes the value). */
async function reconcileNow(ns: string, name = 'gloo'): Promise<GlooHA> {
  const value = new Date().toISOString();
  await custom.patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: PLURAL,
      name,
      body: { metadata: { annotations: { [RECONCILE_REQUEST_ANNOTATION]: value } } },
    },
    mergePatch,
  );
  return eventually(
    `${ns}/${name} to handle the reconcile requested at ${value}`,
    () => getGlooHA(ns, name),
    (g) => g.status?.lastHandledReconcileAt === value,
  );
}

const driftCorrections = () =>
  metricValue(operator.metricsUrl, 'glooha_drift_corrections_total').catch(() => 0);

describe('coexistence with other writers (as the chart ServiceAccount)', () => {
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

  it('the bundled list types (render --merge-into, offline) are what this API server serves', async () => {
    const client = new KubeClient(admin);
    const warnings: unknown[] = [];
    const served = await new ServedListTypes(client, LIST_TYPED_KINDS, {
      warn: (_m: string, f?: unknown) => warnings.push(f),
    }).get();
    expect(warnings).toEqual([]);
    client.close();
    expect(served).toEqual(SERVED_LIST_TYPES);
  });

  it("a policy engine's hostname spread constraint beside ours: no drift, no write, Drifted stays False", async () => {
    const ns = await createNamespace('spread');
    await createGlooInstall(admin, { namespace: ns });
    await createGlooHA(ns, 'gloo', {
      gloo: {
        replicas: 2,
        antiAffinity: 'preferred',
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
        ],
      },
    });
    await waitReady(ns);
    // Our apply has settled: the operator has given spec.replicas up again (replicas-ownership.ts).
    await eventually(
      "the operator's replicas ownership released",
      () => apps.readNamespacedDeployment({ name: 'gloo', namespace: ns }),
      (d) => d.spec?.replicas === 2 && !ownsReplicas(d, 'glooha-operator'),
    );
    const correctionsBefore = await driftCorrections();

    // Another field manager (a policy engine's mutation, as Kyverno applies it) adds its constraint.
    await objects.patch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'gloo', namespace: ns },
        spec: {
          template: {
            spec: {
              topologySpreadConstraints: [
                {
                  maxSkew: 1,
                  topologyKey: 'kubernetes.io/hostname',
                  whenUnsatisfiable: 'ScheduleAnyway',
                  labelSelector: { matchLabels: { gloo: 'gloo' } },
                },
              ],
            },
          },
        },
      } as KubernetesObject,
      undefined,
      undefined,
      'policy-engine',
      true,
      PatchStrategy.ServerSideApply,
    );
    const since = new Date();
    const dep = await apps.readNamespacedDeployment({ name: 'gloo', namespace: ns });
    // Server-side apply kept both: ours (zone) and the policy engine's (hostname).
    expect(dep.spec?.template.spec?.topologySpreadConstraints?.map((c) => c.topologyKey).sort()).toEqual([
      'kubernetes.io/hostname',
      'topology.kubernetes.io/zone',
    ]);

    // Reconciles after it neither write the Deployment nor report drift. The new constraint changed the
    // pod template, so the Deployment rolls out a new pod and Ready is False (Progressing) until it has:
    // on a loaded machine that outlasts two reconciles, so reconcile until Ready again.
    await reconcileNow(ns);
    const g = await eventually(
      'the GlooHA Ready again once the rollout the constraint started has finished',
      () => reconcileNow(ns),
      (x) => condition(x, 'Ready')?.status === 'True',
      { timeoutMs: 60_000 },
    );
    const writes = auditWrites({ username: id.username, since }).filter(
      (e) => e.objectRef?.resource === 'deployments' && e.objectRef.namespace === ns,
    );
    expect(writes.map(describeAudit)).toEqual([]);
    expect(condition(g, 'Drifted')?.status ?? 'False').toBe('False');
    expect(condition(g, 'Ready')?.status).toBe('True');
    expect(await driftCorrections()).toBe(correctionsBefore);
    const after = await apps.readNamespacedDeployment({ name: 'gloo', namespace: ns });
    expect(after.spec?.template.spec?.topologySpreadConstraints).toHaveLength(2);
  });

  it("a user's `kubectl autoscale` and `kubectl create pdb` are found by target and selector: problems raised, no fight, drains work", async () => {
    const ns = await createNamespace('users-own');
    await createGlooInstall(admin, { namespace: ns, proxies: ['gateway-proxy'] });
    await createGlooHA(ns, 'gloo', {
      gloo: { replicas: 2 },
      gatewayProxies: { gatewayProxy: { replicas: 2 } },
    });
    await waitReady(ns);
    await eventually(
      'gloo and gateway-proxy to have 2 available replicas',
      () => apps.listNamespacedDeployment({ namespace: ns }),
      (l) =>
        ['gloo', 'gateway-proxy'].every(
          (n) => l.items.find((d) => d.metadata?.name === n)?.status?.availableReplicas === 2,
        ),
    );
    const correctionsBefore = await driftCorrections();
    const watch = new AvailabilityWatch(admin, ns);
    await watch.start();
    const t0 = Date.now();

    // As a user types them, through a real shell-less kubectl (no labels of the chart's on either).
    await kubectlOk(['-n', ns, 'autoscale', 'deploy', 'gateway-proxy', '--min=3', '--max=5']);
    await kubectlOk(['-n', ns, 'create', 'pdb', 'my-gloo', '--selector=gloo=gloo', '--max-unavailable=1']);

    const stalled = await eventually(
      'the GlooHA to report the HPA conflict',
      () => getGlooHA(ns, 'gloo'),
      (g) =>
        condition(g, 'Stalled')?.status === 'True' &&
        /HorizontalPodAutoscalerConflict/.test(JSON.stringify(g.status)),
      { timeoutMs: 60_000 },
    );
    expect(condition(stalled, 'Ready')?.status).not.toBe('True');
    expect(JSON.stringify(stalled.status)).toContain('HPA gateway-proxy targets Deployment gateway-proxy');
    // glooha's own gloo PDB gives way to the user's: one PDB per pod, so evictions can be judged.
    const pdbsForGloo = () =>
      policy
        .listNamespacedPodDisruptionBudget({ namespace: ns })
        .then((l) =>
          l.items.filter((p) => p.spec?.selector?.matchLabels?.gloo === 'gloo').map((p) => p.metadata?.name),
        );
    await eventually(
      'only the user PDB to select the gloo pods',
      pdbsForGloo,
      (names) => names.length === 1 && names[0] === 'my-gloo',
    );
    await eventually(
      'the HPA to bring gateway-proxy to its minimum of 3',
      () => apps.readNamespacedDeployment({ name: 'gateway-proxy', namespace: ns }),
      (d) => d.spec?.replicas === 3 && d.status?.availableReplicas === 3,
      { timeoutMs: 90_000 },
    );
    // Two HPA sync periods (15 s each) and a reconcile of ours in the window: a fight would show up
    // as replicas going back to 2 (it did 4 times in 45 s before).
    await reconcileNow(ns);
    await eventually(
      'two HPA sync periods to pass since the HPA was created',
      async () => Date.now() - t0,
      (ms) => ms > 35_000,
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    await reconcileNow(ns);
    const changes = watch.stop();
    const proxyReplicas = changes.filter((c) => c.deployment === 'gateway-proxy' && c.field === 'replicas');
    expect(
      proxyReplicas.map((c) => `${c.from}→${c.to}`),
      AvailabilityWatch.describe(changes),
    ).toEqual(['2→3']);
    expect(changes.filter((c) => c.deployment === 'gloo' && c.field === 'replicas')).toEqual([]);
    for (const name of ['gloo', 'gateway-proxy']) {
      expect(
        AvailabilityWatch.lowestAvailable(changes, name, 2),
        `${name}: ${AvailabilityWatch.describe(changes)}`,
      ).toBeGreaterThanOrEqual(2);
    }
    expect(
      changes.some((c) => c.atMs < 0),
      AvailabilityWatch.describe(changes),
    ).toBe(false);
    expect(await driftCorrections()).toBe(correctionsBefore);

    // With one PDB per pod the eviction API judges it (two PDBs: 500 "more than one PodDisruptionBudget").
    const pod = (await core.listNamespacedPod({ namespace: ns, labelSelector: 'gloo=gloo' })).items.find(
      (p) => !p.metadata?.deletionTimestamp,
    )!;
    expect(
      await httpStatusOf(
        core.createNamespacedPodEviction({
          name: pod.metadata!.name!,
          namespace: ns,
          body: {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name: pod.metadata!.name!, namespace: ns },
          },
        }),
      ),
    ).toBe(200);
  });
});
