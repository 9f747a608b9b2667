// Failover benchmark: how long the operator is leaderless when its leader goes away.
//
//   npx tsx bench/failover.ts [--runs N] [--replicas N]      (npm run bench:failover -- --runs 3)
//
// Starts its own test control plane (test/env/controlplane.ts), then for each timing set — the
// defaults (15s/10s/2s) and short ones (6s/4s/1s) — runs the operator as separate processes
// (`node --import tsx src/main.ts`, 3 replicas by default) and, N times each:
//  - graceful: SIGTERM to the leader (it releases the Lease on the way out);
//  - hard:     SIGKILL to the leader (the standbys wait for the Lease to expire).
// The failover time is from the signal to the moment another replica logs `started leading` (its log
// timestamp; same machine, same clock). For hard kills it also reports, from the API server's audit
// log, the time from the killed leader's last successful renew to the takeover (≥ leaseDuration by
// design). After each run a fresh replica replaces the one that went away, so every run starts from
// the same number of warm standbys. Kills happen at a random point of the renew cycle.
//
// Prints a table (median / min / max) and writes bench/results/failover.json. The processes run as
// the control plane's admin user: this measures timing, not RBAC (the integration tests do that).
import { CoordinationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startControlPlane, type ControlPlane } from '../test/env/controlplane.js';
import { auditLogText } from '../test/support/audit.js';
import {
  metricValue,
  repoRoot,
  spawnOperator,
  type OperatorIdentity,
  type OperatorProcess,
} from '../test/support/operator.js';

interface Timings {
  label: string;
  leaseMs: number;
  renewMs: number;
  retryMs: number;
  /** Flags to pass (none for the defaults: measure the real defaults, not flags equal to them). */
  args: string[];
}

const TIMINGS: Timings[] = [
  { label: 'default 15s/10s/2s', leaseMs: 15_000, renewMs: 10_000, retryMs: 2_000, args: [] },
  {
    label: 'short 6s/4s/1s',
    leaseMs: 6_000,
    renewMs: 4_000,
    retryMs: 1_000,
    args: [
      '--leader-elect-lease-duration=6s',
      '--leader-elect-renew-deadline=4s',
      '--leader-elect-retry-period=1s',
    ],
  },
];

type Mode = 'graceful' | 'hard';
const SIGNAL: Record<Mode, NodeJS.Signals> = { graceful: 'SIGTERM', hard: 'SIGKILL' };

interface RunResult {
  /** Signal → another replica logs `started leading`. */
  failoverMs: number;
  /** hard: the killed leader's last successful renew → the takeover write (audit log, server time). */
  takeoverAfterLastRenewMs?: number;
  /** hard: how long before the kill the killed leader last renewed. */
  lastRenewBeforeKillMs?: number;
  /** graceful: the old leader's `released the lease` → new leader. */
  releaseToLeaderMs?: number;
  /** graceful: signal → process exit, and its exit code. */
  exitMs?: number;
  exitCode?: number | null;
}

interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

function summarize(values: number[]): Summary {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { n: s.length, median: Math.round(median), min: s[0] ?? NaN, max: s.at(-1) ?? NaN };
}

async function waitUntil<T>(
  what: string,
  probe: () => Promise<T> | T,
  accept: (v: T) => boolean,
  timeoutMs: number,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      last = v;
      if (accept(v)) return v;
    } catch (err) {
      last = err instanceof Error ? err.message : err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
    await sleep(intervalMs);
  }
}

interface Replica {
  name: string;
  identity: string;
  proc: OperatorProcess;
  url: string;
}

const tsOf = (r: Record<string, unknown>) => Date.parse(String(r.ts));

function electorLogs(r: Replica, prefix: string, since = 0): Record<string, unknown>[] {
  return r.proc.logs.filter(
    (l) =>
      l.component === 'leader-election' &&
      typeof l.msg === 'string' &&
      l.msg.startsWith(prefix) &&
      tsOf(l) >= since,
  );
}

const alive = (p: OperatorProcess) => p.child.exitCode === null && p.child.signalCode === null;

async function stopProcess(p: OperatorProcess): Promise<void> {
  if (!alive(p)) return;
  p.kill('SIGTERM');
  const done = await Promise.race([p.exited.then(() => true), sleep(8_000).then(() => false)]);
  if (!done && alive(p)) {
    p.kill('SIGKILL');
    await p.exited;
  }
}

