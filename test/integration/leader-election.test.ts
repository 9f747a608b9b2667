// The leader elector alone against the real API server: several electors in this process, each with
// its own ServiceAccount (so RBAC is the operator's: get/create/update/watch on leases, no list), the
// production timings (15 s / 10 s / 2 s), and a TCP proxy between one elector and the API server to
// cut it off. Timings measured here are printed as `[leader-election] {...}` lines.
//
// The multi-process tests of issue 5 (SIGKILL / SIGSTOP / API-server restart, audit log) need the
// operator binary and live elsewhere.

import { CoordinationV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElector, type StoppedLeadingInfo } from '../../src/leader/elector.js';
import { KubeLeaseClient } from '../../src/leader/lease-client.js';
import type { LeaderElectionMetrics } from '../../src/leader/metrics.js';
import { createMetrics, type OperatorMetrics } from '../../src/metrics/index.js';
import { adminKubeConfig, controlPlane, createNamespace, kubeConfigFor } from '../support/cluster.js';
import { KubeClient } from '../../src/kube/client.js';

const LEASE_MS = 15_000;
const RENEW_MS = 10_000;
const RETRY_MS = 2_000;
const LEASE_NAME = 'glooha-operator';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function report(what: string, fields: Record<string, unknown>): void {
  console.log(`[leader-election] ${JSON.stringify({ what, ...fields })}`);
}

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

