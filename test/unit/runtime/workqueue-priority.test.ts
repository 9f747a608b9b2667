// The work queue's priorities (ready-queue.ts): the cases that decide whether a change made during a
// cold start's backlog is handled next, and whether the backlog still gets done.
import { describe, expect, it, vi } from 'vitest';
import { ExponentialBackoffRateLimiter } from '../../../src/runtime/ratelimit.js';
import { FAIRNESS_EVERY, Priority } from '../../../src/runtime/ready-queue.js';
import { Workqueue, type WorkResult } from '../../../src/runtime/workqueue.js';
import type { WorkqueueMetrics } from '../../../src/runtime/workqueue-metrics.js';
import { FakeClock, flush } from './helpers.js';

const { low, normal } = Priority;
const noJitter = () => new ExponentialBackoffRateLimiter({ jitter: 0 });

/** A handler whose runs each wait for the test to release them, one run at a time per key. */
function gated(result?: (key: string) => WorkResult | void | Promise<never>) {
  const calls: string[] = [];
  const gates = new Map<string, () => void>();
  const handler = async (key: string) => {
    calls.push(key);
    await new Promise<void>((resolve) => gates.set(key, resolve));
    gates.delete(key);
    return result?.(key);
  };
  const release = async (key: string) => {
    const g = gates.get(key);
    if (!g) throw new Error(`${key} is not running`);
    g();
    await flush();
  };
  return { calls, handler, release, running: () => [...gates.keys()] };
}

