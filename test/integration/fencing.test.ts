// Server-side fencing against the real API server: the chart's ValidatingAdmissionPolicy
// (charts/glooha-operator/templates/fencing-policy.yaml), installed from the rendered chart, with
// electors in this process that each run as a different pod of the operator's ServiceAccount (tokens
// bound to kwok Pods, as the kubelet issues them). Each late-write scenario runs twice, in a
// namespace with the policy and in one without, so the test shows both that the write lands without
// the policy and that the policy is what refuses it.
//
// The late writes carry no abort signal: they stand for a process whose term has ended but whose
// timers have not run yet (a stalled event loop), so nothing on the client side cancels them.
// Figures are printed as `[fencing] {...}` lines.
import { CoreV1Api, CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../src/api/constants.js';
import { PLURAL } from '../../src/products/gloo/api.js';
import { errorStatus, KubeClient } from '../../src/kube/client.js';
import {
  DEFAULT_LEASE_NAME,
  DEFAULT_TIMINGS,
  makeIdentity,
  type LeaderElectionTimings,
} from '../../src/leader/config.js';
import { LeaderElector } from '../../src/leader/elector.js';
import { NotLeaderError } from '../../src/leader/leadership.js';
import { KubeLeaseClient } from '../../src/leader/lease-client.js';
import { createMetrics, type OperatorMetrics } from '../../src/metrics/index.js';
import { locateBinaries } from '../env/binaries.js';
import { adminKubeConfig, controlPlane, createNamespace, kubeConfigFor } from '../support/cluster.js';
import { kubeWriter } from '../../src/controller/actions/writer.js';
import { createGlooHA, getGlooHA } from '../support/glooha.js';
import {
  boundToPod,
  installOperatorRbac,
  isFencingDenialError,
  scrapeMetrics,
  startOperatorInProcess,
  type OperatorIdentity,
} from '../support/operator.js';
import { eventually } from '../support/wait.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function report(what: string, fields: Record<string, unknown>): void {
  console.log(`[fencing] ${JSON.stringify({ what, ...fields })}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * A TCP proxy in front of the API server that can hold the bytes going up (the network delaying a
 * request), or hold the bytes coming down on a new connection for a while (a slow TLS handshake).
 */
class HoldingProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private holding = false;
  private held: { upstream: Socket; chunk: Buffer }[] = [];
  /** Server-to-client bytes of each new connection wait this long (the handshake's reply). */
  handshakeDelayMs = 0;
  connections = 0;
  port = 0;

  constructor(private readonly targetPort: number) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      this.connections++;
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      // The network keeps delivering what it holds even if the sender gave up: closing the client
      // side does not close the upstream side until the held bytes are gone.
      upstream.on('close', () => client.destroy());
      client.on('close', () => {
        if (!this.held.some((h) => h.upstream === upstream)) upstream.end();
      });
      client.on('data', (chunk: Buffer) => {
        if (this.holding) this.held.push({ upstream, chunk });
        else upstream.write(chunk);
      });
      const delay = this.handshakeDelayMs;
      const openedAt = performance.now();
      upstream.on('data', (chunk: Buffer) => {
        const wait = openedAt + delay - performance.now();
        if (wait <= 0) client.write(chunk);
        else setTimeout(() => client.write(chunk), wait);
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
  }

  /** From now on, bytes to the API server are held back. */
  hold(): void {
    this.holding = true;
  }

  heldBytes(): number {
    return this.held.reduce((n, h) => n + h.chunk.length, 0);
  }

  /** Delivers what was held, in order, and stops holding. */
  release(): void {
    this.holding = false;
    const held = this.held;
    this.held = [];
    for (const h of held) h.upstream.write(h.chunk);
  }

  kubeConfig(base: KubeConfig): KubeConfig {
    const copy = Object.create(Object.getPrototypeOf(base) as object) as KubeConfig;
    Object.assign(copy, base);
    copy.clusters = base.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${this.port}` }));
    return copy;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * A TCP proxy that holds the API server's bytes on each new connection for `delayMs` (the TLS
 * handshake's reply, late), running in a worker thread: it keeps working while the test stalls this
 * thread's event loop, as the network does while a process is stuck in a GC pause.
 */
class ThreadedHandshakeProxy {
  private constructor(
    private readonly worker: Worker,
    readonly port: number,
  ) {}

