// A KgatewayHA that an earlier glooha managed on kgateway 2.2, whose install has since been upgraded to
// v2.4.2 (this glooha supports 2.3 and newer only: on 2.2 it is Stalled with UnsupportedVersion and
// writes nothing, test/integration/kgateway-version.test.ts). On 2.2 the earlier glooha owned the
// proxy's PDB itself (`web-glooha`: 2.2's GatewayParameters had no field for one); that object is
// still there after the upgrade. The operator, resumed on the upgraded install with kgateway's real
// controller running, writes the PDB into the GatewayParameters and deletes its own only once
// kgateway's deployer has rendered `web`. A watch on the namespace's PDBs records when each appeared
// and went: the proxy's pods are never without a PDB, and two select them only from kgateway's
// creation to glooha's deletion (the eviction API refuses evictions meanwhile; a drain retries). That
// window is printed and bounded.
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
  Watch,
  type V1Deployment,
  type V1ObjectMeta,
  type V1PodDisruptionBudget,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../src/api/constants.js';
import { ownedMetadata, ownerOf } from '../../src/core/ownership.js';
import { KGATEWAY_PLURAL } from '../../src/products/kgateway/api.js';
import type { KgatewayHA } from '../../src/products/kgateway/types.js';
import { KGATEWAY_CONTROLLER_VERSION } from '../env/binaries.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { helm } from '../support/gloo-chart.js';
import { KGATEWAY_CONTROLLER_POD, gatewayWithParameters, installKgatewayCrds } from '../support/kgateway.js';
import { ProductControllers } from '../support/product-controller.js';
import { kubectlOk } from '../support/kubectl.js';
import {
  installOperatorRbac,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const core = admin.makeApiClient(CoreV1Api);
const policy = admin.makeApiClient(PolicyV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const kha = { group: GROUP, version: VERSION, plural: KGATEWAY_PLURAL };

let id: OperatorIdentity;
let operator: InProcessOperator | undefined;
let controllers: ProductControllers | undefined;

beforeAll(async () => {
  id = await installOperatorRbac(await createNamespace('kgw-up-operator'));
}, 180_000);

afterAll(async () => {
  await controllers?.stop();
  await operator?.shutdown('test done');
});

interface PdbEvent {
  type: string;
  name: string;
  at: number;
}

describe(`kgateway 2.2 → ${KGATEWAY_CONTROLLER_VERSION}: the PDB an earlier glooha owned on 2.2`, () => {
  it("hands the proxy's PDB over to kgateway's own: never none, two only until glooha deletes its own", async () => {
    const fx = (await installKgatewayCrds(KGATEWAY_CONTROLLER_VERSION, { controller: true })).fx;
    const ns = await createNamespace('kgw-upgrade');
    operator = await startOperatorInProcess(id);
    const installed = await helm(4, ['install', 'kgateway', fx.chart, '-n', ns]);
    expect(installed.ok, installed.stderr).toBe(true);
    controllers = await ProductControllers.start({
      ...KGATEWAY_CONTROLLER_POD,
      namespace: ns,
      binary: fx.controller!,
    });
    // Suspended while the state the upgrade left is set up: the operator writes nothing.
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
            spec: { controller: { replicas: 1 }, gateways: { web: { replicas: 2 } }, suspend: true },
          },
        ],
      }),
    );
    const proxy = () => apps.readNamespacedDeployment({ name: 'web', namespace: ns });
    const pdbNames = async () =>
      (await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items.map((p) => p.metadata?.name);
    const rendered = await eventually(
      "kgateway's proxy web, rendered by its deployer",
      proxy,
      (d) => Boolean(d.metadata?.uid),
      { timeoutMs: 180_000 },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${controllers!.describe()}`);
    });
    // The PDB the earlier glooha owned on 2.2, as it made it: named <proxy>-glooha, its owner labels
    // and ownerReference, the proxy Deployment's selector.
    const k = (await custom.getNamespacedCustomObject({ ...kha, namespace: ns, name: 'kgw' })) as KgatewayHA;
    await policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: ownedMetadata(
          ownerOf({ ...k, metadata: { ...k.metadata, name: 'kgw' } }),
          'web-glooha',
          ns,
          'web',
        ) as V1ObjectMeta,
        spec: {
          selector: rendered.spec!.selector,
          maxUnavailable: 1,
          unhealthyPodEvictionPolicy: 'AlwaysAllow',
        },
      },
    });
    expect(await pdbNames()).toEqual(['web-glooha']);

    const events: PdbEvent[] = [];
    let watchEnded: unknown;
    const req = await new Watch(admin).watch(
      `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`,
      {},
      (type: string, p: V1PodDisruptionBudget) =>
        events.push({ type, name: p.metadata?.name ?? '', at: Date.now() }),
      (err: unknown) => (watchEnded = err ?? 'closed by the API server'),
    );
    try {
      await custom.patchNamespacedCustomObject(
        { ...kha, namespace: ns, name: 'kgw', body: { spec: { suspend: false } } },
        mergePatch,
      );
      await eventually(
        "kgateway's PDB web, and glooha's web-glooha gone",
        pdbNames,
        (names) => names.includes('web') && !names.includes('web-glooha'),
        { timeoutMs: 120_000 },
      ).catch((err) => {
        throw new Error(`${(err as Error).message}\n${controllers!.describe()}`);
      });
      // The list can show the deletion before this watch has delivered it: wait for the events the
      // timeline is made of before closing the watch.
      await eventually(
        "the PDB watch's ADDED web and DELETED web-glooha",
        async () => ({ events, watchEnded }),
        ({ events: seen }) =>
          seen.some((e) => e.type === 'ADDED' && e.name === 'web') &&
          seen.some((e) => e.type === 'DELETED' && e.name === 'web-glooha'),
        { timeoutMs: 30_000 },
      );
    } finally {
      req.abort();
    }

    const created = events.find((e) => e.type === 'ADDED' && e.name === 'web');
    const deleted = events.find((e) => e.type === 'DELETED' && e.name === 'web-glooha');
    const timeline = events.map((e) => `${e.at} ${e.type} ${e.name}`).join('\n');
    expect(created, timeline).toBeDefined();
    expect(deleted, timeline).toBeDefined();
    const overlapMs = deleted!.at - created!.at;
    console.log(
      `kgateway 2.2 → ${KGATEWAY_CONTROLLER_VERSION}: kgateway's PDB web created, glooha's web-glooha deleted ${overlapMs} ms later\n${timeline}`,
    );
    // Never a moment without a PDB: glooha's went after kgateway's came.
    expect(overlapMs, timeline).toBeGreaterThanOrEqual(0);
    // Two PDBs for one reconcile of the operator, not until some later resync.
    expect(overlapMs, timeline).toBeLessThan(10_000);

    // And now one PDB per proxy pod, kgateway's.
    const d: V1Deployment = await proxy();
    const pods = (
      await core.listNamespacedPod({
        namespace: ns,
        labelSelector: Object.entries(d.spec!.selector.matchLabels!)
          .map(([k, v]) => `${k}=${v}`)
          .join(','),
      })
    ).items;
    const pdbs = (await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items;
    expect(pods.length).toBeGreaterThan(0);
    for (const pod of pods) {
      const labels = pod.metadata?.labels ?? {};
      const selecting = pdbs.filter((p) =>
        Object.entries(p.spec?.selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v),
      );
      expect(selecting.map((p) => p.metadata?.name)).toEqual(['web']);
    }
  }, 900_000);
});
