// Runs `glooha render` (the CLI's main, reading, validating, rendering and writing) on one hostile
// input (test/support/hostile-yaml.ts) in a fresh process and prints {bytes, ms, cpuMs, peakBytes,
// stdoutBytes, stderrBytes, code, outcome} as JSON: peakBytes is the process's peak resident memory
// (getrusage maxrss) above its resident memory just before the run, with the input already built;
// output is counted, not kept. Used by test/unit/api/kube-yaml-bounds.test.ts and
// test/integration/render-charts.test.ts (`file:PATH`).
import { readFileSync } from 'node:fs';
import { main } from '../../src/cli/main.js';
import { hostileYaml, VALID_GLOOHA, type HostileCase } from './hostile-yaml.js';

const kind = process.argv[2] ?? '';
// `file:PATH`: a real install's manifests (a chart's helm template), rendered with --merge-into.
const { text, as }: HostileCase = kind.startsWith('file:')
  ? { text: readFileSync(kind.slice('file:'.length), 'utf8'), as: 'merge-into' }
  : hostileYaml(kind);
const files: Record<string, string> =
  as === 'input' ? { 'in.yaml': text } : { 'in.yaml': VALID_GLOOHA, 'manifests.yaml': text };
const args = ['render', '-f', 'in.yaml', ...(as === 'merge-into' ? ['--merge-into', 'manifests.yaml'] : [])];
let stdoutBytes = 0;
let stderrBytes = 0;
let stderrHead = '';
globalThis.gc?.();
const before = process.memoryUsage().rss;
// maxRSS so far is at least `before`; the peak below is measured from here on.
const started = performance.now();
const cpuBefore = process.cpuUsage();
const code = await main(args, {
  readFile: (path) => files[path] ?? '',
  readStdin: async () => '',
  stdout: (t) => {
    stdoutBytes += Buffer.byteLength(t);
  },
  stderr: (t) => {
    stderrBytes += Buffer.byteLength(t);
    if (stderrHead.length < 2_000) stderrHead += t.slice(0, 2_000);
  },
});
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const peak = process.resourceUsage().maxRSS * 1024;
process.stdout.write(
  JSON.stringify({
    kind,
    bytes: Buffer.byteLength(text),
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakBytes: Math.max(0, peak - before),
    code,
    stdoutBytes,
    stderrBytes,
    outcome: stderrHead.slice(0, 2_000),
  }) + '\n',
);