  /** Resolves with the number of connections once a new one is accepted. */
  connected = (): Promise<void> =>
    new Promise((resolve) => {
      const onMessage = (m: { type: string }) => {
        if (m.type !== 'connection') return;
        this.worker.off('message', onMessage);
        resolve();
      };
      this.worker.on('message', onMessage);
    });

  static async start(targetPort: number, delayMs: number): Promise<ThreadedHandshakeProxy> {
    const worker = new Worker(THREADED_PROXY_SOURCE, { eval: true, workerData: { targetPort, delayMs } });
    const port = await new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', (m: { type: string; port: number }) => resolve(m.port));
    });
    return new ThreadedHandshakeProxy(worker, port);
  }

  kubeConfig(base: KubeConfig): KubeConfig {
    const copy = Object.create(Object.getPrototypeOf(base) as object) as KubeConfig;
    Object.assign(copy, base);
    copy.clusters = base.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${this.port}` }));
    return copy;
  }

  stop(): Promise<number> {
    return this.worker.terminate();
  }
}

/** The worker's code (plain JavaScript: a worker evaluates it as is). */
const THREADED_PROXY_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const server = net.createServer((client) => {
  const upstream = net.connect(workerData.targetPort, '127.0.0.1');
  parentPort.postMessage({ type: 'connection' });
  let pending = [];
  setTimeout(() => {
    for (const chunk of pending) client.write(chunk);
    pending = undefined;
  }, workerData.delayMs);
  upstream.on('data', (chunk) => (pending ? pending.push(chunk) : client.write(chunk)));
  client.on('data', (chunk) => upstream.write(chunk));
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
  client.on('error', () => {});
  upstream.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ type: 'listening', port: server.address().port }));
`;

/** Blocks this thread's event loop for `ms`: a GC pause, a busy loop. */
function stallEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

interface Replica {
  pod: string;
  identity: string;
  id: OperatorIdentity;
  elector: LeaderElector;
  metrics: OperatorMetrics;
  startedAt: number[];
  /** A client as the operator builds it: fenced by this replica's elector, counting refusals. */
  client(kubeConfig?: KubeConfig): KubeClient;
  /** Stops the elector without releasing the Lease (only for replicas made with releaseOnCancel: false). */
  dieWithoutRelease(): Promise<void>;
  /**
   * A client of this pod whose local fence always passes: what a replica sends when its own check
   * was passed before its term ended. Refusals are still counted.
   */
  staleClient(kubeConfig?: KubeConfig): KubeClient;
}

const replicas: Replica[] = [];
const cleanups: (() => unknown)[] = [];

async function replica(
  id: OperatorIdentity,
  prefix: string,
  opts: { releaseOnCancel?: boolean; timings?: LeaderElectionTimings; samePodAs?: Replica } = {},
): Promise<Replica> {
  // samePodAs: a new process of an existing replica's pod (a restarted container): same pod, same
  // pod-bound token, a new elector identity.
  const pod = opts.samePodAs?.pod ?? `${prefix}-${randomBytes(2).toString('hex')}`;
  const bound = opts.samePodAs?.id ?? (await boundToPod(id, pod));
  const metrics = createMetrics({ defaultMetrics: false });
  const identity = makeIdentity(pod);
  const startedAt: number[] = [];
  const elector = new LeaderElector({
    lease: new KubeLeaseClient({
      client: new KubeClient(bound.kubeConfig, { metrics: metrics.restClient }),
      namespace: id.namespace,
      name: DEFAULT_LEASE_NAME,
    }),
    identity,
    name: DEFAULT_LEASE_NAME,
    ...(opts.timings ?? DEFAULT_TIMINGS),
    releaseOnCancel: opts.releaseOnCancel ?? true,
    callbacks: {
      onStartedLeading: () => void startedAt.push(performance.now()),
      onStoppedLeading: () => {},
    },
  });
  const clients: KubeClient[] = [];
  const make = (kc: KubeConfig, fence: () => void) => {
    const c = new KubeClient(kc, { metrics: metrics.restClient, fenceMetrics: metrics.fencing, fence });
    clients.push(c);
    return c;
  };
  const r: Replica = {
    pod,
    identity,
    id: bound,
    elector,
    metrics,
    startedAt,
    dieWithoutRelease: () => {
      if (opts.releaseOnCancel !== false) throw new Error(`${pod} was made to release on stop`);
      return elector.stop();
    },
    client: (kc = bound.kubeConfig) => make(kc, () => elector.assertLeading()),
    staleClient: (kc = bound.kubeConfig) => make(kc, () => {}),
  };
  cleanups.push(async () => {
    await elector.stop();
    for (const c of clients) c.close();
  });
  replicas.push(r);
  return r;
}

afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  replicas.length = 0;
});

