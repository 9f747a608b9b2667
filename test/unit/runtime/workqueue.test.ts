import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import {
  BucketRateLimiter,
  ExponentialBackoffRateLimiter,
  MaxOfRateLimiter,
  backoffDelay,
} from '../../../src/runtime/ratelimit.js';
import { abortReason } from '../../../src/runtime/clock.js';
import { Workqueue, type WorkHandler } from '../../../src/runtime/workqueue.js';
import { noWorkqueueMetrics, type WorkqueueMetrics } from '../../../src/runtime/workqueue-metrics.js';

const noWorkqueueMetricsForTest = (): WorkqueueMetrics => ({ ...noWorkqueueMetrics });
import { FakeClock, deferred, flush } from './helpers.js';

const noJitter = () => new ExponentialBackoffRateLimiter({ jitter: 0 });

function recorder() {
  const calls: string[] = [];
  let active = 0;
  let maxActive = 0;
  const perKeyActive = new Map<string, number>();
  let maxPerKey = 0;
  const gates = new Map<string, Array<() => void>>();
  const handler: WorkHandler = async (key) => {
    calls.push(key);
    active++;
    maxActive = Math.max(maxActive, active);
    perKeyActive.set(key, (perKeyActive.get(key) ?? 0) + 1);
    maxPerKey = Math.max(maxPerKey, perKeyActive.get(key) ?? 0);
    await new Promise<void>((resolve) => {
      const list = gates.get(key) ?? [];
      list.push(resolve);
      gates.set(key, list);
    });
    perKeyActive.set(key, (perKeyActive.get(key) ?? 1) - 1);
    active--;
  };
  const release = async (key: string) => {
    const list = gates.get(key) ?? [];
    const next = list.shift();
    if (!next) throw new Error(`${key} is not running`);
    next();
    await flush();
  };
  return {
    calls,
    handler,
    release,
    get maxActive() {
      return maxActive;
    },
    get maxPerKey() {
      return maxPerKey;
    },
  };
}

