// npm test's runner: vitest in lanes, so the integration files that wait on a control plane (helm
// installs, rollouts on kwok) overlap instead of queueing behind each other, and the files that measure
// timing still run with the machine to themselves.
//
//   tsx scripts/test-lanes.ts [--only unit|integration] [vitest args...]
//
// Phase 1, side by side, each lane its own `vitest run` (and so its own control plane, from the
// project's global setup): the unit tests; helm-coexistence (Helm installs and upgrades of Gloo's
// chart, ~200 s of mostly waiting); every other integration file that does not measure time, one file
// at a time. Phase 2, alone: the files that measure failover, fencing windows, lease expiry and steady
// -state request counts (vitest.config.ts lists them), which parallel CPU load would distort.
// Each phase-1 lane's output is printed whole when it ends (interleaved output of two vitest runs is
// unreadable); phase 2 streams. Every lane runs even after a failure, so one run reports everything;
// the exit code is non-zero if any lane failed, and the last line sums the lanes' counts.
import { spawn } from 'node:child_process';

interface Lane {
  name: string;
  projects: string[];
}

const PHASE_1: Lane[] = [
  // At equal priority. At nice 10 the integration lanes finished ~60 s sooner, but unit tests that
  // spawn helm then ran 10× slower than alone (one timed out at 10 s in a CI run).
  { name: 'unit', projects: ['unit'] },
  { name: 'integration: helm-coexistence', projects: ['integration-helm'] },
  { name: 'integration', projects: ['integration'] },
];
const PHASE_2: Lane[] = [{ name: 'integration: timing', projects: ['integration-timing'] }];

interface LaneResult {
  lane: Lane;
  code: number;
  seconds: number;
  counts: [number, number, number] | undefined;
}

/** vitest's own CLI entry, run with this Node. */
const VITEST = new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname;

const SUMMARY = /^vitest: (\d+) passed, (\d+) failed, (\d+) skipped$/m;

function runLane(lane: Lane, extra: string[], stream: boolean): Promise<LaneResult> {
  const started = performance.now();
  // A filter (`npm test -- test/unit/x.test.ts`) matches files of some lanes only: the others pass empty.
  const filtered = extra.length > 0 ? ['--passWithNoTests'] : [];
  const args = ['run', ...lane.projects.flatMap((p) => ['--project', p]), ...filtered, ...extra];
  const child = spawn(process.execPath, [VITEST, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  let out = '';
  const collect = (target: NodeJS.WriteStream) => (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (stream) target.write(chunk);
  };
  child.stdout.on('data', collect(process.stdout));
  child.stderr.on('data', collect(process.stderr));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const seconds = Math.round((performance.now() - started) / 1000);
      if (!stream) process.stdout.write(`\n==== lane "${lane.name}" (vitest ${args.join(' ')})\n${out}`);
      const m = SUMMARY.exec(out);
      const counts = m ? ([Number(m[1]), Number(m[2]), Number(m[3])] as [number, number, number]) : undefined;
      process.stdout.write(
        `==== lane "${lane.name}": ${code === 0 ? 'passed' : `FAILED (exit ${code ?? signal})`} in ${seconds}s\n`,
      );
      resolve({ lane, code: code ?? 1, seconds, counts });
    });
  });
}

/** `--only unit|integration` (either spelling) is ours; everything else goes to every vitest run. */
function parseOnly(argv: string[]): { only: string | undefined; extra: string[] } {
  const extra: string[] = [];
  let only: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--only') only = argv[++i];
    else if (a.startsWith('--only=')) only = a.slice('--only='.length);
    else extra.push(a);
  }
  return { only, extra };
}

async function main(): Promise<number> {
  const { only, extra } = parseOnly(process.argv.slice(2));
  if (only !== undefined && only !== 'unit' && only !== 'integration') {
    process.stderr.write(`test-lanes: --only must be unit or integration, got ${String(only)}\n`);
    return 2;
  }
  const keep = (l: Lane) => only === undefined || (only === 'unit') === l.projects.includes('unit');
  const phase1 = PHASE_1.filter(keep);
  const phase2 = PHASE_2.filter(keep);
  const results: LaneResult[] = [];
  // One lane alone streams; side by side they are buffered.
  results.push(...(await Promise.all(phase1.map((l) => runLane(l, extra, phase1.length === 1)))));
  for (const l of phase2) results.push(await runLane(l, extra, true));

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