async function fencedCount(r: Replica, layer: string): Promise<number> {
  const text = (await r.metrics.expose()).body;
  const line = text.split('\n').find((l) => l.startsWith(`glooha_fenced_writes_total{layer="${layer}"}`));
  return line ? Number(line.split(' ').pop()) : NaN;
}

async function waitLeader(r: Replica, timeoutMs = 30_000): Promise<number> {
  const start = performance.now();
  while (!r.elector.isLeader()) {
    if (performance.now() - start > timeoutMs) throw new Error(`${r.pod} did not lead in ${timeoutMs} ms`);
    await sleep(5);
  }
  return r.startedAt.at(-1) ?? performance.now();
}

async function waitObserves(r: Replica, leader: Replica): Promise<void> {
  await eventually(
    `${r.pod} to see ${leader.pod} lead`,
    async () => r.elector.leader,
    (l) => l === leader.identity,
  );
}

function configMapPath(namespace: string, name?: string): string {
  return `/api/v1/namespaces/${namespace}/configmaps${name ? `/${name}` : ''}`;
}

async function createConfigMap(client: KubeClient, namespace: string, name: string): Promise<void> {
  await client.request('POST', configMapPath(namespace), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { writer: 'fencing-test' } },
  });
}

async function configMapExists(namespace: string, name: string): Promise<boolean> {
  try {
    await adminKubeConfig().makeApiClient(CoreV1Api).readNamespacedConfigMap({ name, namespace });
    return true;
  } catch (err) {
    if (errorStatus(err) === 404) return false;
    throw err;
  }
}

async function patchStatus(
  client: KubeClient,
  namespace: string,
  name: string,
  message: string,
): Promise<void> {
  await client.request(
    'PATCH',
    `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}/${name}/status`,
    {
      body: { status: { observedGeneration: 1, conditions: [], lastWriter: message } },
      contentType: 'application/merge-patch+json',
    },
  );
}

/** What a write came to: 'ok', 'fenced' (the API server's policy), 'client' (the local fence), or the error. */
async function outcome(write: Promise<unknown>): Promise<string> {
  try {
    await write;
    return 'ok';
  } catch (err) {
    if (err instanceof NotLeaderError && isFencingDenialError(err)) return 'fenced';
    if (err instanceof NotLeaderError) return 'client';
    return `error: ${String(err)}`;
  }
}

/**
 * A write whose connection was not ready until after the term ended (a slow TLS handshake, an event loop
 * stalled while it completed): the transport's second check runs when undici is about to write the
 * first byte, after the handshake (src/kube/fence.ts), so the local fence refuses it there and nothing
 * reaches the API server, with or without the policy. (On client-node 1.4 the check ran on Node's
 * 'socket' event, before the handshake: such writes landed without the policy, docs/leader-election.md.)
 */
async function expectRefusedAtConnection(writer: Replica, result: string, landed: boolean): Promise<void> {
  expect(result).toBe('client');
  expect(landed).toBe(false);
  expect(await fencedCount(writer, 'client')).toBe(0); // the check before sending passed, in the term
  expect(await fencedCount(writer, 'socket')).toBe(1);
  expect(await fencedCount(writer, 'admission')).toBe(0);
}

/**
 * What every late-write scenario shows: with the policy the API server refuses the write (403, counted
 * as an admission refusal) and nothing lands; without it the write is applied.
 */
async function expectLandsOnlyWithoutPolicy(
  policy: boolean,
  writer: Replica,
  result: string,
  landed: boolean,
): Promise<void> {
  if (policy) {
    expect(result).toBe('fenced');
    expect(landed).toBe(false);
    expect(await fencedCount(writer, 'admission')).toBe(1);
  } else {
    expect(result).toBe('ok');
    expect(landed).toBe(true);
  }
}

const apiServerPort = () => Number(new URL(controlPlane().server).port);

let withPolicy: OperatorIdentity;
let withoutPolicy: OperatorIdentity;

beforeAll(async () => {
  const on = await createNamespace('fencing-on');
  const off = await createNamespace('fencing-off');
  const suffix = randomBytes(2).toString('hex');
  withPolicy = await installOperatorRbac(on, {
    watchNamespaces: [on],
    release: `fon-${suffix}`,
    fencingPolicy: true,
  });
  withoutPolicy = await installOperatorRbac(off, { watchNamespaces: [off], release: `foff-${suffix}` });
}, 120_000);

