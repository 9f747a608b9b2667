// Scale benchmark: one operator, started cold, facing N GlooHAs that already exist — how long until
// every install has its replicas applied, what that costs (API requests and writes per install, CPU,
// peak RSS, heap), how fast a spec change and a drift are handled once it has converged, and how quiet
// a steady-state window is — next to the floor the API server allows for the same writes.
//
//   npx tsx bench/scale.ts [--installs 10,100,500] [--mode cluster|namespaced|namespaced-wide-reads[,...]] [--concurrency C[,C...]]
//                          [--steady-seconds 60] [--samples 20] [--cold-samples 10] [--no-floor] [--operator-root [NAME=]DIR[,...]]
//                          [--node-flags "F[;F...]" ("image": the Dockerfile's ENTRYPOINT flags and ENV; limit=384Mi or
//                          limit=chart: in a memory cgroup as the chart's container, bench/memory-limit.ts)] [--repeat R] [--readme]
//   npm run bench:scale -- --installs 0,10 --operator-root bundle=DIR --node-flags ";--max-semi-space-size=1"
//                          --repeat 3 --no-floor --steady-seconds 20 --samples 5
//                          (the idle operator under V8 flags: each configuration 3 times, interleaved, medians)
//   npm run bench:scale -- --installs 500 --concurrency 4,8,16   (a sweep: one fresh control plane per row)
//   npm run bench:scale -- --installs 500 --list-page-size 0,50,500   (the caches' list page size, a sweep)
//
// Per value of --installs, on a fresh test control plane (test/env/controlplane.ts) whose controller
// manager runs without the Deployment and ReplicaSet controllers, so installs are Deployments without
// pods (the API server, not kwok, is what is measured):
//  1. N namespaces, each a simulated Gloo install (test/support/gloo-install.ts: `gloo` and
//     `gateway-proxy` Deployments), a `gloo` Lease renewed every 2 s by a simulated Gloo leader (as
//     Gloo does), and a GlooHA (gloo 3 replicas, a PDB, proxy 2 replicas). The operator's
//     ServiceAccount and RBAC come from the chart (cluster mode, or namespaced: a Role per namespace and
//     --watch-namespaces with all N; namespaced-wide-reads adds the chart's rbac.clusterWideReads, so
//     the operator serves the N namespaces from one watch per kind).
//  2. The operator is started cold as its own process (`node <root>/dist/src/main.js`, built first;
//     leader election on, as deployed), as that ServiceAccount. "all applied": every gloo and proxy
//     Deployment carries the replicas and the applied-hash annotation, seen by the bench's own watch.
//     Measured from the process start and from the "started leading" log line.
//     Meanwhile, under that load: K installs (--cold-samples, spread over the list) get a spec change
//     (gloo.replicas 3→5), one every 500 ms from the "started leading" line, while the backlog of
//     every install's first reconcile is being worked; each one's update → applied is timed. Those
//     issued before the last install was applied are the "update during the cold start" figures.
//  3. Cost of the cold start, once nothing has been reconciled for 3 s: API requests by method (the
//     operator's rest_client_requests_total), writes by resource (the API server's audit log, the
//     operator's own Lease excluded), CPU seconds (/proc/<pid>/stat), peak RSS (VmHWM), heap used.
//  4. Latency, one sample at a time across the installs: spec gloo.replicas 3→4 → applied; then
//     `kubectl scale`-style drift to 1 (field manager kubectl-scale, scale subresource) → restored.
//  5. Steady state: S seconds with nothing changing but the Leases: reconciles, requests, writes, CPU.
//  6. The floor: the operator is stopped; a bare client (the operator's one transport, as the same
//     ServiceAccount, so RBAC checks cost the same) makes exactly the writes the audit log recorded for
//     the cold start — same resources, verbs and order per install, bodies from the pure plan — on a
//     fresh set of N installs, the same number of installs at once as the operator's --concurrency, each
//     install's writes one after another.
// Prints one table row per run (with --repeat, then the medians per configuration, with where the idle
// RSS is: anonymous vs file-backed, what V8 keeps committed) and writes bench/results/scale-<mode>.json
// (with machine load). With
// --readme, the table also replaces the one between the bench/scale markers in docs/benchmarks.md, with the
// command line, the date and the load, so the README's figures are always a run's output.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { PatchStrategy, type KubernetesObject, type V1Deployment } from '@kubernetes/client-node';
import { API_VERSION, GROUP, MANAGER, VERSION } from '../src/api/constants.js';
import { KIND, PLURAL } from '../src/products/gloo/api.js';
import type { GlooHA, GlooHASpec } from '../src/products/gloo/types.js';
import { plan } from '../src/controller/plan.js';
import { GLOO } from '../src/products/gloo/index.js';
import { FINALIZER, APPLIED_ANNOTATION } from '../src/controller/plan-types.js';
import { KubeClient } from '../src/kube/client.js';
import { resourcePath } from '../src/kube/paths.js';
import { formatMicroTime } from '../src/leader/lease-client.js';
import { checkDockerfile } from '../scripts/check-dockerfile.js';
import { isLimitToken, limitBytes, memoryCgroup } from './memory-limit.js';
import { updatePaths, type UpdatePath, type UpdateSample } from './update-path.js';
import { startControlPlane, type ControlPlane } from '../test/env/controlplane.js';
import { auditWrites, type AuditEvent } from '../test/support/audit.js';
import { adminKubeConfig, createNamespace, installCrds, setControlPlane } from '../test/support/cluster.js';
import { createGlooInstall } from '../test/support/gloo-install.js';
import {
  installOperatorRbac,
  metricValue,
  repoRoot,
  requestsByMethod,
  type OperatorIdentity,
} from '../test/support/operator.js';

const SPEC: GlooHASpec = {
  gloo: { replicas: 3, podDisruptionBudget: { maxUnavailable: 1 } },
  gatewayProxies: { gatewayProxy: { replicas: 2 } },
};
const WANT: Record<string, number> = { gloo: 3, 'gateway-proxy': 2 };
/** How often a simulated Gloo leader renews its Lease (Gloo's retry period). */
const LEASE_RENEW_MS = 2000;
/** The gloo replicas the during-the-cold-start samples set (neither SPEC's 3 nor the later samples' 4). */
const COLD_REPLICAS = 5;
/** Between two during-the-cold-start samples, from the "started leading" line. */
const COLD_SAMPLE_SPACING_MS = 500;
/** Admin requests the bench keeps in flight while it sets things up. */
const SETUP_PARALLEL = 24;

const GC_PROBE = join(repoRoot, 'bench/gc-probe.mjs');

interface MemoryAfterGc {
  rssMB: number;
  heapUsedMB: number;
  /** Where the RSS is: anonymous pages (heap, malloc, stacks) and file-backed ones (node's code). */
  rssAnonMB: number;
  rssFileMB: number;
  /** What V8 keeps committed after the GC: all heap spaces, and the young generation alone. */
  heapCommittedMB: number;
  newSpaceCommittedMB: number;
  externalMB: number;
  mallocedMB: number;
  /** Anonymous RSS by mapping: glibc's brk heap, its per-thread arenas, the rest (V8, stacks). */
  anonBrkMB: number;
  anonArenasMB: number;
  anonOtherMB: number;
  threads: number;
}

