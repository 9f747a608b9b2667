// The test harness that runs kgateway's real controller (test/support/product-controller.ts) against
// the test control plane: one process per controller pod of the chart's Deployment, with the pod's env,
// a token bound to the pod and the pod's name as hostname; processes follow pods; and kgateway's own
// leader election, measured: the time from SIGKILL of the leader to a new holder of kgateway-envoy.
// Then the operator's handover of kgateway-envoy (docs/leader-election.md, "The managed product's
// leader"): a leader pod deleted gracefully, its end confirmed as the kubelet confirms it, is followed
// by a new holder at the standbys' next retry; a force-deleted or still-running one is left alone.
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
import { createKgatewayHA } from '../support/glooha.js';
import { KGATEWAY_CONTROLLER_POD, installKgatewayCrds } from '../support/kgateway.js';
import { ProductControllers, expand, fieldValue, quantityToNumber } from '../support/product-controller.js';
import { eventually } from '../support/wait.js';
import { LeaseRecorder, podOf } from '../support/lease-recorder.js';
import {
  installOperatorRbac,
  metricValue,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';

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

describe("the operator hands kgateway-envoy over once the kubelet confirmed the leader's pod stopped", () => {
  // controller-runtime's retry period; client-go jitters each retry to 1×–2.2× of it.
  const RETRY_S = 2;
  let id: OperatorIdentity;
  let operator: InProcessOperator | undefined;
  let recorder: LeaseRecorder | undefined;

  /** The Lease updates the operator's ServiceAccount made since `since` (the audit log). */
  const operatorLeaseWrites = (since: Date) =>
    auditWrites({ username: id.username, since }).filter(
      (e) => e.objectRef?.resource === 'leases' && e.objectRef.namespace === ns,
    );
  /** Writes the API server accepted from a token bound to `pod` since `since`. */
  const acceptedWritesOf = (pod: string, since: Date) =>
    auditWrites({ since }).filter((e) => {
      const extra = (e as unknown as { user: { extra?: Record<string, string[]> } }).user.extra;
      return (
        extra?.['authentication.kubernetes.io/pod-name']?.[0] === pod && (e.responseStatus?.code ?? 0) < 400
      );
    });
  /** Three pods, each with its process, all of the Deployment's current template; one holds the Lease. */
  const settled = async () =>
    eventually(
      'three controller pods with a process each, one of them holding kgateway-envoy',
      async () => {
        const pods = await controllerPods();
        const running = controllers!.processes();
        return {
          pods: pods.map((p) => p.metadata!.name!),
          running,
          holder: (await lease()).spec?.holderIdentity ?? '',
        };
      },
      (x) => x.pods.length === 3 && x.pods.every((p) => x.running.has(p)) && x.running.has(podOf(x.holder)),
      { timeoutMs: 180_000, intervalMs: 250 },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${controllers?.describe()}`);
    });

  beforeAll(async () => {
    // The harness of the tests above ends its pods without the kubelet's confirmation: replace it.
    await controllers?.stop();
    controllers = await ProductControllers.start({
      ...KGATEWAY_CONTROLLER_POD,
      namespace: ns,
      binary: fx.controller!,
      kubeletTermination: true,
      pollMs: 100,
    });
    id = await installOperatorRbac(await createNamespace('kgw-handover-op'));
    operator = await startOperatorInProcess(id);
    await createKgatewayHA(ns, 'kgateway', { controller: { replicas: 3 } });
    recorder = await LeaseRecorder.start(ns, 'kgateway-envoy');
  }, 300_000);

  afterAll(async () => {
    recorder?.stop();
    await operator?.shutdown('test done');
  });

  it(`graceful deletion of the leader pod: the operator clears the Lease and a standby holds it within 2.2 × retryPeriod + 1 s`, async () => {
    const { holder } = await settled();
    const leader = podOf(holder);
    // The operator's first reconcile rolled the pods (replicas, anti-affinity): it may have handed the
    // Lease over already.
    const owner = { kind: 'KgatewayHA', namespace: ns, name: 'kgateway' };
    const releases = () =>
      metricValue(operator!.metricsUrl, 'glooha_product_lease_releases_total', owner).catch(() => 0);
    const releasesBefore = await releases();
    const since = new Date();
    const deletedAt = Date.now();
    await core.deleteNamespacedPod({ name: leader, namespace: ns });
    const next = await recorder!.awaitNextHolder(deletedAt, holder, 'a new holder of kgateway-envoy', 30_000);
    const seconds = (next.at - deletedAt) / 1000;
    const records = recorder!.since(deletedAt);
    const cleared = records.find((r) => r.holder === '');
    console.log(
      `kgateway ${KGATEWAY_VERSION} handover after a graceful deletion of the leader pod: new holder ${seconds.toFixed(2)} s after the deletion, ${cleared ? ((next.at - cleared.at) / 1000).toFixed(2) : '?'} s after the operator's clear`,
    );
    // The operator cleared the old holder's record, once, as client-go's release does.
    expect(cleared, JSON.stringify(records)).toMatchObject({ leaseDurationSeconds: 1 });
    expect(operatorLeaseWrites(since)).toHaveLength(1);
    // Without the handover the standbys wait out the 15 s Lease.
    expect(seconds).toBeLessThan(2.2 * RETRY_S + 1);
    // The old leader wrote nothing after the takeover (its process had exited before the clear).
    expect(acceptedWritesOf(leader, new Date(next.at))).toEqual([]);
    // The gap is in the histogram (the operator saw the old holder's last renewal and the new one).
    expect(
      await metricValue(operator!.metricsUrl, 'glooha_product_leaderless_seconds_count', owner),
    ).toBeGreaterThan(0);
    expect(await releases()).toBe(releasesBefore + 1);
  }, 240_000);

  it('a leader pod deleted while its container still runs (a kubelet that cannot act): no clear, it keeps leading', async () => {
    const { holder } = await settled();
    const leader = podOf(holder);
    const since = new Date();
    const deletedAt = Date.now();
    controllers!.abandon(leader);
    await core.deleteNamespacedPod({ name: leader, namespace: ns });
    // Past the standbys' longest retry after a clear: nothing happened, the live leader renews on.
    await new Promise((r) => setTimeout(r, (2.2 * RETRY_S + 2) * 1000));
    const records = recorder!.since(deletedAt);
    expect(
      records.every((r) => r.holder === holder),
      JSON.stringify(records),
    ).toBe(true);
    expect(records.length).toBeGreaterThan(0); // it renewed
    expect(operatorLeaseWrites(since)).toEqual([]);
    // The node comes back and kills it, unconfirmed (the object goes with its containers "running"):
    // still no clear; the standbys wait out the Lease.
    const endedAt = Date.now();
    await controllers!.end(leader);
    const next = await recorder!.awaitNextHolder(
      endedAt,
      holder,
      'a new holder after the Lease expired',
      60_000,
    );
    expect(recorder!.since(deletedAt).some((r) => r.holder === '')).toBe(false);
    expect(operatorLeaseWrites(since)).toEqual([]);
    expect((next.at - endedAt) / 1000).toBeGreaterThan(5);
  }, 240_000);

  it('force deletion of a running leader pod (a lost node): no clear; the old process writes nothing after the takeover', async () => {
    const { holder } = await settled();
    const leader = podOf(holder);
    const since = new Date();
    const deletedAt = Date.now();
    controllers!.abandon(leader);
    await controllers!.unhold(leader);
    await core.deleteNamespacedPod({ name: leader, namespace: ns, gracePeriodSeconds: 0 });
    const next = await recorder!.awaitNextHolder(
      deletedAt,
      holder,
      'a new holder after the force deletion',
      60_000,
    );
    try {
      const seconds = (next.at - deletedAt) / 1000;
      console.log(
        `kgateway ${KGATEWAY_VERSION} after a force deletion of the running leader's pod: new holder after ${seconds.toFixed(1)} s (no clear)`,
      );
      expect(
        recorder!.since(deletedAt).some((r) => r.holder === ''),
        JSON.stringify(recorder!.since(deletedAt)),
      ).toBe(false);
      expect(operatorLeaseWrites(since)).toEqual([]);
      // The process ran on, but nothing of it was accepted after the takeover.
      expect(acceptedWritesOf(leader, new Date(next.at))).toEqual([]);
      // A gap above leaseDuration + retryPeriod (17 s) from the old holder's last renewal is reported.
      const lastOld = recorder!.records.filter((r) => r.holder === holder && r.at <= next.at).at(-1)!;
      const gap = (next.at - lastOld.at) / 1000;
      if (gap > 15 + RETRY_S + 0.5) {
        const events = await eventually(
          `a LeaderlessGap event on KgatewayHA ${ns}/kgateway (gap ${gap.toFixed(1)} s)`,
          async () =>
            (
              await core.listNamespacedEvent({
                namespace: ns,
                fieldSelector: 'involvedObject.name=kgateway,reason=LeaderlessGap',
              })
            ).items.filter((e) => e.involvedObject.kind === 'KgatewayHA' && e.message?.includes(holder)),
          (evs) => evs.length > 0,
          { timeoutMs: 15_000 },
        );
        expect(events[0]!.type).toBe('Warning');
      } else console.log(`gap ${gap.toFixed(1)} s is within the bound: no event expected`);
    } finally {
      await controllers!.end(leader);
    }
  }, 240_000);
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
