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
// When: every `intervalMs`, if no reconcile finished since the last check (the cold start or a burst
// of reconciles is over) and at least one did since the last release (if any); after the first
// release, only once `minPeriodMs` has passed since it and the RSS grew by at least `minGrowthBytes`
// since it left it. So: one collection after the start, then at most one per burst of work and per
// period, and none at steady state, however many watch events (500 installs' Lease renewals cost ~5 %
// of a CPU) keep the process busy without reconciling. The period matters because the RSS regrows a
// few MB after a release (V8's young generation fills again) while a stalled object's requeue
// reconciles every minute: without it those would pause the loop every minute. What V8 has committed
// beyond its live heap does not predict the gain: with 10 installs a release found 1.3 MB of it and
// still returned 6.8 MB of RSS. The collection stops the event loop for ~0.1 s (10 installs) to
// ~0.3 s (500); the Lease renewals it can delay have a 10 s renew deadline.
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
  /** Reconciles finished so far on this replica, all controllers: grows with every unit of work. */
  work: () => number;
  rss: () => number;
  log: Logger;
  intervalMs?: number;
  minGrowthBytes?: number;
  minPeriodMs?: number;
  now?: () => number;
  setInterval?: (fn: () => void, ms: number) => { unref?(): unknown };
  clearInterval?: (handle: unknown) => void;
}

export const MEMORY_RELEASE_INTERVAL_MS = 30_000;
/** After a release, the RSS growth below which another is not worth its pause. */
export const MEMORY_RELEASE_MIN_GROWTH_BYTES = 4 * 1024 * 1024;
/** The least time between two releases when none is given; main passes the resync period (--resync-period). */
export const MEMORY_RELEASE_MIN_PERIOD_MS = 10 * 60_000;

export interface MemoryRelease {
  /** One check, as the timer runs it; returns whether it collected. */
  check(): boolean;
  stop(): void;
}

export function startMemoryRelease(opts: MemoryReleaseOptions): MemoryRelease {
  const intervalMs = opts.intervalMs ?? MEMORY_RELEASE_INTERVAL_MS;
  const minGrowth = opts.minGrowthBytes ?? MEMORY_RELEASE_MIN_GROWTH_BYTES;
  const minPeriod = opts.minPeriodMs ?? MEMORY_RELEASE_MIN_PERIOD_MS;
  const now = opts.now ?? (() => performance.now());
  let workAtLastCheck = opts.work();
  let last: { work: number; at: number; rssAfter: number } | undefined;
  const check = (): boolean => {
    const work = opts.work();
    const quiet = work === workAtLastCheck;
    workAtLastCheck = work;
    if (!quiet || work === last?.work) return false;
    const rssBefore = opts.rss();
    if (last && (now() - last.at < minPeriod || rssBefore - last.rssAfter < minGrowth)) return false;
    const { committed, used } = opts.heap();
    const started = performance.now();
    opts.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const rssAfter = opts.rss();
    last = { work, at: now(), rssAfter };
    opts.log.info('returned unused heap pages to the kernel', {
      tookMs: Math.round(performance.now() - started),
      rssBeforeMiB: mib(rssBefore),
      rssAfterMiB: mib(rssAfter),
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
