// Preloaded into an operator the memory bench starts (`node --expose-gc --import bench/gc-probe.mjs
// dist/src/main.js ...`), outside the code under test so any commit can be measured the same way:
// on SIGUSR2, and at exit, it runs a full garbage collection and writes the process's memory
// (RSS, heap used and total, external) to the file named by GLOOHA_BENCH_GC_FILE, one JSON line each.
/* global process */
import { appendFileSync } from 'node:fs';

const file = process.env.GLOOHA_BENCH_GC_FILE;
const gc = globalThis.gc;

function record(when) {
  if (!file || !gc) return;
  // Twice: the first pass can leave objects only a second one frees (weak references, finalizers).
  gc();
  gc();
  const m = process.memoryUsage();
  appendFileSync(
    file,
    JSON.stringify({ when, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external }) +
      '\n',
  );
}

if (file) {
  process.on('SIGUSR2', () => record('signal'));
  process.on('exit', () => record('exit'));
}
