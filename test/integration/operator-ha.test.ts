// The operator's own HA against the real API server, end to end: several operator PROCESSES
// (`node --import tsx src/main.ts`, as shipped), each under its OWN ServiceAccount with the chart's
// RBAC, all competing for the same Lease. Faults are real: SIGKILL, SIGTERM, SIGSTOP/SIGCONT, an API
// server killed and restarted on the same port, a TCP proxy between the leader and the API server
// that is torn down. Ground truth comes from outside the operator: the API server's audit log (who
// wrote what, when) and each process's own /metrics and JSON logs.
//
// Figures measured here are printed as `[operator-ha] {...}` lines.
//
// Timings: the failover tests that the spec states in terms of the defaults (SIGKILL: leaseDuration +
// retryPeriod; SIGTERM: under 1 s; one leader among 3; zero reconciles from renewals) run with the
// defaults (15s/10s/2s). SIGSTOP, API-server restart and partition use 6s/4s/1s to stay fast; they
// assert against whichever timings they run with.
import {
  AppsV1Api,
  CoordinationV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
} from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../src/api/constants.js';
import { PLURAL } from '../../src/products/gloo/api.js';
import type { GlooHA, GlooHASpec } from '../../src/products/gloo/types.js';
import { DEFAULT_LEASE_NAME } from '../../src/leader/config.js';
import { formatMicroTime } from '../../src/leader/lease-client.js';
import { locateBinaries } from '../env/binaries.js';
import { startApiServer, type ApiServerOptions } from '../env/controlplane.js';
import { loadPki } from '../env/pki.js';
import { freePort, type ManagedProcess } from '../env/processes.js';
import { auditWrites, describeAudit, type AuditEvent } from '../support/audit.js';
import { adminKubeConfig, controlPlane, createNamespace } from '../support/cluster.js';
import { createGlooInstall } from '../support/gloo-install.js';
import { createGlooHA, getGlooHA } from '../support/glooha.js';
import {
  boundToPod,
  installOperatorRbac,
  metricValue,
  spawnOperator,
  type OperatorIdentity,
  type OperatorProcess,
} from '../support/operator.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const leases = admin.makeApiClient(CoordinationV1Api);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

interface Timings {
  leaseMs: number;
  renewMs: number;
  retryMs: number;
}
const DEFAULTS: Timings = { leaseMs: 15_000, renewMs: 10_000, retryMs: 2_000 };
const SHORT: Timings = { leaseMs: 6_000, renewMs: 4_000, retryMs: 1_000 };
/** Retry gaps are jittered up to this factor (src/leader/config.ts JITTER_FACTOR). */
const JITTER = 1.2;

function timingArgs(t: Timings): string[] {
  if (t === DEFAULTS) return []; // the real defaults, not flags that happen to equal them
  return [
    `--leader-elect-lease-duration=${t.leaseMs / 1000}s`,
    `--leader-elect-renew-deadline=${t.renewMs / 1000}s`,
    `--leader-elect-retry-period=${t.retryMs / 1000}s`,
  ];
}

function report(what: string, fields: Record<string, unknown>): void {
  console.log(`[operator-ha] ${JSON.stringify({ what, ...fields })}`);
}

// ---------------------------------------------------------------- processes and their cleanup

/** Every operator process a test started; afterEach stops those still running. */
let processes: OperatorProcess[] = [];
/** Other things a test started (intervals, proxies, API servers), undone in reverse order. */
let cleanups: (() => unknown)[] = [];

function hasExited(p: OperatorProcess): boolean {
  return p.child.exitCode !== null || p.child.signalCode !== null;
}

/** SIGCONT (a stopped process cannot handle SIGTERM), SIGTERM, then SIGKILL after a grace period. */
async function stopProcess(p: OperatorProcess, graceMs = 8_000): Promise<void> {
  if (hasExited(p)) return;
  p.kill('SIGCONT');
  p.kill('SIGTERM');
  const done = await Promise.race([p.exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!done && !hasExited(p)) {
    p.kill('SIGKILL');
    await p.exited;
  }
}

afterEach(async () => {
  const undo = cleanups.reverse();
  cleanups = [];
  const procs = processes;
  processes = [];
  // Operators first: a graceful stop releases the Lease through the proxy or API server they use.
  await Promise.all(procs.map((p) => stopProcess(p)));
  for (const fn of undo) {
    try {
      await fn();
    } catch (err) {
      console.error('cleanup failed', err);
    }
  }
}, 60_000);

interface Replica {
  /** POD_NAME. */
  name: string;
  /** The elector's identity (pod name + random suffix), from the `starting` log line. */
  identity: string;
  id: OperatorIdentity;
  proc: OperatorProcess;
  url: string;
}

type LogRec = Record<string, unknown>;
const tsOf = (r: LogRec): number => Date.parse(String(r.ts));

/**
 * Spawns one operator process as pod `name` (its token is bound to a kwok Pod of that name, as the
 * kubelet's is, so the fencing policy can tell the replicas apart) and waits until it serves /metrics.
 */
async function startReplica(id: OperatorIdentity, name: string, args: string[]): Promise<Replica> {
  // As the chart runs it: a leader starts its controllers only once the fencing policy is enforced.
  const proc = spawnOperator(await boundToPod(id, name), {
    podName: name,
    args,
    env: { LEADER_ELECT_REQUIRE_FENCING_POLICY: 'true' },
  });
  processes.push(proc);
  const url = await Promise.race([
    proc.metricsUrl,
    proc.exited.then((code) => {
      throw new Error(`${name} exited (${code}) before serving /metrics:\n${tail(proc)}`);
    }),
    sleep(90_000).then(() => {
      throw new Error(`${name} did not serve /metrics within 90 s:\n${tail(proc)}`);
    }),
  ]);
  const starting = proc.logs.find((l) => l.msg === 'starting');
  const identity = (starting?.leaderElection as { identity?: string } | undefined)?.identity;
  if (!identity) throw new Error(`${name}: no identity in its 'starting' log line`);
  return { name, identity, id, proc, url };
}

function tail(p: OperatorProcess, n = 20): string {
  return p.logs
    .slice(-n)
    .map((l) => JSON.stringify(l))
    .join('\n');
}

/**
 * The operator namespace and one ServiceAccount (chart RBAC, own release) per replica. Each release
 * also installs the chart's fencing policy (on by default in the chart) for its ServiceAccount, all
 * on the one Lease: every test here runs with server-side fencing on.
 */
async function identities(n: number, watchNamespace: string): Promise<OperatorIdentity[]> {
  const opNs = await createNamespace('glooha-system');
  const suffix = randomBytes(2).toString('hex');
  const out = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      installOperatorRbac(opNs, {
        watchNamespaces: [watchNamespace],
        release: `r${i}-${suffix}`,
        fencingPolicy: true,
      }),
    ),
  );
  expect(new Set(out.map((i) => i.username)).size).toBe(n);
  return out;
}

