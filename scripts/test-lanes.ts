// npm test's runner: vitest in lanes named after what they need, each runnable alone, each building
// what it needs (and only that) before its tests start, after printing what that costs cold.
//
//   tsx scripts/test-lanes.ts [--only unit,charts,integration,products] [--floor-node DIR] [vitest args...]
//
// The lanes (vitest.config.ts holds their projects; test/env/binaries.ts LANE_NEEDS what each may use):
//   unit         pure TypeScript: no Go, no control plane, no network;
//   charts       Helm 4 and 3 and the products' charts (build-helm.sh, build-kgateway.sh);
//   integration  the test control plane (build-testbin.sh) as well: helm-coexistence (Helm installs
//                and upgrades of Gloo's chart, mostly waiting), every other file that neither measures
//                time nor runs a product's controller, and the timing files;
//   products     the products' real controllers (build-kgateway.sh --controller, build-gloo.sh): the
//                files that run them under the operator, and the files that time a product's handover;
//                each of its lanes builds only the controller its files run.
// Each lane is its own `vitest run` (and so its own control plane, from the project's global setup),
// in two phases:
//   1. side by side: unit, charts, integration-helm, integration, products. Together they keep the 2
//      cores busy (~80 %); each integration lane's files run one after another on its control plane.
//   2. then side by side: the timing files, whose measurements (failover, fencing windows, lease
//      expiry, request counts) CPU-bound lanes beside them would distort, in four lanes: integration's
//      (operator-ha alone, the others) and the products' (one per product). They mostly wait for leases
//      to expire: the integration timing files in one lane kept 24 % of the machine's CPU busy, and
//      the products' lane, run then with the products files before it, 26 % (2026-12-07).
//      The phase starts when phase 1's CPU-bound lanes have ended, not the products lane, which mostly
//      waits: on a cold machine for kgateway's controller, which CI builds in the background at the
//      lowest priority (cold 2026-12-07: ~20 min of phase 1 went by waiting for it and then Gloo's).
// --floor-node DIR (CI: the oldest Node package.json accepts) runs the unit and charts lanes once more
// on DIR/node, in phase 2 at the lowest CPU priority (nice 19, an autogroup of their own): they take the
// CPU the timing lanes leave idle and yield it whenever a timing lane wants it. Not in phase 1: beside
// its CPU-bound lanes they would get next to no CPU, and the unit lane's own timing test (elector-storm:
// renewals within retryPeriod under a reconcile storm) and the 30-120 s timeouts of the tests that spawn
// helm or the CLI failed or came close there (measured 2026-12-07).
// Each lane's output is printed whole when it ends (interleaved output of two vitest runs is unreadable)
// unless it runs alone, when it streams. Every lane runs even after a failure, so one run reports
// everything; the exit code is non-zero if any lane failed, and the closing lines (scripts/lane-report.ts)
// name each failure and its lane and sum the lanes' counts.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KGATEWAY_CONTROLLER_VERSION } from '../test/env/binaries.js';
import { runPhases, type PhasedLane } from './lane-phases.js';
import { closingReport, runPassed, type LaneOutcome } from './lane-report.js';

type Group = 'unit' | 'charts' | 'integration' | 'products';
const GROUPS: readonly Group[] = ['unit', 'charts', 'integration', 'products'];

/** A build script of test/env, as `bash <script> [args]`, run before a lane that needs it. */
interface Build {
  what: string;
  args: string[];
}

const HELM: Build = { what: "Helm 4, Helm 3 and Gloo's chart", args: ['test/env/build-helm.sh'] };
const KUBE_SCORE: Build = { what: 'kube-score (tools/)', args: ['tools/build-tools.sh', 'kube-score'] };
const JUDGES: Build = {
  what: 'kstatus and argo-health, the health judges (tools/)',
  args: ['tools/build-tools.sh', 'kstatus', 'argo-health'],
};
const KGATEWAY_CHARTS: Build = {
  what: "kgateway's charts and Gateway API's CRDs, every pinned version",
  args: ['test/env/build-kgateway.sh'],
};
const CONTROL_PLANE: Build = {
  what: 'the test control plane (Kubernetes, etcd, kwok)',
  args: ['test/env/build-testbin.sh'],
};
const KGATEWAY_CONTROLLERS: Build = {
  what: `kgateway's controller (${KGATEWAY_CONTROLLER_VERSION}, the newest pinned version; the others are charts only)`,
  args: ['test/env/build-kgateway.sh', '--controller', KGATEWAY_CONTROLLER_VERSION],
};
const GLOO_CONTROLLER: Build = { what: "Gloo's controller", args: ['test/env/build-gloo.sh'] };

