// The operator's handover of a product's leader Lease (docs/leader-election.md, "The managed product's
// leader: handing over a dead holder's Lease") in every state a kubelet can report, on both products'
// real controllers (kgateway's and Gloo's, built from their modules, one process per controller pod,
// test/support/product-controller.ts) with the harness playing the kubelet's status writes: graceful
// deletion; a crash restarted in place, reported and not reported; the stale `terminated` of an earlier
// container left standing while the restarted process leads and its pod is deleted; the kubelet's
// ContainerStatusUnknown; force deletion; a paused leader; a partitioned node; a lost node.
//
// Each case records every holder of the Lease (its watch) and each process's own "started leading" /
// "stopped leading" log lines (test/support/leadership.ts), and asserts that no two processes led at
// once. A clear is expected only where the kubelet reported the holder's own process ended.
//
// The cases of one product run in test/integration/product-handover-<product>.test.ts: a file, and so a
// lane and a control plane, per product, the two side by side (scripts/test-lanes.ts).
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type V1Lease,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../src/api/constants.js';
import {
  controllerRuntimeHolderPod,
  decideHolderRelease,
  podFacts,
  timeMicros,
} from '../../src/core/dead-holder.js';
import { ENV_LEASE_DURATION, PLURAL as GLOOHA_PLURAL } from '../../src/products/gloo/api.js';
import { KGATEWAY_PLURAL } from '../../src/products/kgateway/api.js';
import { glooChartVersion, glooController, KGATEWAY_VERSION } from '../env/binaries.js';
import { auditWrites } from './audit.js';
import { adminKubeConfig, createNamespace } from './cluster.js';
import { GLOO_CONTROLLER_POD, installGloo } from './gloo-chart.js';
import { createGlooHA, createKgatewayHA } from './glooha.js';
import { KGATEWAY_CONTROLLER_POD, installKgatewayController } from './kgateway.js';
import {
  describeSpans,
  leadershipSpans,
  overlaps,
  type LeadershipSpan,
  type Suspension,
} from './leadership.js';
import { LeaseRecorder, podOf, type LeaseRecord } from './lease-recorder.js';
import {
  installOperatorRbac,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from './operator.js';
import { ProductControllers, type ControllerPod } from './product-controller.js';
import { eventually } from './wait.js';

const admin = adminKubeConfig();
const core = admin.makeApiClient(CoreV1Api);
const leases = admin.makeApiClient(CoordinationV1Api);
const apps = admin.makeApiClient(AppsV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);

/** Both products elect with controller-runtime's defaults here: 15 s lease, 10 s renew deadline, 2 s retry. */
const LEASE_S = 15;
const RETRY_S = 2;
const RENEW_DEADLINE_S = 10;
/** After a clear, the next holder comes at a standby's next retry (jittered to 1×–2.2× retryPeriod). */
const HANDOVER_BOUND_S = 2.2 * RETRY_S + 1;
/** After a crash the kubelet's report comes first (the harness reports within its poll). */
const CRASH_BOUND_S = 2.2 * RETRY_S + 2;
/** How long "nothing happens" is watched: past the standbys' longest retry after any clear. */
const QUIET_MS = (2.2 * RETRY_S + 2) * 1000;

interface Product {
  label: string;
  lease: string;
  /** The controller Deployment, and the HA object's plural and name. */
  deployment: string;
  plural: string;
  haName: string;
  pod: ControllerPod;
  selector: string;
  /** Installs the product (3 controller pods), its harness, an operator for that namespace, its HA object. */
  install(ns: string): Promise<{ binary: string }>;
  createHA(ns: string): Promise<void>;
  /** Whether a pod runs the template the operator wrote (Gloo: its leader-election env). */
  ready(p: V1Pod): boolean;
}

const KGATEWAY: Product = {
  label: `kgateway ${KGATEWAY_VERSION}`,
  lease: 'kgateway-envoy',
  deployment: 'kgateway',
  plural: KGATEWAY_PLURAL,
  haName: 'kgateway',
  pod: KGATEWAY_CONTROLLER_POD,
  selector: 'app.kubernetes.io/name=kgateway',
  async install(ns) {
    const fx = await installKgatewayController(ns, 3);
    return { binary: fx.controller! };
  },
  createHA: (ns) => createKgatewayHA(ns, 'kgateway', { controller: { replicas: 3 } }),
  ready: () => true,
};

const GLOO: Product = {
  label: `Gloo ${glooChartVersion()}`,
  lease: 'gloo',
  deployment: 'gloo',
  plural: GLOOHA_PLURAL,
  haName: 'gloo',
  pod: GLOO_CONTROLLER_POD,
  selector: 'gloo=gloo',
  async install(ns) {
    const binary = glooController();
    // No validation webhook: gloo would read its certificate from a Secret only a certgen Job fills.
    await installGloo(4, ns, 'gloo', { gateway: { validation: { enabled: false } } });
    return { binary };
  },
  createHA: (ns) => createGlooHA(ns, 'gloo', { gloo: { replicas: 3 } }),
  ready: (p) =>
    p.spec?.containers
      .find((c) => c.name === 'gloo')
      ?.env?.some((e) => e.name === ENV_LEASE_DURATION && e.value === `${LEASE_S}s`) ?? false,
};

/** The products whose handover is proven, each by a test file of its own so that the two run side by side. */
export const HANDOVER_PRODUCTS = { kgateway: KGATEWAY, gloo: GLOO } as const;

/** Every case, for one product (test/integration/product-handover-<product>.test.ts). */
export function describeHandover(name: keyof typeof HANDOVER_PRODUCTS): void {
  const product = HANDOVER_PRODUCTS[name];
  describe(`${product.label}: the handover in every state the kubelet reports`, () => {
    let ns: string;
    let controllers: ProductControllers;
    let id: OperatorIdentity;
    let operator: InProcessOperator;
    let recorder: LeaseRecorder;
    /** Windows in which a process was SIGSTOPped (it cannot act then). */
    const suspended: Suspension[] = [];

    beforeAll(async () => {
      ns = await createNamespace(`handover-${product.pod.product}`);
      const { binary } = await product.install(ns);
      controllers = await ProductControllers.start({
        ...product.pod,
        namespace: ns,
        binary,
        kubeletTermination: true,
        kubeletStatus: true,
        pollMs: 100,
      });
      id = await installOperatorRbac(await createNamespace(`handover-${product.pod.product}-op`), {
        watchNamespaces: [ns],
      });
      operator = await startOperatorInProcess(id, { args: [`--watch-namespaces=${ns}`] });
      await product.createHA(ns);
      recorder = await LeaseRecorder.start(ns, product.lease);
    }, 1_800_000);

    afterAll(async () => {
      recorder?.stop();
      await operator?.shutdown('test done');
      await controllers?.stop();
    });

    /** The HA object Ready, three pods of the operator's template, a process each, one holding the Lease. */
    const settled = async (): Promise<{ holder: string; leader: string; standbys: string[] }> => {
      const x = await eventually(
        `${product.haName} Ready; the ${product.deployment} Deployment rolled out to three pods, none being deleted, with a process each; one of them holding Lease ${product.lease} for more than a second`,
        async () => {
          const running = controllers.processes();
          const lease = await leases
            .readNamespacedLease({ name: product.lease, namespace: ns })
            .catch(() => undefined);
          const all = (await core.listNamespacedPod({ namespace: ns, labelSelector: product.selector }))
            .items;
          const d = await apps.readNamespacedDeployment({ name: product.deployment, namespace: ns });
          const ha = (await custom.getNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            namespace: ns,
            plural: product.plural,
            name: product.haName,
          })) as { status?: { conditions?: Array<{ type: string; status: string }> } };
          return {
            pods: all.filter((p) => !p.metadata?.deletionTimestamp),
            deleting: all.some((p) => p.metadata?.deletionTimestamp),
            rolledOut:
              (d.status?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 1) &&
              d.status?.updatedReplicas === 3 &&
              d.status?.replicas === 3,
            ready: ha.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
            running,
            holder: lease?.spec?.holderIdentity ?? '',
            lease,
          };
        },
        (x) =>
          x.ready &&
          x.rolledOut &&
          !x.deleting &&
          x.pods.length === 3 &&
          x.pods.every((p) => x.running.has(p.metadata!.name!) && product.ready(p)) &&
          // No process left of a pod that is gone, and the holder is one of the current pods.
          x.running.size === 3 &&
          x.pods.some((p) => p.metadata!.name === podOf(x.holder)) &&
          x.lease?.spec?.leaseDurationSeconds === LEASE_S &&
          // A leader of more than a second: an end reported within its acquire's second proves nothing
          // (finishedAt has whole seconds), which the crash cases would otherwise meet.
          Date.now() - (timeMicros(x.lease.spec.acquireTime as unknown) ?? Infinity) / 1000 > 1500,
        { timeoutMs: 300_000, intervalMs: 250 },
      ).catch((err) => {
        throw new Error(`${(err as Error).message}\n${controllers.describe()}`);
      });
      const leader = podOf(x.holder);
      return { holder: x.holder, leader, standbys: [...x.running.keys()].filter((p) => p !== leader) };
    };

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

    /**
     * Every process's leadership spans that reach past `since`, and the check that no two led at once
     * (not counting SIGSTOPped windows). The spans must show the holders the Lease had.
     */
    async function assertOneLeaderAtATime(
      since: number,
      opts: { allowAfterResume?: number } = {},
    ): Promise<LeadershipSpan[]> {
      const read = () =>
        controllers
          .all()
          .flatMap((p) => leadershipSpans(p))
          .filter((s) => (s.to ?? Infinity) >= since);
      const holders = new Set(
        recorder
          .since(since)
          .map((r) => podOf(r.holder))
          .filter((p) => p !== ''),
      );
      const detail = (spans: LeadershipSpan[]) =>
        `${describeSpans(spans)}\nLease records: ${JSON.stringify(recorder.since(since - 20_000))}\n${controllers.describe(8)}`;
      // A holder's own line comes a moment after its acquire shows in the Lease (its log is written after
      // the update returns): wait for every holder's line before judging.
      const spans = await eventually(
        `a "started leading" line from a process of each pod that held the Lease (${[...holders].join(', ')})`,
        async () => read(),
        (x) => [...holders].every((pod) => x.some((s) => s.pod === pod)),
        { timeoutMs: 10_000, intervalMs: 100 },
      ).catch((err) => {
        throw new Error(`${(err as Error).message}\n${detail(read())}`);
      });
      // A process resumed after a pause believes it leads until its renew deadline: client-go's own
      // window, not a clear's (nothing is cleared for a paused holder). Only there is it allowed.
      const unexplained = overlaps(spans, suspended).filter(
        (o) => opts.allowAfterResume === undefined || ![o.a.pid, o.b.pid].includes(opts.allowAfterResume),
      );
      expect(unexplained, `two processes led at once:\n${detail(spans)}`).toEqual([]);
      return spans;
    }

    const cleared = (since: number): LeaseRecord[] => recorder.since(since).filter((r) => r.holder === '');
    const lastRenewalOf = (holder: string, before: number) =>
      recorder.records.filter((r) => r.holder === holder && r.at <= before).at(-1)!;
    const nextHolder = (since: number, previous: string, what: string, timeoutMs = 60_000) =>
      recorder.awaitNextHolder(since, previous, what, timeoutMs).catch((err) => {
        throw new Error(`${(err as Error).message}\n${controllers.describe()}`);
      });

    /** What the operator's rule decides for `lease` (read before a fault) and the pod as it is now. */
    const decisionFor = async (lease: V1Lease) => {
      const holder = lease.spec?.holderIdentity ?? '';
      const holderPod = controllerRuntimeHolderPod(holder);
      const pod = holderPod
        ? await core.readNamespacedPod({ name: holderPod, namespace: ns }).catch(() => undefined)
        : undefined;
      const d = decideHolderRelease({
        holder,
        acquireTimeUs: timeMicros(lease.spec?.acquireTime),
        renewTimeUs: timeMicros(lease.spec?.renewTime),
        ...(holderPod ? { holderPod } : {}),
        ...(pod ? { pod: podFacts(pod, product.pod.container) } : {}),
      });
      return { ...d, pod, lease };
    };
    const readLease = () => leases.readNamespacedLease({ name: product.lease, namespace: ns });

    it('graceful deletion of the leader pod: cleared once the kubelet reported its process ended; a standby holds it at its next retry', async () => {
      const { holder, leader } = await settled();
      const since = new Date();
      const t0 = Date.now();
      await core.deleteNamespacedPod({ name: leader, namespace: ns });
      const next = await nextHolder(
        t0,
        holder,
        `a new holder of ${product.lease} after the graceful deletion`,
      );
      const seconds = (next.at - t0) / 1000;
      console.log(
        `${product.label} graceful deletion: new holder ${seconds.toFixed(2)} s after the deletion`,
      );
      expect(cleared(t0)).toHaveLength(1);
      expect(operatorLeaseWrites(since)).toHaveLength(1);
      expect(seconds).toBeLessThan(HANDOVER_BOUND_S);
      expect(acceptedWritesOf(leader, new Date(next.at))).toEqual([]);
      await assertOneLeaderAtATime(t0);
    }, 300_000);

    it('a crash restarted in place, reported by the kubelet (lastState.terminated after the acquire): cleared, a new holder within 2.2 × retryPeriod + 2 s', async () => {
      const { holder, leader } = await settled();
      const before = await readLease();
      const since = new Date();
      const t0 = Date.now();
      controllers.kill(leader, 'SIGKILL');
      // The kubelet's report, judged by the rule against the record the crashed process held.
      const judged = await eventually(
        `the kubelet's report of the crash of pod ${leader}'s container ${product.pod.container}`,
        () => decisionFor(before),
        (d) =>
          d.pod?.status?.containerStatuses?.some(
            (c) =>
              c.name === product.pod.container &&
              (c.state?.terminated ?? c.lastState?.terminated)?.exitCode === 137,
          ) ?? false,
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      expect(
        judged.release,
        `${judged.reason}\n${JSON.stringify(judged.pod?.status?.containerStatuses)}\n${JSON.stringify(before.spec)}`,
      ).toBe(true);
      const next = await nextHolder(t0, holder, `a new holder of ${product.lease} after the leader's crash`);
      const seconds = (next.at - t0) / 1000;
      console.log(
        `${product.label} crash of the leader (SIGKILL, restarted in place): new holder ${podOf(next.holder) === leader ? '(the restarted process) ' : ''}${seconds.toFixed(2)} s after the kill`,
      );
      expect(cleared(t0)).toHaveLength(1);
      expect(operatorLeaseWrites(since)).toHaveLength(1);
      expect(seconds).toBeLessThan(CRASH_BOUND_S);
      // The pod stayed; its container was restarted (a new process, a new identity).
      const pod = await core.readNamespacedPod({ name: leader, namespace: ns });
      const status = pod.status?.containerStatuses?.find((c) => c.name === product.pod.container);
      expect((status?.state?.terminated ?? status?.lastState?.terminated)?.exitCode).toBe(137);
      await assertOneLeaderAtATime(t0);
    }, 300_000);

    it('a crash the kubelet cannot report (cut off from the API server): nothing is cleared, the Lease expires', async () => {
      const { holder, leader } = await settled();
      const since = new Date();
      const t0 = Date.now();
      controllers.cutOffKubelet(leader);
      controllers.kill(leader, 'SIGKILL');
      try {
        const next = await nextHolder(t0, holder, `a new holder of ${product.lease} after the Lease expired`);
        const fromLast = (next.at - lastRenewalOf(holder, next.at).at) / 1000;
        console.log(
          `${product.label} unreported crash: new holder ${((next.at - t0) / 1000).toFixed(2)} s after the kill, ${fromLast.toFixed(2)} s after the last renewal`,
        );
        expect(cleared(t0)).toEqual([]);
        expect(operatorLeaseWrites(since)).toEqual([]);
        expect(fromLast).toBeGreaterThan(LEASE_S - 1);
        await assertOneLeaderAtATime(t0);
      } finally {
        await controllers.reconnectKubelet(leader);
      }
    }, 300_000);

    it('the stale `terminated` of an earlier container, then the pod deleted while the restarted process leads: no clear, one leader throughout', async () => {
      const { holder, leader, standbys } = await settled();
      const since = new Date();
      const t0 = Date.now();
      // The standbys are paused so that the leader's restarted process takes the Lease after the crash.
      const paused = standbys.map((p) => controllers.kill(p, 'SIGSTOP'));
      const pausedAt = Date.now();
      let resumed = false;
      const resume = () => {
        if (resumed) return;
        resumed = true;
        for (const p of paused) controllers.kill(p.pod, 'SIGCONT');
        for (const p of paused) suspended.push({ pid: p.pid, from: pausedAt, to: Date.now() });
      };
      try {
        // The crash is reported (`terminated`), then the kubelet is cut off: the status stays `terminated`
        // while the container restarts and runs.
        controllers.cutOffKubeletAfterTermination(leader);
        controllers.kill(leader, 'SIGKILL');
        // The report proves the crashed process ended: the operator clears, the restarted process acquires.
        const restarted = await nextHolder(
          t0,
          holder,
          `the restarted process of pod ${leader} to hold ${product.lease}`,
        );
        expect(podOf(restarted.holder)).toBe(leader);
        expect(cleared(t0)).toHaveLength(1);
        const pod = await core.readNamespacedPod({ name: leader, namespace: ns });
        expect(
          pod.status?.containerStatuses?.find((c) => c.name === product.pod.container)?.state?.terminated,
        ).toBeDefined();
        resume();
        // The pod is deleted; its cut-off kubelet never sees it, so the process runs on and renews.
        const deletedAt = Date.now();
        await core.deleteNamespacedPod({ name: leader, namespace: ns });
        await new Promise((r) => setTimeout(r, QUIET_MS));
        const records = recorder.since(deletedAt);
        expect(
          records.every((r) => r.holder === restarted.holder),
          `the Lease left the live restarted process: ${JSON.stringify(records)}`,
        ).toBe(true);
        expect(records.length, 'the restarted process renewed').toBeGreaterThan(0);
        expect(operatorLeaseWrites(since)).toHaveLength(1); // the crash's clear only
        // The node comes back and kills it, unreported: the standbys wait for expiry.
        const endedAt = Date.now();
        await controllers.end(leader);
        const next = await nextHolder(
          endedAt,
          restarted.holder,
          `a standby to hold ${product.lease} after expiry`,
        );
        expect((next.at - lastRenewalOf(restarted.holder, next.at).at) / 1000).toBeGreaterThan(LEASE_S - 1);
        expect(operatorLeaseWrites(since)).toHaveLength(1);
        await assertOneLeaderAtATime(t0);
      } finally {
        resume();
        await controllers.end(leader).catch(() => undefined);
      }
    }, 300_000);

    it('ContainerStatusUnknown (the kubelet lost the container) while the process runs on: no clear', async () => {
      const { holder, leader } = await settled();
      const since = new Date();
      const t0 = Date.now();
      controllers.abandon(leader);
      try {
        await core.deleteNamespacedPod({ name: leader, namespace: ns });
        await controllers.reportUnknown(leader);
        const pod = await core.readNamespacedPod({ name: leader, namespace: ns });
        expect(pod.status?.containerStatuses?.[0]?.state?.terminated?.reason).toBe('ContainerStatusUnknown');
        await new Promise((r) => setTimeout(r, QUIET_MS));
        const records = recorder.since(t0);
        expect(
          records.every((r) => r.holder === holder),
          JSON.stringify(records),
        ).toBe(true);
        expect(operatorLeaseWrites(since)).toEqual([]);
        const endedAt = Date.now();
        await controllers.end(leader);
        const next = await nextHolder(endedAt, holder, `a new holder of ${product.lease} after expiry`);
        expect((next.at - lastRenewalOf(holder, next.at).at) / 1000).toBeGreaterThan(LEASE_S - 1);
        expect(cleared(t0)).toEqual([]);
        await assertOneLeaderAtATime(t0);
      } finally {
        await controllers.end(leader).catch(() => undefined);
      }
    }, 300_000);

    it('force deletion of a running leader pod: no clear; the old process writes nothing after the takeover', async () => {
      const { holder, leader } = await settled();
      const since = new Date();
      const t0 = Date.now();
      controllers.abandon(leader);
      try {
        await controllers.unhold(leader);
        await core.deleteNamespacedPod({ name: leader, namespace: ns, gracePeriodSeconds: 0 });
        const next = await nextHolder(
          t0,
          holder,
          `a new holder of ${product.lease} after the force deletion`,
          90_000,
        );
        expect(cleared(t0)).toEqual([]);
        expect(operatorLeaseWrites(since)).toEqual([]);
        expect(acceptedWritesOf(leader, new Date(next.at))).toEqual([]);
        await assertOneLeaderAtATime(t0);
      } finally {
        await controllers.end(leader);
      }
    }, 300_000);

    it('a paused leader (SIGSTOP): nothing is cleared; after the takeover by expiry it resumes and stops without an accepted write', async () => {
      const { holder, leader } = await settled();
      const since = new Date();
      const t0 = Date.now();
      const proc = controllers.kill(leader, 'SIGSTOP');
      let resumedAt: number | undefined;
      try {
        const next = await nextHolder(
          t0,
          holder,
          `a new holder of ${product.lease} while the leader is paused`,
        );
        expect(cleared(t0)).toEqual([]);
        expect(operatorLeaseWrites(since)).toEqual([]);
        controllers.kill(leader, 'SIGCONT');
        resumedAt = Date.now();
        suspended.push({ pid: proc.pid, from: t0, to: resumedAt });
        const spans = await eventually(
          `the resumed process of pod ${leader} to stop leading or exit`,
          async () => leadershipSpans(controllers.all().find((p) => p.pid === proc.pid)!),
          (s) => s.length > 0 && s.every((x) => x.to !== undefined),
          { timeoutMs: 60_000 },
        );
        const believedFor = (spans.at(-1)!.to! - resumedAt) / 1000;
        console.log(
          `${product.label} paused leader: after resuming it believed it led for ${believedFor.toFixed(2)} s (until: ${spans.at(-1)!.end.slice(0, 120)})`,
        );
        // Woken, client-go's renew loop retries for a whole renewDeadline before it gives up (each renewal
        // gets a fresh deadline): the product's own window, which no clear caused (none happened) and the
        // operator cannot shorten. The API server accepted none of its writes after the takeover.
        expect(acceptedWritesOf(leader, new Date(next.at))).toEqual([]);
        expect(believedFor).toBeLessThan(RENEW_DEADLINE_S + 2.2 * RETRY_S + 1);
        // Its renewals after waking carried the record it last read: none was accepted.
        expect(recorder.since(next.at).some((r) => r.holder === holder)).toBe(false);
        await assertOneLeaderAtATime(t0, { allowAfterResume: proc.pid });
      } finally {
        if (resumedAt === undefined) controllers.kill(leader, 'SIGCONT');
      }
    }, 300_000);

    it('a partitioned node (the process and its kubelet cut off): nothing is cleared; the old leader stops at its renew deadline, before the Lease expires', async () => {
      const { holder, leader } = await settled();
      const since = new Date();
      const t0 = Date.now();
      controllers.cutOffKubelet(leader);
      controllers.partition(leader);
      try {
        const next = await nextHolder(t0, holder, `a new holder of ${product.lease} after the partition`);
        // Healed, the old process (or its pod's restarted one, a new identity) never holds that record again.
        controllers.heal(leader);
        await new Promise((r) => setTimeout(r, QUIET_MS));
        expect(recorder.since(next.at).some((r) => r.holder === holder)).toBe(false);
        expect(cleared(t0)).toEqual([]);
        expect(operatorLeaseWrites(since)).toEqual([]);
        expect(acceptedWritesOf(leader, new Date(next.at))).toEqual([]);
        await assertOneLeaderAtATime(t0);
      } finally {
        controllers.heal(leader);
        await controllers.reconnectKubelet(leader);
      }
    }, 300_000);

    it('a lost node (its kubelet gone, the process running on) and the pod deleted: no clear until the process is gone, one leader throughout', async () => {
      const { holder, leader } = await settled();
      const since = new Date();
      const t0 = Date.now();
      controllers.abandon(leader);
      controllers.cutOffKubelet(leader);
      try {
        await core.deleteNamespacedPod({ name: leader, namespace: ns });
        await new Promise((r) => setTimeout(r, QUIET_MS));
        expect(recorder.since(t0).every((r) => r.holder === holder)).toBe(true);
        const endedAt = Date.now();
        await controllers.end(leader);
        const next = await nextHolder(endedAt, holder, `a new holder of ${product.lease} after expiry`);
        expect((next.at - lastRenewalOf(holder, next.at).at) / 1000).toBeGreaterThan(LEASE_S - 1);
        expect(cleared(t0)).toEqual([]);
        expect(operatorLeaseWrites(since)).toEqual([]);
        await assertOneLeaderAtATime(t0);
      } finally {
        await controllers.end(leader).catch(() => undefined);
      }
    }, 300_000);
  });
}