describe("server-side fencing: the chart's ValidatingAdmissionPolicy", () => {
  it("only the Lease holder's pod writes; a standby, a stale leader and a token without a pod are refused; acquire, renew, release, handover and failover work", async () => {
    const ns = withPolicy.namespace;
    await createGlooHA(ns, 'gloo', { gloo: { replicas: 2 } });
    const a = await replica(withPolicy, 'op-a');
    const b = await replica(withPolicy, 'op-b', { releaseOnCancel: false });
    a.elector.start();
    await waitLeader(a);
    b.elector.start();
    await waitObserves(b, a);

    // The holder writes: objects and the GlooHA status.
    expect(await outcome(createConfigMap(a.client(), ns, 'by-leader'))).toBe('ok');
    expect(await outcome(patchStatus(a.client(), ns, 'gloo', 'leader'))).toBe('ok');
    // The standby, past its own fence: refused by the API server, and counted.
    expect(await outcome(createConfigMap(b.staleClient(), ns, 'by-standby'))).toBe('fenced');
    expect(await outcome(patchStatus(b.staleClient(), ns, 'gloo', 'standby'))).toBe('fenced');
    expect(await fencedCount(b, 'admission')).toBe(2);
    expect(await configMapExists(ns, 'by-standby')).toBe(false);
    // The same ServiceAccount with a token bound to no pod: refused, whoever holds the Lease.
    const podless = new KubeClient(await kubeConfigFor(ns, withPolicy.serviceAccount), { fence: () => {} });
    cleanups.push(() => podless.close());
    const podlessErr = await createConfigMap(podless, ns, 'by-podless').catch((e: unknown) => e);
    expect(podlessErr).toBeInstanceOf(NotLeaderError);
    expect(JSON.stringify((podlessErr as { cause?: { body?: unknown } }).cause?.body)).toContain(
      'no pod identity',
    );

    // Renewals go through (the Lease is not fenced): after a few retry periods a still leads and writes.
    await sleep(5_000);
    expect(a.elector.canWrite()).toBe(true);
    expect(await outcome(createConfigMap(a.client(), ns, 'after-renewals'))).toBe('ok');

    // Handover: a releases, b acquires; a is now a stale leader.
    await a.elector.stop();
    await waitLeader(b);
    expect(await outcome(createConfigMap(a.staleClient(), ns, 'stale-after-handover'))).toBe('fenced');
    expect(await outcome(createConfigMap(a.client(), ns, 'stale-own-fence'))).toBe('client');
    expect(await outcome(createConfigMap(b.client(), ns, 'by-new-leader'))).toBe('ok');
    expect(await fencedCount(a, 'admission')).toBe(1);
    expect(await fencedCount(a, 'client')).toBe(1);

    // Failover without a release (b stops renewing): c takes over after the lease duration.
    const c = await replica(withPolicy, 'op-c');
    c.elector.start();
    await waitObserves(c, b);
    const leases = adminKubeConfig().makeApiClient(CoordinationV1Api);
    // b "dies": its renewals stop and nothing is released (as after a SIGKILL).
    await b.dieWithoutRelease();
    expect(
      (await leases.readNamespacedLease({ name: DEFAULT_LEASE_NAME, namespace: ns })).spec?.holderIdentity,
    ).toBe(b.identity);
    // Until c acquires, b's pod still holds the Lease as the API server sees it (no clock in CEL).
    expect(await outcome(createConfigMap(b.staleClient(), ns, 'dead-holder'))).toBe('ok');
    await waitLeader(c, 20_000);
    expect(await outcome(createConfigMap(b.staleClient(), ns, 'after-failover'))).toBe('fenced');
    expect(await outcome(createConfigMap(c.client(), ns, 'by-failover-leader'))).toBe('ok');
  }, 120_000);

  it("the fence's limits, measured: an earlier process of the same pod writes once a new process holds the Lease; while the Lease is deleted, a standby writes", async () => {
    const ns = await createNamespace('fence-limits');
    const id = await installOperatorRbac(ns, {
      watchNamespaces: [ns],
      release: `flim-${randomBytes(2).toString('hex')}`,
      fencingPolicy: true,
    });
    const timings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
    // A restarted container: the old process stops renewing without releasing; a new process of the
    // same pod takes the Lease over at expiry, under a new elector identity.
    const earlier = await replica(id, 'op-same', { releaseOnCancel: false, timings });
    earlier.elector.start();
    await waitLeader(earlier);
    await earlier.dieWithoutRelease();
    const later = await replica(id, 'op-same', { samePodAs: earlier, timings });
    later.elector.start();
    await waitLeader(later, 20_000);
    expect(later.identity).not.toBe(earlier.identity);
    expect(later.pod).toBe(earlier.pod);
    // The limit: admission knows the pod, not the process.
    expect(await outcome(createConfigMap(earlier.staleClient(), ns, 'earlier-process'))).toBe('ok');
    // Another pod's stale write is refused, as ever.
    const standby = await replica(id, 'op-standby', { timings });
    expect(await outcome(createConfigMap(standby.staleClient(), ns, 'standby-held'))).toBe('fenced');

    // The Lease deleted (nobody left to re-create it): the policy's parameter is gone and it allows.
    await later.elector.stop();
    const leases = adminKubeConfig().makeApiClient(CoordinationV1Api);
    await leases.deleteNamespacedLease({ name: DEFAULT_LEASE_NAME, namespace: ns });
    let n = 0;
    await eventually(
      "a standby's write to be admitted once the API server has seen the Lease deleted (parameterNotFoundAction: Allow)",
      () => outcome(createConfigMap(standby.staleClient(), ns, `while-deleted-${n++}`)),
      (r) => r === 'ok',
    );
    // A leader re-creates it, and the fence holds again.
    standby.elector.start();
    await waitLeader(standby);
    const other = await replica(id, 'op-other', { timings });
    let m = 0;
    await eventually(
      "another pod's write to be refused once the Lease exists again",
      () => outcome(createConfigMap(other.staleClient(), ns, `after-recreate-${m++}`)),
      (r) => r === 'fenced',
    );
  }, 120_000);

  it("the fence's limit on the operator's own Lease: the API server makes every update conditional on the resourceVersion, but a patch is not, and admission sees it as an update", async () => {
    const ns = await createNamespace('lease-limit');
    const id = await installOperatorRbac(ns, {
      release: `llim-${randomBytes(2).toString('hex')}`,
      fencingPolicy: true,
    });
    const client = new KubeClient(await kubeConfigFor(ns, id.serviceAccount), { fence: () => {} });
    cleanups.push(() => client.close());
    const path = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${DEFAULT_LEASE_NAME}`;
    const write = (method: 'PATCH' | 'PUT', body: unknown) =>
      client
        .request(method, path, {
          body,
          fenced: false,
          ...(method === 'PATCH' ? { contentType: 'application/merge-patch+json' } : {}),
        })
        .then(
          () => 'accepted',
          (err: unknown) => `${errorStatus(err)}: ${JSON.stringify((err as { body?: unknown }).body)}`,
        );
    const current = () => client.request<V1Lease>('GET', path, { fenced: false });

    const read = await current();
    // An update carrying the resourceVersion it read is accepted (acquire, renew and release are such).
    expect(await write('PUT', { ...read, spec: { ...read.spec, holderIdentity: 'updated_00000000' } })).toBe(
      'accepted',
    );
    // Without a resourceVersion the API server refuses a Lease update; with a stale one it conflicts.
    expect(
      await write('PUT', {
        metadata: { name: DEFAULT_LEASE_NAME },
        spec: { holderIdentity: 'blind_00000000' },
      }),
    ).toMatch(/^422: .*must be specified for an update/);
    expect(await write('PUT', { ...read, spec: { ...read.spec, holderIdentity: 'stale_00000000' } })).toMatch(
      /^409: /,
    );
    expect((await current()).spec?.holderIdentity).toBe('updated_00000000');
    // The limit: a patch carries no precondition, and admission cannot refuse it as such (the API server
    // hands a patch to admission as an UPDATE with UpdateOptions, the stored resourceVersion filled in).
    expect(await write('PATCH', { spec: { holderIdentity: 'patched_00000000' } })).toBe('accepted');
    expect((await current()).spec?.holderIdentity).toBe('patched_00000000');
  }, 120_000);

  it('fails closed: a leader that requires the policy reconciles nothing while the API server does not enforce it, and starts once it does', async () => {
    const ns = await createNamespace('fencing-late');
    const release = `flate-${randomBytes(2).toString('hex')}`;
    const id = await installOperatorRbac(ns, { watchNamespaces: [ns], release });
    const pod = `op-late-${randomBytes(2).toString('hex')}`;
    await createGlooHA(ns, 'late', { gloo: { replicas: 2 } });
    const op = await startOperatorInProcess(await boundToPod(id, pod), {
      podName: pod,
      args: [`--watch-namespaces=${ns}`],
      env: { LEADER_ELECT_REQUIRE_FENCING_POLICY: 'true' },
    });
    cleanups.push(() => op.shutdown('test'));
    const missing = async () => {
      const text = await scrapeMetrics(op.metricsUrl);
      const line = text.split('\n').find((l) => l.startsWith('glooha_fencing_policy_missing'));
      return Number(line?.split(' ').pop());
    };
    // It leads (it created the Lease), probes, finds no policy and starts no controller.
    await eventually('the leader to find the fencing policy missing', missing, (v) => v === 1);
    const refusal = op.logs.find((l) =>
      l.includes('not reconciling: the API server does not enforce the fencing policy'),
    );
    expect(refusal).toContain('the API server accepted a write the fencing policy refuses');
    await sleep(3_000);
    const before = await getGlooHA(ns, 'late');
    expect(before.status?.observedGeneration ?? 0).toBe(0); // nothing reconciled it (the CRD's default status)
    expect(op.logs.some((l) => l.includes('started leading: starting the controllers'))).toBe(false);
    const probeWasStored = await adminKubeConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: ns, name: `${DEFAULT_LEASE_NAME}-fencing-probe` })
      .then(
        () => true,
        () => false,
      );
    expect(probeWasStored).toBe(false); // a dry run: nothing is stored

    // The chart's policy arrives (helm installs it with the Deployment; here, later): the next probe
    // is refused by it, and the controllers start.
    const policyAt = performance.now();
    await installOperatorRbac(ns, { watchNamespaces: [ns], release, fencingPolicy: true });
    await eventually(
      'the GlooHA to be reconciled',
      async () => (await getGlooHA(ns, 'late')).status?.observedGeneration,
      (g) => g === 1,
      { timeoutMs: 45_000 },
    );
    report('fail closed', {
      policyEnforcedToReconciledMs: Math.round(performance.now() - policyAt),
      refusedProbes: op.logs.filter((l) => l.includes('not reconciling: the API server does not enforce'))
        .length,
    });
    expect(await missing()).toBe(0);
    expect(op.logs.some((l) => l.includes('the API server enforces the fencing policy'))).toBe(true);
  }, 120_000);

  it('a status write computed from an older version of the GlooHA conflicts (409) instead of replacing a newer status', async () => {
    const ns = withoutPolicy.namespace;
    await createGlooHA(ns, 'precondition', { gloo: { replicas: 2 } });
    const client = new KubeClient(withoutPolicy.kubeConfig);
    cleanups.push(() => client.close());
    const writer = kubeWriter(client, { group: GROUP, version: VERSION, plural: PLURAL });
    const signal = new AbortController().signal;
    const old = await getGlooHA(ns, 'precondition');
    const wrote = await writer.writeStatus(old, { observedGeneration: 1 }, signal);
    const now = await getGlooHA(ns, 'precondition');
    expect(wrote).toBe(now.metadata.resourceVersion);
    expect(now.status?.observedGeneration).toBe(1);
    // The same decision, delivered late: it was made from `old`, which is no longer current.
    const late = await writer.writeStatus(old, { observedGeneration: 0 }, signal).catch((e: unknown) => e);
    expect(errorStatus(late)).toBe(409);
    expect((await getGlooHA(ns, 'precondition')).status?.observedGeneration).toBe(1);
  });

  for (const policy of [true, false]) {
    const label = policy ? 'with the policy' : 'without the policy';

    it(`${label}: a write held by the network until after the next leader's acquire ${policy ? 'is refused (403)' : 'lands'}`, async () => {
      const id = policy ? withPolicy : withoutPolicy;
      const ns = id.namespace;
      const proxy = new HoldingProxy(apiServerPort());
      await proxy.start();
      cleanups.push(() => proxy.stop());
      const a = await replica(id, 'late-a');
      const b = await replica(id, 'late-b');
      a.elector.start();
      await waitLeader(a);
      b.elector.start();
      await waitObserves(b, a);
      const viaProxy = a.client(proxy.kubeConfig(a.id.kubeConfig));
      expect(await outcome(createConfigMap(viaProxy, ns, `warm-${policy}`))).toBe('ok'); // a kept-alive connection

      proxy.hold();
      const late = outcome(createConfigMap(viaProxy, ns, `late-${policy}`));
      await eventually(
        'the write to be on the wire',
        async () => proxy.heldBytes(),
        (n) => n > 0,
        { intervalMs: 5 },
      );
      await a.elector.stop(); // the term ends, the Lease is released ...
      const acquiredAt = await waitLeader(b); // ... and b holds it
      await sleep(200);
      const deliveredAt = performance.now();
      proxy.release();
      const result = await late;
      const landed = await configMapExists(ns, `late-${policy}`);
      report(`late delivery ${label}`, {
        result,
        landed,
        deliveredIntoNewTermMs: Math.round(deliveredAt - acquiredAt),
        admissionRefusals: await fencedCount(a, 'admission'),
      });
      await expectLandsOnlyWithoutPolicy(policy, a, result, landed);
    }, 90_000);

    it(`${label}: a write whose new connection's TLS handshake outlasts the term is refused by the fence at the connection`, async () => {
      const id = policy ? withPolicy : withoutPolicy;
      const ns = id.namespace;
      const proxy = new HoldingProxy(apiServerPort());
      proxy.handshakeDelayMs = 3_000;
      await proxy.start();
      cleanups.push(() => proxy.stop());
      const a = await replica(id, 'tls-a');
      const b = await replica(id, 'tls-b');
      a.elector.start();
      await waitLeader(a);
      b.elector.start();
      await waitObserves(b, a);

      // A fresh client: no pooled connection, so this write opens one. The check before sending passes
      // while a leads; the one at the connection runs once the handshake is over, after b took over.
      const fresh = a.client(proxy.kubeConfig(a.id.kubeConfig));
      const sentAt = performance.now();
      const write = outcome(createConfigMap(fresh, ns, `tls-${policy}`));
      await eventually(
        'the connection to open',
        async () => proxy.connections,
        (n) => n > 0,
        { intervalMs: 1 },
      );
      await a.elector.stop();
      const acquiredAt = await waitLeader(b);
      expect(performance.now() - sentAt).toBeLessThan(proxy.handshakeDelayMs); // b leads before the bytes go
      const result = await write;
      const landed = await configMapExists(ns, `tls-${policy}`);
      report(`new-connection window ${label}`, {
        result,
        landed,
        handshakeDelayMs: proxy.handshakeDelayMs,
        newLeaderBeforeHandshakeEndMs: Math.round(sentAt + proxy.handshakeDelayMs - acquiredAt),
        clientRefusals: await fencedCount(a, 'client'),
        socketRefusals: await fencedCount(a, 'socket'),
        admissionRefusals: await fencedCount(a, 'admission'),
      });
      await expectRefusedAtConnection(a, result, landed);
    }, 90_000);

    it(`${label}: a write whose handshake ends while the event loop is stalled past the term is refused by the fence at the connection`, async () => {
      // Issue 15's measurement, reproduced: the handshake's reply is 150 ms late, and this process
      // stalls 3 s (a GC pause) right after the connection opened. The term's fence closes during the
      // stall (renewDeadline 1 s) and another process takes the Lease over; when the loop runs again,
      // the handshake completes and undici asks the fence before it writes the first byte.
      const id = policy ? withPolicy : withoutPolicy;
      const ns = id.namespace;
      const name = `stall-${policy}`;
      const proxy = await ThreadedHandshakeProxy.start(apiServerPort(), 150);
      cleanups.push(() => proxy.stop());
      const a = await replica(id, 'stall-a', {
        timings: { leaseDurationMs: 2_000, renewDeadlineMs: 1_000, retryPeriodMs: 500 },
      });
      a.elector.start();
      await waitLeader(a);
      const fresh = a.client(proxy.kubeConfig(a.id.kubeConfig));
      const connected = proxy.connected();
      const write = outcome(createConfigMap(fresh, ns, name));
      await connected; // the write passed the check before sending; its connection is being opened
      // Another replica's takeover, by another process while this one is stalled.
      const newHolder = `stall-b-${randomBytes(2).toString('hex')}_0a1b2c3d`;
      const takeover = spawn('sh', [
        '-c',
        `sleep 0.3; exec "$0" --kubeconfig "$1" -n "$2" patch lease ${DEFAULT_LEASE_NAME} --type merge -o jsonpath='{.metadata.resourceVersion}' -p '{"spec":{"holderIdentity":"${newHolder}"}}'`,
        locateBinaries().path('kubectl'),
        controlPlane().kubeconfigPath,
        ns,
      ]);
      let takeoverOut = '';
      takeover.stdout.setEncoding('utf8').on('data', (d: string) => (takeoverOut += d));
      const takeoverDone = new Promise<number | null>((r) => takeover.on('close', r));
      const stallStart = performance.now();
      stallEventLoop(3_000);
      const fenceOpenAfterStall = a.elector.canWrite();
      const result = await write;
      expect(await takeoverDone).toBe(0);
      const landed = await configMapExists(ns, name);
      const leaseRv = Number(takeoverOut.trim());
      const configMapRv = landed
        ? Number(
            (
              await adminKubeConfig()
                .makeApiClient(CoreV1Api)
                .readNamespacedConfigMap({ name, namespace: ns })
            ).metadata?.resourceVersion,
          )
        : NaN;
      report(`event-loop stall ${label}`, {
        result,
        landed,
        stallMs: Math.round(performance.now() - stallStart),
        fenceOpenAfterStall,
        takeoverBeforeWrite: landed ? leaseRv < configMapRv : undefined,
        clientRefusals: await fencedCount(a, 'client'),
        socketRefusals: await fencedCount(a, 'socket'),
        admissionRefusals: await fencedCount(a, 'admission'),
      });
      expect(fenceOpenAfterStall).toBe(false); // the term's fence was closed when the bytes would go out
      await expectRefusedAtConnection(a, result, landed);
      expect(Number.isNaN(configMapRv)).toBe(true);
    }, 90_000);
  }

  it('admission follows a holder change within milliseconds (the policy reads the Lease from a cache)', async () => {
    const ns = withPolicy.namespace;
    const a = await replica(withPolicy, 'lag-a'); // its elector is not started: the Lease is set by hand
    const stale = a.staleClient();
    const leases = adminKubeConfig().makeApiClient(CoordinationV1Api);
    const setHolder = async (holder: string): Promise<void> => {
      const lease: V1Lease = await leases
        .readNamespacedLease({ name: DEFAULT_LEASE_NAME, namespace: ns })
        .catch(() => ({ metadata: { name: DEFAULT_LEASE_NAME, namespace: ns }, spec: {} }));
      const body = { ...lease, spec: { ...lease.spec, holderIdentity: holder, leaseDurationSeconds: 15 } };
      if (lease.metadata?.resourceVersion)
        await leases.replaceNamespacedLease({ name: DEFAULT_LEASE_NAME, namespace: ns, body });
      else await leases.createNamespacedLease({ namespace: ns, body });
    };
    const spans: number[] = [];
    const acceptedAfter: number[] = [];
    for (let round = 0; round < 5; round++) {
      await setHolder(a.identity);
      await eventually(
        'writes accepted',
        () => outcome(createConfigMap(stale, ns, `lag-${round}-open-${randomBytes(2).toString('hex')}`)),
        (r) => r === 'ok',
        { intervalMs: 5 },
      );
      // Writes as a's pod, back to back, while the Lease is given to another holder.
      let stop = false;
      const results: { sentAt: number; ok: boolean }[] = [];
      const loop = (async () => {
        for (let i = 0; !stop; i++) {
          const sentAt = performance.now();
          const r = await outcome(createConfigMap(stale, ns, `lag-${round}-${i}`));
          if (r !== 'ok' && r !== 'fenced') throw new Error(r);
          results.push({ sentAt, ok: r === 'ok' });
        }
      })();
      await sleep(100);
      await setHolder(`someone-else_${round}`);
      const committedAt = performance.now();
      await eventually(
        'a refused write sent after the change',
        async () => results.some((r) => r.sentAt > committedAt && !r.ok),
        (v) => v,
        { intervalMs: 1 },
      );
      stop = true;
      await loop;
      const late = results.filter((r) => r.ok && r.sentAt > committedAt);
      acceptedAfter.push(late.length);
      spans.push(late.length ? Math.max(...late.map((r) => r.sentAt - committedAt)) : 0);
    }
    report('admission lag after a holder change', {
      rounds: spans.length,
      writesSentAfterTheChangeAndAccepted: acceptedAfter,
      lastAcceptedWriteSentAfterChangeMs: {
        median: Math.round(median(spans)),
        max: Math.round(Math.max(...spans)),
      },
    });
    // The API server's Lease cache lags the commit by at most a moment: refusals start at once.
    expect(Math.max(...spans)).toBeLessThan(1_000);
  }, 120_000);
});