/** The operator's memory after a full GC (bench/gc-probe.mjs, asked with SIGUSR2). */
async function memoryAfterGc(op: Operator, file: string): Promise<MemoryAfterGc> {
  const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);
  const before = lines().length;
  op.child.kill('SIGUSR2');
  await waitFor('the operator to report its memory after GC', () => lines().length > before, 30_000);
  const m = JSON.parse(lines().at(-1)!) as {
    rss: number;
    heapUsed: number;
    external: number;
    mallocedMemory?: number;
    rssAnon?: number;
    rssFile?: number;
    threads?: number;
    anonymous?: { brk: number; arenas: number; other: number };
    spaces?: Record<string, { committed: number }>;
  };
  const mb = (b: number | undefined) => (b === undefined ? NaN : Number((b / 2 ** 20).toFixed(1)));
  const spaces = Object.entries(m.spaces ?? {});
  return {
    rssMB: Math.round(m.rss / 2 ** 20),
    heapUsedMB: Math.round(m.heapUsed / 2 ** 20),
    rssAnonMB: mb(m.rssAnon),
    rssFileMB: mb(m.rssFile),
    heapCommittedMB: mb(spaces.reduce((n, [, s]) => n + s.committed, 0)),
    newSpaceCommittedMB: mb(
      spaces.filter(([k]) => k.startsWith('new_')).reduce((n, [, s]) => n + s.committed, 0),
    ),
    externalMB: mb(m.external),
    mallocedMB: mb(m.mallocedMemory),
    anonBrkMB: mb(m.anonymous?.brk),
    anonArenasMB: mb(m.anonymous?.arenas),
    anonOtherMB: mb(m.anonymous?.other),
    threads: m.threads ?? NaN,
  };
}

const t0Bench = performance.now();
const log = (line: string) =>
  process.stderr.write(`[scale +${((performance.now() - t0Bench) / 1000).toFixed(1)}s] ${line}\n`);

