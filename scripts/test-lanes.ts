// npm test's runner: vitest in lanes named after what they need, each runnable alone, each building
// what it needs (and only that) before its tests start, after printing what that costs cold.
//
//   tsx scripts/test-lanes.ts [--only unit,charts,integration,products] [vitest args...]
//
// The lanes (vitest.config.ts holds their projects; test/env/binaries.ts LANE_NEEDS what each may use):
//   unit         pure TypeScript: no Go, no control plane, no network;
//   charts       Helm 4 and 3 and the products' charts (build-helm.sh, build-kgateway.sh);
//   integration  the test control plane (build-testbin.sh) as well: helm-coexistence (Helm installs
//                and upgrades of Gloo's chart, mostly waiting), every other file that neither measures
//                time nor runs a product's controller, then the timing files alone;
//   products     the products' real controllers (build-kgateway.sh --controller, build-gloo.sh), then
//                the files that time a product's handover alone.
// Phase 1, side by side, each its own `vitest run` (and so its own control plane, from the project's
// global setup): unit, charts, integration-helm, integration. Then alone, in order: integration-timing,
// products, products-timing, whose measurements (failover, fencing windows, lease expiry, request
// counts) parallel CPU load would distort and whose real controllers are the heaviest load of all.
// Each phase-1 lane's output is printed whole when it ends (interleaved output of two vitest runs is
// unreadable); the others stream. Every lane runs even after a failure, so one run reports everything;
// the exit code is non-zero if any lane failed, and the last line sums the lanes' counts.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { KGATEWAY_CONTROLLER_VERSION } from '../test/env/binaries.js';

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
    cold: "Helm 4 and 3 and Gloo's chart ~25 min at load 8-18 (~3-5 min for Helm alone idle), kgateway's charts seconds, kube-score (not timed alone); then the tests",
    warm: 'tests 96 s at load ~15',
  },
  integration: {
    builds: [HELM, KGATEWAY_CHARTS, JUDGES, CONTROL_PLANE],
    cold: "the charts lane's builds, then the control plane ~25-30 min (1,850 s at load 6-26 with Helm); then the tests",
    warm: 'tests ~30 min at load 6-9 (with the products files then: integration 1,066 s, timing 730 s; helm-coexistence 316 s idle)',
  },
  products: {
    builds: [HELM, KGATEWAY_CHARTS, CONTROL_PLANE, KGATEWAY_CONTROLLERS, GLOO_CONTROLLER],
    cold: "the integration lane's builds, then kgateway's controller (v2.4.2 714 s at load ~9; v2.4.0 took 1,079 s at load 6-26) and Gloo's 763 s; then the tests",
    warm: 'the tests alone, not yet measured apart (they were part of the integration and timing lanes)',
  },
};

interface Lane {
  name: string;
  group: Group;
  projects: string[];
}

const PHASE_1: Lane[] = [
  // At equal priority. At nice 10 the integration lanes finished ~60 s sooner, but unit tests that
  // spawn helm then ran 10× slower than alone (one timed out at 10 s in a CI run).
  { name: 'unit', group: 'unit', projects: ['unit'] },
  { name: 'charts', group: 'charts', projects: ['charts'] },
  { name: 'integration: helm-coexistence', group: 'integration', projects: ['integration-helm'] },
  { name: 'integration', group: 'integration', projects: ['integration'] },
];
const ALONE: Lane[] = [
  { name: 'integration: timing', group: 'integration', projects: ['integration-timing'] },
  { name: 'products', group: 'products', projects: ['products'] },
  { name: 'products: timing', group: 'products', projects: ['products-timing'] },
];

interface LaneResult {
  lane: Lane;
  code: number;
  seconds: number;
  counts: [number, number, number] | undefined;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** vitest's own CLI entry, run with this Node. */
const VITEST = new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname;

const SUMMARY = /^vitest: (\d+) passed, (\d+) failed, (\d+) skipped$/m;

function run(cmd: string, args: string[], stream: boolean): Promise<{ code: number; out: string }> {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  let out = '';
  const collect = (target: NodeJS.WriteStream) => (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (stream) target.write(chunk);
  };
  child.stdout.on('data', collect(process.stdout));
  child.stderr.on('data', collect(process.stderr));
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out })),
  );
}

