// The KgatewayHA controller against a real API server, kgateway's real chart and kgateway's real
// controller (v2.4.2, the pinned version whose controller the products lane builds; v2.3.6 is charts
// only, and the replicas floor's printed command below runs on its chart): the chart from
// kgateway's Go module installed with Helm 4, the operator running as its chart's ServiceAccount with
// only the chart's RBAC, and kgateway's ./cmd/kgateway running once per controller pod (kwok's pods run
// nothing; test/support/product-controller.ts runs the process with the pod's env, a pod-bound token
// and the pod's name as hostname). So the Lease kgateway-envoy is renewed by kgateway's own elector, and
// the proxy Deployments are the ones kgateway's deployer rendered from the GatewayParameters the
// operator wrote.
//
// The migration is the path under test: `glooha migrate kgateway` turns the production example GlooHA
// into kgateway chart values and manifests holding a KgatewayHA; Helm installs kgateway with the values
// next to a (simulated) Gloo install whose GlooHA stays in place, kubectl applies the manifests, and
// both the GlooHA and the KgatewayHA become Ready in the same namespace.
import {
  AppsV1Api,
  AutoscalingV2Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
  type V1Deployment,
} from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GROUP, LABEL_OWNER_KIND, VERSION } from '../../src/api/constants.js';
import { KGATEWAY_PLURAL } from '../../src/products/kgateway/api.js';
import type { GlooHA } from '../../src/products/gloo/types.js';
import type { KgatewayHA } from '../../src/products/kgateway/types.js';
import { main } from '../../src/cli/main.js';
import {
  KGATEWAY_CONTROLLER_VERSION,
  KGATEWAY_VERSIONS,
  kgatewayFixtures,
  type KgatewayFixtures,
} from '../env/binaries.js';
import { auditWrites, describeAudit } from '../support/audit.js';
import { adminKubeConfig, createNamespace, installCrds } from '../support/cluster.js';
import { HELM_MAJORS, helm, valuesFiles } from '../support/gloo-chart.js';
import { serveChartRepository } from '../support/chart-repository.js';
import { printedValuesPathCommand, runAsPrinted } from '../support/shell.js';
import { createGlooInstall } from '../support/gloo-install.js';
import { createGlooHA, getGlooHA } from '../support/glooha.js';
import { KGATEWAY_CONTROLLER_POD, gatewayWithParameters, installKgatewayCrds } from '../support/kgateway.js';
import { ProductControllers } from '../support/product-controller.js';
import { kubectlOk } from '../support/kubectl.js';
import {
  installOperatorRbac,
  installReplicasFloorPolicy,
  metricValue,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const policy = admin.makeApiClient(PolicyV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const leases = admin.makeApiClient(CoordinationV1Api);
const repoRoot = join(import.meta.dirname, '..', '..');

let id: OperatorIdentity;
let operator: InProcessOperator;
let fx: KgatewayFixtures;
let ns: string;
let values: string;
let removeFloorPolicy: (() => Promise<void>) | undefined;

async function migrate(output: 'manifests' | 'helm-values'): Promise<string> {
  const example = readFileSync(join(repoRoot, 'examples/glooha.yaml'), 'utf8').replace(
    'namespace: gloo-system',
    `namespace: ${ns}`,
  );
  let stdout = '';
  const code = await main(['migrate', 'kgateway', '-f', 'glooha.yaml', '-o', output], {
    readFile: () => example,
    readStdin: async () => '',
    stdout: (t) => {
      stdout += t;
    },
    stderr: () => {},
  });
  expect(code).toBe(0);
  return stdout;
}

async function getKgatewayHA(name = 'gloo'): Promise<KgatewayHA> {
  return (await custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns,
    plural: KGATEWAY_PLURAL,
    name,
  })) as KgatewayHA;
}

const condition = (g: KgatewayHA | GlooHA, type: string) =>
  g.status?.conditions?.find((c) => c.type === type);
const ready = (g: KgatewayHA | GlooHA) =>
  condition(g, 'Ready')?.status === 'True' &&
  condition(g, 'Ready')?.observedGeneration === g.metadata.generation;

