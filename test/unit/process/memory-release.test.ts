// The idle memory release: a memory-reducing GC only when the process is quiet and V8 holds enough
// unused heap to be worth the pause — and a real one, on this Node, gives the pages back.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import {
  MEMORY_RELEASE_MIN_SLACK_BYTES,
  startMemoryRelease,
  type GcOptions,
  type HeapFigures,
} from '../../../src/process/memory-release.js';

const MiB = 1024 * 1024;
const INTERVAL_MS = 30_000;

function setup(heap: HeapFigures) {
  const state = { reconciles: 0, heap, gcs: [] as GcOptions[] };
  const lines: Record<string, unknown>[] = [];
  let tick: (() => void) | undefined;
  const release = startMemoryRelease({
    gc: (o) => {
      state.gcs.push(o);
      state.heap = { committed: state.heap.used + 2 * MiB, used: state.heap.used };
    },
    heap: () => state.heap,
    work: () => state.reconciles,
    rss: () => 100 * MiB,
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
    tick?.();
  };
  return { state, lines, release, interval, ticking: () => tick !== undefined };
}

describe('idle memory release', () => {
  it('collects once a quiet interval finds unused heap, with the memory-reducing flavour, then not again', () => {
    const { state, interval, lines } = setup({ committed: 60 * MiB, used: 20 * MiB });
    interval(0);
    expect(state.gcs).toEqual([{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
    expect(lines.at(-1)).toMatchObject({
      msg: 'returned unused heap pages to the kernel',
      heapUsedBeforeMiB: 20,
    });
    // The slack is gone: quiet intervals after it do nothing.
    interval(0);
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

  it('leaves a heap with little unused space alone', () => {
    const { state, interval } = setup({
      committed: 20 * MiB + MEMORY_RELEASE_MIN_SLACK_BYTES - 1,
      used: 20 * MiB,
    });
    interval(0);
    interval(0);
    expect(state.gcs).toHaveLength(0);
  });

  it('collects at most once per burst of work: a heap that grows without reconciles (watch events) is left alone', () => {
    const { state, interval } = setup({ committed: 60 * MiB, used: 20 * MiB });
    interval(0);
    expect(state.gcs).toHaveLength(1);
    // 500 installs' Lease renewals keep V8 busy and its heap moving, but nothing reconciles.
    state.heap = { committed: 70 * MiB, used: 25 * MiB };
    interval(0);
    interval(0);
    expect(state.gcs).toHaveLength(1);
    // A burst of reconciles, then a quiet interval: one more collection.
    interval(10);
    expect(state.gcs).toHaveLength(1);
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