/** The lane's builds, in order (each a no-op when cached; the scripts lock, so lanes side by side build once). */
async function buildFor(lane: Lane, stream: boolean): Promise<{ ok: boolean; log: string }> {
  let log = '';
  for (const b of COST[lane.group].builds) {
    const started = performance.now();
    // At nice 10: on a cold machine the unit lane's tests (30 s timeouts) run beside these Go builds.
    const { code, out } = await run('nice', ['-n', '10', 'bash', ...b.args], stream);
    const seconds = Math.round((performance.now() - started) / 1000);
    log +=
      out +
      `---- lane "${lane.name}": ${b.what} ${code === 0 ? 'ready' : `FAILED (exit ${code})`} in ${seconds}s\n`;
    if (stream) process.stdout.write(`---- lane "${lane.name}": ${b.what} ready in ${seconds}s\n`);
    if (code !== 0) return { ok: false, log };
  }
  return { ok: true, log };
}

async function runLane(lane: Lane, extra: string[], stream: boolean): Promise<LaneResult> {
  const cost = COST[lane.group];
  const builds = cost.builds.map((b) => b.what).join('; ') || 'nothing';
  process.stdout.write(
    `==== lane "${lane.name}" starts: builds ${builds}. Cost on 2 cores: cold ${cost.cold}; warm ${cost.warm}\n`,
  );
  const started = performance.now();
  // A filter (`npm test -- test/unit/x.test.ts`) matches files of some lanes only: the others pass empty.
  const filtered = extra.length > 0 ? ['--passWithNoTests'] : [];
  const args = ['run', ...lane.projects.flatMap((p) => ['--project', p]), ...filtered, ...extra];
  const built = await buildFor(lane, stream);
  const { code, out } = built.ok
    ? await run(process.execPath, [VITEST, ...args], stream)
    : { code: 1, out: '' };
  const seconds = Math.round((performance.now() - started) / 1000);
  if (!stream)
    process.stdout.write(`\n==== lane "${lane.name}" (vitest ${args.join(' ')})\n${built.log}${out}`);
  const m = SUMMARY.exec(out);
  const counts = m ? ([Number(m[1]), Number(m[2]), Number(m[3])] as [number, number, number]) : undefined;
  process.stdout.write(
    `==== lane "${lane.name}": ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds}s\n`,
  );
  return { lane, code, seconds, counts };
}

/** `--only a,b` (or `--only=a,b`, or repeated) names lane groups and is ours; everything else goes to vitest. */
function parseOnly(argv: string[]): { only: Set<Group> | undefined; extra: string[]; error?: string } {
  const extra: string[] = [];
  const named: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--only') named.push(...(argv[++i] ?? '').split(','));
    else if (a.startsWith('--only=')) named.push(...a.slice('--only='.length).split(','));
    else extra.push(a);
  }
  if (named.length === 0) return { only: undefined, extra };
  const unknown = named.filter((n) => !(GROUPS as readonly string[]).includes(n));
  if (unknown.length > 0)
    return {
      only: undefined,
      extra,
      error: `--only takes lanes among ${GROUPS.join(', ')}; got ${unknown.join(', ')}`,
    };
  return { only: new Set(named as Group[]), extra };
}

async function main(): Promise<number> {
  const { only, extra, error } = parseOnly(process.argv.slice(2));
  if (error) {
    process.stderr.write(`test-lanes: ${error}\n`);
    return 2;
  }
  const keep = (l: Lane) => only === undefined || only.has(l.group);
  const phase1 = PHASE_1.filter(keep);
  const alone = ALONE.filter(keep);
  const results: LaneResult[] = [];
  // One lane alone streams; side by side they are buffered.
  results.push(...(await Promise.all(phase1.map((l) => runLane(l, extra, phase1.length === 1)))));
  for (const l of alone) results.push(await runLane(l, extra, true));

  const sum = results.reduce((acc, r) => (r.counts ? acc.map((v, i) => v + r.counts![i]!) : acc), [0, 0, 0]);
  for (const r of results) if (!r.counts) process.stdout.write(`lane "${r.lane.name}" printed no summary\n`);
  process.stdout.write(
    `\nlanes: ${results.map((r) => `${r.lane.name} ${r.seconds}s`).join(', ')}\n` +
      `vitest: ${sum[0]} passed, ${sum[1]} failed, ${sum[2]} skipped (all lanes)\n`,
  );
  return results.some((r) => r.code !== 0 || !r.counts) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`test-lanes: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