/** Successful writes to the Lease in `namespace`, from the API server's audit log, by received time. */
function leaseWrites(auditLogPath: string, namespace: string): number[] {
  const out: number[] = [];
  for (const line of auditLogText(auditLogPath).split('\n')) {
    if (!line) continue;
    const ev = JSON.parse(line) as {
      stage: string;
      verb: string;
      objectRef?: { resource?: string; namespace?: string };
      responseStatus?: { code?: number };
      requestReceivedTimestamp: string;
    };
    if (ev.stage !== 'ResponseComplete' || (ev.verb !== 'update' && ev.verb !== 'create')) continue;
    if (ev.objectRef?.resource !== 'leases' || ev.objectRef.namespace !== namespace) continue;
    const code = ev.responseStatus?.code ?? 0;
    if (code < 200 || code >= 300) continue;
    out.push(Date.parse(ev.requestReceivedTimestamp));
  }
  return out.sort((a, b) => a - b);
}

class Group {
  readonly replicas: Replica[] = [];
  private seq = 0;

  constructor(
    private readonly id: OperatorIdentity,
    private readonly timings: Timings,
  ) {}

  async add(): Promise<Replica> {
    const name = `bench-${this.timings.leaseMs / 1000}s-${this.seq++}`;
    const proc = spawnOperator(this.id, {
      podName: name,
      args: [`--watch-namespaces=${this.id.namespace}`, ...this.timings.args],
    });
    const url = await Promise.race([
      proc.metricsUrl,
      proc.exited.then((code) => {
        throw new Error(`${name} exited (${code}) during start-up`);
      }),
      sleep(120_000).then(() => {
        throw new Error(`${name} did not serve /metrics within 120 s`);
      }),
    ]);
    const starting = proc.logs.find((l) => l.msg === 'starting');
    const identity = (starting?.leaderElection as { identity?: string } | undefined)?.identity ?? '';
    const r = { name, identity, proc, url };
    this.replicas.push(r);
    return r;
  }

  live(): Replica[] {
    return this.replicas.filter((r) => alive(r.proc));
  }

  /** Exactly one live replica reports master_status 1; every other one has observed it in the Lease. */
  async leader(timeoutMs: number): Promise<Replica> {
    const rs = this.live();
    const statuses = await waitUntil(
      'exactly one leader',
      () => Promise.all(rs.map((r) => metricValue(r.url, 'leader_election_master_status'))),
      (v) => v.filter((x) => x === 1).length === 1 && v.filter((x) => x === 0).length === rs.length - 1,
      timeoutMs,
      100,
    );
    const leader = rs[statuses.indexOf(1)]!;
    for (const f of rs.filter((r) => r !== leader)) {
      await waitUntil(
        `${f.name} to observe ${leader.name}`,
        () => electorLogs(f, 'new leader observed').some((l) => l.leader === leader.identity),
        (v) => v,
        30_000,
        50,
      );
    }
    return leader;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.replicas.map((r) => stopProcess(r.proc)));
  }
}

