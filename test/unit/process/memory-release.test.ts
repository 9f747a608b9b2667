// The idle memory release: a memory-reducing GC only when the process is quiet after work, once after
// the start and then only when the RSS grew enough to be worth the pause — and a real one, on this
// Node, gives the pages back.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import {
  MEMORY_RELEASE_MIN_GROWTH_BYTES,
  MEMORY_RELEASE_MIN_PERIOD_MS,
  startMemoryRelease,
  type GcOptions,
  type HeapFigures,
} from '../../../src/process/memory-release.js';

const MiB = 1024 * 1024;
const INTERVAL_MS = 30_000;

function setup(heap: HeapFigures) {
  const state = { reconciles: 0, heap, rss: 100 * MiB, now: 0, gcs: [] as GcOptions[] };
  const lines: Record<string, unknown>[] = [];
  let tick: (() => void) | undefined;
  const release = startMemoryRelease({
    gc: (o) => {
      state.gcs.push(o);
      state.heap = { committed: state.heap.used + 2 * MiB, used: state.heap.used };
    },
    heap: () => state.heap,
    work: () => state.reconciles,
    rss: () => state.rss,
    now: () => state.now,
    log: createLogger('info', {}, (l) => lines.push(JSON.parse(l) as Record<string, unknown>)),
    intervalMs: INTERVAL_MS,
    setInterval: (fn) => {
      tick = fn;
      return {};
    },
    clearInterval: () => (tick = undefined),
  });
  /** `reconciles` finish during the next interval, then the timer's check. */
  const interval = (reconciles: number) => {
    state.reconciles += reconciles;
    state.now += INTERVAL_MS;
    tick?.();
  };
  return { state, lines, release, interval, ticking: () => tick !== undefined };
}

describe('idle memory release', () => {
  it('collects once in the first quiet interval, with the memory-reducing flavour, then not again', () => {
    const { state, interval, lines } = setup({ committed: 60 * MiB, used: 20 * MiB });
    interval(0);
    expect(state.gcs).toEqual([{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
    expect(lines.at(-1)).toMatchObject({
      msg: 'returned unused heap pages to the kernel',
      heapUsedBeforeMiB: 20,
    });
    // No work since: quiet intervals after it do nothing.
    interval(0);
    interval(0);
    expect(state.gcs).toHaveLength(1);
  });

  it('the first release does not wait for unused heap: a small operator gets one too', () => {
    // 10 installs, measured: 1.3 MB committed beyond the live heap, and the release returned 6.8 MB.
    const { state, interval } = setup({ committed: 29 * MiB, used: 28 * MiB });
    interval(10);
    interval(0);
    expect(state.gcs).toHaveLength(1);
  });

  it('never collects while reconciles finish (a cold start, a burst), only in the quiet interval after', () => {
    const { state, interval } = setup({ committed: 120 * MiB, used: 70 * MiB });
    interval(500);
    interval(3);
    expect(state.gcs).toHaveLength(0);
    interval(0);
    expect(state.gcs).toHaveLength(1);
  });

  it('after a release, a burst that grew the RSS less than the threshold is left alone', () => {
    const { state, interval } = setup({ committed: 60 * MiB, used: 20 * MiB });
    interval(0);
    expect(state.gcs).toHaveLength(1);
    state.now += MEMORY_RELEASE_MIN_PERIOD_MS;
    // A resync of a few installs: work, but the RSS barely moved.
    state.rss += MEMORY_RELEASE_MIN_GROWTH_BYTES - 1;
    interval(10);
    interval(0);
    interval(0);
    expect(state.gcs).toHaveLength(1);
    // Grown to the threshold since the release left it, with that work behind it: the next quiet
    // interval collects.
    state.rss += 1;
    interval(0);
    expect(state.gcs).toHaveLength(2);
  });

  it('collects at most once per burst of work: an RSS that grows without reconciles (watch events) is left alone', () => {
    const { state, interval } = setup({ committed: 60 * MiB, used: 20 * MiB });
    interval(0);
    expect(state.gcs).toHaveLength(1);
    // 500 installs' Lease renewals keep V8 busy and the RSS moving, but nothing reconciles.
    state.rss += 50 * MiB;
    interval(0);
    interval(0);
    expect(state.gcs).toHaveLength(1);
    // A burst of reconciles, then a quiet interval, a period after the release: one more collection.
    state.now += MEMORY_RELEASE_MIN_PERIOD_MS;
    interval(10);
    expect(state.gcs).toHaveLength(1);
    interval(0);
    expect(state.gcs).toHaveLength(2);
  });

  it('at most one release per period: a requeue every minute with the RSS regrowing does not pause the loop every minute', () => {
    const { state, interval } = setup({ committed: 60 * MiB, used: 20 * MiB });
    interval(0);
    expect(state.gcs).toHaveLength(1);
    // A stalled object's requeue reconciles once a minute; the young generation refills after the
    // release, so the RSS is past the growth threshold every time.
    const start = state.now;
    while (state.now - start < MEMORY_RELEASE_MIN_PERIOD_MS - 2 * INTERVAL_MS) {
      state.rss += MEMORY_RELEASE_MIN_GROWTH_BYTES;
      interval(1);
      interval(0);
    }
    expect(state.gcs).toHaveLength(1);
    state.rss += MEMORY_RELEASE_MIN_GROWTH_BYTES;
    interval(1);
    interval(0);
    interval(1);
    interval(0);
    expect(state.gcs).toHaveLength(2);
  });

  it('stop() ends the checks', () => {
    const { release, ticking } = setup({ committed: 60 * MiB, used: 20 * MiB });
    release.stop();
    expect(ticking()).toBe(false);
  });

  it("on this Node, gc() under --expose-gc takes the flavour and returns a grown heap's pages", () => {
    // A child process: its RSS is its own. It grows the young generation and old space with
    // short-lived garbage, collects the ordinary way, then the way the release does.
    const script = `
      const rss = () => process.memoryUsage.rss();
      let keep = [];
      for (let i = 0; i < 150; i++) {
        const a = [];
        for (let j = 0; j < 20000; j++) a.push({ i, j, s: 'x'.repeat(20) + j });
        if (i % 10 === 0) keep.push(a.slice(0, 1000));
      }
      gc(); gc();
      const ordinary = rss();
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      console.log(JSON.stringify({ ordinary, released: rss(), kept: keep.length }));`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' }),
    ) as { ordinary: number; released: number; kept: number };
    expect(out.kept).toBe(15);
    expect(out.ordinary - out.released).toBeGreaterThan(20 * MiB);
  });
});
