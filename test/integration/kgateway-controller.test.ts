// The test harness that runs kgateway's real controller (test/support/product-controller.ts) against
// the test control plane: one process per controller pod of the chart's Deployment, with the pod's env,
// a token bound to the pod and the pod's name as hostname; processes follow pods; and kgateway's own
// leader election, measured: the time from SIGKILL of the leader to a new holder of kgateway-envoy.
// The operator's handover of kgateway-envoy in every kubelet state: test/support/product-handover.ts.
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1Lease,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KGATEWAY_VERSION, type KgatewayFixtures } from '../env/binaries.js';
import { auditWrites } from '../support/audit.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { helm } from '../support/gloo-chart.js';
import { KGATEWAY_CONTROLLER_POD, installKgatewayCrds } from '../support/kgateway.js';
import { ProductControllers, expand, fieldValue, quantityToNumber } from '../support/product-controller.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const core = admin.makeApiClient(CoreV1Api);
const leases = admin.makeApiClient(CoordinationV1Api);

let fx: KgatewayFixtures;
let ns: string;
let controllers: ProductControllers | undefined;

const lease = () => leases.readNamespacedLease({ name: 'kgateway-envoy', namespace: ns });
const holderPod = (l: V1Lease) => l.spec?.holderIdentity?.split('_')[0];
const controllerPods = async () =>
  (
    await core.listNamespacedPod({ namespace: ns, labelSelector: 'app.kubernetes.io/name=kgateway' })
  ).items.filter((p) => !p.metadata?.deletionTimestamp);

beforeAll(async () => {
  fx = (await installKgatewayCrds(KGATEWAY_VERSION, { controller: true })).fx;
  ns = await createNamespace('kgw-controller');
  const r = await helm(4, [
    'install',
    'kgateway',
    fx.chart,
    '-n',
    ns,
    '--set',
    'controller.replicaCount=2',
    // GOMAXPROCS comes from limits.cpu (the chart's resourceFieldRef); without a limit it would be the
    // kwok node's 32.
    '--set',
    'controller.resources.limits.cpu=1',
  ]);
  expect(r.ok, r.stderr).toBe(true);
  controllers = await ProductControllers.start({
    ...KGATEWAY_CONTROLLER_POD,
    namespace: ns,
    binary: fx.controller!,
  });
}, 1_800_000);

afterAll(async () => {
  await controllers?.stop();
});

