// Runs `glooha render`'s parsing (parseGlooHAs: limits, YAML, kubectl's conversion, validation) on one
// hostile input in a fresh process and prints {bytes, ms, peakBytes, outcome} as JSON: peakBytes is the
// process's peak resident memory (getrusage maxrss) above its resident memory just before parsing,
// with the input already built. Used by test/unit/api/kube-yaml-bounds.test.ts.
import { parseGlooHAs } from '../../src/products/gloo/render.js';
import { hostileYaml } from './hostile-yaml.js';

const kind = process.argv[2] ?? '';
const text = hostileYaml(kind);
globalThis.gc?.();
const before = process.memoryUsage().rss;
// maxRSS so far is at least `before`; the peak below is measured from here on.
const started = performance.now();
const cpuBefore = process.cpuUsage();
let outcome: string;
try {
  outcome = `parsed ${parseGlooHAs(text, 'input', 'default').length}`;
} catch (err) {
  const problems = (err as { problems?: string[] }).problems ?? [];
  outcome = [String((err as Error).message).split('\n')[0], ...problems.slice(0, 2)].join(' | ');
}
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
const peak = process.resourceUsage().maxRSS * 1024;
process.stdout.write(
  JSON.stringify({
    kind,
    bytes: Buffer.byteLength(text),
    ms,
    cpuMs,
    peakBytes: Math.max(0, peak - before),
    outcome,
  }) + '\n',
);
