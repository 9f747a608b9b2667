// Preloaded into an operator the memory bench starts (`node --expose-gc --import bench/gc-probe.mjs
// dist/src/main.js ...`), outside the code under test so any commit can be measured the same way:
// on SIGUSR2, and at exit, it runs a full garbage collection and writes the process's memory
// (RSS, heap used and total, external) to the file named by GLOOHA_BENCH_GC_FILE, one JSON line each.
// With it, where the RSS is: anonymous vs file-backed pages (the node binary's code is file-backed),
// what V8 keeps committed per heap space after the GC (a young generation grown during the start stays
// committed), what V8 allocated through malloc, and the process's threads (each can own a malloc arena).
/* global process */
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const file = process.env.GLOOHA_BENCH_GC_FILE;
const gc = globalThis.gc;

/** Fields of /proc/self/status in bytes (kB there), or {} off Linux. */
function status() {
  try {
    const text = readFileSync('/proc/self/status', 'utf8');
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN) * 1024;
    const threads = Number(/^Threads:\s+(\d+)/m.exec(text)?.[1] ?? NaN);
    return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile'), threads };
  } catch {
    return {};
  }
}

/**
 * Anonymous RSS by kind of mapping, from /proc/self/smaps: the brk heap (glibc's main malloc arena),
 * glibc's per-thread arenas (mappings aligned to their 64 MB reservation), and the rest (V8's heap and
 * code pages, thread stacks, other mmaps).
 */
function anonymous() {
  try {
    const out = { brk: 0, arenas: 0, other: 0 };
    let kind;
    for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
      const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
      if (head) {
        const [, start, , inode, name] = head;
        if (name === '[heap]') kind = 'brk';
        else if (inode !== '0' || name) kind = undefined;
        else kind = BigInt('0x' + start) % (64n << 20n) === 0n ? 'arenas' : 'other';
        continue;
      }
      const anon = /^Anonymous:\s+(\d+) kB/.exec(line);
      if (anon && kind) out[kind] += Number(anon[1]) * 1024;
    }
    return out;
  } catch {
    return undefined;
  }
}

function record(when) {
  if (!file || !gc) return;
  // Twice: the first pass can leave objects only a second one frees (weak references, finalizers).
  gc();
  gc();
  const m = process.memoryUsage();
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [
      s.space_name,
      { committed: s.physical_space_size, used: s.space_used_size },
    ]),
  );
  appendFileSync(
    file,
    JSON.stringify({
      when,
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      mallocedMemory: getHeapStatistics().malloced_memory,
      ...status(),
      anonymous: anonymous(),
      spaces,
    }) + '\n',
  );
}

if (file) {
  process.on('SIGUSR2', () => record('signal'));
  process.on('exit', () => record('exit'));
}
