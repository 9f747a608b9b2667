// Gloo's real controller, the `gloo` binary of github.com/solo-io/gloo (./projects/gloo/cmd, built by
// test/env/build-gloo.sh at the chart's version), run by test/support/product-controller.ts as the
// kubelet would run the chart's gloo pods: one process per pod, the pod's env, a token bound to the
// pod, the pod's name as hostname. The install is Gloo's chart, installed with Helm 4, managed by a
// GlooHA (3 replicas; the operator writes the leader-election env, 15s/10s/2s).
// With the handover off, the standbys wait out the Lease after a graceful deletion of the leader pod.
// The operator's handover of Lease `gloo` in every kubelet state: test/support/product-handover.ts.
//
// Values: the validation webhook and server are off (gateway.validation.enabled=false): gloo would
// read the webhook's certificate from a Secret volume that only the chart's certgen Job fills, which
// kwok completes without running.
import { CoordinationV1Api, CoreV1Api, type V1Lease, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_LEASE_DURATION } from '../../src/products/gloo/api.js';
import { controllerRuntimeHolderPod } from '../../src/core/dead-holder.js';
import { glooChartVersion, glooController } from '../env/binaries.js';
import { auditWrites } from '../support/audit.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { GLOO_CONTROLLER_POD, installGloo } from '../support/gloo-chart.js';
import { createGlooHA } from '../support/glooha.js';
import { LeaseRecorder, podOf } from '../support/lease-recorder.js';
import {
  installOperatorRbac,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { ProductControllers } from '../support/product-controller.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const core = admin.makeApiClient(CoreV1Api);
const leases = admin.makeApiClient(CoordinationV1Api);
const VERSION_LABEL = `Gloo ${glooChartVersion()}`;
// The GlooHA's defaults, which the operator writes as LEADER_ELECTION_* on the gloo container.
const LEASE_S = 15;
const RETRY_S = 2;

/** Values of every install here: no validation (see the file comment). */
const VALUES = { gateway: { validation: { enabled: false } } };

let binary: string;
beforeAll(() => {
  binary = glooController();
}, 1_800_000);

interface Install {
  ns: string;
  controllers: ProductControllers;
  operator: InProcessOperator;
  id: OperatorIdentity;
  recorder: LeaseRecorder;
}

/**
 * Gloo's chart in a namespace of its own, its gloo pods run by the harness with the kubelet's end of a
 * deleted pod, an operator (only for that namespace) with `operatorArgs`, and a GlooHA of 3 replicas.
 */
async function install(prefix: string, operatorArgs: string[] = []): Promise<Install> {
  const ns = await createNamespace(prefix);
  await installGloo(4, ns, 'gloo', VALUES);
  const controllers = await ProductControllers.start({
    ...GLOO_CONTROLLER_POD,
    namespace: ns,
    binary,
    kubeletTermination: true,
    pollMs: 100,
  });
  const id = await installOperatorRbac(await createNamespace(`${prefix}-op`), { watchNamespaces: [ns] });
  const operator = await startOperatorInProcess(id, { args: [`--watch-namespaces=${ns}`, ...operatorArgs] });
  await createGlooHA(ns, 'gloo', { gloo: { replicas: 3 } });
  const recorder = await LeaseRecorder.start(ns, 'gloo');
  return { ns, controllers, operator, id, recorder };
}

async function uninstall(i: Partial<Install>): Promise<void> {
  i.recorder?.stop();
  await i.operator?.shutdown('test done');
  await i.controllers?.stop();
}

const glooPods = async (ns: string): Promise<V1Pod[]> =>
  (await core.listNamespacedPod({ namespace: ns, labelSelector: 'gloo=gloo' })).items.filter(
    (p) => !p.metadata?.deletionTimestamp,
  );

/**
 * Three gloo pods of the template the operator wrote (its leader-election env), each with its process,
 * one of them holding Lease gloo with the operator's lease duration.
 */
async function settled(i: Install): Promise<{ holder: string; lease: V1Lease }> {
  return eventually(
    "three gloo pods of the operator's template with a process each, one of them holding Lease gloo for 15 s",
    async () => {
      const pods = await glooPods(i.ns);
      const running = i.controllers.processes();
      const lease = await leases
        .readNamespacedLease({ name: 'gloo', namespace: i.ns })
        .catch(() => undefined);
      return { pods, running, lease, holder: lease?.spec?.holderIdentity ?? '' };
    },
    (x) =>
      x.pods.length === 3 &&
      x.pods.every(
        (p) =>
          x.running.has(p.metadata!.name!) &&
          p.spec?.containers
            .find((c) => c.name === 'gloo')
            ?.env?.some((e) => e.name === ENV_LEASE_DURATION && e.value === `${LEASE_S}s`),
      ) &&
      x.running.has(podOf(x.holder)) &&
      x.lease?.spec?.leaseDurationSeconds === LEASE_S,
    { timeoutMs: 300_000, intervalMs: 250 },
  )
    .then((x) => ({ holder: x.holder, lease: x.lease! }))
    .catch((err) => {
      throw new Error(`${(err as Error).message}\n${i.controllers.describe()}`);
    });
}

/** The Lease updates the operator's ServiceAccount made in `ns` since `since` (the audit log). */
const operatorLeaseWrites = (i: Install, since: Date) =>
  auditWrites({ username: i.id.username, since }).filter(
    (e) => e.objectRef?.resource === 'leases' && e.objectRef.namespace === i.ns,
  );

describe(`${VERSION_LABEL}'s gloo controller, with the operator's handover (the default)`, () => {
  let i: Install;
  beforeAll(async () => {
    i = await install('gloo-ctl');
  }, 600_000);
  afterAll(async () => {
    await uninstall(i ?? {});
  });

  it("runs each gloo pod with the operator's env and a pod-bound token; the elected one holds Lease gloo as <pod name>_<uuid>", async () => {
    const { holder, lease } = await settled(i);
    const names = (await glooPods(i.ns)).map((p) => p.metadata!.name!);
    // controller-runtime's resource lock identity: the hostname (the pod's name) and a uuid.
    expect(controllerRuntimeHolderPod(holder), holder).toBe(podOf(holder));
    expect(names).toContain(controllerRuntimeHolderPod(holder));
    expect(lease.spec?.leaseDurationSeconds).toBe(LEASE_S);
    for (const p of i.controllers.processes().values()) {
      expect(p.env.POD_NAMESPACE).toBe(i.ns);
      expect(p.env.LEADER_ELECTION_LEASE_DURATION).toBe(`${LEASE_S}s`);
      expect(p.env.LEADER_ELECTION_RETRY_PERIOD).toBe(`${RETRY_S}s`);
    }
    // Its renewals come with the pod's token (the API server records the pod it is bound to).
    const since = new Date();
    const renewed = await eventually(
      'a renewal of Lease gloo in the audit log',
      async () =>
        auditWrites({ since }).filter(
          (e) =>
            e.objectRef?.resource === 'leases' &&
            e.objectRef.namespace === i.ns &&
            e.objectRef.name === 'gloo',
        ),
      (evs) => evs.length > 0,
      { timeoutMs: 30_000 },
    );
    const ev = renewed[0] as unknown as { user: { username: string; extra?: Record<string, string[]> } };
    expect(ev.user.username).toBe(`system:serviceaccount:${i.ns}:gloo`);
    expect(ev.user.extra?.['authentication.kubernetes.io/pod-name']).toEqual([podOf(holder)]);
  }, 360_000);

  // Its handover in every kubelet state, with and against the operator: test/support/product-handover.ts.
});

describe(`${VERSION_LABEL}'s gloo controller, with --product-lease-handover=false`, () => {
  let i: Install;
  beforeAll(async () => {
    i = await install('gloo-ctl-off', ['--product-lease-handover=false']);
  }, 600_000);
  afterAll(async () => {
    await uninstall(i ?? {});
  });

  it('graceful deletion of the leader pod: nothing clears Lease gloo, the standbys wait for it to expire', async () => {
    const { holder } = await settled(i);
    const leader = podOf(holder);
    const since = new Date();
    const deletedAt = Date.now();
    await core.deleteNamespacedPod({ name: leader, namespace: i.ns });
    const next = await i.recorder.awaitNextHolder(
      deletedAt,
      holder,
      'a new holder of Lease gloo after the graceful deletion of the leader pod',
      90_000,
    );
    const seconds = (next.at - deletedAt) / 1000;
    const lastOld = i.recorder.records.filter((r) => r.holder === holder && r.at <= next.at).at(-1)!;
    console.log(
      `${VERSION_LABEL} without the handover, after a graceful deletion of the leader pod: new holder ${seconds.toFixed(2)} s after the deletion, ${((next.at - lastOld.at) / 1000).toFixed(2)} s after the old holder's last renewal`,
    );
    expect(i.recorder.since(deletedAt).some((r) => r.holder === '')).toBe(false);
    expect(operatorLeaseWrites(i, since)).toEqual([]);
    // Gloo held its Lease to expiry (it does not release on SIGTERM): the standbys took it only once
    // leaseDuration had passed since the last renewal they saw.
    // (Each standby times the expiry from when it saw the last renewal, at its own poll: a little later
    // than the watch here saw it.)
    expect((next.at - lastOld.at) / 1000).toBeGreaterThan(LEASE_S - 1);
    expect(seconds).toBeGreaterThan(2.2 * RETRY_S + 1);
  }, 360_000);
});