async function runOnce(
  plane: ControlPlane,
  group: Group,
  namespace: string,
  t: Timings,
  mode: Mode,
): Promise<RunResult> {
  const leader = await group.leader(t.leaseMs + 30_000);
  const rest = group.live().filter((r) => r !== leader);
  // An arbitrary point of the renew cycle.
  await sleep(1_000 + Math.random() * t.retryMs * 1.2);
  const signalAt = Date.now();
  leader.proc.kill(SIGNAL[mode]);
  const next = await waitUntil(
    'another replica to start leading',
    () =>
      rest
        .flatMap((r) => electorLogs(r, 'started leading', signalAt).map((rec) => tsOf(rec)))
        .sort((a, b) => a - b)[0],
    (v) => v !== undefined,
    t.leaseMs + t.retryMs + 30_000,
  );
  const result: RunResult = { failoverMs: next! - signalAt };
  const code = await Promise.race([leader.proc.exited, sleep(15_000).then(() => 'timeout' as const)]);
  if (code === 'timeout') throw new Error(`${leader.name} did not exit after ${SIGNAL[mode]}`);
  if (mode === 'graceful') {
    result.exitMs = Date.now() - signalAt; // an upper bound: measured after the takeover
    result.exitCode = code;
    const released = electorLogs(leader, 'released the lease', signalAt)[0];
    if (released) result.releaseToLeaderMs = next! - tsOf(released);
  } else {
    await sleep(500); // let the audit log catch up
    const writes = leaseWrites(plane.auditLogPath, namespace);
    const lastRenew = writes.filter((w) => w <= signalAt).at(-1);
    const takeover = writes.find((w) => w > signalAt);
    if (lastRenew !== undefined && takeover !== undefined) {
      result.takeoverAfterLastRenewMs = takeover - lastRenew;
      result.lastRenewBeforeKillMs = signalAt - lastRenew;
    }
  }
  // Back to full strength for the next run.
  await group.add();
  return result;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '5' },
      replicas: { type: 'string', default: '3' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      'usage: npx tsx bench/failover.ts [--runs N (default 5)] [--replicas N (default 3)]\n',
    );
    return;
  }
  const runs = Number(values.runs);
  const replicaCount = Number(values.replicas);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  if (!Number.isInteger(replicaCount) || replicaCount < 2)
    throw new Error(`--replicas must be an integer ≥ 2, got ${values.replicas}`);

  const started = Date.now();
  log('starting the control plane');
  const plane = await startControlPlane({ log });
  const groups: Group[] = [];
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all(groups.map((g) => g.stopAll()));
    await plane.stop();
  };
  const onSignal = () => void shutdown().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const results: {
    timings: string;
    leaseMs: number;
    renewMs: number;
    retryMs: number;
    mode: Mode;
    runs: RunResult[];
    failover: Summary;
    takeoverAfterLastRenew?: Summary;
    releaseToLeader?: Summary;
  }[] = [];
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(plane.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    for (const t of TIMINGS) {
      const namespace = `bench-failover-${t.leaseMs / 1000}s-${Date.now().toString(36)}`;
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      const id: OperatorIdentity = {
        namespace,
        serviceAccount: 'admin',
        username: 'admin',
        kubeConfig: kc,
        kubeconfigPath: plane.kubeconfigPath,
      };
      const group = new Group(id, t);
      groups.push(group);
      log(`${t.label}: starting ${replicaCount} replicas in ${namespace}`);
      await Promise.all(Array.from({ length: replicaCount }, () => group.add()));
      for (const mode of ['graceful', 'hard'] as Mode[]) {
        const rs: RunResult[] = [];
        for (let i = 0; i < runs; i++) {
          const r = await runOnce(plane, group, namespace, t, mode);
          log(`${t.label} ${mode} run ${i + 1}/${runs}: ${JSON.stringify(r)}`);
          rs.push(r);
        }
        const pick = (k: keyof RunResult) =>
          rs.map((r) => r[k]).filter((v): v is number => typeof v === 'number');
        const takeover = pick('takeoverAfterLastRenewMs');
        const release = pick('releaseToLeaderMs');
        results.push({
          timings: t.label,
          leaseMs: t.leaseMs,
          renewMs: t.renewMs,
          retryMs: t.retryMs,
          mode,
          runs: rs,
          failover: summarize(pick('failoverMs')),
          ...(takeover.length ? { takeoverAfterLastRenew: summarize(takeover) } : {}),
          ...(release.length ? { releaseToLeader: summarize(release) } : {}),
        });
      }
      await group.stopAll();
      // How often the Lease changed hands: one transition per run.
      const lease = await kc
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ name: 'glooha-operator', namespace });
      log(`${t.label}: ${lease.spec?.leaseTransitions ?? 0} lease transitions`);
    }
  } finally {
    await shutdown();
  }

  const header = ['timings', 'mode', 'runs', 'median ms', 'min ms', 'max ms', 'after last renew (median)'];
  const rows = results.map((r) => [
    r.timings,
    `${r.mode} (${SIGNAL[r.mode]})`,
    String(r.failover.n),
    String(r.failover.median),
    String(r.failover.min),
    String(r.failover.max),
    r.takeoverAfterLastRenew ? `${r.takeoverAfterLastRenew.median} ms` : '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const fmt = (row: string[]) =>
    row
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  process.stdout.write(
    `\nFailover: signal to the leader → another replica logs 'started leading' (${replicaCount} replicas)\n`,
  );
  process.stdout.write(`${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const row of rows) process.stdout.write(`${fmt(row)}\n`);

  const out = join(repoRoot, 'bench', 'results', 'failover.json');
  mkdirSync(join(repoRoot, 'bench', 'results'), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        loadavgAtEnd: loadavg(),
        replicas: replicaCount,
        runsPerCase: runs,
        totalSeconds: Math.round((Date.now() - started) / 1000),
        results,
      },
      null,
      2,
    ) + '\n',
  );
  process.stdout.write(`\nwrote ${out}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench/failover: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