/**
 * What each lane group builds and what that costs on 2 cores, as measured (CONTRIBUTING.md, "The
 * lanes"): cold is with every build cache empty (Go's module cache kept), warm with the builds cached,
 * when each build is a lookup of under a second.
 */
const COST: Record<Group, { builds: Build[]; cold: string; warm: string }> = {
  unit: {
    builds: [],
    cold: 'nothing to build; tests 405 s at load 15, 597 s at load 20',
    warm: 'the same',
  },
  charts: {
    builds: [HELM, KGATEWAY_CHARTS, KUBE_SCORE],
    cold: "Helm 4 and 3 and Gloo's chart 351 s in a cold CI run, 2026-12-07 (~25 min at load 8-18), kgateway's charts seconds, kube-score 29 s; then the tests",
    warm: 'tests 96 s at load ~15',
  },
  integration: {
    builds: [HELM, KGATEWAY_CHARTS, JUDGES, CONTROL_PLANE],
    cold: "the charts lane's builds, then the control plane 653 s in a cold CI run, 2026-12-07 (1,850 s at load 6-26 with Helm); then the tests",
    warm: 'in npm test, 2026-12-07: helm-coexistence 681 s and the other files 654 s beside the rest of phase 1, then the timing files in two lanes (282 s, 305 s)',
  },
  products: {
    // kgateway's controller, which the products files run; Gloo's timing lane builds Gloo's instead.
    builds: [HELM, KGATEWAY_CHARTS, CONTROL_PLANE, KGATEWAY_CONTROLLERS],
    cold: "the integration lane's builds, then the controller the lane's files run: kgateway's v2.4.2 (714 s at load ~9; 1,074 s at the lowest priority beside CI's CPU-bound lanes) or Gloo's (238 s in that CI run, 763 s at load 6-26); then the tests",
    warm: 'in npm test, 2026-12-07: the products files 352 s in phase 1, then the handover timing files per product (kgateway 249 s, Gloo 331 s)',
  },
};

interface Lane extends PhasedLane {
  name: string;
  group: Group;
  projects: string[];
  /** What it builds before its tests, in order, when not its group's (COST) builds. */
  builds?: Build[];
  /** A second-phase lane: it runs beside the timing lanes, and builds at the lowest CPU priority. */
  besideTiming?: boolean;
  /** The directory of the `node` to run vitest with, when not this process's; such a lane runs at the lowest CPU priority. */
  floorNode?: string;
  /** vitest's workers (files at once), when not its default: the cores less one, so one on 2 cores. */
  workers?: number;
}