describe('Workqueue', () => {
  it('coalesces adds of a key that is already queued', async () => {
    const handler = vi.fn(async (_key: string) => {});
    const q = new Workqueue(handler);
    for (let i = 0; i < 50; i++) q.add('ns/a');
    q.add('ns/b');
    expect(q.depth).toBe(2);
    q.start();
    await q.whenIdle();
    expect(handler.mock.calls.map((c) => c[0])).toEqual(['ns/a', 'ns/b']);
  });

  it("many requests listening on the handlers' signal at once are not reported as a listener leak", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const q = new Workqueue(
        async (_key, ctx) => {
          const listeners = Array.from({ length: 20 }, () => () => {});
          for (const l of listeners) ctx.signal.addEventListener('abort', l);
          await new Promise((r) => setTimeout(r, 5));
          for (const l of listeners) ctx.signal.removeEventListener('abort', l);
        },
        { concurrency: 4 },
      );
      q.start();
      for (const k of ['a', 'b', 'c', 'd']) q.add(k);
      await q.whenIdle();
      await new Promise((r) => setTimeout(r, 10)); // Node emits the warning on a later tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('never runs a key concurrently with itself; a re-add while running runs once more afterwards', async () => {
    const r = recorder();
    const q = new Workqueue(r.handler, { concurrency: 4 });
    q.start();
    q.add('a');
    await flush();
    expect(r.calls).toEqual(['a']);
    for (let i = 0; i < 10; i++) q.add('a'); // marked dirty, not started
    await flush();
    expect(r.calls).toEqual(['a']);
    expect(q.depth).toBe(1);
    await r.release('a');
    expect(r.calls).toEqual(['a', 'a']);
    await r.release('a');
    await q.whenIdle();
    expect(r.calls).toEqual(['a', 'a']);
    expect(r.maxPerKey).toBe(1);
  });

  it('runs different keys concurrently up to the concurrency bound', async () => {
    const r = recorder();
    const q = new Workqueue(r.handler, { concurrency: 2 });
    q.start();
    for (const k of ['a', 'b', 'c', 'd']) q.add(k);
    await flush();
    expect(r.calls).toEqual(['a', 'b']);
    expect(q.inFlight).toBe(2);
    await r.release('b');
    expect(r.calls).toEqual(['a', 'b', 'c']);
    await r.release('a');
    await r.release('c');
    await r.release('d');
    await q.whenIdle();
    expect(r.maxActive).toBe(2);
  });

  it('holds keys added before start until start', async () => {
    const handler = vi.fn(async () => {});
    const q = new Workqueue(handler);
    q.add('a');
    await flush();
    expect(handler).not.toHaveBeenCalled();
    q.start();
    await q.whenIdle();
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('retries a failing key with growing backoff, and forgets it after a success', async () => {
    const clock = new FakeClock();
    const seen: Array<{ t: number; retries: number }> = [];
    let failuresLeft = 3;
    const q = new Workqueue(
      async (_key, ctx) => {
        seen.push({ t: clock.now(), retries: ctx.retries });
        if (failuresLeft-- > 0) throw new Error('boom');
      },
      { clock, rateLimiter: noJitter() },
    );
    q.start();
    q.add('a');
    await flush();
    expect(seen).toEqual([{ t: 0, retries: 0 }]);
    await clock.advance(4);
    expect(seen).toHaveLength(1);
    await clock.advance(1); // 5 ms
    await clock.advance(10); // +10 ms
    await clock.advance(20); // +20 ms
    expect(seen).toEqual([
      { t: 0, retries: 0 },
      { t: 5, retries: 1 },
      { t: 15, retries: 2 },
      { t: 35, retries: 3 },
    ]);
    expect(q.numRequeues('a')).toBe(0); // success forgot it
    expect(clock.pending).toBe(0);
  });

  it('requeueAfterMs schedules the key and resets its backoff; requeue: true backs off', async () => {
    const clock = new FakeClock();
    const times: number[] = [];
    const results = [{ requeue: true }, { requeue: true }, { requeueAfterMs: 1000 }, undefined];
    const q = new Workqueue(
      async () => {
        times.push(clock.now());
        return results.shift();
      },
      { clock, rateLimiter: noJitter() },
    );
    q.start();
    q.add('a');
    await flush();
    await clock.advance(5);
    expect(q.numRequeues('a')).toBe(2);
    await clock.advance(10);
    expect(q.numRequeues('a')).toBe(0);
    await clock.advance(1000);
    expect(times).toEqual([0, 5, 15, 1015]);
  });

  it('addAfter: delays the key, the earlier of two delays wins, an add meanwhile runs it now', async () => {
    const clock = new FakeClock();
    const times: Array<[string, number]> = [];
    const q = new Workqueue(
      async (key) => {
        times.push([key, clock.now()]);
      },
      { clock },
    );
    q.start();
    q.addAfter('a', 100);
    q.addAfter('a', 500); // later: ignored
    q.addAfter('b', 300);
    q.addAfter('b', 50); // earlier: replaces
    await clock.advance(99);
    expect(times).toEqual([['b', 50]]);
    await clock.advance(1);
    expect(times).toEqual([
      ['b', 50],
      ['a', 100],
    ]);
    await clock.advance(1000);
    expect(times).toHaveLength(2);
    q.addAfter('c', 0); // non-positive: immediate
    await flush();
    expect(times[2]).toEqual(['c', 1100]);
  });

  it('shutDown waits for in-flight work, drops queued and delayed keys, ignores later adds', async () => {
    const clock = new FakeClock();
    const r = recorder();
    const q = new Workqueue(r.handler, { concurrency: 1, clock });
    q.start();
    q.add('a');
    q.add('b');
    q.addAfter('c', 10);
    await flush();
    let done = false;
    const shut = q.shutDown().then(() => (done = true));
    await flush();
    expect(done).toBe(false);
    q.add('d');
    await r.release('a');
    await shut;
    expect(done).toBe(true);
    await clock.advance(100);
    expect(r.calls).toEqual(['a']);
    expect(q.depth).toBe(0);
  });

  it('shutDown({ drain: true }) handles what is already queued first', async () => {
    const handled: string[] = [];
    const q = new Workqueue(async (k) => {
      handled.push(k);
    });
    q.start();
    q.add('a');
    q.add('b');
    q.add('c');
    await q.shutDown({ drain: true });
    expect(handled).toEqual(['a', 'b', 'c']);
  });

  it('shutDown({ abort: true }) aborts the handlers signal and does not retry their failure', async () => {
    const clock = new FakeClock();
    const signals: AbortSignal[] = [];
    const q = new Workqueue(
      (_key, ctx) =>
        new Promise((_resolve, reject) => {
          signals.push(ctx.signal);
          ctx.signal.addEventListener('abort', () => reject(abortReason(ctx.signal)));
        }),
      { clock, concurrency: 2 },
    );
    q.start();
    q.add('a');
    q.add('b');
    await flush();
    expect(signals).toHaveLength(2);
    await q.shutDown({ abort: true });
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(clock.pending).toBe(0);
    expect(q.inFlight).toBe(0);
  });

  it('a handler that throws synchronously is retried like an async failure', async () => {
    const clock = new FakeClock();
    let n = 0;
    const q = new Workqueue(
      () => {
        if (n++ === 0) throw new Error('sync boom');
      },
      { clock, rateLimiter: noJitter() },
    );
    q.start();
    q.add('a');
    await flush();
    await clock.advance(5);
    expect(n).toBe(2);
  });

  it('reports adds, starts (depth, wait), finishes and retries to the metrics hooks', async () => {
    const clock = new FakeClock();
    const metrics: WorkqueueMetrics = {
      added: vi.fn(),
      started: vi.fn(),
      finished: vi.fn(),
      retried: vi.fn(),
      trackInFlight: vi.fn(),
    };
    let fail = true;
    const gate = deferred();
    const q = new Workqueue(
      async () => {
        await clock.advance(0);
        if (fail) {
          fail = false;
          throw new Error('x');
        }
        await gate.promise;
      },
      { clock, metrics, rateLimiter: noJitter() },
    );
    q.add('a');
    q.add('a'); // coalesced: not counted
    q.add('b');
    expect(vi.mocked(metrics.added).mock.calls).toEqual([[1], [2]]);
    await clock.advance(2000); // 'a' waited 2 s
    q.start();
    await flush();
    expect(vi.mocked(metrics.started).mock.calls[0]).toEqual([1, 2]);
    expect(metrics.retried).toHaveBeenCalledTimes(1); // 'a' failed
    expect(metrics.finished).toHaveBeenCalledTimes(1);
    gate.resolve();
    await clock.advance(5);
    await q.whenIdle();
    expect(metrics.finished).toHaveBeenCalledTimes(3);
    expect(vi.mocked(metrics.started).mock.calls.length).toBe(3);
  });
});

describe('rate limiters', () => {
  it('exponential backoff doubles from 5 ms and caps at 1000 s', () => {
    const rl = noJitter();
    const delays = Array.from({ length: 30 }, () => rl.when('k'));
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(Math.max(...delays)).toBe(1_000_000);
    expect(delays[29]).toBe(1_000_000);
    expect(rl.numRequeues('k')).toBe(30);
    expect(rl.when('other')).toBe(5); // per key
  });

  it('forget resets the backoff', () => {
    const rl = noJitter();
    rl.when('k');
    rl.when('k');
    rl.forget('k');
    expect(rl.numRequeues('k')).toBe(0);
    expect(rl.when('k')).toBe(5);
  });

  it('jitter keeps each delay within [(1 - jitter) * d, d], never above the cap', () => {
    const jitter = 0.2;
    for (let trial = 0; trial < 50; trial++) {
      const rl = new ExponentialBackoffRateLimiter({ jitter });
      for (let n = 0; n < 40; n++) {
        const d = Math.min(1_000_000, 5 * 2 ** n);
        const got = rl.when('k');
        expect(got).toBeGreaterThanOrEqual((1 - jitter) * d);
        expect(got).toBeLessThanOrEqual(d);
      }
    }
    expect(backoffDelay(3, 5, 1000, 0.5, () => 0.999999)).toBeCloseTo(20, 0);
    expect(backoffDelay(3, 5, 1000, 0.5, () => 0)).toBe(40);
    expect(backoffDelay(5000, 5, 1000, 0, () => 0)).toBe(1000); // 2^5000 overflows: still capped
  });

  it('jitter actually spreads delays', () => {
    const rl = new ExponentialBackoffRateLimiter({ jitter: 0.5 });
    const delays = new Set(Array.from({ length: 20 }, (_, i) => rl.when(`k${i}`)));
    expect(delays.size).toBeGreaterThan(10);
  });

  it('bucket limiter allows a burst, then spaces retries at qps', () => {
    const clock = new FakeClock();
    const b = new BucketRateLimiter({ qps: 10, burst: 3, clock });
    expect([b.when('a'), b.when('b'), b.when('c')]).toEqual([0, 0, 0]);
    expect(b.when('d')).toBeCloseTo(100);
    expect(b.when('e')).toBeCloseTo(200);
    const max = new MaxOfRateLimiter(noJitter(), new BucketRateLimiter({ qps: 1, burst: 1, clock }));
    expect(max.when('x')).toBe(5);
    expect(max.when('x')).toBeCloseTo(1000);
    expect(max.numRequeues('x')).toBe(2);
  });
});

describe('Workqueue: in-flight ages', () => {
  it("hands the metrics a reader of the running keys' ages, empty once they finish", async () => {
    const clock = new FakeClock();
    let read: () => readonly number[] = () => [-1];
    const metrics: WorkqueueMetrics = { ...noWorkqueueMetricsForTest(), trackInFlight: (f) => (read = f) };
    const gate = deferred();
    const q = new Workqueue(() => gate.promise, { clock, metrics, concurrency: 2 });
    expect(read()).toEqual([]);
    q.start();
    q.add('a');
    await clock.advance(3000);
    q.add('b');
    await clock.advance(1000);
    expect([...read()].sort()).toEqual([1, 4]);
    gate.resolve();
    await flush();
    expect(read()).toEqual([]);
  });
});

describe('Workqueue: guards and leaks', () => {
  it('a throwing metrics hook does not leave the key stuck in processing', async () => {
    const metrics: WorkqueueMetrics = {
      added: () => {},
      started: () => {},
      finished: () => {
        throw new Error('metrics broke');
      },
      retried: () => {},
      trackInFlight: () => {},
    };
    const seen: string[] = [];
    const q = new Workqueue(async (k) => void seen.push(k), { metrics });
    q.start();
    q.add('a');
    await flush();
    expect(q.inFlight).toBe(0);
    q.add('a');
    await flush();
    expect(seen).toEqual(['a', 'a']);
    await q.shutDown();
  });

  it('whenIdle(signal): an aborted (timed-out) wait leaves no waiter behind', async () => {
    const gate = deferred<void>();
    const q = new Workqueue(() => gate.promise);
    q.start();
    q.add('a');
    for (let i = 0; i < 5; i++) {
      const c = new AbortController();
      const wait = q.whenIdle(c.signal);
      c.abort();
      await wait;
    }
    expect(q.idleWaiterCount).toBe(0);
    gate.resolve();
    await q.shutDown();
  });

  it("an outer signal (the term's) aborts the handlers' signal, and its listener goes at shutdown", async () => {
    const term = new AbortController();
    let seen: AbortSignal | undefined;
    const q = new Workqueue(
      (_k, ctx) => {
        seen = ctx.signal;
        return new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      },
      { signal: term.signal },
    );
    q.start();
    q.add('a');
    await flush();
    expect(getEventListeners(term.signal, 'abort')).toHaveLength(1);
    term.abort(new Error('term over'));
    expect(seen?.aborted).toBe(true);
    await q.shutDown();
    const other = new AbortController();
    const q2 = new Workqueue(() => {}, { signal: other.signal });
    await q2.shutDown();
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });
});
