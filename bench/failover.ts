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
//
// The handover suite (--suite handover) measures the graceful handover as a user sees it: SIGTERM to
// the leader → the NEW leader's first write that is not its Lease (ground truth: the API server's
// audit log, by the pod the write's token is bound to). The replicas run as the chart deploys them:
// the chart's RBAC, a token bound to each replica's pod, and — for the "fence on" variants — the
// chart's fencing ValidatingAdmissionPolicy with --leader-elect-require-fencing-policy. Each watches
// a namespace with a GlooHA; right after the SIGTERM the bench asks for a reconcile
// (glooha.io/reconcile-requested-at), which only the next leader answers (a run where the old one
// still did is repeated) with a status
// write. With --baseline REF the same variants also run from the source tree of git ref REF, the runs
// interleaved round-robin so both see the same load; the audit log also counts the old leader's
// writes accepted after the new leader's acquire (overlap, must be 0) and refused by admission.
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { GROUP, RECONCILE_REQUEST_ANNOTATION, VERSION } from '../src/api/constants.js';
import { PLURAL } from '../src/products/gloo/api.js';
import { startControlPlane, type ControlPlane } from '../test/env/controlplane.js';
import { createNamespace, setControlPlane } from '../test/support/cluster.js';
import { createGlooInstall } from '../test/support/gloo-install.js';
import { createGlooHA, getGlooHA } from '../test/support/glooha.js';
import { auditLogText } from '../test/support/audit.js';
import {
  boundToPod,
  installOperatorRbac,
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
  /** Nearest rank. */
  p95: number;
  min: number;
  max: number;
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

function summarize(values: number[]): Summary {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  const p95 = s[Math.max(0, Math.ceil(0.95 * s.length) - 1)] ?? NaN;
  return { n: s.length, median: Math.round(median), p95, min: s[0] ?? NaN, max: s.at(-1) ?? NaN };
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

interface GroupOptions {
  /** Pod name prefix. */
  prefix: string;
  /** Flags beyond --kubeconfig/--leader-elect-namespace. */
  args: string[];
  /** Source tree to run (default this one). */
  root?: string;
  /** Each replica gets a token bound to its own (kwok) pod, as in a real pod (the fence needs it). */
  podBound?: boolean;
}

class Group {
  readonly replicas: Replica[] = [];
  private seq = 0;

  constructor(
    private readonly id: OperatorIdentity,
    private readonly opts: GroupOptions,
  ) {}

  async add(): Promise<Replica> {
    const name = `${this.opts.prefix}-${this.seq++}`;
    const id = this.opts.podBound ? await boundToPod(this.id, name) : this.id;
    const proc = spawnOperator(id, {
      podName: name,
      args: this.opts.args,
      ...(this.opts.root ? { root: this.opts.root } : {}),
    });
    const url = await Promise.race([
      proc.metricsUrl,
      proc.exited.then((code) => {
        throw new Error(`${name} exited (${code}) during start-up`);
      }),
      // Generous: a loaded 2-core machine has taken over 2 minutes to start one.
      sleep(300_000).then(() => {
        throw new Error(`${name} did not serve /metrics within 300 s`);
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

// ---- the handover suite -------------------------------------------------------------------------

interface AuditRecord {
  stage: string;
  verb: string;
  requestURI?: string;
  user: { username: string; extra?: Record<string, string[]> };
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Completed writes (dry runs left out) by a pod-bound token of one of `pods`, received at or after `since`. */
function podWrites(
  auditLogPath: string,
  pods: Set<string>,
  since: number,
): (AuditRecord & { at: number; pod: string })[] {
  const out: (AuditRecord & { at: number; pod: string })[] = [];
  for (const line of auditLogText(auditLogPath).split('\n')) {
    if (!line) continue;
    const ev = JSON.parse(line) as AuditRecord;
    if (ev.stage !== 'ResponseComplete' || !WRITE_VERBS.has(ev.verb)) continue;
    if (ev.requestURI?.includes('dryRun=')) continue;
    const pod = ev.user.extra?.['authentication.kubernetes.io/pod-name']?.[0];
    if (!pod || !pods.has(pod)) continue;
    const at = Date.parse(ev.requestReceivedTimestamp);
    if (at < since) continue;
    out.push({ ...ev, at, pod });
  }
  return out.sort((a, b) => a.at - b.at);
}

const ok = (e: AuditRecord) => (e.responseStatus?.code ?? 0) >= 200 && (e.responseStatus?.code ?? 0) < 300;
const isLease = (e: AuditRecord) => e.objectRef?.resource === 'leases';

interface Variant {
  label: string;
  /** The chart's fencing policy installed and required (--leader-elect-require-fencing-policy). */
  fence: boolean;
  /** Source tree (undefined: this one). */
  root?: string;
  group?: Group;
  watchNs?: string;
  runs: HandoverRun[];
}

interface HandoverRun {
  /** SIGTERM → the new leader's first write other than its Lease (audit log, received time). */
  firstWriteMs: number;
  /** SIGTERM → the new leader logs `started leading`. */
  startedLeadingMs: number;
  /** SIGTERM → the old leader's release reached the API server (audit log). */
  releaseMs?: number;
  /** The old leader's writes (not its Lease) accepted after the new leader's acquire: overlap. */
  oldWritesAfterAcquire: number;
  /** The old leader's writes refused by the fencing policy after the signal. */
  oldWritesRefused: number;
  /** 1-minute load average when the run started. */
  load1: number;
}

/** The source tree of git ref `ref`, runnable with this tree's node_modules. */
function checkoutBaseline(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'glooha-baseline-'));
  const archive = execFileSync(
    'git',
    ['-C', repoRoot, 'archive', ref, 'src', 'package.json', 'tsconfig.json'],
    {
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

async function handoverRun(
  plane: ControlPlane,
  kc: KubeConfig,
  v: Variant,
): Promise<HandoverRun | undefined> {
  const group = v.group!;
  const leader = await group.leader(45_000);
  const rest = group.live().filter((r) => r !== leader);
  await sleep(1_000 + Math.random() * 2_400); // an arbitrary point of the renew cycle
  const load1 = loadavg()[0]!;
  const signalAt = Date.now();
  leader.proc.kill('SIGTERM');
  // Work for the next leader, asked at once: waiting to see the old term end first delayed the request
  // (and so the measured first write) by however long this loaded process took to notice. The old
  // leader's term ends when it handles the signal, a few milliseconds, before this request can reach
  // it through its watch; a run where it still answered is not counted (checked below).
  const requested = new Date().toISOString();
  await kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace: v.watchNs!,
      name: 'gloo',
      body: { metadata: { annotations: { [RECONCILE_REQUEST_ANNOTATION]: requested } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await waitUntil(
    'the new leader to handle the reconcile request',
    () => getGlooHA(v.watchNs!, 'gloo'),
    (g) => g.status?.lastHandledReconcileAt === requested,
    30_000,
    20,
  );
  const next = rest
    .flatMap((r) => electorLogs(r, 'started leading', signalAt).map((rec) => ({ r, at: tsOf(rec) })))
    .sort((a, b) => a.at - b.at)[0];
  if (!next) throw new Error('no replica logged started leading');
  const code = await Promise.race([leader.proc.exited, sleep(15_000).then(() => 'timeout' as const)]);
  if (code === 'timeout') throw new Error(`${leader.name} did not exit after SIGTERM`);
  await sleep(300); // the audit log is written in blocking mode; let the last lines land
  const writes = podWrites(plane.auditLogPath, new Set([leader.name, next.r.name]), signalAt);
  const newWrites = writes.filter((e) => e.pod === next.r.name && ok(e));
  const acquire = newWrites.find(isLease);
  const first = newWrites.find((e) => !isLease(e));
  if (!acquire || !first) throw new Error(`no acquire or first write by ${next.r.name} in the audit log`);
  const old = writes.filter((e) => e.pod === leader.name);
  const answeredByOld = old.some((e) => !isLease(e) && ok(e) && e.objectRef?.subresource === 'status');
  // The old leader's last Lease write: its release (a renew may have been in flight before it).
  const release = old.filter((e) => isLease(e) && ok(e) && e.verb === 'update').at(-1);
  await group.add(); // back to full strength
  if (answeredByOld) return undefined;
  const run: HandoverRun = {
    firstWriteMs: first.at - signalAt,
    startedLeadingMs: next.at - signalAt,
    ...(release ? { releaseMs: release.at - signalAt } : {}),
    oldWritesAfterAcquire: old.filter((e) => !isLease(e) && ok(e) && e.at >= acquire.at).length,
    oldWritesRefused: old.filter((e) => !isLease(e) && e.responseStatus?.code === 403).length,
    load1,
  };
  return run;
}

async function handoverSuite(
  plane: ControlPlane,
  kc: KubeConfig,
  runs: number,
  replicaCount: number,
  baseline: string | undefined,
  groups: Group[],
): Promise<Record<string, unknown>[]> {
  const { failures: _f, stop: _s, ...info } = plane;
  setControlPlane(info);
  const baselineRoot = baseline ? checkoutBaseline(baseline) : undefined;
  try {
    const variants: Variant[] = [
      { label: 'fence on, this tree', fence: true, runs: [] },
      ...(baselineRoot
        ? [{ label: `fence on, ${baseline}`, fence: true, root: baselineRoot, runs: [] }]
        : []),
      { label: 'fence off, this tree', fence: false, runs: [] },
    ];
    let n = 0;
    for (const v of variants) {
      const opNs = await createNamespace(`bench-handover-${n}`);
      v.watchNs = await createNamespace(`bench-handover-gloo-${n++}`);
      await createGlooInstall(kc, { namespace: v.watchNs, proxies: ['gateway-proxy'] });
      await createGlooHA(v.watchNs, 'gloo', { gloo: { replicas: 2 } });
      const id = await installOperatorRbac(opNs, { fencingPolicy: v.fence });
      v.group = new Group(id, {
        prefix: `ho${n}`,
        args: [
          `--watch-namespaces=${v.watchNs}`,
          ...(v.fence ? ['--leader-elect-require-fencing-policy=true'] : []),
        ],
        root: v.root,
        podBound: true,
      });
      groups.push(v.group);
      log(
        `handover: ${v.label}: starting ${replicaCount} replicas (operator in ${opNs}, GlooHA in ${v.watchNs})`,
      );
      await Promise.all(Array.from({ length: replicaCount }, () => v.group!.add()));
      await waitUntil(
        `${v.label}: the GlooHA to be Ready`,
        () => getGlooHA(v.watchNs!, 'gloo'),
        (g) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
        120_000,
        200,
      );
    }
    // Round-robin: every variant sees the same load over the run.
    for (let i = 0; i < runs; i++) {
      for (const v of variants) {
        let r: HandoverRun | undefined;
        for (let attempt = 0; !r && attempt < 3; attempt++) {
          r = await handoverRun(plane, kc, v);
          if (!r) log(`handover ${v.label} run ${i + 1}: the old leader answered the request; again`);
        }
        if (!r) throw new Error(`${v.label}: the old leader answered the request three times in a row`);
        log(`handover ${v.label} run ${i + 1}/${runs}: ${JSON.stringify(r)}`);
        v.runs.push(r);
      }
    }
    for (const v of variants) await v.group!.stopAll();
    return variants.map((v) => {
      const pick = (k: keyof HandoverRun) =>
        v.runs.map((r) => r[k]).filter((x): x is number => typeof x === 'number');
      return {
        variant: v.label,
        fence: v.fence,
        runs: v.runs,
        firstWrite: summarize(pick('firstWriteMs')),
        startedLeading: summarize(pick('startedLeadingMs')),
        release: summarize(pick('releaseMs')),
        overlappingWrites: v.runs.reduce((a, r) => a + r.oldWritesAfterAcquire, 0),
        refusedOldWrites: v.runs.reduce((a, r) => a + r.oldWritesRefused, 0),
        load1: (() => {
          const l = pick('load1').sort((a, b) => a - b);
          return { min: l[0], median: l[Math.floor(l.length / 2)], max: l.at(-1) };
        })(),
      };
    });
  } finally {
    setControlPlane(undefined);
    if (baselineRoot) rmSync(baselineRoot, { recursive: true, force: true });
  }
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const fmt = (row: string[]) =>
    row
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n') + '\n';
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '5' },
      replicas: { type: 'string', default: '3' },
      suite: { type: 'string', default: 'all' },
      baseline: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      'usage: npx tsx bench/failover.ts [--runs N (default 5)] [--replicas N (default 3)]\n' +
        '         [--suite failover|handover|all (default all)] [--baseline GIT_REF (handover: also run that tree)]\n',
    );
    return;
  }
  const suites = values.suite === 'all' ? ['failover', 'handover'] : [values.suite];
  if (!suites.every((x) => x === 'failover' || x === 'handover'))
    throw new Error(`--suite must be failover, handover or all, got ${values.suite}`);
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

  let handover: Record<string, unknown>[] = [];
  const loadAtStart = loadavg();
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
    if (suites.includes('handover'))
      handover = await handoverSuite(plane, kc, runs, replicaCount, values.baseline, groups);
    for (const t of suites.includes('failover') ? TIMINGS : []) {
      const namespace = `bench-failover-${t.leaseMs / 1000}s-${Date.now().toString(36)}`;
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      const id: OperatorIdentity = {
        namespace,
        serviceAccount: 'admin',
        username: 'admin',
        kubeConfig: kc,
        kubeconfigPath: plane.kubeconfigPath,
      };
      const group = new Group(id, {
        prefix: `bench-${t.leaseMs / 1000}s`,
        args: [`--watch-namespaces=${namespace}`, ...t.args],
      });
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

  if (results.length > 0) {
    process.stdout.write(
      `\nFailover: signal to the leader → another replica logs 'started leading' (${replicaCount} replicas)\n`,
    );
    process.stdout.write(
      table(
        ['timings', 'mode', 'runs', 'median ms', 'p95 ms', 'min ms', 'max ms', 'after last renew (median)'],
        results.map((r) => [
          r.timings,
          `${r.mode} (${SIGNAL[r.mode]})`,
          String(r.failover.n),
          String(r.failover.median),
          String(r.failover.p95),
          String(r.failover.min),
          String(r.failover.max),
          r.takeoverAfterLastRenew ? `${r.takeoverAfterLastRenew.median} ms` : '-',
        ]),
      ),
    );
  }
  if (handover.length > 0) {
    process.stdout.write(
      `\nGraceful handover: SIGTERM to the leader → the new leader's first write (audit log), ${replicaCount} replicas, ` +
        `runs interleaved; load average ${loadAtStart.map((l) => l.toFixed(2)).join(' ')} at the start, ` +
        `${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')} at the end, ${cpus().length} CPUs\n`,
    );
    type H = {
      variant: string;
      firstWrite: Summary;
      startedLeading: Summary;
      release: Summary;
      overlappingWrites: number;
      refusedOldWrites: number;
      load1: { median?: number };
    };
    process.stdout.write(
      table(
        [
          'variant',
          'runs',
          'first write median ms',
          'p95',
          'min',
          'max',
          'started leading median',
          'release median',
          'overlapping writes',
          'refused old writes',
          'load1 median',
        ],
        (handover as H[]).map((h) => [
          h.variant,
          String(h.firstWrite.n),
          String(h.firstWrite.median),
          String(h.firstWrite.p95),
          String(h.firstWrite.min),
          String(h.firstWrite.max),
          String(h.startedLeading.median),
          String(h.release.median),
          String(h.overlappingWrites),
          String(h.refusedOldWrites),
          String(h.load1.median?.toFixed(2)),
        ]),
      ),
    );
  }

  const out = join(repoRoot, 'bench', 'results', 'failover.json');
  mkdirSync(join(repoRoot, 'bench', 'results'), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        loadavgAtStart: loadAtStart,
        loadavgAtEnd: loadavg(),
        replicas: replicaCount,
        runsPerCase: runs,
        totalSeconds: Math.round((Date.now() - started) / 1000),
        results,
        handover,
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