const PHASE_1: Lane[] = [
  // At equal priority. At nice 10 the integration lanes finished ~60 s sooner, but unit tests that
  // spawn helm then ran 10× slower than alone (one timed out at 10 s in a CI run).
  { name: 'unit', group: 'unit', projects: ['unit'] },
  { name: 'charts', group: 'charts', projects: ['charts'] },
  { name: 'integration: helm-coexistence', group: 'integration', projects: ['integration-helm'] },
  { name: 'integration', group: 'integration', projects: ['integration'] },
  // Mostly waiting for kgateway's controller (26 % CPU alone). On a cold machine its build may still
  // be running (CI starts it in the background); the lane waits for it, and nothing waits for the lane.
  { name: 'products', group: 'products', projects: ['products'], waits: true },
];
const PHASE_2: Lane[] = [
  { name: 'integration: timing', group: 'integration', projects: ['integration-timing'] },
  { name: 'integration: timing, operator-ha', group: 'integration', projects: ['integration-timing-ha'] },
  { name: 'products: timing, kgateway', group: 'products', projects: ['products-timing-kgateway'] },
  {
    name: 'products: timing, Gloo',
    group: 'products',
    projects: ['products-timing-gloo'],
    builds: [HELM, KGATEWAY_CHARTS, CONTROL_PLANE, GLOO_CONTROLLER],
  },
];
/** The lanes --floor-node runs again on that Node, in phase 2 at the lowest priority. */
const ON_FLOOR_NODE: Lane[] = [
  // Two files at once: it is phase 2's last lane to end (417 s against the timing lanes' ~315 s in a
  // warm CI run), and with vitest's one worker on 2 cores it ran its last ~100 s alone on one core.
  // At the lowest priority the second worker only takes what the timing lanes leave.
  { name: 'unit', group: 'unit', projects: ['unit'], workers: 2 },
  { name: 'charts', group: 'charts', projects: ['charts'] },
];

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** vitest's own CLI entry, run with this Node. */
const VITEST = new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname;

/** Processes started at the lowest priority, each the leader of its own session: stopped with us. */
const lowest = new Set<number>();
process.on('exit', () => {
  for (const pid of lowest)
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
});

/**
 * Runs `cmd args`, collecting its output (and streaming it when asked). `lowestPriority`: at nice 19 in
 * a session, and so an autogroup, of its own whose nice is 19 too — with the kernel's autogroup
 * scheduling, nice alone only ranks processes within one session's group, and this runner's group
 * would still get an equal share against the lanes beside it.
 */
function run(
  cmd: string,
  args: string[],
  stream: boolean,
  lowestPriority = false,
): Promise<{ code: number; out: string }> {
  const [file, argv] = lowestPriority ? ['nice', ['-n', '19', cmd, ...args]] : [cmd, args];
  const child = spawn(file, argv, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
    // A session of its own (setsid), and so an autogroup of its own.
    detached: lowestPriority,
  });
  if (lowestPriority && child.pid !== undefined) {
    lowest.add(child.pid);
    try {
      writeFileSync(`/proc/${child.pid}/autogroup`, '19');
    } catch {
      // No autogroup scheduling here (or no /proc): nice 19 is then the whole story.
    }
  }
  let out = '';
  const collect = (target: NodeJS.WriteStream) => (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (stream) target.write(chunk);
  };
  child.stdout.on('data', collect(process.stdout));
  child.stderr.on('data', collect(process.stderr));
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      if (child.pid !== undefined) lowest.delete(child.pid);
      resolve({ code: code ?? (signal ? 1 : 0), out });
    }),
  );
}

/** The lane's builds, in order (each a no-op when cached; the scripts lock, so lanes side by side build once). */
async function buildFor(lane: Lane, stream: boolean): Promise<{ ok: boolean; log: string }> {
  let log = '';
  for (const b of lane.builds ?? COST[lane.group].builds) {
    const started = performance.now();
    // At nice 10: on a cold machine the unit lane's tests (30 s timeouts) run beside these Go builds.
    // A second-phase lane's (Gloo's controller, on a cold machine without CI's background build) at
    // the lowest priority: the timing lanes beside it must not wait for the CPU.
    const { code, out } = lane.besideTiming
      ? await run('bash', b.args, stream, true)
      : await run('nice', ['-n', '10', 'bash', ...b.args], stream);
    const seconds = Math.round((performance.now() - started) / 1000);
    const line = `---- lane "${lane.name}": ${b.what} ${code === 0 ? 'ready' : `FAILED (exit ${code})`} in ${seconds}s\n`;
    log += out + line;
    if (stream) process.stdout.write(line);
    if (code !== 0) return { ok: false, log };
  }
  return { ok: true, log };
}