const DEPLOYMENTS = { group: 'apps', version: 'v1', plural: 'deployments' };
const GLOOHAS = { group: GROUP, version: VERSION, plural: PLURAL };
const LEASES = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };
const EVENTS = { group: '', version: 'v1', plural: 'events' };
/** Audit resource → the kind and API group the writer uses. */
const RESOURCES: Record<string, { group: string; version: string; kind: string }> = {
  deployments: { group: 'apps', version: 'v1', kind: 'Deployment' },
  poddisruptionbudgets: { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' },
  horizontalpodautoscalers: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
  roles: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' },
  rolebindings: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding' },
  configmaps: { group: '', version: 'v1', kind: 'ConfigMap' },
};

// ---------------------------------------------------------------------------------------------------
// Small helpers

async function pool<T>(items: readonly T[], n: number, fn: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

/** p50 and max of each part of the updates' paths, and how many samples the audit log split. */
function updatePathFigures(paths: UpdatePath[]): Record<string, number | [number, number]> {
  const parts = ['totalMs', 'sentMs', 'userPatchMs', 'operatorMs', 'writeMs', 'seenMs'] as const;
  const figures: Record<string, number | [number, number]> = { split: paths.length };
  for (const p of parts) {
    const v = paths.map((x) => x[p]);
    figures[p] = v.length === 0 ? [0, 0] : [Math.round(median(v)), Math.round(Math.max(...v))];
  }
  return figures;
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

const median = (values: number[]) => percentile(values, 50);

async function waitFor(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

function procStatus(pid: number): { rssKb: number; hwmKb: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

/** utime + stime of `pid`, in seconds. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
}

const diff = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.keys({ ...a, ...b }).map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)]));
const total = (r: Record<string, number>) => Object.values(r).reduce((x, y) => x + y, 0);

function countBy(events: AuditEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) {
    const r = e.objectRef ?? {};
    const k = `${e.verb} ${r.resource}${r.subresource ? '/' + r.subresource : ''}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The bench's view of the Deployments: when each install had its replicas applied.

class Deployments {
  /** namespace/name → latest object */
  readonly latest = new Map<string, V1Deployment>();
  private readonly waiters = new Set<{
    key: string;
    ok: (d: V1Deployment) => boolean;
    done: (t: number) => void;
  }>();
  private abort?: AbortController;
  private stopped = false;
  /** Watches the API server closed under load and the bench opened again. */
  restarts = 0;

  constructor(private readonly client: KubeClient) {}

  /**
   * One watch of the installs' Deployments. A loaded API server closes watches (at 1000 installs it
   * did, and the bench then waited for events that never came): a closed one is opened again without
   * a resourceVersion, which delivers every current Deployment as ADDED first, so nothing in between
   * is missed (an install applied meanwhile is seen at the reopening, a little later than it was).
   */
  async start(): Promise<void> {
    this.abort = await this.client.watch(
      resourcePath(DEPLOYMENTS),
      { labelSelector: 'app=gloo', allowWatchBookmarks: false, timeoutSeconds: 3600 },
      (type: string, d: V1Deployment) => this.onEvent(type, d),
      () => {
        if (this.stopped) return;
        this.restarts++;
        this.reopen(500);
      },
    );
  }

  /** Opens the watch again after `delayMs`, and again a second later for as long as that fails. */
  private reopen(delayMs: number): void {
    setTimeout(() => {
      if (!this.stopped) this.start().catch(() => this.reopen(1000));
    }, delayMs);
  }

  private onEvent(type: string, d: V1Deployment): void {
    const at = performance.now();
    const key = `${d.metadata?.namespace}/${d.metadata?.name}`;
    if (type === 'DELETED') return void this.latest.delete(key);
    if (type !== 'ADDED' && type !== 'MODIFIED') return;
    this.latest.set(key, d);
    for (const w of this.waiters) {
      if (w.key === key && w.ok(d)) {
        this.waiters.delete(w);
        w.done(at);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  /** Arrival time of the first version of `key` that `ok`s (now, if the latest one does). */
  until(key: string, ok: (d: V1Deployment) => boolean, timeoutMs: number): Promise<number> {
    const cur = this.latest.get(key);
    if (cur && ok(cur)) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const w = {
        key,
        ok,
        done: (t: number) => {
          clearTimeout(timer);
          resolve(t);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(w);
        reject(new Error(`timed out waiting for ${key}`));
      }, timeoutMs);
      this.waiters.add(w);
    });
  }
}

const appliedWith = (replicas: number) => (d: V1Deployment) =>
  d.spec?.replicas === replicas && Boolean(d.metadata?.annotations?.[APPLIED_ANNOTATION]);

// ---------------------------------------------------------------------------------------------------
// One run

const MODES = ['cluster', 'namespaced', 'namespaced-wide-reads'] as const;
type Mode = (typeof MODES)[number];

interface RunOptions {
  installs: number;
  mode: Mode;
  concurrency?: number;
  /**
   * The caches' list page size (GLOOHA_LIST_PAGE_SIZE: an operator that predates it ignores the
   * variable and lists as it always did); undefined: the operator's default.
   */
  listPageSize?: number;
  steadySeconds: number;
  samples: number;
  /** Installs updated during the cold start (0: none). */
  coldSamples: number;
  floor: boolean;
  operatorRoot: string;
  /** The root's name in the table (`before`, `after`, `bundle`: --operator-root NAME=DIR). */
  rootName: string;
  /**
   * Flags for node before the script (e.g. V8 heap sizing), as an image's ENTRYPOINT would pass them;
   * a NAME=VALUE token is set in the operator's environment instead (e.g. MALLOC_ARENA_MAX=2).
   */
  nodeFlags: string[];
  /** Which pass over the whole matrix this row belongs to (--repeat). */
  round: number;
}

/** The image's ENTRYPOINT flags for node, then its final stage's ENV as NAME=VALUE tokens. */
function imageNodeFlags(): string[] {
  const { nodeFlags, finalStage } = checkDockerfile();
  const env = finalStage.instructions.filter((i) => i.keyword === 'ENV').flatMap((i) => i.args.split(/\s+/));
  return [...nodeFlags, ...env.filter(isEnvToken)];
}

/** A --node-flags token that names an environment variable (NAME=VALUE), not a flag for node. */
const isEnvToken = (t: string) => /^[A-Z_][A-Z0-9_]*=/.test(t);

interface Operator {
  child: ChildProcess;
  startedAt: number;
  metricsUrl: Promise<string>;
  marks: Record<string, number>;
  peakRssKb: number;
  /** VmHWM when the operator logged "caches synced": the peak of its first list of every kind. */
  syncedHwmKb: number;
  sampler: NodeJS.Timeout;
  stderrTail: string[];
  /** Terms this replica lost while running (the elector's `stopped leading`, not at its own shutdown). */
  lostTerms: number;
}

/** Memory cgroups made so far by this bench process (their names). */
let cgroups = 0;

function spawnOperator(
  id: OperatorIdentity,
  args: string[],
  root: string,
  nodeFlags: string[],
  logPath: string,
  gcFile: string,
  extraEnv: Record<string, string> = {},
): Operator {
  // The whole log goes to a file (the tail is kept for errors): a slow or stuck run is read there.
  const logFile = createWriteStream(logPath);
  // bench/gc-probe.mjs (preloaded, outside the root under test) answers SIGUSR2 with the memory after
  // a full GC; --expose-gc only makes gc() callable, it changes nothing about when V8 collects.
  const env = Object.fromEntries(
    nodeFlags.filter(isEnvToken).map((t) => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)]),
  );
  const argv = [
    process.execPath,
    ...nodeFlags.filter((t) => !isEnvToken(t) && !isLimitToken(t)),
    '--expose-gc',
    '--import',
    GC_PROBE,
    join(root, 'dist/src/main.js'),
    `--kubeconfig=${id.kubeconfigPath}`,
    '--metrics-bind-address=127.0.0.1:0',
    `--leader-elect-namespace=${id.namespace}`,
    ...args,
  ];
  // limit=SIZE: in a memory cgroup, as a container with that limits.memory (bench/memory-limit.ts).
  const limit = nodeFlags.find(isLimitToken);
  const cgroup =
    limit === undefined
      ? undefined
      : memoryCgroup(`glooha-scale-bench-${process.pid}-${++cgroups}`, limitBytes(limit, repoRoot));
  const { command, args: commandArgs } = cgroup?.wrap(argv) ?? { command: argv[0]!, args: argv.slice(1) };
  const child = spawn(command, commandArgs, {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      ...extraEnv,
      POD_NAME: 'scale-bench',
      LOG_LEVEL: 'info',
      GLOOHA_BENCH_GC_FILE: gcFile,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (cgroup)
    child.once('exit', () => {
      try {
        cgroup.remove();
      } catch (err) {
        log(`memory cgroup not removed: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  const startedAt = performance.now();
  let resolveUrl: (u: string) => void = () => {};
  const metricsUrl = new Promise<string>((r) => (resolveUrl = r));
  const marks: Record<string, number> = {};
  const op: Operator = {
    child,
    startedAt,
    metricsUrl,
    marks,
    peakRssKb: 0,
    syncedHwmKb: NaN,
    sampler: undefined!,
    stderrTail: [],
    lostTerms: 0,
  };
  let buf = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    logFile.write(chunk);
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      op.stderrTail.push(line);
      if (op.stderrTail.length > 30) op.stderrTail.shift();
      try {
        const rec = JSON.parse(line) as { msg?: string; url?: string; component?: string; reason?: string };
        const msg = rec.msg ?? '';
        if (msg.startsWith('serving /metrics') && rec.url) resolveUrl(rec.url);
        if (
          msg.startsWith('stopped leading') &&
          rec.component === 'leader-election' &&
          rec.reason !== 'shutdown'
        )
          op.lostTerms++;
        for (const m of ['caches synced', 'started leading']) {
          if (msg.startsWith(m) && marks[m] === undefined) marks[m] = performance.now() - startedAt;
        }
        if (msg.startsWith('caches synced') && Number.isNaN(op.syncedHwmKb)) {
          try {
            op.syncedHwmKb = procStatus(child.pid!).hwmKb;
          } catch {
            // exited
          }
        }
      } catch {
        // not JSON: kept in the tail only
      }
    }
  });
  op.sampler = setInterval(() => {
    try {
      op.peakRssKb = Math.max(op.peakRssKb, procStatus(child.pid!).rssKb);
    } catch {
      // exited
    }
  }, 200);
  return op;
}

async function stopOperator(op: Operator): Promise<void> {
  clearInterval(op.sampler);
  if (op.child.exitCode !== null) return;
  const exited = new Promise((r) => op.child.once('exit', r));
  op.child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000)]);
  if (op.child.exitCode === null) op.child.kill('SIGKILL');
}

async function createInstalls(admin: KubeClient, namespaces: string[], spec: GlooHASpec): Promise<void> {
  const kc = adminKubeConfig();
  await pool(namespaces, SETUP_PARALLEL, async (ns) => {
    await admin.request('POST', resourcePath({ group: '', version: 'v1', plural: 'namespaces' }), {
      body: { metadata: { name: ns } },
    });
  });
  await pool(namespaces, SETUP_PARALLEL, (ns) => createGlooInstall(kc, { namespace: ns }));
  await pool(namespaces, SETUP_PARALLEL, async (ns) => {
    await admin.request('POST', resourcePath(GLOOHAS, ns), {
      body: { apiVersion: API_VERSION, kind: KIND, metadata: { name: 'gloo', namespace: ns }, spec },
    });
  });
}

/** A simulated Gloo leader per namespace renewing its `gloo` Lease every 2 s. Returns a stop function. */
async function renewLeases(
  admin: KubeClient,
  namespaces: string[],
): Promise<{ stop(): void; stats: { renewals: number; errors: number } }> {
  const now = () => formatMicroTime(new Date());
  await pool(namespaces, SETUP_PARALLEL, async (ns, i) => {
    await admin.request('POST', resourcePath(LEASES, ns), {
      body: {
        metadata: { name: 'gloo', namespace: ns },
        spec: {
          holderIdentity: `gloo-${i}`,
          leaseDurationSeconds: 15,
          acquireTime: now(),
          renewTime: now(),
          leaseTransitions: 0,
        },
      },
    });
  });
  const stats = { renewals: 0, errors: 0 };
  // Each simulated leader renews as client-go's elector does: one request at a time, the next one a
  // retry period after the previous one started (at once if it took longer). A timer that fired
  // every 2 s regardless piled renewals up behind a slow API server (5,363 requests executing at once
  // in a 500-install run), which starved the operator and made that run never converge.
  const stopped = new AbortController();
  const renewer = async (ns: string, offsetMs: number) => {
    await sleep(offsetMs, undefined, { signal: stopped.signal }).catch(() => {});
    while (!stopped.signal.aborted) {
      const started = performance.now();
      await admin
        .request('PATCH', resourcePath(LEASES, ns, 'gloo'), {
          body: { spec: { renewTime: now() } },
          contentType: PatchStrategy.MergePatch,
        })
        .then(
          () => stats.renewals++,
          () => stats.errors++,
        );
      const wait = Math.max(0, LEASE_RENEW_MS - (performance.now() - started));
      await sleep(wait, undefined, { signal: stopped.signal }).catch(() => {});
    }
  };
  // Spread over one period, as independent Gloo installs are.
  namespaces.forEach((ns, i) => void renewer(ns, (i * LEASE_RENEW_MS) / namespaces.length));
  return { stop: () => stopped.abort(), stats };
}

async function quiet(metricsUrl: string, forMs: number, timeoutMs: number): Promise<void> {
  const reconciles = () =>
    metricValue(metricsUrl, 'controller_runtime_reconcile_total', { controller: 'glooha' });
  await waitFor(
    `no reconcile for ${forMs} ms`,
    async () => {
      const a = await reconciles();
      await sleep(forMs);
      return a === (await reconciles());
    },
    timeoutMs,
  );
}

async function runOne(o: RunOptions) {
  log(
    `=== ${o.installs} installs, ${o.mode} mode, --concurrency=${o.concurrency ?? 'default'}, ` +
      `list page size ${o.listPageSize ?? 'default'}`,
  );
  const loadAtStart = loadavg();
  const plane: ControlPlane = await startControlPlane({ log, nodes: 1, workloads: false });
  setControlPlane(plane);
  const cleanups: (() => Promise<void> | void)[] = [
    async () => {
      setControlPlane(undefined);
      await plane.stop();
    },
  ];
  const runCleanups = async () => {
    for (const c of cleanups.splice(0)) {
      try {
        await c();
      } catch (err) {
        log(`cleanup: ${String(err)}`);
      }
    }
  };
  // Interrupted (Ctrl-C, a CI timeout): stop the operator and the control plane before exiting, or
  // they keep running — an API server at full CPU — after the bench is gone.
  const onSignal = (signal: NodeJS.Signals) =>
    void runCleanups().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const admin = new KubeClient(adminKubeConfig());
    cleanups.unshift(() => admin.close());
    const opNs = await createNamespace('glooha-system');
    const namespaces = Array.from({ length: o.installs }, (_, i) => `scale-${i}`);
    await installCrds();
    log('creating the installs');
    await createInstalls(admin, namespaces, SPEC);
    const leases = await renewLeases(admin, namespaces);
    cleanups.unshift(() => leases.stop());
    // The chart's Lease FlowSchema too, as a default install has it: the leader's renewals are served at
    // the API server's leader-election priority level, not queued behind the reconciles' writes.
    const id = await installOperatorRbac(opNs, {
      flowSchema: true,
      ...(o.mode === 'cluster'
        ? {}
        : { watchNamespaces: namespaces, clusterWideReads: o.mode === 'namespaced-wide-reads' }),
    });
    const deployments = new Deployments(admin);
    await deployments.start();
    cleanups.unshift(() => deployments.stop());

    // --- cold start ---------------------------------------------------------------------------------
    const args = [
      ...(o.concurrency ? [`--concurrency=${o.concurrency}`] : []),
      ...(o.mode === 'cluster' ? [] : [`--watch-namespaces=${namespaces.join(',')}`]),
    ];
    const since = new Date(Date.now() - 1000);
    const logPath = join(
      tmpdir(),
      `glooha-scale-${o.rootName}-${o.installs}-${o.mode}-c${o.concurrency ?? 'default'}` +
        `${o.listPageSize === undefined ? '' : `-p${o.listPageSize}`}` +
        `${o.nodeFlags.length > 0 ? '-' + o.nodeFlags.join('_').replace(/[^\w=.-]+/g, '') : ''}-r${o.round}.log`,
    );
    log(`operator log: ${logPath}`);
    const gcFile = `${logPath}.gc.jsonl`;
    rmSync(gcFile, { force: true });
    const op = spawnOperator(
      id,
      args,
      o.operatorRoot,
      o.nodeFlags,
      logPath,
      gcFile,
      o.listPageSize === undefined ? {} : { GLOOHA_LIST_PAGE_SIZE: String(o.listPageSize) },
    );
    cleanups.unshift(() => stopOperator(op));
    // Spread over the installs (and so over the list order the backlog is worked in), not the first.
    const coldK = Math.min(o.coldSamples, o.installs);
    const coldSampled = Array.from(
      { length: coldK },
      (_, j) => namespaces[Math.floor(((j + 0.5) * o.installs) / coldK)]!,
    );
    const changedDuringCold = new Set(coldSampled);
    // A sampled install may be changed before its first reconcile: then its first apply is already the change.
    const coldApplied = (ns: string, d: string, r: number) =>
      changedDuringCold.has(ns) && d === 'gloo'
        ? (x: V1Deployment) => appliedWith(r)(x) || appliedWith(COLD_REPLICAS)(x)
        : appliedWith(r);
    const duringCold = (async () => {
      await waitFor('the operator to lead', () => op.marks['started leading'] !== undefined, 300_000);
      return Promise.all(
        coldSampled.map(async (ns, j) => {
          await sleep(COLD_SAMPLE_SPACING_MS * (j + 1));
          const t0 = performance.now();
          await admin.request('PATCH', resourcePath(GLOOHAS, ns, 'gloo'), {
            body: { spec: { gloo: { replicas: COLD_REPLICAS } } },
            contentType: PatchStrategy.MergePatch,
          });
          const t = await deployments.until(`${ns}/gloo`, appliedWith(COLD_REPLICAS), 900_000);
          return { ns, issuedMs: t0 - op.startedAt, ms: t - t0 };
        }),
      );
    })();
    const appliedAt = await Promise.all(
      namespaces.map((ns) =>
        Promise.all(
          Object.entries(WANT).map(([d, r]) =>
            deployments.until(`${ns}/${d}`, coldApplied(ns, d, r), 900_000),
          ),
        ).then((ts) => Math.max(...ts) - op.startedAt),
      ),
    );
    const coldUpdates = await duringCold;
    // No installs: "applied" is when it leads (what an idle operator does before it has work).
    if (o.installs === 0)
      await waitFor('the operator to lead', () => op.marks['started leading'] !== undefined, 120_000);
    const allAppliedMs = o.installs === 0 ? (op.marks['started leading'] ?? NaN) : Math.max(...appliedAt);
    const leadingMs = op.marks['started leading'] ?? NaN;
    log(
      `all applied ${Math.round(allAppliedMs)} ms after the process start (leading at ${Math.round(leadingMs)} ms)` +
        (deployments.restarts > 0
          ? `; the bench's watch was closed and reopened ${deployments.restarts}×`
          : ''),
    );
    // Only the changes made while installs were still waiting for their first apply measure the backlog.
    const inBacklog = coldUpdates.filter((u) => u.issuedMs < allAppliedMs).map((u) => u.ms);
    if (coldK > 0)
      log(
        `update → applied during the cold start (${inBacklog.length} of ${coldK} issued before all applied): ` +
          `p50 ${median(inBacklog).toFixed(0)} ms, max ${Math.max(...inBacklog).toFixed(0)} ms`,
      );
    const metricsUrl = await op.metricsUrl;
    await quiet(metricsUrl, 3000, 600_000);
    const pid = op.child.pid!;
    const coldCpu = cpuSeconds(pid);
    const coldRequests = await requestsByMethod(metricsUrl);
    const coldStatus = procStatus(pid);
    const heapAfterCold = await metricValue(metricsUrl, 'nodejs_heap_size_used_bytes');
    // A count, unlike the times: stable on a noisy machine (the reconciles a cold start needs per install).
    const coldReconciles = await metricValue(metricsUrl, 'controller_runtime_reconcile_total', {
      controller: 'glooha',
    });
    const coldUntil = new Date();
    await sleep(300);
    const isOwnLease = (e: AuditEvent) =>
      e.objectRef?.resource === 'leases' && e.objectRef.namespace === id.namespace;
    const coldWrites = auditWrites({ username: id.username, since, until: coldUntil }).filter(
      (e) => !isOwnLease(e),
    );

    // --- latency --------------------------------------------------------------------------------------
    const samples = Math.min(o.samples, o.installs);
    // Spread over the installs; the bare client's samples (updateFloor) are the same namespaces.
    const sampled = Array.from(
      { length: samples },
      (_, j) => namespaces[Math.floor((j * o.installs) / samples)]!,
    );
    const update: number[] = [];
    const drift: number[] = [];
    const updateSamples: UpdateSample[] = [];
    const samplesSince = new Date();
    // The bench's own event loop (it also renews 500 simulated Gloo leaders' Leases): a stall here
    // delays the PATCH it sends and the watch event it reads, not the operator.
    const benchLoop = monitorEventLoopDelay({ resolution: 10 });
    benchLoop.enable();
    for (const ns of sampled) {
      const sentAt = Date.now();
      const t0 = performance.now();
      await admin.request('PATCH', resourcePath(GLOOHAS, ns, 'gloo'), {
        body: { spec: { gloo: { replicas: 4 } } },
        contentType: PatchStrategy.MergePatch,
      });
      const ms = (await deployments.until(`${ns}/gloo`, appliedWith(4), 60_000)) - t0;
      update.push(ms);
      updateSamples.push({ ns, sentAt, seenAt: sentAt + ms });
      const t1 = performance.now();
      await admin.request('PATCH', resourcePath(DEPLOYMENTS, ns, 'gloo', 'scale'), {
        body: { spec: { replicas: 1 } },
        contentType: PatchStrategy.MergePatch,
        query: { fieldManager: 'kubectl-scale' },
      });
      drift.push((await deployments.until(`${ns}/gloo`, (d) => d.spec?.replicas === 4, 60_000)) - t1);
    }
    log(
      `update → applied p50 ${median(update).toFixed(0)} ms; drift → restored p50 ${median(drift).toFixed(0)} ms`,
    );
    benchLoop.disable();
    const benchLoopMs = {
      p50: Math.round(benchLoop.percentile(50) / 1e6),
      p99: Math.round(benchLoop.percentile(99) / 1e6),
      max: Math.round(benchLoop.max / 1e6),
    };
    log(`the bench's event-loop delay during the samples (ms): ${JSON.stringify(benchLoopMs)}`);
    await sleep(300);
    const paths = updatePaths(updateSamples, auditWrites({ since: samplesSince }), {
      operator: id.username,
      plural: PLURAL,
      name: 'gloo',
    });
    const pathFigures = updatePathFigures(paths);
    log(`update path (p50/max ms): ${JSON.stringify(pathFigures)}`);

    // --- steady state ---------------------------------------------------------------------------------
    await quiet(metricsUrl, 4000, 300_000);
    const reconciles = () =>
      metricValue(metricsUrl, 'controller_runtime_reconcile_total', { controller: 'glooha' });
    const s0 = {
      r: await reconciles(),
      req: await requestsByMethod(metricsUrl),
      cpu: cpuSeconds(pid),
      renewals: leases.stats.renewals,
    };
    const steadySince = new Date();
    await sleep(o.steadySeconds * 1000);
    const s1 = {
      r: await reconciles(),
      req: await requestsByMethod(metricsUrl),
      cpu: cpuSeconds(pid),
      renewals: leases.stats.renewals,
    };
    const steadyUntil = new Date();
    await sleep(300);
    const steadyWrites = auditWrites({
      username: id.username,
      since: steadySince,
      until: steadyUntil,
    }).filter((e) => !isOwnLease(e));
    const final = procStatus(pid);
    const totalCpu = cpuSeconds(pid);
    const heapAtEnd = await metricValue(metricsUrl, 'nodejs_heap_size_used_bytes');
    const idleAfterGc = await memoryAfterGc(op, gcFile);
    const eventLoopLagP99Ms = Math.round(
      (await metricValue(metricsUrl, 'nodejs_eventloop_lag_p99_seconds')) * 1000,
    );
    await stopOperator(op);
    const leaseRequestsAtLeaderElection = await dispatchedBy(admin, id.flowSchema);
    const floorUpdate = await updateFloor(admin, deployments, sampled);
    if (floorUpdate.length > 0)
      log(
        `update → applied by a bare client (the operator stopped): p50 ${median(floorUpdate).toFixed(0)} ms, p99 ${percentile(floorUpdate, 99).toFixed(0)} ms`,
      );

    // --- floor ----------------------------------------------------------------------------------------
    let floorMs: number | undefined;
    // Namespaced RBAC reaches only the watched namespaces, not a fresh set: the floor is a cluster-mode figure.
    if (o.floor && o.mode === 'cluster' && o.installs > 0)
      floorMs = await floor(admin, id, namespaces, coldWrites, o.concurrency ?? 4).catch((err: unknown) => {
        // A failed floor (a setup request timing out on a loaded machine) still leaves the operator's figures.
        log(`floor failed: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      });

    const perInstall = (x: number) => Number((x / o.installs).toFixed(2));
    return {
      installs: o.installs,
      mode: o.mode,
      concurrency: o.concurrency ?? 'default',
      listPageSize: o.listPageSize ?? 'default',
      operatorRoot: o.operatorRoot,
      rootName: o.rootName,
      nodeFlags: o.nodeFlags,
      round: o.round,
      cold: {
        cachesSyncedMs: Math.round(op.marks['caches synced'] ?? NaN),
        startedLeadingMs: Math.round(leadingMs),
        allAppliedMs: Math.round(allAppliedMs),
        allAppliedAfterLeadingMs: Math.round(allAppliedMs - leadingMs),
        appliedAfterLeadingP50Ms: Math.round(median(appliedAt) - leadingMs),
        appliedAfterLeadingP99Ms: Math.round(percentile(appliedAt, 99) - leadingMs),
        cpuSeconds: coldCpu,
        requests: coldRequests,
        requestsPerInstall: perInstall(total(coldRequests)),
        writes: countBy(coldWrites),
        writesPerInstall: perInstall(coldWrites.length),
        reconcilesPerInstall: perInstall(coldReconciles),
        peakRssMB: Math.round(op.peakRssKb / 1024),
        /** The peak RSS (VmHWM) when the caches had synced: the first lists' share of the peak. */
        syncedPeakRssMB: Math.round(op.syncedHwmKb / 1024),
        vmHwmMB: Math.round(coldStatus.hwmKb / 1024),
        heapUsedMB: Math.round(heapAfterCold / 2 ** 20),
      },
      floorMs,
      ratioToFloor: floorMs ? Number((allAppliedMs - leadingMs) / floorMs).toFixed(2) : undefined,
      /** Spec changes made while the cold start's backlog was being worked (see the header, step 2). */
      duringCold: {
        samples: coldK,
        inBacklog: inBacklog.length,
        updateP50Ms: Math.round(median(inBacklog)),
        updateP99Ms: Math.round(percentile(inBacklog, 99)),
        updates: coldUpdates.map((u) => ({
          ns: u.ns,
          issuedAfterLeadingMs: Math.round(u.issuedMs - leadingMs),
          ms: Math.round(u.ms),
        })),
      },
      latency: {
        samples,
        updateP50Ms: Math.round(median(update)),
        updateP99Ms: Math.round(percentile(update, 99)),
        driftP50Ms: Math.round(median(drift)),
        driftP99Ms: Math.round(percentile(drift, 99)),
        update: update.map(Math.round),
        drift: drift.map(Math.round),
        /** Each update split at the audit log's timestamps (bench/update-path.ts), p50 and max of each part. */
        path: pathFigures,
        paths,
        benchEventLoopDelayMs: benchLoopMs,
        /** The same samples by a bare client once the operator stopped (updateFloor). */
        floorP50Ms: floorUpdate.length > 0 ? Math.round(median(floorUpdate)) : undefined,
        floorP99Ms: floorUpdate.length > 0 ? Math.round(percentile(floorUpdate, 99)) : undefined,
        floor: floorUpdate.map(Math.round),
      },
      steady: {
        seconds: o.steadySeconds,
        reconciles: s1.r - s0.r,
        requests: diff(s0.req, s1.req),
        requestsPerMinute: Math.round((total(diff(s0.req, s1.req)) * 60) / o.steadySeconds),
        writes: steadyWrites.length,
        cpuPercent: Number((((s1.cpu - s0.cpu) / o.steadySeconds) * 100).toFixed(1)),
        /** CPU seconds from the process start to the end of the steady window (cold start, latency samples, steady). */
        cpuSecondsSinceStart: totalCpu,
        glooLeaseRenewals: s1.renewals - s0.renewals,
      },
      memoryAtEnd: {
        vmHwmMB: Math.round(final.hwmKb / 1024),
        rssMB: Math.round(final.rssKb / 1024),
        heapUsedMB: Math.round(heapAtEnd / 2 ** 20),
        /** After the steady window, after a full GC: what the idle operator holds. */
        afterGc: idleAfterGc,
      },
      leader: {
        /** Terms the operator lost while it ran (each throws away the work in flight). */
        lostTerms: op.lostTerms,
        /** The operator's Lease requests the API server dispatched through the chart's FlowSchema. */
        leaseRequestsAtLeaderElection,
        /** prom-client's event-loop delay p99 since the process started. */
        eventLoopLagP99Ms,
      },
      benchWatchReopened: deployments.restarts,
      machine: {
        loadavgAtStart: loadAtStart,
        loadavgAtEnd: loadavg(),
        cpus: cpus().length,
        totalMemMB: Math.round(totalmem() / 2 ** 20),
        freeMemMBAtEnd: Math.round(freemem() / 2 ** 20),
      },
    };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await runCleanups();
  }
}

/**
 * Requests the API server dispatched through one FlowSchema (its apiserver_flowcontrol_dispatched_requests_total),
 * at the leader-election priority level: proof that the chart's FlowSchema carried the operator's Lease requests.
 */
async function dispatchedBy(admin: KubeClient, flowSchema: string | undefined): Promise<number> {
  if (!flowSchema) return 0;
  const text = await admin.request<string>('GET', '/metrics');
  let sum = 0;
  for (const line of String(text).split('\n')) {
    if (!line.startsWith('apiserver_flowcontrol_dispatched_requests_total{')) continue;
    if (!line.includes(`flow_schema="${flowSchema}"`) || !line.includes('priority_level="leader-election"'))
      continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * The update → applied a bare client allows under the same load: after the operator stopped, a watch
 * of the GlooHAs in this process that, on a change of `spec.gloo.replicas`, server-side applies that
 * count to the install's Deployment (one write, as the operator's). The same samples as the
 * operator's, to 5 replicas. Not a bound on the operator (the client shares the bench's event loop
 * and writes one field, not the whole Deployment), but what this machine's API server and the bench's
 * watch add on their own: the part of the operator's figure it cannot remove.
 */
async function updateFloor(
  admin: KubeClient,
  deployments: Deployments,
  sampled: string[],
): Promise<number[]> {
  const replicas = 5;
  const armed = new Set<string>();
  let finished = false;
  const watch = await admin.watch(
    resourcePath(GLOOHAS),
    { allowWatchBookmarks: false, timeoutSeconds: 600 },
    (type: string, g: GlooHA & KubernetesObject) => {
      const ns = g.metadata?.namespace ?? '';
      if (type !== 'MODIFIED' || !armed.has(ns) || g.spec?.gloo?.replicas !== replicas) return;
      armed.delete(ns);
      void admin
        .request('PATCH', resourcePath(DEPLOYMENTS, ns, 'gloo'), {
          body: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'gloo', namespace: ns },
            spec: { replicas },
          },
          contentType: PatchStrategy.ServerSideApply,
          query: { fieldManager: 'bench-floor', force: true },
        })
        // The bench's watch may see the write before its response is read; an error once done is not news.
        .catch((err: unknown) => finished || log(`update floor: ${ns}: ${String(err)}`));
    },
    () => {},
  );
  const out: number[] = [];
  try {
    for (const ns of sampled) {
      armed.add(ns);
      const t0 = performance.now();
      await admin.request('PATCH', resourcePath(GLOOHAS, ns, 'gloo'), {
        body: { spec: { gloo: { replicas } } },
        contentType: PatchStrategy.MergePatch,
      });
      out.push((await deployments.until(`${ns}/gloo`, (d) => d.spec?.replicas === replicas, 60_000)) - t0);
    }
  } finally {
    finished = true;
    watch.abort();
  }
  return out;
}

/**
 * The floor: the operator's cold-start writes (from the audit log), replayed by a bare client as the
 * same ServiceAccount on a fresh set of installs, `concurrency` installs at a time, each install's
 * writes in the operator's order. Returns the time the whole replay took.
 */
async function floor(
  admin: KubeClient,
  id: OperatorIdentity,
  operatorNamespaces: string[],
  writes: AuditEvent[],
  concurrency: number,
): Promise<number> {
  const fresh = operatorNamespaces.map((_, i) => `floor-${i}`);
  log('floor: creating a fresh set of installs');
  // Without the operator running, these GlooHAs are never reconciled: only the replay writes to them.
  await createInstalls(admin, fresh, SPEC);
  const byNs = new Map<string, AuditEvent[]>();
  for (const e of writes) {
    const ns = e.objectRef?.namespace ?? '';
    byNs.set(ns, [...(byNs.get(ns) ?? []), e]);
  }
  // Bodies: what the pure plan wants for each fresh install (no cache, no runtime: a list per install).
  const bodies = new Map<string, Map<string, KubernetesObject>>();
  let sampleStatus: unknown = { observedGeneration: 1 };
  await pool(fresh, SETUP_PARALLEL, async (ns) => {
    const g = await admin.request<GlooHA & KubernetesObject>('GET', resourcePath(GLOOHAS, ns, 'gloo'));
    const deps = await admin.request<{ items: V1Deployment[] }>('GET', resourcePath(DEPLOYMENTS, ns));
    const p = plan(
      {
        key: `${ns}/gloo`,
        object: { ...g, metadata: { ...g.metadata, finalizers: [FINALIZER] } },
        sameNamespace: [],
        deployments: deps.items,
        hpas: [],
        pdbs: [],
        owned: new Map(),
        leader: undefined,
        lastCorrections: [],
        ownApplies: new Map(),
        now: new Date(),
      },
      GLOO,
    );
    bodies.set(ns, new Map(p.applies.map((a) => [`${a.body.kind}/${a.body.metadata?.name}`, a.body])));
    if (p.status) sampleStatus = p.status;
  });
  const client = new KubeClient(id.kubeConfig);
  const ts = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const send = async (ns: string, e: AuditEvent) => {
    const r = e.objectRef ?? {};
    const name = r.name ?? '';
    if (r.resource === 'events' && e.verb === 'create') {
      await client.request('POST', resourcePath(EVENTS, ns), {
        body: {
          metadata: { name: `gloo.${Math.random().toString(16).slice(2)}`, namespace: ns },
          involvedObject: { apiVersion: API_VERSION, kind: KIND, name: 'gloo', namespace: ns },
          type: 'Normal',
          reason: 'Created',
          message: 'floor',
          source: { component: MANAGER },
          firstTimestamp: ts(),
          lastTimestamp: ts(),
          count: 1,
        },
      });
    } else if (r.resource === PLURAL && r.subresource === 'status') {
      await client.request('PATCH', resourcePath(GLOOHAS, ns, name, 'status'), {
        body: [{ op: 'add', path: '/status', value: sampleStatus }],
        contentType: PatchStrategy.JsonPatch,
      });
    } else if (r.resource === PLURAL) {
      await client.request('PATCH', resourcePath(GLOOHAS, ns, name), {
        body: { metadata: { finalizers: [FINALIZER] } },
        contentType: PatchStrategy.MergePatch,
      });
    } else if (r.resource && RESOURCES[r.resource] && e.verb === 'patch') {
      const info = RESOURCES[r.resource]!;
      const body = bodies.get(ns)?.get(`${info.kind}/${name}`);
      if (!body) throw new Error(`floor: no planned body for ${info.kind} ${ns}/${name}`);
      await client.request('PATCH', resourcePath({ ...info, plural: r.resource }, ns, name), {
        query: { fieldManager: MANAGER, force: true },
        body,
        contentType: PatchStrategy.ServerSideApply,
      });
    } else {
      throw new Error(`floor: no replay for ${e.verb} ${r.resource}/${r.subresource ?? ''}`);
    }
  };
  log(`floor: replaying ${writes.length} writes, ${concurrency} installs at a time`);
  const t0 = performance.now();
  await pool(operatorNamespaces, concurrency, async (opNs, i) => {
    for (const e of byNs.get(opNs) ?? []) await send(fresh[i]!, e);
  });
  const ms = performance.now() - t0;
  client.close();
  log(`floor: ${Math.round(ms)} ms`);
  return Math.round(ms);
}

// ---------------------------------------------------------------------------------------------------

const USAGE = `usage: npx tsx bench/scale.ts [--installs N[,N...] (default 10,100,500)] [--mode M[,M...]: cluster (default), namespaced, namespaced-wide-reads]
  [--concurrency C[,C...] (default: the operator's default; a list is a sweep)] [--steady-seconds S (default 60)]
  [--list-page-size P[,P...] (the caches' list page size, GLOOHA_LIST_PAGE_SIZE; default: the operator's; a list is a sweep)]
  [--samples K (default 20)] [--cold-samples K (spec changes during the cold start, default 10; 0: none)] [--no-floor] [--operator-root [NAME=]DIR[,...] (default: this checkout; each built with npm run build first; a list is side by side)]
  [--node-flags "FLAGS[;FLAGS...]" (passed to node before the operator's script, NAME=VALUE to its environment;
    "image": the Dockerfile's ENTRYPOINT flags and ENV; limit=SIZE (384Mi, or "chart": the chart's limits.memory)
    runs the operator in a memory cgroup of that size, as the kubelet would; a list is a sweep)]
  [--repeat R (default 1: the whole matrix R times, interleaved; then a table of medians)] [--no-build (dist/ is current)] [--out FILE]
  [--readme (write the table into docs/benchmarks.md between its bench/scale markers)]`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      installs: { type: 'string', default: '10,100,500' },
      mode: { type: 'string', default: 'cluster' },
      concurrency: { type: 'string' },
      'list-page-size': { type: 'string' },
      'steady-seconds': { type: 'string', default: '60' },
      samples: { type: 'string', default: '20' },
      'cold-samples': { type: 'string', default: '10' },
      'no-floor': { type: 'boolean', default: false },
      'operator-root': { type: 'string', default: repoRoot },
      'node-flags': { type: 'string', default: '' },
      'no-build': { type: 'boolean', default: false },
      repeat: { type: 'string', default: '1' },
      out: { type: 'string' },
      readme: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const int = (name: string, raw: string | undefined, max: number, min = 1) => {
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min || v > max) {
      process.stderr.write(
        `bench/scale: --${name} must be an integer from ${min} to ${max}, got ${raw}\n${USAGE}\n`,
      );
      process.exit(2);
    }
    return v;
  };
  const sizes = (values.installs ?? '').split(',').map((x) => int('installs', x, 2000, 0));
  const modes = (values.mode ?? '').split(',');
  const badMode = modes.find((m) => !(MODES as readonly string[]).includes(m));
  if (badMode !== undefined) {
    process.stderr.write(
      `bench/scale: --mode must be ${MODES.join(', ')} (or a list), got ${badMode}\n${USAGE}\n`,
    );
    return 2;
  }
  // undefined: the operator's own default (what the row then reports is the value it used)
  const concurrencies: (number | undefined)[] =
    values.concurrency === undefined
      ? [undefined]
      : values.concurrency.split(',').map((x) => int('concurrency', x, 64));
  const pageSizes: (number | undefined)[] =
    values['list-page-size'] === undefined
      ? [undefined]
      : values['list-page-size'].split(',').map((x) => int('list-page-size', x, 100_000, 0));
  // Operator roots to compare side by side in one run: DIR or NAME=DIR, comma-separated (e.g.
  // before=<bench/baseline.sh's directory>,after=.). Each is built unless --no-build; a root without a
  // package.json build script (a bundle from scripts/bundle.mjs) is taken as it is.
  const roots = values['operator-root'].split(',').map((r, i) => {
    const eq = r.indexOf('=');
    return eq > 0
      ? { name: r.slice(0, eq), dir: r.slice(eq + 1) }
      : { name: i === 0 ? 'this' : `root${i}`, dir: r };
  });
  if (!values['no-build']) {
    for (const { dir } of roots) {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        scripts?: Record<string, string>;
      };
      if (!pkg.scripts?.build) continue;
      log(`building the operator in ${dir}`);
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    }
  }
  // Node flag sets to compare side by side in one run ("" is none), e.g. "; --max-semi-space-size=2".
  // "image" stands for how the image runs node (the Dockerfile's, as released): the flags its ENTRYPOINT
  // passes and the environment its final stage sets (MALLOC_ARENA_MAX, ...), with more flags beside it
  // if given ("image --heap-growing-percent=20", "image limit=chart").
  const flagSets = (values['node-flags'] ?? '')
    .split(';')
    .map((f) => f.split(' ').filter(Boolean))
    .map((f) => f.flatMap((t) => (t === 'image' ? imageNodeFlags() : [t])));
  // --repeat: the whole matrix again, so each configuration's runs are spread over the same stretch of
  // time as the others' (a load spike hits all of them), and medians compare like with like.
  const repeat = int('repeat', values.repeat, 50);
  const results = [];
  for (let round = 1; round <= repeat; round++)
    for (const installs of sizes) {
      for (const mode of modes as Mode[]) {
        for (const concurrency of concurrencies) {
          for (const listPageSize of pageSizes)
            for (const nodeFlags of flagSets) {
              for (const root of roots) {
                results.push(
                  await runOne({
                    installs,
                    mode,
                    concurrency,
                    listPageSize,
                    steadySeconds: int('steady-seconds', values['steady-seconds'], 3600),
                    samples: int('samples', values.samples, 1000),
                    coldSamples: int('cold-samples', values['cold-samples'], 1000, 0),
                    // One floor per size and concurrency is enough: it does not depend on the operator.
                    floor:
                      !values['no-floor'] &&
                      root === roots[0] &&
                      nodeFlags === flagSets[0] &&
                      listPageSize === pageSizes[0] &&
                      round === 1,
                    operatorRoot: root.dir,
                    rootName: root.name,
                    nodeFlags,
                    round,
                  }),
                );
              }
            }
        }
      }
    }
  // The node flags column only when a run set some: the README's table stays as it was otherwise.
  const withFlags = flagSets.some((f) => f.length > 0);
  const withRoots = roots.length > 1;
  const withPageSizes = values['list-page-size'] !== undefined;
  const header =
    (withRoots ? '| operator ' : '') +
    (withFlags ? '| node flags ' : '') +
    (withPageSizes ? '| list page size ' : '') +
    '| installs | mode | concurrency | caches synced | all applied (from start) | after leading | floor | ratio | update during cold start p50/p99 (n) | update p50/p99 | drift p50/p99 | peak RSS at sync | peak RSS | heap | requests/install | writes/install | reconciles/install | steady req/min | steady writes | steady CPU | idle RSS / heap after GC | lost terms | Lease reqs at leader-election | loop lag p99 |';
  const rows = results.map(
    (r) =>
      (withRoots ? `| ${r.rootName} ` : '') +
      (withFlags ? `| ${r.nodeFlags.join(' ') || '(none)'} ` : '') +
      (withPageSizes ? `| ${r.listPageSize} ` : '') +
      `| ${r.installs} | ${r.mode} | ${r.concurrency} | ${(r.cold.cachesSyncedMs / 1000).toFixed(1)} s | ${(r.cold.allAppliedMs / 1000).toFixed(1)} s | ${(r.cold.allAppliedAfterLeadingMs / 1000).toFixed(1)} s | ${r.floorMs === undefined ? '—' : (r.floorMs / 1000).toFixed(1) + ' s'} | ${r.ratioToFloor ?? '—'} | ${r.duringCold.inBacklog > 0 ? `${r.duringCold.updateP50Ms} / ${r.duringCold.updateP99Ms} ms (${r.duringCold.inBacklog})` : '—'} | ${r.latency.updateP50Ms} / ${r.latency.updateP99Ms} ms | ${r.latency.driftP50Ms} / ${r.latency.driftP99Ms} ms | ${r.cold.syncedPeakRssMB} MB | ${r.cold.peakRssMB} MB | ${r.cold.heapUsedMB} MB | ${r.cold.requestsPerInstall} | ${r.cold.writesPerInstall} | ${r.cold.reconcilesPerInstall} | ${r.steady.requestsPerMinute} | ${r.steady.writes} | ${r.steady.cpuPercent}% | ${r.memoryAtEnd.afterGc.rssMB} / ${r.memoryAtEnd.afterGc.heapUsedMB} MB | ${r.leader.lostTerms} | ${r.leader.leaseRequestsAtLeaderElection} | ${r.leader.eventLoopLagP99Ms} ms |`,
  );
  const table = `${header}\n|${'---|'.repeat(24 + (withFlags ? 1 : 0) + (withRoots ? 1 : 0) + (withPageSizes ? 1 : 0))}\n${rows.join('\n')}`;
  process.stdout.write(`\n${table}\n`);
  const summary = repeat > 1 ? medians(results) : undefined;
  if (summary) process.stdout.write(`\n${summary.table}\n`);
  const dir = join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const out = values.out ?? join(dir, `scale-${modes.join('+')}.json`);
  writeFileSync(
    out,
    JSON.stringify(
      { date: new Date().toISOString(), node: process.version, results, medians: summary?.rows },
      null,
      2,
    ) + '\n',
  );
  process.stdout.write(`\nwrote ${out}\n`);
  if (values.readme) {
    const load = results.map((r) => r.machine.loadavgAtStart[0]!.toFixed(1));
    // The command as a newcomer runs it: --no-build only skips a rebuild of dist/.
    const args = process.argv.slice(2).filter((a) => a !== '--readme' && a !== '--no-build');
    const caption =
      `\`npm run bench:scale -- ${args.join(' ')}\`, ` +
      `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ` +
      `1-minute load at each row's start: ${load.join(', ')}`;
    writeReadmeTable(join(repoRoot, 'docs', 'benchmarks.md'), caption, table);
    process.stdout.write(`updated the bench/scale table in docs/benchmarks.md\n`);
  }
  return 0;
}

type Result = Awaited<ReturnType<typeof runOne>>;

/**
 * One row per configuration (installs, mode, concurrency, list page size, node flags, operator root) with the medians
 * of its --repeat runs: the idle memory after GC and where it is, and what it costs in CPU and time.
 */
function medians(results: Result[]): { table: string; rows: Record<string, unknown>[] } {
  const groups = new Map<string, Result[]>();
  for (const r of results) {
    const key = JSON.stringify([r.installs, r.mode, r.concurrency, r.listPageSize, r.nodeFlags, r.rootName]);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const rows = [...groups.values()].map((rs) => {
    // The middle value, or the mean of the two middle ones for an even number of runs.
    const mid = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const h = Math.floor(s.length / 2);
      return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
    };
    const m = (f: (r: Result) => number, digits = 0) => Number(mid(rs.map(f)).toFixed(digits));
    const gc = (r: Result) => r.memoryAtEnd.afterGc;
    const part = (r: Result, name: string): [number, number] => {
      const v = r.latency.path[name];
      return Array.isArray(v) ? v : [0, 0];
    };
    return {
      operator: rs[0]!.rootName,
      nodeFlags: rs[0]!.nodeFlags.join(' ') || '(none)',
      installs: rs[0]!.installs,
      mode: rs[0]!.mode,
      concurrency: rs[0]!.concurrency,
      listPageSize: rs[0]!.listPageSize,
      runs: rs.length,
      idleRssMB: m((r) => gc(r).rssMB),
      idleRssRangeMB: [Math.min(...rs.map((r) => gc(r).rssMB)), Math.max(...rs.map((r) => gc(r).rssMB))],
      idleHeapUsedMB: m((r) => gc(r).heapUsedMB),
      idleRssAnonMB: m((r) => gc(r).rssAnonMB, 1),
      idleRssFileMB: m((r) => gc(r).rssFileMB, 1),
      idleHeapCommittedMB: m((r) => gc(r).heapCommittedMB, 1),
      idleNewSpaceCommittedMB: m((r) => gc(r).newSpaceCommittedMB, 1),
      idleMallocedMB: m((r) => gc(r).mallocedMB, 1),
      idleAnonBrkArenasOtherMB: [
        m((r) => gc(r).anonBrkMB, 1),
        m((r) => gc(r).anonArenasMB, 1),
        m((r) => gc(r).anonOtherMB, 1),
      ],
      syncedPeakRssMB: m((r) => r.cold.syncedPeakRssMB),
      peakRssMB: m((r) => r.cold.peakRssMB),
      coldCpuSeconds: m((r) => r.cold.cpuSeconds, 2),
      cpuSecondsToEnd: m((r) => r.steady.cpuSecondsSinceStart, 2),
      steadyCpuPercent: m((r) => r.steady.cpuPercent, 1),
      startedLeadingMs: m((r) => r.cold.startedLeadingMs),
      allAppliedMs: m((r) => r.cold.allAppliedMs),
      updateP50Ms: m((r) => r.latency.updateP50Ms),
      updateP99Ms: m((r) => r.latency.updateP99Ms),
      floorUpdateP50Ms: m((r) => r.latency.floorP50Ms ?? 0),
      floorUpdateP99Ms: m((r) => r.latency.floorP99Ms ?? 0),
      operatorShareMs: [m((r) => part(r, 'operatorMs')[0]), m((r) => part(r, 'operatorMs')[1])],
      loadavgAtStart: rs.map((r) => Number(r.machine.loadavgAtStart[0]!.toFixed(1))),
    };
  });
  const header =
    '| operator | node flags | list page size | installs | runs | idle RSS after GC (min–max) | heap used | RSS anon / file | V8 committed (young) | anon: brk / arenas / other | peak RSS at sync | peak RSS | CPU: cold start / to the end | steady CPU | leading (from start) | all applied (from start) | update p50 / p99 | a bare client: p50 / p99 | operator share: p50 / max | load at starts |';
  const lines = rows.map(
    (r) =>
      `| ${r.operator} | ${r.nodeFlags} | ${r.listPageSize} | ${r.installs} | ${r.runs} | ${r.idleRssMB} MB (${r.idleRssRangeMB.join('–')}) | ${r.idleHeapUsedMB} MB | ${r.idleRssAnonMB} / ${r.idleRssFileMB} MB | ${r.idleHeapCommittedMB} (${r.idleNewSpaceCommittedMB}) MB | ${r.idleAnonBrkArenasOtherMB.join(' / ')} MB | ${r.syncedPeakRssMB} MB | ${r.peakRssMB} MB | ${r.coldCpuSeconds} / ${r.cpuSecondsToEnd} s | ${r.steadyCpuPercent}% | ${(r.startedLeadingMs / 1000).toFixed(1)} s | ${(r.allAppliedMs / 1000).toFixed(1)} s | ${r.updateP50Ms} / ${r.updateP99Ms} ms | ${r.floorUpdateP50Ms} / ${r.floorUpdateP99Ms} ms | ${r.operatorShareMs.join(' / ')} ms | ${r.loadavgAtStart.join(', ')} |`,
  );
  return {
    table: `Medians of ${Math.max(...rows.map((r) => r.runs))} interleaved runs:\n\n${header}\n|${'---|'.repeat(20)}\n${lines.join('\n')}`,
    rows,
  };
}

const README_BEGIN = '<!-- bench/scale: begin (written by npm run bench:scale -- --readme) -->';
const README_END = '<!-- bench/scale: end -->';

/** Replaces what is between the bench/scale markers in the README with `caption` and `table`. */
function writeReadmeTable(path: string, caption: string, table: string): void {
  const text = readFileSync(path, 'utf8');
  const begin = text.indexOf(README_BEGIN);
  const end = text.indexOf(README_END);
  if (begin < 0 || end < begin)
    throw new Error(`${path} has no "${README_BEGIN}" … "${README_END}" block to write the table into`);
  writeFileSync(
    path,
    `${text.slice(0, begin + README_BEGIN.length)}\n${caption}:\n\n${table}\n${text.slice(end)}`,
  );
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench/scale: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
