// Faults of kgateway's leader that no handover may shorten, on kgateway's real controller (one process
// per controller pod, test/support/product-controller.ts) with the operator's handover on: the leader's
// process paused (SIGSTOP, as a long GC pause or a frozen VM), its pod cut off from the API server
// (a network partition of its node), and its node lost (NotReady: the kubelet reports nothing, so a
// deletion of the pod — a drain, the node controller's eviction — is never confirmed). In the first two
// the pod is not being deleted, in the third its end is never reported, so nothing confirms an end:
// the operator clears nothing, the standbys take the Lease only once it expired, the Lease never shows
// the old holder again after the takeover (no two holders), and the API server accepts no write of the
// old process after the takeover. The takeover times are logged (docs/leader-election.md).
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KGATEWAY_VERSION } from '../env/binaries.js';
import { auditWrites } from '../support/audit.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { helm } from '../support/gloo-chart.js';
import { createKgatewayHA } from '../support/glooha.js';
import { KGATEWAY_CONTROLLER_POD, installKgatewayCrds } from '../support/kgateway.js';
import { LeaseRecorder, podOf } from '../support/lease-recorder.js';
import {
  installOperatorRbac,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { ProductControllers, type ControllerProcess } from '../support/product-controller.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const core = admin.makeApiClient(CoreV1Api);
// controller-runtime's lease duration, fixed in kgateway.
const LEASE_S = 15;

let ns: string;
let controllers: ProductControllers | undefined;
let operator: InProcessOperator | undefined;
let recorder: LeaseRecorder | undefined;
let id: OperatorIdentity;

beforeAll(async () => {
  const fx = (await installKgatewayCrds(KGATEWAY_VERSION, { controller: true })).fx;
  ns = await createNamespace('kgw-chaos');
  const r = await helm(4, [
    'install',
    'kgateway',
    fx.chart,
    '-n',
    ns,
    '--set',
    'controller.replicaCount=3',
    '--set',
    'controller.resources.limits.cpu=1',
  ]);
  expect(r.ok, r.stderr).toBe(true);
  controllers = await ProductControllers.start({
    ...KGATEWAY_CONTROLLER_POD,
    namespace: ns,
    binary: fx.controller!,
    kubeletTermination: true,
    pollMs: 100,
  });
  id = await installOperatorRbac(await createNamespace('kgw-chaos-op'), { watchNamespaces: [ns] });
  operator = await startOperatorInProcess(id, { args: [`--watch-namespaces=${ns}`] });
  await createKgatewayHA(ns, 'kgateway', { controller: { replicas: 3 } });
  recorder = await LeaseRecorder.start(ns, 'kgateway-envoy');
}, 1_800_000);

afterAll(async () => {
  recorder?.stop();
  await operator?.shutdown('test done');
  await controllers?.stop();
});

/** Three controller pods with a process each, started ≥ 5 s ago, one of them holding the Lease. */
const settled = async () =>
  eventually(
    'three kgateway pods with a process each, one of them holding kgateway-envoy',
    async () => {
      const pods = (
        await core.listNamespacedPod({ namespace: ns, labelSelector: 'kgateway=kgateway' })
      ).items.filter((p) => !p.metadata?.deletionTimestamp);
      return { pods: pods.map((p) => p.metadata!.name!), running: controllers!.processes() };
    },
    (x) =>
      x.pods.length === 3 &&
      x.pods.every((p) => x.running.has(p)) &&
      x.running.has(podOf(recorder!.holder())),
    { timeoutMs: 180_000, intervalMs: 250 },
  )
    .then(() => recorder!.holder())
    .catch((err) => {
      throw new Error(`${(err as Error).message}\n${controllers?.describe()}`);
    });

/** Writes the API server accepted from a token bound to `pod` between `from` and `to`. */
const acceptedWritesOf = (pod: string, from: Date, to?: Date) =>
  auditWrites({ since: from, ...(to ? { until: to } : {}) }).filter((e) => {
    const extra = (e as unknown as { user: { extra?: Record<string, string[]> } }).user.extra;
    return (
      extra?.['authentication.kubernetes.io/pod-name']?.[0] === pod && (e.responseStatus?.code ?? 0) < 400
    );
  });

/** The operator's Lease writes in the install's namespace since `since`. */
const operatorLeaseWrites = (since: Date) =>
  auditWrites({ username: id.username, since }).filter(
    (e) => e.objectRef?.resource === 'leases' && e.objectRef.namespace === ns,
  );

/**
 * After a fault of the leader at `faultAt`: the next holder, after the Lease expired (nobody cleared
 * it), and from then on never the old holder again.
 */
async function takeover(holder: string, faultAt: number, since: Date, what: string) {
  const next = await recorder!.awaitNextHolder(
    faultAt,
    holder,
    `a new holder of kgateway-envoy after ${what}`,
    90_000,
  );
  const lastOld = recorder!.records.filter((r) => r.holder === holder && r.at <= next.at).at(-1)!;
  console.log(
    `kgateway ${KGATEWAY_VERSION} after ${what}: new holder ${((next.at - faultAt) / 1000).toFixed(1)} s after the fault, ${((next.at - lastOld.at) / 1000).toFixed(1)} s after the old holder's last renewal`,
  );
  expect(
    recorder!.since(faultAt).some((r) => r.holder === ''),
    'the Lease was cleared',
  ).toBe(false);
  expect(operatorLeaseWrites(since)).toEqual([]);
  // Taken only once the Lease had expired for the standbys.
  expect((next.at - lastOld.at) / 1000).toBeGreaterThan(LEASE_S - 1);
  return next!;
}

/** Waits for the old process to exit (it learns it lost the Lease and controller-runtime exits). */
async function oldProcessExit(p: ControllerProcess, what: string) {
  const exited = await eventually(
    `the old leader's process (pid ${p.pid}) to exit after ${what}`,
    async () => controllers!.all().find((h) => h.pid === p.pid)?.exited,
    (e) => e !== undefined,
    { timeoutMs: 90_000, intervalMs: 100 },
  );
  return exited!;
}

describe(`kgateway ${KGATEWAY_VERSION}'s leader under faults no handover may shorten`, () => {
  it('a paused leader (SIGSTOP past the Lease): taken over at expiry, not cleared; once resumed it never holds again nor writes', async () => {
    const holder = await settled();
    const leader = podOf(holder);
    const since = new Date();
    const pausedAt = Date.now();
    const proc = controllers!.kill(leader, 'SIGSTOP');
    let resumedAt = 0;
    try {
      const next = await takeover(holder, pausedAt, since, 'SIGSTOP of the leader');
      resumedAt = Date.now();
      controllers!.kill(leader, 'SIGCONT');
      const exited = await oldProcessExit(proc, 'SIGCONT');
      console.log(
        `kgateway ${KGATEWAY_VERSION}: the resumed old leader exited ${((exited.at.getTime() - resumedAt) / 1000).toFixed(1)} s after SIGCONT (${exited.signal ?? exited.code})`,
      );
      // Nothing of the old process was accepted from the takeover until it exited: its renewal carried
      // the record it last read, and the API server refused it.
      expect(acceptedWritesOf(leader, new Date(next.at), exited.at)).toEqual([]);
      expect(
        recorder!.since(next.at).every((r) => r.holder !== holder),
        JSON.stringify(recorder!.since(next.at)),
      ).toBe(true);
    } finally {
      if (!resumedAt) controllers!.kill(leader, 'SIGCONT');
    }
  }, 240_000);

  it('a leader on a lost node (its kubelet silent), its pod deleted: never cleared while its process may run; it keeps the Lease, and once killed is taken over at expiry', async () => {
    const holder = await settled();
    const leader = podOf(holder);
    const since = new Date();
    // The node is lost: the process runs on, and nobody will report its containers terminated.
    const proc = controllers!.abandon(leader);
    const deletedAt = Date.now();
    await core.deleteNamespacedPod({ name: leader, namespace: ns });
    let ended = false;
    try {
      // Two lease durations with the pod deleting and its process alive: the operator must not clear
      // the Lease (the process would still act as leader), and the live process keeps renewing it.
      await new Promise((r) => setTimeout(r, 2 * LEASE_S * 1000));
      const meanwhile = recorder!.since(deletedAt);
      expect(
        meanwhile.some((r) => r.holder === ''),
        'the Lease was cleared',
      ).toBe(false);
      expect(
        meanwhile.every((r) => r.holder === holder),
        `holders while the deleted leader still ran: ${JSON.stringify(meanwhile)}`,
      ).toBe(true);
      expect(meanwhile.length).toBeGreaterThan(LEASE_S / 2 / 2); // it renewed (every 2 s) all along
      expect(operatorLeaseWrites(since)).toEqual([]);
      // The lost node comes back and the process is stopped (SIGKILL, unconfirmed): the standbys
      // take the Lease once it expired; nothing of the old process is accepted after that.
      const killedAt = Date.now();
      await controllers!.end(leader);
      ended = true;
      const next = await takeover(holder, killedAt, since, 'the lost node of the leader');
      expect(acceptedWritesOf(leader, new Date(next.at))).toEqual([]);
      expect(proc.exited).toBeDefined();
    } finally {
      if (!ended) await controllers!.end(leader);
    }
  }, 240_000);

  it('a partitioned leader (its network cut off): taken over at expiry, not cleared; it gives up, and once healed never holds again', async () => {
    const holder = await settled();
    const leader = podOf(holder);
    const since = new Date();
    const cutAt = Date.now();
    const proc = controllers!.partition(leader);
    let takenAt: number;
    try {
      const next = await takeover(holder, cutAt, since, 'a partition of the leader');
      takenAt = next.at;
      // Cut off, it cannot renew: after its renewDeadline (10 s) controller-runtime gives up and exits.
      const exited = await oldProcessExit(proc, 'the partition');
      console.log(
        `kgateway ${KGATEWAY_VERSION}: the partitioned old leader exited ${((exited.at.getTime() - cutAt) / 1000).toFixed(1)} s after the cut (${exited.signal ?? exited.code})`,
      );
      expect(acceptedWritesOf(leader, new Date(next.at), exited.at)).toEqual([]);
    } finally {
      controllers!.heal(leader);
    }
    // Healed, the pod's restarted container is a standby: the Lease stays with the new holder.
    const healedAt = Date.now();
    await eventually(
      `a new process of pod ${leader} after the heal`,
      async () => controllers!.processes().get(leader),
      (p) => p !== undefined && p.pid !== proc.pid,
      { timeoutMs: 60_000 },
    );
    expect(
      recorder!.since(takenAt).every((r) => podOf(r.holder) !== leader),
      JSON.stringify(recorder!.since(takenAt)),
    ).toBe(true);
    expect(recorder!.since(healedAt).every((r) => podOf(r.holder) !== leader)).toBe(true);
  }, 240_000);
});