const controller = () => apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns });
const envOf = (d: V1Deployment) =>
  d.spec?.template.spec?.containers.find((c) => c.name === 'controller')?.env;

let controllers: ProductControllers | undefined;

/** kgateway's real controller, one process per pod of the install's controller Deployment. */
async function runControllers(namespace: string): Promise<ProductControllers> {
  controllers = await ProductControllers.start({
    ...KGATEWAY_CONTROLLER_POD,
    namespace,
    binary: fx.controller!,
  });
  return controllers;
}

beforeAll(async () => {
  const opNs = await createNamespace('kgw-operator');
  id = await installOperatorRbac(opNs);
  removeFloorPolicy = await installReplicasFloorPolicy();
}, 600_000);

afterAll(async () => {
  await controllers?.stop();
  await operator?.shutdown('test done');
  await removeFloorPolicy?.();
});

describe.each([KGATEWAY_CONTROLLER_VERSION])("kgateway %s's real controller", (version) => {
  beforeAll(async () => {
    // The CRDs of this version (the operator reads API discovery at start), and its controller binary.
    fx = (await installKgatewayCrds(version, { controller: true })).fx;
    ns = await createNamespace('kgw-ha');
    operator = await startOperatorInProcess(id);
  }, 1_800_000);

  afterAll(async () => {
    // A kgateway controller reconciles Gateways in every namespace: none may outlive its test.
    await controllers?.stop();
    controllers = undefined;
    await operator?.shutdown('next kgateway version');
  });

  describe('a KgatewayHA from `glooha migrate kgateway`, beside the GlooHA it came from', () => {
    afterAll(async () => {
      await controllers?.stop();
      controllers = undefined;
    });

    it('Helm installs kgateway with the values, kubectl applies the manifests: KgatewayHA and GlooHA both Ready', async () => {
      // The Gloo install being migrated, and its GlooHA, in the same namespace.
      await createGlooInstall(admin, {
        namespace: ns,
        discovery: true,
        proxies: ['gateway-proxy', 'public-gw'],
      });
      const example = parse(readFileSync(join(repoRoot, 'examples/glooha.yaml'), 'utf8')) as GlooHA;
      await createGlooHA(ns, 'gloo', example.spec ?? {});

      values = await migrate('helm-values');
      const files = valuesFiles(values);
      try {
        const r = await helm(4, ['install', 'kgateway', fx.chart, '-n', ns, ...files.args]);
        expect(r.ok, r.stderr).toBe(true);
      } finally {
        files.cleanup();
      }
      await kubectlOk(['apply', '--server-side', '-f', '-'], await migrate('manifests'));
      await runControllers(ns);

      const k = await eventually('KgatewayHA Ready', () => getKgatewayHA(), ready, { timeoutMs: 90_000 });
      expect(k.status?.components?.controller).toMatchObject({
        deploymentName: 'kgateway',
        desiredReplicas: 3,
        readyReplicas: 3,
        // The chart's PDB (controller.podDisruptionBudget in the values) stands in for glooha's own.
        podDisruptionBudget: { name: 'kgateway', owned: false, maxUnavailable: 1 },
      });
      await eventually('GlooHA Ready', () => getGlooHA(ns, 'gloo'), ready, { timeoutMs: 90_000 });

      const dep = await controller();
      expect(dep.spec?.replicas).toBe(3);
      expect(envOf(dep)).toContainEqual({ name: 'KGW_DISABLE_LEADER_ELECTION', value: 'false' });
      // The topology spread: rendered from the values (controller.topologySpreadConstraints).
      expect(dep.spec?.template.spec?.topologySpreadConstraints?.[0]).toMatchObject({
        topologyKey: 'topology.kubernetes.io/zone',
        labelSelector: dep.spec?.selector,
      });
      // The Helm values the operator exports for the KgatewayHA are the ones the migration printed, for
      // chart installed (controller.affinity, controller.topologySpreadConstraints).
      const cm = await admin
        .makeApiClient(CoreV1Api)
        .readNamespacedConfigMap({ name: 'gloo-kgateway-helm-values', namespace: ns });
      expect(cm.metadata?.labels?.[LABEL_OWNER_KIND]).toBe('KgatewayHA');
      expect(parse(cm.data?.['values.yaml'] ?? '')).toEqual(parse(values));
    }, 300_000);

    it("reports kgateway's leader from its Lease, and its 2 s renewals cost no reconcile and no write", async () => {
      // The holder is one of the controller processes, elected by kgateway itself: `<pod name>_<uuid>`.
      const k = await eventually(
        'the leader in status',
        () => getKgatewayHA(),
        (g) =>
          controllers!.processes().has(g.status?.leader?.holder?.split('_')[0] ?? '') &&
          g.status?.leader?.fresh === true,
        { timeoutMs: 120_000 },
      ).catch((err) => {
        throw new Error(`${(err as Error).message}\n${controllers!.describe()}`);
      });
      expect(k.status?.leader?.leaseDurationSeconds).toBe(15);
      const reconciles = () =>
        metricValue(operator.metricsUrl, 'controller_runtime_reconcile_total', { controller: 'kgatewayha' });
      const renewedAt = async () =>
        String(
          (await leases.readNamespacedLease({ name: 'kgateway-envoy', namespace: ns })).spec?.renewTime ?? '',
        );
      // A 7 s window holds three of kgateway's renewals. Something else may reconcile KgatewayHAs in a
      // window (the served GatewayParameters schema settling after the CRDs were applied reconciles
      // every KgatewayHA once, as it must): renewals caused reconciles only if no window is free of
      // them, so up to four windows are watched and one must show renewals, no reconcile and no write.
      const windows: string[] = [];
      for (let i = 0; i < 4; i++) {
        const before = await reconciles();
        const renewed = await renewedAt();
        const since = new Date();
        await new Promise((r) => setTimeout(r, 7000));
        const after = await reconciles();
        // The operator's own Lease renews, and the GlooHA beside it may still write its status as
        // Gloo's pods settle (a CI lane caught one such write): neither is caused by kgateway's Lease.
        const writes = auditWrites({ username: id.username, since })
          .filter(
            (e) =>
              !(e.objectRef?.resource === 'leases' && e.objectRef.namespace === id.namespace) &&
              e.objectRef?.resource !== 'gloohas',
          )
          .map(describeAudit);
        const renewedSince = (await renewedAt()) !== renewed;
        windows.push(
          `reconciles ${before}→${after}, renewed ${renewedSince}, writes ${JSON.stringify(writes)}`,
        );
        if (renewedSince && after === before && writes.length === 0) break;
      }
      expect(windows.at(-1), windows.join('\n')).toMatch(/^reconciles (\d+)→\1, renewed true, writes \[\]$/);
      // Above the 120 s wait for the leader and four 7 s windows: a timeout names what it waited for.
    }, 240_000);

    it('restores a drifted replica count and reports it', async () => {
      // Above the floor: the chart's replicas-floor policies (installed here) refuse a scale below it.
      await apps.patchNamespacedDeploymentScale(
        { name: 'kgateway', namespace: ns, body: { spec: { replicas: 5 } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await eventually('replicas restored', controller, (d) => d.spec?.replicas === 3);
      const k = await eventually(
        'Drifted reported',
        () => getKgatewayHA(),
        (g) => condition(g, 'Drifted')?.reason === 'DriftCorrected',
      );
      expect(condition(k, 'Drifted')?.message).toContain('replicas');
    });

    it("a plain Helm upgrade (the chart's replicaCount 1) is refused by the replicas floor, naming the KgatewayHA", async () => {
      const plain = await helm(4, ['upgrade', 'kgateway', fx.chart, '-n', ns, '--reset-values']);
      expect(plain.ok).toBe(false);
      expect(plain.stderr).toMatch(
        /spec\.replicas 1 is below 3, the floor that KgatewayHA [^ ]+\/gloo keeps/,
      );
      expect(plain.stderr).toContain('Change the replica count in the KgatewayHA');
      expect(plain.stderr).toContain(`kubectl -n ${ns} get configmap gloo-kgateway-helm-values`);
      expect((await controller()).spec?.replicas).toBe(3);
    });

    it('deleting the KgatewayHA keeps the replicas, leaves the GlooHA alone, and Helm can still upgrade', async () => {
      await custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: KGATEWAY_PLURAL,
        name: 'gloo',
      });
      await eventually(
        'the KgatewayHA to be gone',
        () =>
          getKgatewayHA().then(
            () => false,
            () => true,
          ),
        (gone) => gone,
      );
      const handedOver = await controller();
      expect(handedOver.spec?.replicas).toBe(3);
      // Nothing of the operator's is left on it: no annotation (the replicas floor included), no field manager.
      expect(
        Object.keys(handedOver.metadata?.annotations ?? {}).filter((k) => k.startsWith('glooha.io/')),
      ).toEqual([]);
      expect(handedOver.metadata?.managedFields?.map((m) => m.manager)).not.toContain('glooha-operator');
      // The KgatewayHA's handover touched only kgateway's objects: the GlooHA still holds its bounds on
      // the HPA that scales public-gw (the install's own, found by its target).
      const hpas = await admin
        .makeApiClient(AutoscalingV2Api)
        .listNamespacedHorizontalPodAutoscaler({ namespace: ns });
      const hpa = hpas.items.find((h) => h.spec?.scaleTargetRef.name === 'public-gw');
      expect(hpa?.metadata?.managedFields?.map((m) => m.manager)).toContain('glooha-operator');
      const gloo = await getGlooHA(ns, 'gloo');
      expect(ready(gloo), JSON.stringify(gloo.status?.conditions)).toBe(true);
      // Helm 4 (server-side apply) upgrades with the same values: no conflict with fields the operator
      // held, and the replica count stays.
      const files = valuesFiles(values);
      try {
        const r = await helm(4, [
          'upgrade',
          'kgateway',
          fx.chart,
          '-n',
          ns,
          '--reset-then-reuse-values',
          ...files.args,
        ]);
        expect(r.ok, r.stderr).toBe(true);
      } finally {
        files.cleanup();
      }
      expect((await controller()).spec?.replicas).toBe(3);
      // glooha's own PDB never existed (the chart's stood in), and nothing of the KgatewayHA is left.
      const pdbs = await policy.listNamespacedPodDisruptionBudget({ namespace: ns });
      expect(pdbs.items.filter((p) => p.metadata?.labels?.[LABEL_OWNER_KIND] === 'KgatewayHA')).toEqual([]);
    });
  });

  describe('Helm 3 and a KgatewayHA: the same coexistence contract', () => {
    it('installs with the values, refuses a plain upgrade at the floor, upgrades with the exported values, and keeps replicas after deletion', async () => {
      const h3 = await createNamespace('kgw-helm3');
      const kha = (replicas: number) =>
        JSON.stringify({
          apiVersion: 'glooha.io/v1alpha1',
          kind: 'KgatewayHA',
          metadata: { name: 'kgw', namespace: h3 },
          spec: { controller: { replicas } },
        });
      const dep = () => apps.readNamespacedDeployment({ name: 'kgateway', namespace: h3 });
      /** `helm upgrade --reset-then-reuse-values -f <values>` with Helm 3, which must succeed. */
      const upgradeWith = async (values: string) => {
        const files = valuesFiles(values);
        try {
          const up = await helm(3, [
            'upgrade',
            'kgateway',
            fx.chart,
            '-n',
            h3,
            '--reset-then-reuse-values',
            ...files.args,
          ]);
          expect(up.ok, up.stderr).toBe(true);
        } finally {
          files.cleanup();
        }
      };
      const getH3 = () =>
        custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: h3,
          plural: KGATEWAY_PLURAL,
          name: 'kgw',
        }) as Promise<KgatewayHA>;
      expect((await helm(3, ['install', 'kgateway', fx.chart, '-n', h3])).ok).toBe(true);
      await kubectlOk(['apply', '--server-side', '-f', '-'], kha(3));
      await eventually('KgatewayHA Ready', getH3, ready, { timeoutMs: 90_000 });
      expect((await dep()).spec?.replicas).toBe(3);

      // A plain Helm 3 upgrade renders the chart's replicaCount 1: refused, nothing scaled down.
      const plain = await helm(3, ['upgrade', 'kgateway', fx.chart, '-n', h3, '--reset-values']);
      expect(plain.ok).toBe(false);
      expect(plain.stderr).toMatch(/spec\.replicas 1 is below 3, the floor that KgatewayHA [^ ]+\/kgw keeps/);
      expect((await dep()).spec?.replicas).toBe(3);

      // With the values the operator exports, the upgrade goes through and changes no replica count.
      const cm = await admin
        .makeApiClient(CoreV1Api)
        .readNamespacedConfigMap({ name: 'kgw-kgateway-helm-values', namespace: h3 });
      const exported = cm.data?.['values.yaml'] ?? '';
      await upgradeWith(exported);
      expect((await dep()).spec?.replicas).toBe(3);
      const after = await eventually('still Ready after the upgrade', getH3, ready);
      expect(condition(after, 'Drifted')?.reason).not.toBe('DriftCorrected');

      await custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: h3,
        plural: KGATEWAY_PLURAL,
        name: 'kgw',
      });
      await eventually(
        'the KgatewayHA to be gone',
        () =>
          getH3().then(
            () => false,
            () => true,
          ),
        (gone) => gone,
      );
      expect((await dep()).spec?.replicas).toBe(3);
      await upgradeWith(exported);
      expect((await dep()).spec?.replicas).toBe(3);
    });
  });

  describe("a KgatewayHA's gateways: HA fields in the GatewayParameters kgateway's deployer renders proxies from", () => {
    let gwNs: string;
    const gp = (name: string) =>
      custom.getNamespacedCustomObject({
        group: 'gateway.kgateway.dev',
        version: 'v1alpha1',
        namespace: gwNs,
        plural: 'gatewayparameters',
        name,
      }) as Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const getK = () =>
      custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: gwNs,
        plural: KGATEWAY_PLURAL,
        name: 'kgw',
      }) as Promise<KgatewayHA>;

    afterAll(async () => {
      await controllers?.stop();
      controllers = undefined;
    });

    it('writes replicas, anti-affinity, spread and the PDB into the named GatewayParameters, and reports the proxy', async () => {
      gwNs = await createNamespace('kgw-gateways');
      const r = await helm(4, ['install', 'kgateway', fx.chart, '-n', gwNs]);
      expect(r.ok, r.stderr).toBe(true);
      // kgateway's controller (one pod): its deployer renders the Gateway's proxy.
      await runControllers(gwNs);
      await kubectlOk(
        ['apply', '--server-side', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            ...gatewayWithParameters(gwNs, 'http'),
            {
              apiVersion: 'glooha.io/v1alpha1',
              kind: 'KgatewayHA',
              metadata: { name: 'kgw', namespace: gwNs },
              spec: {
                controller: { replicas: 1 },
                gateways: {
                  http: {
                    replicas: 2,
                    topologySpreadConstraints: [
                      {
                        maxSkew: 1,
                        topologyKey: 'topology.kubernetes.io/zone',
                        whenUnsatisfiable: 'ScheduleAnyway',
                      },
                    ],
                  },
                },
              },
            },
          ],
        }),
      );
      const written = await eventually(
        'the GatewayParameters to carry the proxy fields',
        () => gp('http'),
        (o) => o.spec?.kube?.deployment?.replicas === 2,
      );
      // kgateway's deployer renders the proxy from the GatewayParameters the operator wrote.
      await eventually(
        "the deployer's proxy Deployment with 2 replicas",
        () => apps.readNamespacedDeployment({ name: 'http', namespace: gwNs }),
        (d) => d.spec?.replicas === 2,
        { timeoutMs: 120_000 },
      ).catch((err) => {
        throw new Error(`${(err as Error).message}\n${controllers!.describe()}`);
      });
      // kgateway renders the proxy's PDB from the GatewayParameters (named after the proxy).
      const pdbName = 'http';
      const k = await eventually(
        `KgatewayHA Ready, its status naming PDB ${pdbName}`,
        getK,
        (x) => ready(x) && x.status?.components?.gateways?.http?.podDisruptionBudget?.name === pdbName,
        { timeoutMs: 90_000 },
      );
      expect(k.status?.components?.gateways?.http).toMatchObject({
        deploymentName: 'http',
        desiredReplicas: 2,
        readyReplicas: 2,
        podDisruptionBudget: { name: pdbName, owned: false, maxUnavailable: 1 },
      });
      expect(written.spec.kube.podDisruptionBudget?.spec?.maxUnavailable).toBe(1);
      const proxy = await apps.readNamespacedDeployment({ name: 'http', namespace: gwNs });
      // The deployer rendered what glooha wrote; glooha never wrote to the proxy Deployment itself.
      expect(proxy.spec?.replicas).toBe(2);
      expect(proxy.spec?.template.spec?.affinity).toEqual(written.spec.kube.podTemplate.affinity);
      const term =
        proxy.spec?.template.spec?.affinity?.podAntiAffinity
          ?.preferredDuringSchedulingIgnoredDuringExecution?.[0];
      expect(term?.podAffinityTerm.labelSelector).toEqual(proxy.spec?.selector);
      expect(proxy.spec?.template.spec?.topologySpreadConstraints?.[0]?.labelSelector).toEqual(
        proxy.spec?.selector,
      );
      expect(proxy.metadata?.managedFields?.map((m) => m.manager)).not.toContain('glooha-operator');
      expect(proxy.metadata?.managedFields?.map((m) => m.manager)).toContain('kgateway.dev/kgateway');
      // kgateway's deployer creates the PDB after the Deployment it renders in the same pass.
      const pdb = await eventually(
        `PDB ${gwNs}/${pdbName} (kgateway's deployer's)`,
        () =>
          policy.readNamespacedPodDisruptionBudget({ name: pdbName, namespace: gwNs }).catch(() => undefined),
        (p) => p !== undefined,
      );
      expect(pdb?.spec?.selector).toEqual(proxy.spec?.selector);
      // One PDB on the proxy's pods: none of glooha's own beside kgateway's.
      const pdbs = (await policy.listNamespacedPodDisruptionBudget({ namespace: gwNs })).items;
      expect(
        pdbs
          .filter((p) => isDeepStrictEqual(p.spec?.selector, proxy.spec?.selector))
          .map((p) => p.metadata?.name),
      ).toEqual([pdbName]);
      // The sum of its waits (30 s, 120 s, 90 s): a timeout names what it waited for.
    }, 300_000);

    it('restores a GatewayParameters field someone changed, and names a missing Gateway in status', async () => {
      await custom.patchNamespacedCustomObject(
        {
          group: 'gateway.kgateway.dev',
          version: 'v1alpha1',
          namespace: gwNs,
          plural: 'gatewayparameters',
          name: 'http',
          body: { spec: { kube: { deployment: { replicas: 1 } } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await eventually(
        'replicas restored in GatewayParameters',
        () => gp('http'),
        (o) => o.spec?.kube?.deployment?.replicas === 2,
      );
      await custom.patchNamespacedCustomObject(
        {
          group: GROUP,
          version: VERSION,
          namespace: gwNs,
          plural: KGATEWAY_PLURAL,
          name: 'kgw',
          body: { spec: { gateways: { https: { replicas: 2 } } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      const stalled = await eventually(
        'Stalled GatewayNotFound',
        getK,
        (g) =>
          condition(g, 'Stalled')?.reason === 'GatewayNotFound' &&
          condition(g, 'Stalled')?.observedGeneration === g.metadata.generation,
      );
      expect(condition(stalled, 'Stalled')?.message).toContain(`there is no Gateway ${gwNs}/https`);
      // The gateway that exists is still managed: the deployer rendered the 1 someone wrote before the
      // operator restored 2, so its pods come back.
      expect(stalled.status?.components?.gateways?.http).toBeDefined();
      await eventually(
        'the proxy back at 2 ready replicas in status',
        getK,
        (g) => g.status?.components?.gateways?.http?.readyReplicas === 2,
        { timeoutMs: 60_000 },
      );
    });

    it('deleting the KgatewayHA hands the GatewayParameters fields back, values kept', async () => {
      await custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: gwNs,
        plural: KGATEWAY_PLURAL,
        name: 'kgw',
      });
      const released = await eventually(
        'the operator to let go of the GatewayParameters',
        () => gp('http'),
        (o) =>
          !(o.metadata?.managedFields as { manager?: string }[]).some((m) => m.manager === 'glooha-operator'),
      );
      expect(released.spec.kube.deployment.replicas).toBe(2);
      // The PDB field stays too, so kgateway keeps the proxy's PDB.
      expect(released.spec.kube.podDisruptionBudget?.spec?.maxUnavailable).toBe(1);
      await policy.readNamespacedPodDisruptionBudget({ name: 'http', namespace: gwNs });
    });
  });
});

describe("the replicas floor's printed command on kgateway, run through bash -c as printed (Helm 4 and 3)", () => {
  // The chart comes from a Helm repository holding every pinned kgateway version, the way users get
  // it (an OCI registry or a repository): installed at the oldest, it can only stay there if the
  // command pins --version, since Helm otherwise upgrades to the newest chart the repository has.
  const [newest, oldest] = [KGATEWAY_VERSIONS[0]!, KGATEWAY_VERSIONS.at(-1)!];
  let repo: { url: string; close(): Promise<void> };
  let op: InProcessOperator | undefined;

  beforeAll(async () => {
    if (newest === oldest) throw new Error(`two pinned kgateway versions are needed, not only ${newest}`);
    await installKgatewayCrds(newest);
    repo = await serveChartRepository(KGATEWAY_VERSIONS.map((v) => kgatewayFixtures(v).chart));
    op = await startOperatorInProcess(id);
  }, 900_000);

  afterAll(async () => {
    await op?.shutdown('test done');
    await repo?.close();
  });

  it.each(HELM_MAJORS)(
    'Helm %i: refused plain upgrade prints release, chart, --version and values-kgatewayha.yaml; run as printed it keeps the chart version and restarts nothing',
    async (major) => {
      const ns = await createNamespace(`kgw-floor-h${major}`);
      const installed = await helm(major, [
        'install',
        'edge',
        'kgateway',
        '--repo',
        repo.url,
        '--version',
        oldest,
        '-n',
        ns,
      ]);
      expect(installed.ok, installed.stderr).toBe(true);
      await kubectlOk(
        ['apply', '--server-side', '-f', '-'],
        JSON.stringify({
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'KgatewayHA',
          metadata: { name: 'edge', namespace: ns },
          spec: { controller: { replicas: 3 } },
        }),
      );
      // The chart names the controller's Deployment after the release (edge-kgateway): found by its labels.
      const dep = async () => {
        const list = await apps.listNamespacedDeployment({
          namespace: ns,
          labelSelector: 'kgateway=kgateway',
        });
        expect(list.items.map((d) => d.metadata?.name)).toHaveLength(1);
        return list.items[0]!;
      };
      const getHA = () =>
        custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: ns,
          plural: KGATEWAY_PLURAL,
          name: 'edge',
        }) as Promise<KgatewayHA>;
      await eventually('KgatewayHA Ready', getHA, ready, { timeoutMs: 90_000 });
      await eventually(
        'the floor annotations on the controller Deployment',
        dep,
        (d) => d.spec?.replicas === 3 && d.metadata?.annotations?.['glooha.io/helm-upgrade'] !== undefined,
      );

      // A plain upgrade (the chart's replicaCount 1) is refused, printing the product's own command.
      const plain = await helm(major, [
        'upgrade',
        'edge',
        'kgateway',
        '--repo',
        repo.url,
        '--version',
        oldest,
        '-n',
        ns,
        '--reset-values',
      ]);
      expect(plain.ok).toBe(false);
      expect(plain.stderr).toMatch(
        /spec\.replicas 1 is below 3, the floor that KgatewayHA [^ ]+\/edge keeps/,
      );
      const command = printedValuesPathCommand(plain.stderr);
      expect(command).toBe(
        `kubectl -n ${ns} get configmap edge-kgateway-helm-values -o go-template='{{index .data \`values.yaml\`}}' > values-kgatewayha.yaml && ` +
          `helm upgrade edge \${KGATEWAY_CHART:-oci://cr.kgateway.dev/kgateway-dev/charts/kgateway} --version ${oldest} -n ${ns} --reset-then-reuse-values -f values-kgatewayha.yaml`,
      );
      // The ConfigMap's header prints the very same line.
      const cm = await admin
        .makeApiClient(CoreV1Api)
        .readNamespacedConfigMap({ name: 'edge-kgateway-helm-values', namespace: ns });
      expect(cm.data?.['values.yaml']).toContain(`#   ${command}\n`);

      const before = await dep();
      const pods = async () =>
        (
          await admin
            .makeApiClient(CoreV1Api)
            .listNamespacedPod({ namespace: ns, labelSelector: 'kgateway=kgateway' })
        ).items
          .map((p) => p.metadata?.uid)
          .sort();
      const podsBefore = await pods();
      const releaseOf = async () => {
        const list = await helm(major, ['list', '-n', ns, '-o', 'json']);
        expect(list.ok, list.stderr).toBe(true);
        return (JSON.parse(list.stdout) as { name: string; chart: string; revision: string }[]).find(
          (r) => r.name === 'edge',
        );
      };
      const releaseBefore = await releaseOf();
      expect(releaseBefore?.chart).toBe(`kgateway-${oldest}`);

      // The user's shell: the chart reference in KGATEWAY_CHART (here the repository, added first).
      const run = await runAsPrinted(command, {
        helm: major,
        setup: `helm repo add glooha-test ${repo.url}`,
        env: { KGATEWAY_CHART: 'glooha-test/kgateway' },
      });
      expect(run.code, `${command}\n${run.stderr}`).toBe(0);
      expect(run.files['values-kgatewayha.yaml']).toBe(cm.data?.['values.yaml']);

      // Upgraded (a new revision), to the same chart version, although the repository offers a newer.
      const releaseAfter = await releaseOf();
      expect(Number(releaseAfter?.revision)).toBe(Number(releaseBefore?.revision) + 1);
      expect(releaseAfter?.chart).toBe(`kgateway-${oldest}`);
      const offered = await helm(major, ['show', 'chart', 'kgateway', '--repo', repo.url]);
      expect(offered.stdout).toMatch(new RegExp(`^version: ${newest.replace(/\./g, '\\.')}$`, 'm'));
      // Nothing restarted: the pod template is unchanged (same generation, no new ReplicaSet) and the
      // pods are the same ones; the replica count stays.
      const after = await dep();
      expect(after.metadata?.generation).toBe(before.metadata?.generation);
      expect(after.spec?.template).toEqual(before.spec?.template);
      expect(after.spec?.replicas).toBe(3);
      expect(await pods()).toEqual(podsBefore);
      const ha = await eventually('still Ready after the upgrade', getHA, ready);
      expect(condition(ha, 'Drifted')?.reason).not.toBe('DriftCorrected');
    },
    600_000,
  );
});