describe(`kgateway ${KGATEWAY_VERSION}'s controller, one process per controller pod`, () => {
  it('runs each pod with its env and a pod-bound token; the elected one renews kgateway-envoy as itself', async () => {
    const pods = await eventually('two controller pods', controllerPods, (p) => p.length === 2, {
      timeoutMs: 60_000,
    });
    const names = pods.map((p) => p.metadata!.name!).sort();
    await eventually(
      'a process for each pod',
      async () => [...controllers!.processes().keys()].sort(),
      (running) => JSON.stringify(running) === JSON.stringify(names),
    );
    for (const p of controllers!.processes().values()) {
      // The chart's env, resolved as the kubelet resolves it.
      expect(p.env.POD_NAMESPACE).toBe(ns);
      expect(p.env.KGW_XDS_SERVICE_NAME).toBe('kgateway');
      expect(p.env.GOMAXPROCS).toBe('1');
      expect(Number(p.env.GOMEMLIMIT)).toBe(256 * 2 ** 30); // no memory limit: the node's allocatable
    }
    // controller-runtime's identity is `<hostname>_<uuid>`: the hostname is the pod's name.
    const l = await eventually(
      'a holder of kgateway-envoy',
      lease,
      (x) => names.includes(holderPod(x) ?? ''),
      { timeoutMs: 120_000 },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${controllers!.describe()}`);
    });
    expect(l.spec?.leaseDurationSeconds).toBe(15);
    // Its renewals come from the pod's ServiceAccount with the pod's token (the API server records the
    // pod the token is bound to).
    const since = new Date();
    const renewed = await eventually(
      'a renewal in the audit log',
      async () =>
        auditWrites({ since }).filter(
          (e) =>
            e.objectRef?.resource === 'leases' &&
            e.objectRef.namespace === ns &&
            e.objectRef.name === 'kgateway-envoy',
        ),
      (evs) => evs.length > 0,
    );
    const ev = renewed[0] as unknown as { user: { username: string; extra?: Record<string, string[]> } };
    expect(ev.user.username).toBe(`system:serviceaccount:${ns}:kgateway`);
    expect(ev.user.extra?.['authentication.kubernetes.io/pod-name']).toEqual([holderPod(l)]);
  });

  it('follows pods: a new pod gets a process, a deleted pod loses its own', async () => {
    await apps.patchNamespacedDeploymentScale(
      { name: 'kgateway', namespace: ns, body: { spec: { replicas: 3 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually(
      'three processes',
      async () => controllers!.processes().size,
      (n) => n === 3,
      {
        timeoutMs: 60_000,
      },
    );
    const victim = [...controllers!.processes().values()][0]!;
    await core.deleteNamespacedPod({ name: victim.pod, namespace: ns });
    await eventually(
      `the process of deleted pod ${victim.pod} to exit`,
      async () => controllers!.all().find((p) => p.pid === victim.pid)?.exited,
      (e) => e !== undefined,
      { timeoutMs: 60_000 },
    );
    // The ReplicaSet's replacement, under a new name, gets a process of its own.
    const replaced = await eventually(
      'three processes again, none for the deleted pod',
      async () => [...controllers!.processes().keys()],
      (pods) => pods.length === 3 && !pods.includes(victim.pod),
      { timeoutMs: 60_000 },
    );
    expect(replaced).not.toContain(victim.pod);
  });

  it('fails over: after SIGKILL of the leader another pod takes kgateway-envoy (the figure is logged)', async () => {
    const before = await eventually(
      'a running holder',
      lease,
      (x) => controllers!.processes().has(holderPod(x) ?? ''),
      { timeoutMs: 60_000 },
    );
    const leader = holderPod(before)!;
    const killedAt = Date.now();
    controllers!.kill(leader, 'SIGKILL');
    const after = await eventually(
      'another pod to hold kgateway-envoy',
      lease,
      (x) => x.spec?.holderIdentity !== before.spec?.holderIdentity && holderPod(x) !== undefined,
      { timeoutMs: 90_000, intervalMs: 100 },
    );
    const seconds = (Date.now() - killedAt) / 1000;
    console.log(`kgateway ${KGATEWAY_VERSION} failover after SIGKILL of the leader: ${seconds.toFixed(1)} s`);
    // A killed leader never releases: the others wait out the lease (15 s) from their last observed
    // renewal, then retry every 2 s.
    expect(seconds).toBeGreaterThan(5);
    expect(seconds).toBeLessThan(60);
    expect(after.spec?.leaseTransitions).toBe((before.spec?.leaseTransitions ?? 0) + 1);
  });
});

describe('the kubelet semantics the harness reproduces', () => {
  it('divides quantities, reads fieldRefs and expands $(VAR) as the kubelet does', () => {
    expect(quantityToNumber('500m')).toBe(0.5);
    expect(quantityToNumber('256Gi')).toBe(256 * 2 ** 30);
    const pod = {
      metadata: { name: 'p', namespace: 'n', labels: { a: 'b' } },
      spec: { nodeName: 'node-1', containers: [] },
    };
    expect(fieldValue(pod, 'metadata.name')).toBe('p');
    expect(fieldValue(pod, "metadata.labels['a']")).toBe('b');
    expect(fieldValue(pod, 'spec.nodeName')).toBe('node-1');
    expect(expand('$(A)-$$(A)-$(B)', { A: 'x' })).toBe('x-$(A)-$(B)');
  });
});
