// kgateway upgraded from v2.2.0 to v2.4.0 under a running operator, as kgateway's docs order it: the
// CRDs first, then the controller's chart (Helm 4), on kgateway's real controllers. On 2.2 the proxy's
// PDB is glooha's own (`web-glooha`): GatewayParameters cannot express one. The operator reads the new
// GatewayParameters schema without a restart, writes the PDB into the GatewayParameters, and deletes
// its own once kgateway's deployer has rendered `web`. A watch on the namespace's PDBs records when
// each appeared and went: the proxy's pods are never without a PDB, and two select them only from
// kgateway's creation to glooha's deletion (the eviction API refuses evictions meanwhile; a drain
// retries). That window is printed and bounded.
import {
  AppsV1Api,
  CoreV1Api,
  PolicyV1Api,
  Watch,
  type V1Deployment,
  type V1PodDisruptionBudget,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('kgateway v2.2.0 → v2.4.0 under a running operator', () => {
  it("hands the proxy's PDB over to kgateway's own: never none, two only until glooha deletes its own", async () => {
    const fx22 = (await installKgatewayCrds('v2.2.0', { controller: true })).fx;
    const ns = await createNamespace('kgw-upgrade');
    operator = await startOperatorInProcess(id);
    const installed = await helm(4, ['install', 'kgateway', fx22.chart, '-n', ns]);
    expect(installed.ok, installed.stderr).toBe(true);
    controllers = await ProductControllers.start({
      ...KGATEWAY_CONTROLLER_POD,
      namespace: ns,
      binary: fx22.controller!,
    });
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
            spec: { controller: { replicas: 1 }, gateways: { web: { replicas: 2 } } },
          },
        ],
      }),
    );
    const proxy = () => apps.readNamespacedDeployment({ name: 'web', namespace: ns });
    const pdbNames = async () =>
      (await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items.map((p) => p.metadata?.name);
    await eventually(
      "kgateway 2.2's proxy with 2 ready replicas, and glooha's PDB web-glooha",
      async () => ({ d: await proxy(), pdbs: await pdbNames() }),
      ({ d, pdbs }) => d.status?.readyReplicas === 2 && pdbs.includes('web-glooha') && !pdbs.includes('web'),
      { timeoutMs: 180_000 },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${controllers!.describe()}`);
    });

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
      const fx24 = (await installKgatewayCrds('v2.4.0', { controller: true })).fx;
      await controllers.stop();
      const upgraded = await helm(4, [
        'upgrade',
        'kgateway',
        fx24.chart,
        '-n',
        ns,
        '--reset-then-reuse-values',
        '--force-conflicts',
      ]);
      expect(upgraded.ok, upgraded.stderr).toBe(true);
      controllers = await ProductControllers.start({
        ...KGATEWAY_CONTROLLER_POD,
        namespace: ns,
        binary: fx24.controller!,
      });
      // The operator looks at the served schema every 30 s; kgateway 2.4's controller then has to win
      // its Lease (the killed 2.2 leader's expires after 15 s) before its deployer renders.
      await eventually(
        "kgateway's PDB web, and glooha's web-glooha gone",
        pdbNames,
        (names) => names.includes('web') && !names.includes('web-glooha'),
        { timeoutMs: 240_000 },
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
      `kgateway v2.2.0 → v2.4.0: kgateway's PDB web created, glooha's web-glooha deleted ${overlapMs} ms later\n${timeline}`,
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