async function runLane(lane: Lane, extra: string[], stream: boolean): Promise<LaneOutcome> {
  const cost = COST[lane.group];
  const builds = (lane.builds ?? cost.builds).map((b) => b.what).join('; ') || 'nothing';
  process.stdout.write(
    `==== lane "${lane.name}" starts: builds ${builds}. Cost on 2 cores: cold ${cost.cold}; warm ${cost.warm}\n`,
  );
  const started = performance.now();
  // A filter (`npm test -- test/unit/x.test.ts`) matches files of some lanes only: the others pass empty.
  const filtered = extra.length > 0 ? ['--passWithNoTests'] : [];
  const workers = lane.workers === undefined ? [] : [`--maxWorkers=${lane.workers}`];
  const args = ['run', ...lane.projects.flatMap((p) => ['--project', p]), ...workers, ...filtered, ...extra];
  const built = await buildFor(lane, stream);
  const node = lane.floorNode ? join(lane.floorNode, 'node') : process.execPath;
  const { code, out } = built.ok
    ? await run(node, [VITEST, ...args], stream, lane.floorNode !== undefined)
    : { code: 1, out: '' };
  const seconds = Math.round((performance.now() - started) / 1000);
  if (!stream)
    process.stdout.write(`\n==== lane "${lane.name}" (vitest ${args.join(' ')})\n${built.log}${out}`);
  process.stdout.write(
    `==== lane "${lane.name}": ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds}s\n`,
  );
  return { name: lane.name, code, seconds, out: built.log + out };
}

interface Options {
  only: Set<Group> | undefined;
  /** --floor-node DIR: the directory of a second `node` the unit and charts lanes run on too. */
  floorNode: string | undefined;
  extra: string[];
  error?: string;
}

/**
 * `--only a,b` (or `--only=a,b`, or repeated) names lane groups, `--floor-node DIR` (or `=DIR`) a second
 * Node; both are ours, everything else goes to vitest (so node:util's parseArgs, which would have to
 * know vitest's options, does not fit).
 */
function parseOptions(argv: string[]): Options {
  const extra: string[] = [];
  const named: string[] = [];
  let floorNode: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--only') named.push(...(argv[++i] ?? '').split(','));
    else if (a.startsWith('--only=')) named.push(...a.slice('--only='.length).split(','));
    else if (a === '--floor-node') floorNode = argv[++i] ?? '';
    else if (a.startsWith('--floor-node=')) floorNode = a.slice('--floor-node='.length);
    else extra.push(a);
  }
  if (floorNode === '')
    return {
      only: undefined,
      floorNode,
      extra,
      error: '--floor-node takes the directory of a `node` binary',
    };
  const unknown = named.filter((n) => !(GROUPS as readonly string[]).includes(n));
  if (unknown.length > 0)
    return {
      only: undefined,
      floorNode,
      extra,
      error: `--only takes lanes among ${GROUPS.join(', ')}; got ${unknown.join(', ')}`,
    };
  return { only: named.length === 0 ? undefined : new Set(named as Group[]), floorNode, extra };
}

/** `v22.19.0` for DIR/node, or undefined if it does not run. */
function nodeVersion(dir: string): string | undefined {
  try {
    return execFileSync(join(dir, 'node'), ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const { only, floorNode, extra, error } = parseOptions(process.argv.slice(2));
  if (error) {
    process.stderr.write(`test-lanes: ${error}\n`);
    return 2;
  }
  const keep = (l: Lane) => only === undefined || only.has(l.group);
  const phase1 = PHASE_1.filter(keep);
  const phase2: Lane[] = PHASE_2.filter(keep).map((l) => ({ ...l, besideTiming: true }));
  const version = floorNode === undefined ? undefined : nodeVersion(floorNode);
  if (floorNode !== undefined && version === undefined) {
    process.stderr.write(
      `test-lanes: --floor-node ${floorNode}: ${join(floorNode, 'node')} --version does not run\n`,
    );
    return 2;
  }
  if (floorNode !== undefined)
    phase2.push(
      ...ON_FLOOR_NODE.filter(keep).map((l) => ({ ...l, name: `${l.name} on Node ${version}`, floorNode })),
    );
  // A lane alone streams; side by side they are buffered.
  const results = await runPhases(phase1, phase2, (l, stream) => runLane(l, extra, stream));

  process.stdout.write(closingReport(results));
  return runPassed(results) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`test-lanes: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
