// A gateway proxy switched from fixed replicas to autoscaling and back, on kgateway's real controller
// (its deployer renders the proxy from the GatewayParameters the operator writes), on the pinned
// kgateway version whose controller is built (v2.4.2). One watch on the proxy Deployment, timestamped, records every readyReplicas it
// goes through: any dip below the minimum counts (before the replicas hand-over, the switch went
// 3 → 1 → 3: the deployer's apply without spec.replicas removed it). And each proxy pod and each
// controller pod is selected by exactly one PodDisruptionBudget (two block every eviction): the
// proxy's is kgateway's, rendered from the GatewayParameters, and glooha's own never appears (a
// watch on the PDBs records every one created).
import {
  AppsV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  PolicyV1Api,
  Watch,
  type V1Deployment,
  type V1PodDisruptionBudget,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KGATEWAY_CONTROLLER_VERSION, type KgatewayFixtures } from '../env/binaries.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { helm } from '../support/gloo-chart.js';
import { getKgatewayHA, patchKgatewayHASpec } from '../support/glooha.js';
import { KGATEWAY_CONTROLLER_POD, gatewayWithParameters, installKgatewayCrds } from '../support/kgateway.js';
import { ProductControllers } from '../support/product-controller.js';
import { kubectlOk } from '../support/kubectl.js';
import { ownsReplicas } from '../support/managed-fields.js';
import {
  installOperatorRbac,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { watchReady } from '../support/ready-watch.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const core = admin.makeApiClient(CoreV1Api);
const policy = admin.makeApiClient(PolicyV1Api);
const autoscaling = admin.makeApiClient(AutoscalingV2Api);

let id: OperatorIdentity;

beforeAll(async () => {
  id = await installOperatorRbac(await createNamespace('kgw-as-operator'));
}, 180_000);

/** One watch on a namespace's PDBs: the name of every one created. */
async function watchPdbsCreated(ns: string): Promise<{ names: Set<string>; stop: () => void }> {
  const names = new Set<string>();
  const req = await new Watch(admin).watch(
    `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`,
    {},
    (type: string, p: V1PodDisruptionBudget) => {
      if (type === 'ADDED') names.add(p.metadata?.name ?? '');
    },
    () => {},
  );
  return { names, stop: () => req.abort() };
}

describe.each([KGATEWAY_CONTROLLER_VERSION])("kgateway %s's deployer: fixed ↔ autoscaled", (version) => {
  let fx: KgatewayFixtures;
  let ns: string;
  let operator: InProcessOperator | undefined;
  let controllers: ProductControllers | undefined;
  const patchK = (gateway: Record<string, unknown>) =>
    patchKgatewayHASpec(ns, 'kgw', { gateways: { web: gateway } });
  const getK = () => getKgatewayHA(ns, 'kgw');

  beforeAll(async () => {
    fx = (await installKgatewayCrds(version, { controller: true })).fx;
    ns = await createNamespace('kgw-autoscale');
    operator = await startOperatorInProcess(id);
    const r = await helm(4, ['install', 'kgateway', fx.chart, '-n', ns]);
    expect(r.ok, r.stderr).toBe(true);
    controllers = await ProductControllers.start({
      ...KGATEWAY_CONTROLLER_POD,
      namespace: ns,
      binary: fx.controller!,
    });
  }, 1_800_000);

  afterAll(async () => {
    await controllers?.stop();
    await operator?.shutdown('test done');
  });

  it('keeps ready replicas at or above the minimum through fixed 3 → autoscaled {min 3} → fixed 3, one PDB per pod', async () => {
    // kgateway names the PDB and HPA it renders after the proxy.
    const coverName = 'web';
    const created = await watchPdbsCreated(ns);
    await kubectlOk(
      ['apply', '--server-side', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          ...gatewayWithParameters(ns, 'web'),
          {
            apiVersion: 'glooha.io/v1alpha1',
            kind: 'KgatewayHA',
            metadata: { name: 'kgw', namespace: ns },
            spec: { controller: { replicas: 2 }, gateways: { web: { replicas: 3 } } },
          },
        ],
      }),
    );
    const proxy = () => apps.readNamespacedDeployment({ name: 'web', namespace: ns });
    await eventually(
      'the proxy with 3 ready replicas',
      proxy,
      (d) => d.spec?.replicas === 3 && d.status?.readyReplicas === 3,
      { timeoutMs: 180_000 },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${controllers!.describe()}`);
    });

    const onePdbPerPod = async (what: string) => {
      const pdbs = (await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items;
      const selector = (d: V1Deployment) =>
        Object.entries(d.spec!.selector.matchLabels!)
          .map(([k, v]) => `${k}=${v}`)
          .join(',');
      for (const d of [
        await proxy(),
        await apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns }),
      ]) {
        const pods = (await core.listNamespacedPod({ namespace: ns, labelSelector: selector(d) })).items;
        expect(pods.length, `${what}: pods of ${d.metadata?.name}`).toBeGreaterThan(0);
        for (const pod of pods) {
          const labels = pod.metadata?.labels ?? {};
          const selecting = pdbs.filter((p) =>
            Object.entries(p.spec?.selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v),
          );
          expect(
            selecting.map((p) => p.metadata?.name),
            `${what}: PDBs selecting pod ${pod.metadata?.name}`,
          ).toHaveLength(1);
        }
      }
    };
    await eventually(
      `PDB ${coverName} for the proxy, and one for the controller`,
      () => policy.listNamespacedPodDisruptionBudget({ namespace: ns }),
      (l) =>
        l.items.some((p) => p.metadata?.name === coverName) &&
        l.items.some((p) => p.metadata?.name === 'kgateway-glooha'),
    );
    await onePdbPerPod('fixed');

    const watch = await watchReady(admin, ns, 'web');
    try {
      // Fixed → autoscaled: the operator stops writing replicas; the HPA keeps at least 3.
      await patchK({ replicas: null, autoscaling: { minReplicas: 3, maxReplicas: 6 } });
      await eventually(
        'the KgatewayHA Ready with the proxy autoscaled',
        getK,
        (k) =>
          k.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' &&
          k.status.conditions.find((c) => c.type === 'Ready')?.observedGeneration === k.metadata.generation,
        { timeoutMs: 120_000 },
      );
      const hpa = await eventually(
        'an HPA for the proxy that has synced',
        async () =>
          (await autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace: ns })).items.find(
            (h) => h.spec?.scaleTargetRef.name === 'web',
          ),
        (h) => h?.status?.lastScaleTime !== undefined || (h?.status?.currentReplicas ?? 0) >= 3,
        { timeoutMs: 120_000 },
      );
      expect(hpa?.spec?.minReplicas).toBe(3);
      expect(hpa?.metadata?.name).toBe(coverName);
      // Two HPA sync periods (15 s each): long enough for a dropped spec.replicas to show.
      const settleUntil = Date.now() + 35_000;
      await eventually(
        'two HPA syncs',
        async () => Date.now(),
        (t) => t > settleUntil,
        { timeoutMs: 60_000 },
      );
      await onePdbPerPod('autoscaled');
      // The hand-over finished: neither the deployer nor glooha applies spec.replicas any more, the
      // value stayed, and the HPA alone changes it.
      const handedOver = await eventually(
        "spec.replicas owned by neither kgateway's deployer nor glooha",
        proxy,
        (d) => !ownsReplicas(d, 'kgateway.dev/kgateway') && !ownsReplicas(d, 'glooha-operator'),
      );
      expect(handedOver.spec?.replicas).toBe(3);

      // Autoscaled → fixed 3.
      await patchK({ replicas: 3, autoscaling: null });
      await eventually(
        'the proxy back to fixed replicas 3, no HPA',
        async () => ({
          d: await proxy(),
          hpas: (await autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace: ns })).items,
        }),
        ({ d, hpas }) => d.spec?.replicas === 3 && hpas.length === 0,
        { timeoutMs: 120_000 },
      );
      await onePdbPerPod('fixed again');
    } finally {
      watch.stop();
    }
    const start = watch.samples[0]?.at ?? 0;
    const timeline = watch.samples.map(
      (s) => `+${((s.at - start) / 1000).toFixed(1)}s replicas=${s.replicas} ready=${s.ready}`,
    );
    console.log(`kgateway ${version} proxy web through the switch:\n${timeline.join('\n')}`);
    created.stop();
    // glooha's own PDB for the proxy (web-glooha) never existed, not even for a moment.
    expect([...created.names].sort()).toEqual(['kgateway-glooha', 'web']);
    expect(watch.samples.length).toBeGreaterThan(0);
    expect(Math.min(...watch.samples.map((s) => s.ready)), timeline.join('\n')).toBeGreaterThanOrEqual(3);
  }, 400_000);
});