describe('Workqueue priorities', () => {
  it('a live add during a low-priority backlog is handed out at the next free worker', async () => {
    const h = gated();
    const q = new Workqueue(h.handler, { concurrency: 2 });
    for (let i = 0; i < 20; i++) q.add(`backlog/${i}`, low);
    q.start();
    await flush();
    expect(h.calls).toEqual(['backlog/0', 'backlog/1']);
    q.add('user/change'); // default priority: normal
    await h.release('backlog/0');
    expect(h.calls.at(-1)).toBe('user/change');
    // The backlog resumes in its own order.
    await h.release('backlog/1');
    await h.release('user/change');
    expect(h.calls.slice(3)).toEqual(['backlog/2', 'backlog/3']);
    const shut = q.shutDown();
    for (const k of h.running()) await h.release(k);
    await shut;
  });

  it('a key added low then normal moves up; normal then low stays normal; coalescing still counts once', async () => {
    const added = vi.fn();
    const metrics: WorkqueueMetrics = {
      added,
      started: () => {},
      finished: () => {},
      retried: () => {},
      trackInFlight: () => {},
    };
    const handled: string[] = [];
    const q = new Workqueue(
      async (k) => {
        handled.push(k);
      },
      { metrics },
    );
    q.add('a', low);
    q.add('b', low);
    q.add('c', normal);
    q.add('b', normal); // moves up, behind c
    q.add('c', low); // stays normal, keeps its place
    q.add('a', low); // coalesced
    expect(q.depth).toBe(3);
    expect(added.mock.calls).toEqual([[1], [2], [3]]); // raising a priority is not another add
    expect(Object.fromEntries(q.readyByPriority())).toEqual({ [normal]: 2, [low]: 1 });
    q.start();
    await q.whenIdle();
    expect(handled).toEqual(['c', 'b', 'a']);
  });

  it('FIFO within a priority', async () => {
    const handled: string[] = [];
    const q = new Workqueue(async (k) => {
      handled.push(k);
    });
    const keys = Array.from({ length: 30 }, (_, i) => `k${i}`);
    for (const k of keys) q.add(k, low);
    const live = Array.from({ length: 5 }, (_, i) => `live${i}`);
    for (const k of live) q.add(k, normal);
    q.start();
    await q.whenIdle();
    expect(handled).toEqual([...live, ...keys]);
  });

  it('a key re-added while it runs is queued after it at the highest priority it was re-added at', async () => {
    const h = gated();
    const q = new Workqueue(h.handler, { concurrency: 1 });
    q.start();
    q.add('a', low);
    await flush();
    expect(h.running()).toEqual(['a']);
    q.add('x', low);
    q.add('y', low);
    q.add('a', low); // dirty at low...
    q.add('a', normal); // ...raised to normal...
    q.add('a', low); // ...and not lowered again
    expect(q.depth).toBe(3);
    await h.release('a');
    expect(h.calls).toEqual(['a', 'a']); // ahead of x and y
    await h.release('a');
    await h.release('x');
    await h.release('y');
    await q.whenIdle();
    expect(h.calls).toEqual(['a', 'a', 'x', 'y']);

    // Handed out at normal, re-added only at low: the re-run waits its turn at low.
    q.add('b', normal);
    await flush();
    q.add('z', low);
    q.add('b', low);
    q.add('w', normal);
    await h.release('b');
    expect(h.calls.at(-1)).toBe('w');
    await h.release('w');
    expect(h.calls.at(-1)).toBe('z');
    await h.release('z');
    expect(h.calls.at(-1)).toBe('b');
    await h.release('b');
    await q.whenIdle();
  });

  it('a priority function for a key being handled is asked once the handler has finished', async () => {
    const h = gated();
    const q = new Workqueue(h.handler, { concurrency: 1 });
    q.start();
    q.add('a', low);
    await flush();
    q.add('x', low);
    // What the handler will know once its writes are answered: the event was the echo of one of them.
    let ownWrite = false;
    let asked = 0;
    q.add('a', () => {
      asked++;
      return ownWrite ? low : normal;
    });
    expect(asked).toBe(0); // not while it runs
    expect(q.depth).toBe(2);
    ownWrite = true;
    await h.release('a');
    expect(asked).toBe(1);
    expect(h.calls).toEqual(['a', 'x']); // the echo queued at low, behind x
    await h.release('x');
    expect(h.calls).toEqual(['a', 'x', 'a']);
    // Someone else's change while it ran: asked at the end too, and it goes first.
    q.add('y', low);
    q.add('a', () => normal);
    q.add('a', () => low); // the higher answer wins
    await h.release('a');
    expect(h.calls.at(-1)).toBe('a');
    // A key not being handled is asked at once; a function that throws counts as normal.
    q.add('z', low);
    q.add('w', () => {
      throw new Error('bug');
    });
    expect(Object.fromEntries(q.readyByPriority())).toEqual({ [normal]: 1, [low]: 2 });
    let now = 0;
    q.add('v', () => ++now && low);
    expect(now).toBe(1);
    await h.release('a');
    expect(h.calls.at(-1)).toBe('w');
    for (const k of ['w', 'y', 'z', 'v']) {
      expect(h.calls.at(-1)).toBe(k);
      await h.release(k);
    }
    await q.whenIdle();
  });

  it('a failure retries at the priority the key ran with, after its backoff', async () => {
    const clock = new FakeClock();
    const failing = new Set(['lowfail', 'livefail']);
    const h = gated((k) => (failing.delete(k) ? Promise.reject(new Error('boom')) : undefined));
    const q = new Workqueue(h.handler, { clock, rateLimiter: noJitter() });
    q.start();
    // The low one fails first, so its retry is scheduled (and comes due) first.
    q.add('lowfail', low);
    await flush();
    await h.release('lowfail');
    q.add('livefail', normal);
    await flush();
    await h.release('livefail');
    expect(q.pendingDelayed).toBe(2);
    q.add('blocker', low);
    await flush();
    await clock.advance(5); // both retries come due while the only worker is busy
    expect(Object.fromEntries(q.readyByPriority())).toEqual({ [normal]: 1, [low]: 1 });
    await h.release('blocker');
    expect(h.calls.slice(3)).toEqual(['livefail']);
    await h.release('livefail');
    await h.release('lowfail');
    await q.whenIdle();
    expect(h.calls).toEqual(['lowfail', 'livefail', 'blocker', 'livefail', 'lowfail']);
  });

  it('requeue and requeueAfterMs keep the priority too', async () => {
    const clock = new FakeClock();
    const h = gated((k) =>
      k === 'after' ? { requeueAfterMs: 100 } : k === 'again' ? { requeue: true } : undefined,
    );
    const q = new Workqueue(h.handler, { clock, rateLimiter: noJitter() });
    q.start();
    q.add('after', normal);
    await flush();
    await h.release('after'); // requeueAfterMs: 100, at normal
    q.add('again', low);
    await flush();
    await h.release('again'); // requeue: backoff 5 ms, at low
    for (let i = 0; i < 3; i++) q.add(`bulk${i}`, low);
    await flush();
    expect(h.running()).toEqual(['bulk0']);
    await clock.advance(100); // both retries are due; bulk0 still runs
    await h.release('bulk0');
    expect(h.running()).toEqual(['after']); // normal: ahead of bulk1, bulk2 and 'again'
    const shut = q.shutDown({ drain: true });
    await h.release('after');
    for (const k of ['bulk1', 'bulk2', 'again']) {
      expect(h.running()).toEqual([k]); // then FIFO at low: the retry was due after the bulk adds
      await h.release(k);
    }
    await shut;
  });

  it('addAfter: of two delays the earlier wins and it comes due at the higher priority', async () => {
    const clock = new FakeClock();
    const handled: string[] = [];
    const q = new Workqueue(
      async (k) => {
        handled.push(k);
      },
      { clock },
    );
    q.addAfter('a', 100, low);
    q.addAfter('a', 50, normal); // earlier and higher: replaces
    q.addAfter('b', 50, normal);
    q.addAfter('b', 100, low); // later: ignored, b stays normal
    q.addAfter('c', 10, low);
    q.addAfter('c', 80, normal); // later, but raises the pending one to normal
    q.add('bulk', low);
    await clock.advance(100);
    // Nothing was started yet: everything is ready at once, by priority.
    q.start();
    await q.whenIdle();
    expect(handled).toEqual(['c', 'a', 'b', 'bulk']);
  });

  it('low-priority keys all get done while live keys keep coming (no starvation)', async () => {
    // Four keys at normal that re-add themselves on every run (objects another controller fights
    // over): with strict priority, one worker would never reach the backlog.
    const hot = ['hot/0', 'hot/1', 'hot/2', 'hot/3'];
    let running = true;
    const done = new Set<string>();
    const handled: string[] = [];
    const q = new Workqueue(async (k) => {
      handled.push(k);
      if (hot.includes(k)) {
        if (running) q.add(k, normal);
      } else {
        done.add(k);
      }
    });
    const backlog = Array.from({ length: 50 }, (_, i) => `backlog/${i}`);
    for (const k of backlog) q.add(k, low);
    for (const k of hot) q.add(k, normal);
    q.start();
    for (let i = 0; i < 200 && done.size < backlog.length; i++) await flush(1);
    running = false;
    await q.whenIdle();
    expect([...done]).toEqual(backlog); // all of it, in order
    // The hot keys got at least (FAIRNESS_EVERY - 1) runs per backlog key handed out.
    const firstLast = handled.indexOf('backlog/49');
    const hotRuns = handled.slice(0, firstLast).filter((k) => k.startsWith('hot/')).length;
    expect(hotRuns).toBeGreaterThanOrEqual((FAIRNESS_EVERY - 1) * 49);
  });

  it('shutDown drops ready keys of every priority; drain handles them by priority', async () => {
    const handled: string[] = [];
    const q = new Workqueue(async (k) => {
      handled.push(k);
    });
    q.add('l', low);
    q.add('n', normal);
    q.start();
    q.add('l2', low);
    q.add('n2', normal);
    await q.shutDown({ drain: true });
    // 'n' started at start(); then what was ready, normal first.
    expect(handled).toEqual(['n', 'n2', 'l', 'l2']);

    const h = gated();
    const q2 = new Workqueue(h.handler);
    q2.add('first', low);
    q2.start();
    await flush();
    q2.add('l', low);
    q2.add('n', normal);
    q2.add('first', normal); // parked behind the running handler
    const shut = q2.shutDown();
    await h.release('first');
    await shut;
    expect(h.calls).toEqual(['first']);
    expect(q2.depth).toBe(0);
    expect(q2.readyByPriority().get(low) ?? 0).toBe(0);
  });
});