/** A TCP proxy in front of the API server that a test can cut (refuse) or black-hole (hang). */
class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  mode: 'forward' | 'blackhole' = 'forward';
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => client.destroy());
      if (this.mode === 'blackhole') return; // accept, never answer
      const upstream = connect(this.targetPort, this.targetHost);
      this.sockets.add(upstream);
      upstream.on('close', () => this.sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server?.address() as { port: number }).port;
  }

  /** Partition, variant 1: the port refuses connections and open ones are reset. */
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
    this.server = undefined;
  }

  /** Partition, variant 2: open connections and new ones go silent (packets dropped). */
  blackhole(): void {
    this.mode = 'blackhole';
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
    }
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.server) await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  kubeConfig(base: KubeConfig): KubeConfig {
    const copy = Object.create(Object.getPrototypeOf(base) as object) as KubeConfig;
    Object.assign(copy, base);
    copy.clusters = base.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${this.port}` }));
    return copy;
  }
}

interface Replica {
  id: string;
  elector: LeaderElector;
  metrics: OperatorMetrics;
  started: { at: number; signal: AbortSignal }[];
  stopped: (StoppedLeadingInfo & { at: number })[];
  newLeaders: string[];
  renewSeconds: number[];
  lastRenewAt: number;
}

let namespace = '';
const replicas: Replica[] = [];
const proxies: TcpProxy[] = [];

async function replica(id: string, kubeConfig: KubeConfig): Promise<Replica> {
  const metrics = createMetrics({ defaultMetrics: false });
  const r: Replica = {
    id,
    metrics,
    started: [],
    stopped: [],
    newLeaders: [],
    renewSeconds: [],
    lastRenewAt: 0,
    elector: undefined as unknown as LeaderElector,
  };
  const recording: LeaderElectionMetrics = {
    setLeading: (n, l) => metrics.leaderElection.setLeading(n, l),
    leaderChanged: (n) => metrics.leaderElection.leaderChanged(n),
    renewAttempt: (n, result, seconds, wall) => {
      metrics.leaderElection.renewAttempt(n, result, seconds, wall);
      if (result === 'success') {
        r.renewSeconds.push(seconds);
        r.lastRenewAt = performance.now() - seconds * 1000; // when it was sent, as the elector counts
      }
    },
  };
  r.elector = new LeaderElector({
    lease: new KubeLeaseClient({
      client: new KubeClient(kubeConfig, { metrics: metrics.restClient }),
      namespace,
      name: LEASE_NAME,
    }),
    identity: id,
    name: LEASE_NAME,
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: RENEW_MS,
    retryPeriodMs: RETRY_MS,
    metrics: recording,
    callbacks: {
      onStartedLeading: (signal) => void r.started.push({ at: performance.now(), signal }),
      onStoppedLeading: (info) => void r.stopped.push({ ...info, at: performance.now() }),
      onNewLeader: (leader) => void r.newLeaders.push(leader),
    },
  });
  replicas.push(r);
  return r;
}

async function operatorKubeConfig(sa: string): Promise<KubeConfig> {
  const kc = await kubeConfigFor(namespace, sa);
  await adminKubeConfig()
    .makeApiClient(RbacAuthorizationV1Api)
    .createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: sa },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'leader-election' },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
      },
    })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  return kc;
}

async function waitUntil(what: string, cond: () => boolean, timeoutMs: number, stepMs = 5): Promise<number> {
  const start = performance.now();
  while (!cond()) {
    if (performance.now() - start > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(stepMs);
  }
  return performance.now();
}

function leaders(): Replica[] {
  return replicas.filter((r) => r.elector.isLeader());
}

/** Samples every few ms that no two replicas may write at once; returns a stop function. */
function watchForOverlap(): () => void {
  let overlap: string | undefined;
  const t = setInterval(() => {
    const writers = replicas.filter((r) => r.elector.canWrite()).map((r) => r.id);
    if (writers.length > 1) overlap ??= writers.join(', ');
  }, 5);
  return () => {
    clearInterval(t);
    expect(overlap, 'two replicas could write at the same time').toBeUndefined();
  };
}

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  namespace = await createNamespace('leader-election');
  // The operator's RBAC for its Lease: no `list`, and get/update/watch could be pinned to the name.
  await adminKubeConfig()
    .makeApiClient(RbacAuthorizationV1Api)
    .createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'leader-election' },
        rules: [
          { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
          {
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            resourceNames: [LEASE_NAME],
            verbs: ['get', 'update', 'watch'],
          },
        ],
      },
    });
});

afterEach(async () => {
  await Promise.all(replicas.map((r) => r.elector.stop()));
  replicas.length = 0;
  await Promise.all(proxies.map((p) => p.stop()));
  proxies.length = 0;
  // a fresh Lease for the next test
  await adminKubeConfig()
    .makeApiClient(CoordinationV1Api)
    .deleteNamespacedLease({ name: LEASE_NAME, namespace })
    .catch(() => {});
});

afterAll(() => {
  /* the namespace goes with the control plane */
});

describe('leader election against the real API server', () => {
  it('elects exactly one of three; 20 s of renewals cause no extra callbacks and no follower writes', async () => {
    const rs = await Promise.all(
      ['a', 'b', 'c'].map(async (id) => replica(id, await operatorKubeConfig(`op-${id}`))),
    );
    for (const r of rs) r.elector.start();
    await waitUntil('a leader', () => leaders().length === 1, 10_000);
    const checkOverlap = watchForOverlap();

    const until = performance.now() + 20_000;
    while (performance.now() < until) {
      expect(leaders()).toHaveLength(1);
      await sleep(50);
    }
    checkOverlap();
    const leader = leaders()[0] as Replica;
    for (const r of rs) {
      expect(r.started).toHaveLength(r === leader ? 1 : 0);
      expect(r.stopped).toHaveLength(0);
      expect(r.newLeaders).toEqual([leader.id]);
      const text = (await r.metrics.expose()).body;
      expect(sample(text, `leader_election_master_status{name="${LEASE_NAME}"}`)).toBe(r === leader ? 1 : 0);
      const puts = text
        .split('\n')
        .filter((l) => l.startsWith('rest_client_requests_total{') && l.includes('method="PUT"'));
      if (r !== leader) {
        // followers never write, and while their watch is healthy they do not poll either
        expect(puts).toEqual([]);
        const gets = text
          .split('\n')
          .filter((l) => l.startsWith('rest_client_requests_total{') && l.includes('method="GET"'))
          .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
        expect(gets).toBeLessThanOrEqual(4);
      }
    }
    // ~20 s / (2 s × 1.1 average) renewals, all succeeded
    expect(leader.renewSeconds.length).toBeGreaterThanOrEqual(7);

    const lease = await adminKubeConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: LEASE_NAME, namespace });
    expect(lease.spec?.holderIdentity).toBe(leader.id);
    expect(lease.spec?.leaseDurationSeconds).toBe(15);
    // the first sample is the acquisition (a GET and a create/update); the rest are single PUTs
    const [acquire = NaN, ...renews] = leader.renewSeconds;
    report('renew latency (one PUT over a kept-alive TLS connection)', {
      acquireMs: +(acquire * 1000).toFixed(1),
      renews: renews.length,
      samplesMs: renews.map((s) => +(s * 1000).toFixed(1)),
      medianMs: +(quantile(renews, 0.5) * 1000).toFixed(1),
      maxMs: +(Math.max(...renews) * 1000).toFixed(1),
    });
  });

  it('stop() on the leader hands over in well under a second (5 rounds)', async () => {
    const kcs = await Promise.all(['d', 'e', 'f'].map((id) => operatorKubeConfig(`op-${id}`)));
    let n = 0;
    const fresh = async (i: number) => replica(`r${n++}`, kcs[i % kcs.length] as KubeConfig);
    for (let i = 0; i < 3; i++) (await fresh(i)).elector.start();
    await waitUntil('a leader', () => leaders().length === 1, 10_000);
    await sleep(3_000); // followers' watches established
    const checkOverlap = watchForOverlap();

    const totals: number[] = [];
    const releases: number[] = [];
    for (let round = 0; round < 5; round++) {
      const old = leaders()[0] as Replica;
      const t0 = performance.now();
      await old.elector.stop();
      const released = performance.now();
      const t1 = await waitUntil(
        'a new leader',
        () => replicas.some((r) => r !== old && r.started.length > 0 && (r.started.at(-1)?.at ?? 0) >= t0),
        5_000,
        1,
      );
      totals.push(t1 - t0);
      releases.push(released - t0);
      expect(old.started[0]?.signal.aborted).toBe(true);
      expect(old.stopped[0]?.reason).toBe('shutdown');
      replicas.splice(replicas.indexOf(old), 1);
      (await fresh(round)).elector.start(); // keep three candidates
      await sleep(2_500);
    }
    checkOverlap();
    report('graceful handover (stop() → another replica in onStartedLeading)', {
      rounds: totals.length,
      totalsMs: totals.map((t) => Math.round(t)),
      medianMs: Math.round(quantile(totals, 0.5)),
      maxMs: Math.round(Math.max(...totals)),
      releaseRequestMedianMs: Math.round(quantile(releases, 0.5)),
    });
    for (const t of totals) expect(t).toBeLessThan(1_000);
  });

  for (const variant of ['refused', 'blackholed'] as const) {
    it(`a leader cut off from the API server (${variant}) steps down within renewDeadline; another takes over after leaseDuration`, async () => {
      const server = new URL(controlPlane().server);
      const proxy = new TcpProxy(server.hostname, Number(server.port));
      proxies.push(proxy);
      await proxy.start();
      const cutOff = await replica('cut-off', proxy.kubeConfig(await operatorKubeConfig('op-cut')));
      cutOff.elector.start();
      await waitUntil('cut-off to lead', () => cutOff.elector.isLeader(), 10_000);
      const others = await Promise.all(
        ['g', 'h'].map(async (id) => replica(id, await operatorKubeConfig(`op-${id}`))),
      );
      for (const r of others) r.elector.start();
      await sleep(5_000);
      expect(leaders()).toEqual([cutOff]);
      const checkOverlap = watchForOverlap();

      const lastRenew = cutOff.lastRenewAt;
      const cutAt = performance.now();
      if (variant === 'refused') await proxy.cut();
      else proxy.blackhole();

      const stoppedAt = await waitUntil(
        'the cut-off leader to step down',
        () => cutOff.stopped.length > 0,
        RENEW_MS + 2_000,
      );
      expect(cutOff.elector.canWrite()).toBe(false);
      expect(cutOff.started[0]?.signal.aborted).toBe(true);
      expect(cutOff.stopped[0]?.reason).toBe('renew-deadline-exceeded');
      const newLeaderAt = await waitUntil(
        'another leader',
        () => others.some((r) => r.started.length > 0),
        LEASE_MS + RETRY_MS * 1.2 + 3_000,
      );
      checkOverlap();
      expect(cutOff.elector.isLeader()).toBe(false);
      // step-down is measured from the last renew that got through, which is at most one retry
      // period before the cut
      expect(stoppedAt - lastRenew).toBeLessThanOrEqual(RENEW_MS + 250);
      expect(stoppedAt - lastRenew).toBeGreaterThanOrEqual(RENEW_MS - 50);
      expect(stoppedAt - cutAt).toBeLessThanOrEqual(RENEW_MS + 250);
      // the others saw the last renew at about lastRenew and wait a full lease duration from there
      expect(newLeaderAt - lastRenew).toBeGreaterThanOrEqual(LEASE_MS - 250);
      expect(newLeaderAt - cutAt).toBeLessThanOrEqual(LEASE_MS + RETRY_MS * 1.2 + 1_000);
      const rest = (await cutOff.metrics.expose()).body;
      expect(rest).toMatch(/rest_client_requests_total\{code="<error>",method="PUT"/);
      report(`partition (${variant})`, {
        stepDownAfterCutMs: Math.round(stoppedAt - cutAt),
        stepDownAfterLastRenewMs: Math.round(stoppedAt - lastRenew),
        failoverAfterCutMs: Math.round(newLeaderAt - cutAt),
        failoverAfterLastRenewMs: Math.round(newLeaderAt - lastRenew),
      });
    });
  }
});
