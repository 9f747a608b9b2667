// Memory benchmark, part 1: the import floor — what the operator's process holds once every module it
// loads is loaded and nothing has run yet (`glooha-operator --help`: the static imports, then the
// usage text), after a full garbage collection. Side by side in one run for several operator roots
// (another commit's checkout prepared by bench/baseline.sh, this checkout, a bundle from
// scripts/bundle.mjs) and Node flags, each measured --runs times, interleaved, medians reported; with
// Node alone (`node -e ''`) as the first row. The figures with installs (idle with 0 and 10, 500) are
// bench/scale.ts's `--operator-root A,B` rows (RSS and heap after GC at the end of the steady window).
//
//   npx tsx bench/memory.ts --root before=DIR --root after=. [--root bundle=DIR] [--node-flags "F;F"] [--runs 5]
//
// Prints a table and writes bench/results/memory-import.json (with the machine's load).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../test/support/operator.js';

const PROBE = join(repoRoot, 'bench/gc-probe.mjs');

interface Sample {
  rssMB: number;
  heapMB: number;
}

/** One process: node [flags] --expose-gc --import gc-probe <script args>, memory after GC at exit. */
function measure(nodeFlags: string[], script: string[], cwd: string): Sample {
  const file = join(tmpdir(), `glooha-memory-${process.pid}-${Math.random().toString(36).slice(2)}.jsonl`);
  try {
    const r = spawnSync(process.execPath, [...nodeFlags, '--expose-gc', '--import', PROBE, ...script], {
      cwd,
      env: { ...process.env, GLOOHA_BENCH_GC_FILE: file },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (r.status !== 0) throw new Error(`${script.join(' ')} exited ${r.status}: ${r.stderr.slice(-400)}`);
    const last = readFileSync(file, 'utf8').trim().split('\n').pop()!;
    const m = JSON.parse(last) as { rss: number; heapUsed: number };
    return { rssMB: m.rss / 2 ** 20, heapMB: m.heapUsed / 2 ** 20 };
  } finally {
    rmSync(file, { force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

function main() {
  const { values } = parseArgs({
    options: {
      root: { type: 'string', multiple: true, default: [`this=${repoRoot}`] },
      'node-flags': { type: 'string', default: '' },
      runs: { type: 'string', default: '5' },
      out: { type: 'string', default: join(repoRoot, 'bench/results/memory-import.json') },
    },
  });
  const roots = values.root.map((r) => {
    const eq = r.indexOf('=');
    return eq > 0 ? { name: r.slice(0, eq), dir: resolve(r.slice(eq + 1)) } : { name: r, dir: resolve(r) };
  });
  const flagSets = values['node-flags'].split(';').map((f) => f.split(' ').filter(Boolean));
  const runs = Number(values.runs);
  const rows = [
    { name: 'node alone', flags: [] as string[], script: ['-e', ''], cwd: repoRoot },
    ...roots.flatMap((r) =>
      flagSets.map((flags) => ({
        name: r.name,
        flags,
        script: [join(r.dir, 'dist/src/main.js'), '--help'],
        cwd: r.dir,
      })),
    ),
  ];
  const loadAtStart = loadavg();
  const samples = rows.map(() => [] as Sample[]);
  // Interleaved, so a change in the machine's load touches every row alike.
  for (let i = 0; i < runs; i++)
    rows.forEach((row, j) => samples[j]!.push(measure(row.flags, row.script, row.cwd)));
  const loadAtEnd = loadavg();
  const results = rows.map((row, j) => ({
    root: row.name,
    nodeFlags: row.flags.join(' '),
    rssMB: Number(median(samples[j]!.map((s) => s.rssMB)).toFixed(1)),
    heapMB: Number(median(samples[j]!.map((s) => s.heapMB)).toFixed(1)),
    rssRangeMB: [
      Number(Math.min(...samples[j]!.map((s) => s.rssMB)).toFixed(1)),
      Number(Math.max(...samples[j]!.map((s) => s.rssMB)).toFixed(1)),
    ],
  }));
  const base = results[0]!;
  const withFlags = flagSets.some((f) => f.length > 0);
  console.log(
    `import floor, after GC (median of ${runs}; Node ${process.version}, ${cpus().length} CPUs, 1-min load ${loadAtStart[0]!.toFixed(1)} → ${loadAtEnd[0]!.toFixed(1)})\n`,
  );
  console.log(
    `| operator |${withFlags ? ' node flags |' : ''} RSS | heap used | above Node alone (RSS / heap) |`,
  );
  console.log(`| --- |${withFlags ? ' --- |' : ''} --- | --- | --- |`);
  for (const r of results) {
    console.log(
      `| ${r.root} |${withFlags ? ` ${r.nodeFlags || '(none)'} |` : ''} ${r.rssMB} MB | ${r.heapMB} MB | ${(r.rssMB - base.rssMB).toFixed(1)} / ${(r.heapMB - base.heapMB).toFixed(1)} MB |`,
    );
  }
  mkdirSync(join(values.out, '..'), { recursive: true });
  writeFileSync(
    values.out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        runs,
        roots,
        results,
        machine: { cpus: cpus().length, loadavgAtStart: loadAtStart, loadavgAtEnd: loadAtEnd },
      },
      null,
      2,
    ) + '\n',
  );
}

main();