/** Elector log lines (component leader-election) whose message starts with `prefix`, at or after `since`. */
function electorLogs(r: Replica, prefix: string, since = 0): LogRec[] {
  return r.proc.logs.filter(
    (l) =>
      l.component === 'leader-election' &&
      typeof l.msg === 'string' &&
      l.msg.startsWith(prefix) &&
      tsOf(l) >= since,
  );
}

/** The earliest such line among `rs`, waiting for one to appear. */
async function waitElectorLog(
  rs: Replica[],
  prefix: string,
  since: number,
  timeoutMs: number,
): Promise<{ replica: Replica; rec: LogRec; at: number }> {
  const found = await eventually(
    `'${prefix}' logged by one of ${rs.map((r) => r.name).join(', ')}`,
    async () => {
      const hits = rs.flatMap((replica) =>
        electorLogs(replica, prefix, since).map((rec) => ({ replica, rec, at: tsOf(rec) })),
      );
      return hits.sort((a, b) => a.at - b.at)[0];
    },
    (v) => v !== undefined,
    { timeoutMs, intervalMs: 20 },
  );
  return found!;
}

const masterStatus = (r: Replica) => metricValue(r.url, 'leader_election_master_status');

/** Waits until exactly one of `rs` reports leader_election_master_status 1 and the others 0. */
async function singleLeader(rs: Replica[], timeoutMs = 60_000): Promise<Replica> {
  const statuses = await eventually(
    `exactly one leader among ${rs.map((r) => r.name).join(', ')}`,
    () => Promise.all(rs.map(masterStatus)),
    (v) => v.filter((x) => x === 1).length === 1 && v.filter((x) => x === 0).length === rs.length - 1,
    { timeoutMs, intervalMs: 100 },
  );
  return rs[statuses.indexOf(1)]!;
}

/** Waits until `follower` has seen `leader` named in the Lease (it is then a warm standby). */
async function waitObserved(follower: Replica, leader: Replica): Promise<void> {
  await eventually(
    `${follower.name} to observe ${leader.name} as leader`,
    async () => electorLogs(follower, 'new leader observed').some((l) => l.leader === leader.identity),
    (v) => v,
    { timeoutMs: 30_000, intervalMs: 50 },
  );
}

