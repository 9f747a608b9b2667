// Render benchmark: what the pure core costs per install — Gloo's `desired()` (validation, the plan's
// objects rendered from src/templates, the Helm values) for N installs, each distinct as in a cluster
// (its own namespace and uid): the first time (the cold start), again unchanged (a resync), and twice
// with every spec changed (an edit to each install). Side by side for several operator roots (another
// commit prepared by bench/baseline.sh, this checkout after `npm run build`), each root in its own
// process, --runs times interleaved, medians reported.
//
//   npx tsx bench/render.ts --root before=DIR --root after=. [--installs 500] [--runs 3]
//
// Prints a table and writes bench/results/render.json (with the machine's load).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const PASSES = ['first time', 'unchanged', 'changed', 'changed again'] as const;
type Pass = (typeof PASSES)[number];
/** CPU milliseconds per install, by pass. */
type Sample = Record<Pass, number>;

/** Runs in the child: N installs through `root`'s built desired(), CPU per install for each pass. */
async function child(root: string, installs: number): Promise<void> {
  const dist = (p: string) => pathToFileURL(resolve(root, 'dist/src', p)).href;
  const { desired } = (await import(dist('products/gloo/desired.js'))) as {
    desired: (g: unknown, o: unknown) => { ok: boolean; errors?: unknown };
  };
  const { chartInstall } = (await import(dist('products/gloo/install.js'))) as {
    chartInstall: (ns: string, proxies: Record<string, object>) => unknown;
  };
  const proxies = { gatewayProxy: { replicas: 2 } };
  const glooHAs = (glooReplicas: number) =>
    Array.from({ length: installs }, (_, i) => ({
      apiVersion: 'glooha.io/v1alpha1',
      kind: 'GlooHA',
      metadata: { name: 'gloo', namespace: `gloo-${i}`, uid: `uid-${i}`, generation: 1 },
      spec: { gloo: { replicas: glooReplicas }, gatewayProxies: proxies },
    }));
  const observed = Array.from({ length: installs }, (_, i) => chartInstall(`gloo-${i}`, proxies));
  const sample = {} as Sample;
  const replicas: Record<Pass, number> = { 'first time': 3, unchanged: 3, changed: 4, 'changed again': 5 };
  for (const pass of PASSES) {
    const gs = glooHAs(replicas[pass]);
    const start = process.cpuUsage();
    for (let i = 0; i < installs; i++) {
      const r = desired(gs[i], observed[i]);
      if (!r.ok) throw new Error(`install ${i} invalid: ${JSON.stringify(r.errors)}`);
    }
    const used = process.cpuUsage(start);
    sample[pass] = (used.user + used.system) / 1000 / installs;
  }
  process.stdout.write(JSON.stringify(sample) + '\n');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      root: { type: 'string', multiple: true },
      installs: { type: 'string', default: '500' },
      runs: { type: 'string', default: '3' },
      child: { type: 'string' },
    },
  });
  const installs = Number(values.installs);
  if (!Number.isInteger(installs) || installs < 1) throw new Error('--installs: a positive integer');
  if (values.child) {
    void child(values.child, installs);
    return;
  }
  const roots = (values.root ?? ['this=.']).map((r) => {
    const eq = r.indexOf('=');
    return eq > 0 ? { name: r.slice(0, eq), dir: resolve(r.slice(eq + 1)) } : { name: r, dir: resolve(r) };
  });
  const runs = Number(values.runs);
  const load = loadavg().map((l) => Number(l.toFixed(2)));
  const samples = new Map<string, Sample[]>(roots.map((r) => [r.name, []]));
  for (let run = 1; run <= runs; run++) {
    for (const root of roots) {
      const r = spawnSync(
        process.execPath,
        [...process.execArgv, process.argv[1]!, '--child', root.dir, '--installs', String(installs)],
        { encoding: 'utf8', timeout: 300_000 },
      );
      if (r.status !== 0) throw new Error(`${root.name} exited ${r.status}: ${r.stderr.slice(-600)}`);
      samples.get(root.name)!.push(JSON.parse(r.stdout.trim().split('\n').pop()!) as Sample);
      console.error(`[render] run ${run}/${runs} ${root.name} done`);
    }
  }
  const rows = roots.map((root) => {
    const ss = samples.get(root.name)!;
    const cols = Object.fromEntries(PASSES.map((p) => [p, Number(median(ss.map((s) => s[p])).toFixed(3))]));
    return { root: root.name, dir: root.dir, ...cols } as { root: string; dir: string } & Sample;
  });
  const loadAtEnd = loadavg().map((l) => Number(l.toFixed(2)));
  console.log(
    `\nGloo desired() for ${installs} installs, CPU ms per install, medians of ${runs} runs (node ${process.version}, ${cpus().length} CPUs, load ${load[0]} → ${loadAtEnd[0]})\n`,
  );
  console.log(`| root | ${PASSES.join(' | ')} |`);
  console.log(`|---|${PASSES.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.root} | ${PASSES.map((p) => `${r[p]} ms`).join(' | ')} |`);
  if (rows.length > 1) {
    const base = rows[0]!;
    for (const r of rows.slice(1))
      console.log(
        `| ${r.root} ÷ ${base.root} | ${PASSES.map((p) => `${(r[p] / base[p]).toFixed(2)}×`).join(' | ')} |`,
      );
  }
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/render.json',
    JSON.stringify(
      { date: new Date().toISOString(), node: process.version, installs, runs, load, loadAtEnd, rows },
      null,
      2,
    ) + '\n',
  );
}

main();