describe('an operator whose API server does not serve KgatewayHA (a Helm upgrade keeps old CRDs)', () => {
  beforeAll(async () => {
    operator = await startOperatorInProcess(id);
  }, 180_000);

  it('manages GlooHAs as before and logs how to add the CRD', async () => {
    // Every KgatewayHA goes first, finalized by the running operator: a CRD's deletion waits for its
    // objects, and with the operator stopped their finalizer would never be removed (other test files
    // of this lane leave KgatewayHAs the operator has reconciled).
    await kubectlOk(['delete', 'kgatewayhas', '--all', '--all-namespaces', '--wait', '--timeout=60s']);
    await operator.shutdown('next test');
    await kubectlOk(['delete', 'crd', 'kgatewayhas.glooha.io', '--wait']);
    let second: InProcessOperator | undefined;
    try {
      second = await startOperatorInProcess(id);
      expect(second.logs.join('\n')).toContain(
        'the kgatewayhas.glooha.io CRD is not installed: KgatewayHAs are not managed',
      );
      const glooNs = await createNamespace('kgw-no-crd');
      await createGlooInstall(admin, { namespace: glooNs });
      await createGlooHA(glooNs, 'gloo', { gloo: { replicas: 2 } });
      await eventually('GlooHA Ready', () => getGlooHA(glooNs, 'gloo'), ready, { timeoutMs: 90_000 });
    } finally {
      await second?.shutdown('test done');
      await installCrds();
    }
    // Its own waits add up past the lane's 120 s: the KgatewayHAs' finalization (60 s), the CRD's
    // deletion, a fresh operator's cache sync and the GlooHA's Ready (90 s).
  }, 300_000);
});