/** A copy of `id` whose kubeconfig points at `server` (same ServiceAccount token). */
function identityVia(id: OperatorIdentity, server: string): OperatorIdentity {
  const text = readFileSync(id.kubeconfigPath, 'utf8');
  const current = controlPlane().server;
  if (!text.includes(current)) throw new Error(`${id.kubeconfigPath} does not name ${current}`);
  const dir = mkdtempSync(join(tmpdir(), 'glooha-op-via-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, text.replaceAll(current, server), { mode: 0o600 });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { ...id, kubeconfigPath };
}

// ---------------------------------------------------------------- the audit log

const at = (e: AuditEvent): number => Date.parse(e.requestReceivedTimestamp);
const succeeded = (e: AuditEvent): boolean => {
  const code = e.responseStatus?.code ?? 0;
  return code >= 200 && code < 300;
};

/** Writes to the operator's Lease (the only Lease in its namespace). */
function leaseWrites(opNs: string, since: Date, until?: Date): AuditEvent[] {
  return auditWrites({ since, until })
    .filter((e) => e.objectRef?.resource === 'leases' && e.objectRef.namespace === opNs)
    .sort((a, b) => at(a) - at(b));
}

interface Interval {
  user: string;
  /** Received time of the acquiring write. */
  start: number;
  /** Received time of the last successful renew in this run. */
  lastRenew: number;
  /** lastRenew + renewDeadline: the latest moment this identity may still write. */
  end: number;
  renews: number;
}

/**
 * Leadership intervals from the successful Lease writes: a run of one identity's acquisitions/renewals,
 * broken by another identity's successful write or by a gap of renewDeadline or more (its term ended
 * then; the next success is a new acquisition). A replica may write until renewDeadline after its last
 * renew was SENT; the audit log has the (later) received time, so `end` is an upper bound.
 */
function leadershipIntervals(writes: AuditEvent[], renewMs: number): Interval[] {
  const out: Interval[] = [];
  let cur: Interval | undefined;
  for (const e of writes.filter(succeeded)) {
    const t = at(e);
    const user = e.user.username;
    if (cur && cur.user === user && t - cur.lastRenew < renewMs) {
      cur.lastRenew = t;
      cur.end = t + renewMs;
      cur.renews++;
    } else {
      cur = { user, start: t, lastRenew: t, end: t + renewMs, renews: 1 };
      out.push(cur);
    }
  }
  return out;
}

function overlaps(intervals: Interval[]): string[] {
  const out: string[] = [];
  for (const [i, a] of intervals.entries()) {
    for (const b of intervals.slice(i + 1)) {
      if (a.user !== b.user && a.start < b.end && b.start < a.end) {
        out.push(
          `${a.user} [${iso(a.start)}, ${iso(a.end)}] overlaps ${b.user} [${iso(b.start)}, ${iso(b.end)}]`,
        );
      }
    }
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();

// ---------------------------------------------------------------- Gloo installs and GlooHAs

const isReady = (g: GlooHA): boolean => {
  const c = g.status?.conditions?.find((x) => x.type === 'Ready');
  return c?.status === 'True' && c.observedGeneration === g.metadata.generation;
};

async function waitReady(namespace: string, name: string, timeoutMs = 90_000): Promise<GlooHA> {
  return eventually(`${namespace}/${name} Ready`, () => getGlooHA(namespace, name), isReady, {
    timeoutMs,
    intervalMs: 250,
  });
}

async function newInstall(prefix: string, spec: GlooHASpec): Promise<string> {
  const ns = await createNamespace(prefix);
  await createGlooInstall(admin, { namespace: ns, discovery: true });
  await createGlooHA(ns, 'gloo', spec);
  return ns;
}

async function scale(namespace: string, name: string, replicas: number): Promise<void> {
  await apps.patchNamespacedDeploymentScale(
    { name, namespace, body: { spec: { replicas } }, fieldManager: 'kubectl-scale' },
    mergePatch,
  );
}

const replicasOf = async (namespace: string, name: string) =>
  (await apps.readNamespacedDeployment({ name, namespace })).spec?.replicas;

/** Scales `name` away from what the GlooHA wants every `everyMs`, so the leader always has drift to fix. */
function startDrifter(namespace: string, name: string, values: number[], everyMs = 1000) {
  const state = { pokes: 0, errors: [] as unknown[] };
  const timer = setInterval(() => {
    const replicas = values[state.pokes++ % values.length]!;
    scale(namespace, name, replicas).catch((err: unknown) => state.errors.push(err));
  }, everyMs);
  const stop = () => clearInterval(timer);
  cleanups.push(stop);
  return { state, stop };
}

// ---------------------------------------------------------------- a cuttable TCP proxy

class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly targetPort: number) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
  }

  /** The partition: open connections are destroyed and the port stops listening (refused). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// ================================================================= the tests

describe('operator HA: separate processes, one ServiceAccount each, against the real API server', () => {
  it('exactly one leader among 3 processes (master_status 1 on it, 0 on the others)', async () => {
    const t0 = Date.now();
    const watchNs = await createNamespace('ha-one');
    const ids = await identities(3, watchNs);
    const t1 = Date.now();
    const rs = await Promise.all(
      ids.map((id, i) => startReplica(id, `op-one-${i}`, [`--watch-namespaces=${watchNs}`])),
    );
    const t2 = Date.now();
    const leader = await singleLeader(rs);
    const followers = rs.filter((r) => r !== leader);
    // And it stays that way: sampled over a few retry periods.
    for (let i = 0; i < 8; i++) {
      const statuses = await Promise.all(rs.map(masterStatus));
      expect(statuses).toEqual(rs.map((r) => (r === leader ? 1 : 0)));
      await sleep(500);
    }
    const lease = await leases.readNamespacedLease({
      name: DEFAULT_LEASE_NAME,
      namespace: ids[0]!.namespace,
    });
    expect(lease.spec?.holderIdentity).toBe(leader.identity);
    expect(leader.identity.startsWith(`${leader.name}_`)).toBe(true);
    expect(electorLogs(leader, 'started leading')).toHaveLength(1);
    for (const f of followers) {
      expect(electorLogs(f, 'started leading')).toEqual([]);
      await waitObserved(f, leader);
    }
    // Only the leader's ServiceAccount ever wrote the Lease (besides the test's admin, which created
    // it unheld before the operators started so the fencing policy has its parameter).
    const writers = new Set(
      leaseWrites(ids[0]!.namespace, new Date(0))
        .filter(succeeded)
        .map((e) => e.user.username)
        .filter((u) => u !== 'admin'),
    );
    expect([...writers]).toEqual([leader.id.username]);
    report('one leader among 3', {
      leader: leader.name,
      followers: followers.map((f) => f.name),
      rbacSetupMs: t1 - t0,
      processStartMs: t2 - t1,
    });
  });

  it('SIGKILL of the leader: a new leader within leaseDuration + retryPeriod (default timings)', async () => {
    const t = DEFAULTS;
    const watchNs = await createNamespace('ha-kill');
    const ids = await identities(3, watchNs);
    const opNs = ids[0]!.namespace;
    const since = new Date();
    const rs = await Promise.all(
      ids.map((id, i) => startReplica(id, `op-kill-${i}`, [`--watch-namespaces=${watchNs}`])),
    );
    const leader = await singleLeader(rs);
    const rest = rs.filter((r) => r !== leader);
    for (const f of rest) await waitObserved(f, leader);
    // Kill at an arbitrary point of the renew cycle.
    await sleep(1000 + Math.random() * t.retryMs);
    const killedAt = Date.now();
    leader.proc.kill('SIGKILL');
    const next = await waitElectorLog(rest, 'started leading', killedAt, t.leaseMs + t.retryMs + 10_000);
    const failoverMs = next.at - killedAt;
    expect(await leader.proc.exited).toBeNull(); // killed by the signal
    expect(await masterStatus(next.replica)).toBe(1);
    const other = rest.find((r) => r !== next.replica)!;
    expect(await masterStatus(other)).toBe(0);

    // From the audit log: the takeover came no sooner than leaseDuration after the last renew the
    // killed leader got through (candidates count from when they SAW it, on their own clock).
    await sleep(500);
    const writes = leaseWrites(opNs, since).filter(succeeded);
    const lastRenew = writes
      .filter((e) => e.user.username === leader.id.username && at(e) <= killedAt)
      .at(-1);
    const takeover = writes.find((e) => e.user.username === next.replica.id.username && at(e) > killedAt);
    expect(lastRenew, writes.map(describeAudit).join('\n')).toBeDefined();
    expect(takeover, writes.map(describeAudit).join('\n')).toBeDefined();
    const sinceLastRenewMs = at(takeover!) - at(lastRenew!);
    report('hard failover (SIGKILL), default timings', {
      failoverMs,
      lastRenewBeforeKillMs: killedAt - at(lastRenew!),
      takeoverAfterLastRenewMs: sinceLastRenewMs,
      newLeader: next.replica.name,
    });
    expect(sinceLastRenewMs).toBeGreaterThanOrEqual(t.leaseMs - 10);
    // Upper bound: leaseDuration + retryPeriod (+ a margin for a loaded machine).
    expect(failoverMs).toBeLessThanOrEqual(t.leaseMs + t.retryMs + 1500);
    // Lower bound: the last renew was about one jittered retry period before the kill at most
    // (1 s slack for a late renew on a loaded machine; the audit check above is the exact one).
    expect(failoverMs).toBeGreaterThanOrEqual(t.leaseMs - JITTER * t.retryMs - 1_000);
  });

  it('SIGTERM of the leader: it releases the Lease and exits 0; a new leader in under 1 s', async () => {
    const watchNs = await createNamespace('ha-term');
    const ids = await identities(3, watchNs);
    const opNs = ids[0]!.namespace;
    const rs = await Promise.all(
      ids.map((id, i) => startReplica(id, `op-term-${i}`, [`--watch-namespaces=${watchNs}`])),
    );
    const leader = await singleLeader(rs);
    const rest = rs.filter((r) => r !== leader);
    for (const f of rest) await waitObserved(f, leader);
    await sleep(1000);
    const termAt = Date.now();
    leader.proc.kill('SIGTERM');
    const next = await waitElectorLog(rest, 'started leading', termAt, 10_000);
    const code = await Promise.race([leader.proc.exited, sleep(5_000).then(() => 'still running')]);
    const exitedAfterMs = Date.now() - termAt;
    expect(code).toBe(0);
    const released = electorLogs(leader, 'released the lease', termAt);
    expect(released, tail(leader.proc)).toHaveLength(1);
    const handoverMs = next.at - termAt;
    const releaseToLeaderMs = next.at - tsOf(released[0]!);
    report('graceful failover (SIGTERM), default timings', {
      handoverMs,
      releaseToNewLeaderMs: releaseToLeaderMs,
      exitCode: code,
      exitedWithinMs: exitedAfterMs,
      newLeader: next.replica.name,
    });
    expect(handoverMs).toBeLessThan(1000);
    expect(await masterStatus(next.replica)).toBe(1);
    expect(await masterStatus(rest.find((r) => r !== next.replica)!)).toBe(0);

    // The audit log: the old leader's release (a successful update of its own Lease) comes before
    // the new leader's acquisition; nobody else wrote in between.
    await sleep(500);
    const after = leaseWrites(opNs, new Date(termAt)).filter(succeeded);
    const users = after.map((e) => e.user.username);
    const firstOther = users.findIndex((u) => u !== leader.id.username);
    // At least the release by the old leader (a renew already in flight may precede it), then the
    // new leader's acquisition.
    expect(firstOther, after.map(describeAudit).join('\n')).toBeGreaterThanOrEqual(1);
    expect(users[firstOther], after.map(describeAudit).join('\n')).toBe(next.replica.id.username);
    const lease = await leases.readNamespacedLease({ name: DEFAULT_LEASE_NAME, namespace: opNs });
    expect(lease.spec?.holderIdentity).toBe(next.replica.identity);
  });

  it('SIGTERM of the leader while it corrects drift, fence on (so no release guard): no write of the old leader is accepted after the new leader acquired', async () => {
    const ns = await newInstall('ha-term-busy', { gloo: { replicas: 2 } });
    const [idA, idB] = await identities(2, ns);
    const opNs = idA!.namespace;
    const since = new Date();
    const args = [`--watch-namespaces=${ns}`];
    const both = await Promise.all([
      startReplica(idA!, 'op-tb-0', args),
      startReplica(idB!, 'op-tb-1', args),
    ]);
    const a = await singleLeader(both);
    const b = both.find((r) => r !== a)!;
    await waitObserved(b, a);
    await waitReady(ns, 'gloo');
    // The leader keeps writing (gloo scaled away from 2 every 300 ms: above it, which the replicas
    // floor lets by on the scale subresource), so writes are in flight at the
    // SIGTERM and the release happens while they drain.
    const drifter = startDrifter(ns, 'gloo', [3, 4], 300);
    await eventually(
      'the leader to be correcting drift',
      async () =>
        auditWrites({ username: a.id.username, since }).filter((e) => e.objectRef?.resource === 'deployments')
          .length,
      (n) => n >= 3,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const termAt = Date.now();
    a.proc.kill('SIGTERM');
    const next = await waitElectorLog([b], 'started leading', termAt, 10_000);
    expect(await Promise.race([a.proc.exited, sleep(10_000).then(() => 'still running')])).toBe(0);
    await sleep(3_000); // B corrects drift in its term
    drifter.stop();
    await eventually(
      'B to restore gloo to 2 replicas',
      () => replicasOf(ns, 'gloo'),
      (r) => r === 2,
      {
        timeoutMs: 15_000,
      },
    );
    await sleep(1_000);
    const until = new Date();
    expect(drifter.state.errors).toEqual([]);

    // The old leader released without the guard: it had seen the fencing policy enforced.
    const releasing = a.proc.logs.filter((l) => l.msg === 'releasing the Lease after the term');
    expect(releasing, tail(a.proc)).toHaveLength(1);
    expect(releasing[0]).toMatchObject({ guardMs: 0, why: 'the fencing policy is enforced' });

    // The audit log: B's acquire, then nothing of A's accepted but (at most) its Lease release.
    const lease = leaseWrites(opNs, since, until).filter(succeeded);
    const acquire = lease.find((e) => e.user.username === b.id.username && at(e) >= termAt);
    expect(acquire, lease.map(describeAudit).join('\n')).toBeDefined();
    const writes = auditWrites({ since, until }).filter(
      (e) => !(e.objectRef?.resource === 'leases' && e.objectRef.namespace === opNs),
    );
    const byA = writes.filter((e) => e.user.username === a.id.username);
    const byB = writes.filter((e) => e.user.username === b.id.username && succeeded(e));
    const lateA = byA.filter((e) => succeeded(e) && at(e) >= at(acquire!));
    report('SIGTERM while writing (fence on)', {
      handoverMs: next.at - termAt,
      writesByABeforeTerm: byA.filter((e) => at(e) < termAt).length,
      refusedAfterTerm: byA.filter((e) => at(e) >= termAt && !succeeded(e)).map(describeAudit),
      writesByBAfterAcquire: byB.filter((e) => at(e) >= at(acquire!)).length,
    });
    // Real work on both sides, or the check below would prove nothing.
    expect(byA.filter((e) => succeeded(e) && at(e) < termAt).length).toBeGreaterThan(0);
    expect(byB.filter((e) => e.objectRef?.resource === 'deployments').length).toBeGreaterThan(0);
    expect(lateA.map(describeAudit)).toEqual([]);
    expect(byB.filter((e) => at(e) < at(acquire!)).map(describeAudit)).toEqual([]);
  });

  it('SIGSTOP of the leader past leaseDuration, then SIGCONT: no overlapping writers, the woken one writes nothing', async () => {
    const t = SHORT;
    const ns = await newInstall('ha-stop', { gloo: { replicas: 2 } });
    const [idA, idB] = await identities(2, ns);
    const opNs = idA!.namespace;
    const since = new Date();
    const args = [`--watch-namespaces=${ns}`, ...timingArgs(t)];
    const both = await Promise.all([
      startReplica(idA!, 'op-stop-0', args),
      startReplica(idB!, 'op-stop-1', args),
    ]);
    // `a` is whichever leads: the one that will be frozen.
    const a = await singleLeader(both);
    const b = both.find((r) => r !== a)!;
    await waitObserved(b, a);
    await waitReady(ns, 'gloo');

    // Continuous drift: gloo is scaled away from 2 every second, so the leader keeps writing
    // (the Deployment, Events, the GlooHA status).
    const drifter = startDrifter(ns, 'gloo', [3, 4]);
    await eventually(
      'the leader to be correcting drift',
      async () =>
        auditWrites({ username: a.id.username, since }).filter((e) => e.objectRef?.resource === 'deployments')
          .length,
      (n) => n >= 2,
      { timeoutMs: 20_000, intervalMs: 250 },
    );

    const stoppedAt = Date.now();
    a.proc.kill('SIGSTOP');
    const takeover = await waitElectorLog([b], 'started leading', stoppedAt, t.leaseMs + 10_000);
    // Stay stopped well past leaseDuration.
    await sleep(Math.max(0, stoppedAt + t.leaseMs + 3_000 - Date.now()));
    const contAt = Date.now();
    a.proc.kill('SIGCONT');
    // The woken replica notices at once that its term is over, and rejoins as a candidate.
    const stepDown = await waitElectorLog([a], 'stopped leading', contAt, 10_000);
    expect(stepDown.rec.reason).toBe('renew-deadline-exceeded');
    await eventually(
      'A to report master_status 0',
      () => masterStatus(a),
      (v) => v === 0,
      { timeoutMs: 5_000 },
    );
    // Drift keeps coming; B corrects it.
    await sleep(5_000);
    drifter.stop();
    await eventually(
      'B to restore gloo to 2 replicas',
      () => replicasOf(ns, 'gloo'),
      (r) => r === 2,
      {
        timeoutMs: 15_000,
      },
    );
    await sleep(1_500);
    const until = new Date();
    expect(drifter.state.errors).toEqual([]);
    expect(await masterStatus(b)).toBe(1);
    expect(await masterStatus(a)).toBe(0);
    expect(hasExited(a.proc)).toBe(false);

    // ---- the audit log
    const users = new Set([a.id.username, b.id.username]);
    const lease = leaseWrites(opNs, since, until);
    const intervals = leadershipIntervals(lease, t.renewMs);
    const writes = auditWrites({ since, until }).filter(
      (e) =>
        users.has(e.user.username) && !(e.objectRef?.resource === 'leases' && e.objectRef.namespace === opNs),
    );
    const byA = writes.filter((e) => e.user.username === a.id.username);
    const byB = writes.filter((e) => e.user.username === b.id.username);
    const describeIntervals = intervals
      .map((i) => `${i.user}: ${iso(i.start)} .. last renew ${iso(i.lastRenew)} (${i.renews} writes)`)
      .join('\n');
    report('SIGSTOP/SIGCONT', {
      stoppedForMs: contAt - stoppedAt,
      takeoverAfterStopMs: takeover.at - stoppedAt,
      wokenStepDownAfterContMs: stepDown.at - contAt,
      drifts: drifter.state.pokes,
      writesByA: byA.length,
      writesByB: byB.length,
      intervals: intervals.map((i) => ({
        user: i.user.split(':').at(-1),
        start: iso(i.start),
        lastRenew: iso(i.lastRenew),
        renews: i.renews,
      })),
    });
    // Real work on both sides of the takeover, or the checks below would prove nothing.
    expect(byA.filter((e) => at(e) < stoppedAt).length).toBeGreaterThan(0);
    expect(
      byB.filter((e) => at(e) > takeover.at && e.objectRef?.resource === 'deployments').length,
    ).toBeGreaterThan(0);
    // The kinds written: Gloo's Deployment, the GlooHA status, Events — all inside the install namespace.
    expect(
      writes.every((e) => e.objectRef?.namespace === ns),
      writes.map(describeAudit).join('\n'),
    ).toBe(true);
    expect(new Set(writes.map((e) => e.objectRef?.resource))).toContain('deployments');

    // A led, then B (A's leadership may be split in several terms if a renew was ever late on this
    // loaded machine; it never goes back to A after B), and no two identities' intervals overlap.
    const sequence = intervals.map((i) => i.user).filter((u, i, all) => u !== all[i - 1]);
    expect(sequence, describeIntervals).toEqual([a.id.username, b.id.username]);
    expect(overlaps(intervals), describeIntervals).toEqual([]);
    // B acquired no sooner than leaseDuration after A's last renew.
    const lastOfA = intervals.filter((i) => i.user === a.id.username).at(-1)!;
    const firstOfB = intervals.find((i) => i.user === b.id.username)!;
    expect(firstOfB.start - lastOfA.lastRenew).toBeGreaterThanOrEqual(t.leaseMs - 10);

    // Every write by an operator ServiceAccount lies inside one of its own leadership intervals
    // (received within 500 ms of its end at the latest: network/queueing slack on a loaded machine).
    const outside = writes.filter(
      (e) => !intervals.some((i) => i.user === e.user.username && at(e) >= i.start && at(e) <= i.end + 500),
    );
    expect(outside.map(describeAudit), describeIntervals).toEqual([]);

    // The frozen and then woken replica: no write of any kind once it was frozen (1 s allowed for a
    // request already on the wire at the SIGSTOP), so none after SIGCONT either — not even a
    // successful Lease write: it never re-acquired, B holds the Lease.
    const aAfterFreeze = byA.filter((e) => at(e) >= stoppedAt + 1000);
    expect(aAfterFreeze.map(describeAudit)).toEqual([]);
    const aLeaseAfterCont = lease.filter(
      (e) => e.user.username === a.id.username && at(e) >= contAt && succeeded(e),
    );
    expect(aLeaseAfterCont.map(describeAudit)).toEqual([]);
  });

  it('API server killed and restarted on the same port: the operator stays up and converges again', async () => {
    const t = SHORT;
    const cp = controlPlane();
    const ns = await newInstall('ha-apiserver', { gloo: { replicas: 2 }, discovery: { replicas: 1 } });
    const [id] = await identities(1, ns);

    // A second kube-apiserver on the shared etcd, with its own port and directory.
    const dir = mkdtempSync(join(tmpdir(), 'glooha-apiserver2-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const exits: (number | null)[] = [];
    const opts: ApiServerOptions = {
      binaries: locateBinaries(),
      pki: loadPki(cp.pkiDir),
      dir,
      etcdUrl: cp.etcdUrl,
      port: await freePort(),
      name: 'kube-apiserver-2',
      adminCert: { cert: join(cp.dir, 'admin.crt'), key: join(cp.dir, 'admin.key') },
      onUnexpectedExit: (_p, code) => void exits.push(code),
    };
    let api2: ManagedProcess = await startApiServer(opts);
    cleanups.push(() => api2.stop());
    const server2 = `https://127.0.0.1:${opts.port}`;

    const op = await startReplica(identityVia(id!, server2), 'op-apiserver', [
      `--watch-namespaces=${ns}`,
      ...timingArgs(t),
    ]);
    await singleLeader([op]);
    await waitReady(ns, 'gloo');

    const downAt = Date.now();
    api2.signal('SIGKILL');
    await eventually(
      'the API server to exit',
      async () => api2.running,
      (r) => !r,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    // While it is down, through the main API server (same etcd): a spec change and a drift.
    const generation = (await getGlooHA(ns, 'gloo')).metadata.generation ?? 0;
    await custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: PLURAL,
        name: 'gloo',
        body: { spec: { gloo: { replicas: 3 } } },
      },
      mergePatch,
    );
    await scale(ns, 'discovery', 2);
    // The operator steps down after renewDeadline, but stays alive and healthy.
    const stepDown = await waitElectorLog([op], 'stopped leading', downAt, t.renewMs + 5_000);
    expect(stepDown.at - downAt).toBeLessThanOrEqual(t.renewMs + 1_000);
    await eventually(
      'master_status 0 while the API server is down',
      () => masterStatus(op),
      (v) => v === 0,
      { timeoutMs: 5_000 },
    );
    await sleep(Math.max(0, downAt + 2 * t.renewMs - Date.now()));
    const health = await fetch(`${op.url}/healthz`);
    expect(health.status).toBe(200);
    expect(hasExited(op.proc)).toBe(false);

    const restartAt = Date.now();
    api2 = await startApiServer(opts);
    const upAt = Date.now();
    const converged = await eventually(
      'the GlooHA Ready at the new generation, the spec applied and the drift corrected',
      async () => ({
        g: await getGlooHA(ns, 'gloo'),
        gloo: await replicasOf(ns, 'gloo'),
        discovery: await replicasOf(ns, 'discovery'),
      }),
      (v) => isReady(v.g) && v.g.metadata.generation === generation + 1 && v.gloo === 3 && v.discovery === 1,
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    const convergedAt = Date.now();
    const reacquired = await waitElectorLog([op], 'started leading', restartAt, 1_000);
    expect(await masterStatus(op)).toBe(1);
    // No exit, no restart: one process, one start-up, the whole time.
    expect(hasExited(op.proc)).toBe(false);
    expect(op.proc.logs.filter((l) => l.msg === 'starting')).toHaveLength(1);
    expect(electorLogs(op, 'rejoined leader election as a candidate').length).toBeGreaterThanOrEqual(1);
    expect(exits).toHaveLength(1); // only the SIGKILL we sent
    expect(converged.g.status?.observedGeneration).toBe(generation + 1);
    report('API server restart', {
      downForMs: upAt - downAt,
      apiServerRestartMs: upAt - restartAt,
      stepDownAfterKillMs: stepDown.at - downAt,
      // The operator may re-acquire before our /readyz probe of the restarted server succeeds.
      reacquiredAfterRestartMs: reacquired.at - restartAt,
      convergedAfterUpMs: convergedAt - upAt,
    });
  });

  it('leader cut off from the API server (TCP proxy torn down): it steps down within renewDeadline', async () => {
    const t = SHORT;
    const cp = controlPlane();
    const watchNs = await createNamespace('ha-partition');
    const [idA, idB] = await identities(2, watchNs);
    const opNs = idA!.namespace;
    // Each replica reaches the API server through its own proxy; the leader's is torn down.
    const proxies = [idA!, idB!].map(() => new TcpProxy(Number(new URL(cp.server).port)));
    for (const p of proxies) {
      await p.start();
      cleanups.push(() => p.stop());
    }
    const args = [`--watch-namespaces=${watchNs}`, ...timingArgs(t)];
    const both = await Promise.all(
      [idA!, idB!].map((id, i) =>
        startReplica(identityVia(id, `https://127.0.0.1:${proxies[i]!.port}`), `op-part-${i}`, args),
      ),
    );
    const a = await singleLeader(both);
    const b = both.find((r) => r !== a)!;
    const proxy = proxies[both.indexOf(a)]!;
    await waitObserved(b, a);
    await sleep(2_000);

    const cutAt = Date.now();
    await proxy.stop();
    const stepDown = await waitElectorLog([a], 'stopped leading', cutAt, t.renewMs + 10_000);
    const stepDownMs = stepDown.at - cutAt;
    expect(stepDown.rec.reason).toBe('renew-deadline-exceeded');
    // Its metrics endpoint is local, so it stays reachable: master_status is 0 right after.
    await eventually(
      'A master_status 0',
      () => masterStatus(a),
      (v) => v === 0,
      { timeoutMs: 1_000, intervalMs: 50 },
    );
    const next = await waitElectorLog([b], 'started leading', cutAt, t.leaseMs + 10_000);
    expect(await masterStatus(b)).toBe(1);
    expect(await masterStatus(a)).toBe(0);
    expect(hasExited(a.proc)).toBe(false);
    await eventually(
      'A to rejoin as a candidate',
      async () => electorLogs(a, 'rejoined leader election', cutAt).length,
      (n) => n === 1,
      { timeoutMs: 10_000, intervalMs: 50 },
    );

    await sleep(500);
    const writes = leaseWrites(opNs, new Date(cutAt - 10 * t.retryMs)).filter(succeeded);
    const lastRenew = writes.filter((e) => e.user.username === a.id.username && at(e) <= cutAt).at(-1);
    expect(lastRenew).toBeDefined();
    const takeover = writes.find((e) => e.user.username === b.id.username && at(e) > cutAt);
    expect(takeover).toBeDefined();
    report('partition (proxy stopped), 6s/4s/1s', {
      stepDownAfterCutMs: stepDownMs,
      stepDownAfterLastRenewMs: stepDown.at - at(lastRenew!),
      newLeaderAfterCutMs: next.at - cutAt,
      newLeaderAfterStepDownMs: next.at - stepDown.at,
      takeoverAfterLastRenewMs: at(takeover!) - at(lastRenew!),
    });
    // Within renewDeadline of the cut (plus a margin for timers on a loaded machine) ...
    expect(stepDownMs).toBeLessThanOrEqual(t.renewMs + 1_000);
    // ... and not before: it keeps leading through failed renews (the first fails within a retry
    // period of the cut) until renewDeadline after its last successful one.
    expect(stepDownMs).toBeGreaterThanOrEqual(t.renewMs - JITTER * t.retryMs - 1_000);
    expect(stepDown.at - at(lastRenew!)).toBeGreaterThanOrEqual(t.renewMs - 500);
    expect(stepDown.at - at(lastRenew!)).toBeLessThanOrEqual(t.renewMs + 1_000);
    // The standby took over only after the old leader had stopped, no sooner than leaseDuration after
    // the last renew it saw.
    expect(next.at).toBeGreaterThan(stepDown.at);
    expect(at(takeover!) - at(lastRenew!)).toBeGreaterThanOrEqual(t.leaseMs - 10);
  });

  it(
    'Lease renewals (its own and Gloo’s, every 2 s) cause zero reconciles and zero writes over 60 s',
    { timeout: 240_000 },
    async () => {
      const now = () => formatMicroTime(new Date());
      const ns = await createNamespace('ha-steady');
      await createGlooInstall(admin, { namespace: ns });
      // Gloo's leader, simulated by the admin: holds the `gloo` Lease and renews it every 2 s.
      await leases.createNamespacedLease({
        namespace: ns,
        body: {
          metadata: { name: 'gloo' },
          spec: {
            holderIdentity: 'gloo-7d9f-abcde',
            leaseDurationSeconds: 6,
            acquireTime: new V1MicroTime(now()),
            renewTime: new V1MicroTime(now()),
          },
        },
      });
      const gloo = { renewals: 0, errors: [] as unknown[] };
      const renewer = setInterval(() => {
        gloo.renewals++;
        leases
          .patchNamespacedLease(
            { name: 'gloo', namespace: ns, body: { spec: { renewTime: now() } } },
            mergePatch,
          )
          .catch((err: unknown) => gloo.errors.push(err));
      }, 2000);
      cleanups.push(() => clearInterval(renewer));
      await createGlooHA(ns, 'gloo', { gloo: { replicas: 2 } });

      const ids = await identities(2, ns);
      const opNs = ids[0]!.namespace;
      const rs = await Promise.all(
        ids.map((id, i) => startReplica(id, `op-steady-${i}`, [`--watch-namespaces=${ns}`])),
      );
      const leader = await singleLeader(rs);
      const follower = rs.find((r) => r !== leader)!;
      await eventually(
        'Ready, with the Gloo leader fresh in the status',
        () => getGlooHA(ns, 'gloo'),
        (g) => isReady(g) && g.status?.leader?.holder === 'gloo-7d9f-abcde' && g.status.leader.fresh === true,
        { timeoutMs: 90_000, intervalMs: 250 },
      );
      const reconciles = (r: Replica) => metricValue(r.url, 'controller_runtime_reconcile_total');
      // Settled: the counter stood still for 3 s (pods finishing their roll-out may still move the status).
      let last = -1;
      await eventually(
        'reconciles to settle',
        async () => {
          const v = await reconciles(leader);
          const same = v === last;
          last = v;
          return same;
        },
        (same) => same,
        { timeoutMs: 60_000, intervalMs: 3_000 },
      );

      const since = new Date();
      const before = await Promise.all(rs.map(reconciles));
      const glooBefore = gloo.renewals;
      await sleep(60_000);
      const after = await Promise.all(rs.map(reconciles));
      await sleep(500);
      const until = new Date();
      const byLeader = auditWrites({ username: leader.id.username, since, until });
      const ownLease = byLeader.filter(
        (e) => e.objectRef?.resource === 'leases' && e.objectRef.namespace === opNs,
      );
      const otherWrites = byLeader.filter((e) => !ownLease.includes(e));
      const byFollower = auditWrites({ username: follower.id.username, since, until });
      report('steady state over 60 s', {
        reconcilesBefore: before,
        reconcileDelta: after.map((v, i) => v - before[i]!),
        ownLeaseRenewals: ownLease.length,
        glooLeaseRenewals: gloo.renewals - glooBefore,
        otherWritesByLeader: otherWrites.length,
        writesByFollower: byFollower.length,
      });
      expect(before[rs.indexOf(leader)]).toBeGreaterThan(0); // it did reconcile before
      expect(after).toEqual(before);
      expect(otherWrites.map(describeAudit)).toEqual([]);
      expect(byFollower.map(describeAudit)).toEqual([]);
      // Both kinds of renewals really happened throughout.
      expect(ownLease.filter(succeeded).length).toBeGreaterThanOrEqual(
        Math.floor(60_000 / (JITTER * DEFAULTS.retryMs)) - 2,
      );
      expect(gloo.renewals - glooBefore).toBeGreaterThanOrEqual(29);
      expect(gloo.errors).toEqual([]);
      expect(await masterStatus(leader)).toBe(1);
      expect(isReady(await getGlooHA(ns, 'gloo'))).toBe(true);
    },
  );
});
