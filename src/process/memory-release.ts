// Gives the V8 heap pages the process no longer uses back to the kernel once it is quiet.
//
// A cold start (every install listed, planned and written at once) grows V8's young generation and
// old-generation pages far beyond the live set; an ordinary GC frees the objects but keeps the pages
// mapped and resident, so an idle operator holds the peak's RSS for ever (scale.md: 27 of 50 MB
// committed with 10 installs is young generation no longer used). V8's memory-reducing collection
// (the "last resort" flavour, which also shrinks the young generation and unmaps pooled pages) gives
// them back; Node exposes it only through `gc()` under `--expose-gc`, which the image's entry point
// passes. Go's runtime does the same from its background scavenger (debug.FreeOSMemory on demand).
//
// When: every `intervalMs`, if the process used less than `maxBusyShare` of a CPU since the last
// check (no cold start, no burst of reconciles in flight) and V8 keeps at least `minSlackBytes`
// committed beyond what is live. After a release the slack is small, so the next check does nothing
// until work has grown the heap again: at most one collection per burst of work, and none at steady
// state. The collection stops the event loop for tens to a few hundred milliseconds; the Lease
// renewals it can delay have a 10 s renew deadline.
import type { Logger } from '../log.js';

export interface GcOptions {
  type: 'major';
  execution: 'sync';
  flavor: 'last-resort';
}

/** `globalThis.gc` under `--expose-gc`. */
export type ExposedGc = (options: GcOptions) => void;

export interface HeapFigures {
  /** Bytes V8 has committed for its heap (v8.getHeapStatistics().total_heap_size). */
  committed: number;
  /** Bytes of it in use (used_heap_size). */
  used: number;
}

export interface MemoryReleaseOptions {
  gc: ExposedGc;
  heap: () => HeapFigures;
  /** CPU time the process has used, in microseconds (process.cpuUsage(), user + system). */
  cpuMicros: () => number;
  rss: () => number;
  log: Logger;
  intervalMs?: number;
  maxBusyShare?: number;
  minSlackBytes?: number;
  setInterval?: (fn: () => void, ms: number) => { unref?(): unknown };
  clearInterval?: (handle: unknown) => void;
}

export const MEMORY_RELEASE_INTERVAL_MS = 30_000;
/** 5 % of a CPU: an idle leader (Lease renewals, watches) uses ~1 %, a reconcile burst far more. */
export const MEMORY_RELEASE_MAX_BUSY_SHARE = 0.05;
/** Below this much unused committed heap a release is not worth the pause. */
export const MEMORY_RELEASE_MIN_SLACK_BYTES = 16 * 1024 * 1024;

export interface MemoryRelease {
  /** One check, as the timer runs it; returns whether it collected. */
  check(): boolean;
  stop(): void;
}

export function startMemoryRelease(opts: MemoryReleaseOptions): MemoryRelease {
  const intervalMs = opts.intervalMs ?? MEMORY_RELEASE_INTERVAL_MS;
  const maxBusyShare = opts.maxBusyShare ?? MEMORY_RELEASE_MAX_BUSY_SHARE;
  const minSlack = opts.minSlackBytes ?? MEMORY_RELEASE_MIN_SLACK_BYTES;
  let lastCpu = opts.cpuMicros();
  const check = (): boolean => {
    const cpu = opts.cpuMicros();
    const busyShare = (cpu - lastCpu) / 1000 / intervalMs;
    lastCpu = cpu;
    const { committed, used } = opts.heap();
    if (busyShare >= maxBusyShare || committed - used < minSlack) return false;
    const rssBefore = opts.rss();
    const started = performance.now();
    opts.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    // The collection's own CPU is not work: the next check judges only what follows it.
    lastCpu = opts.cpuMicros();
    opts.log.info('returned unused heap pages to the kernel', {
      tookMs: Math.round(performance.now() - started),
      rssBeforeMiB: mib(rssBefore),
      rssAfterMiB: mib(opts.rss()),
      heapCommittedBeforeMiB: mib(committed),
      heapUsedBeforeMiB: mib(used),
    });
    return true;
  };
  const set = opts.setInterval ?? ((fn, ms) => setInterval(fn, ms));
  const clear = opts.clearInterval ?? ((h) => clearInterval(h as NodeJS.Timeout));
  const timer = set(check, intervalMs);
  timer.unref?.();
  return { check, stop: () => clear(timer) };
}

function mib(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}
