// LeaseTracker: swallows Gloo's lease renewals, reports holder and freshness changes, and judges
// staleness on the operator's monotonic clock from when it saw the record change.
import type { V1Lease } from '@kubernetes/client-node';
import { beforeEach, describe, expect, it } from 'vitest';
import { LeaseTracker } from '../../../src/controller/lease-tracker.js';
import { FakeMonotonicClock } from './fake-monotonic-clock.js';

const NS = 'gloo-system';
const WALL0 = Date.parse('2030-01-01T00:00:00.000Z');

interface LeaseOpts {
  leaseDurationSeconds?: number;
  acquireTime?: string;
  leaseTransitions?: number;
}

function lease(holder: string | undefined, renewTime: string | undefined, opts: LeaseOpts = {}): V1Lease {
  const spec: Record<string, unknown> = {};
  if (holder !== undefined) spec.holderIdentity = holder;
  if (renewTime !== undefined) spec.renewTime = renewTime;
  if (opts.leaseDurationSeconds !== undefined) spec.leaseDurationSeconds = opts.leaseDurationSeconds;
  if (opts.acquireTime !== undefined) spec.acquireTime = opts.acquireTime;
  if (opts.leaseTransitions !== undefined) spec.leaseTransitions = opts.leaseTransitions;
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'gloo', namespace: NS },
    spec,
  };
}

/** RFC 3339 micro-time `sec` seconds after WALL0 (what Gloo writes as renewTime). */
const at = (sec: number) => new Date(WALL0 + sec * 1000).toISOString().replace('Z', '000Z');

let clock: FakeMonotonicClock;
let wall: number;
let stale: string[];
let tracker: LeaseTracker;

beforeEach(() => {
  clock = new FakeMonotonicClock();
  wall = WALL0;
  stale = [];
  clock.wallNow = () => new Date(wall);
  tracker = new LeaseTracker((ns) => stale.push(ns), clock);
});

/** Advances the monotonic and the wall clock together. */
function advance(ms: number): void {
  wall += ms;
  clock.advance(ms);
}

describe('first observation', () => {
  it('matters (returns true) and reports the holder as fresh', () => {
    const changed = tracker.observe(
      NS,
      lease('gloo-abc', at(0), { leaseDurationSeconds: 15, acquireTime: at(-100), leaseTransitions: 3 }),
    );
    expect(changed).toBe(true);
    expect(tracker.status(NS)).toEqual({
      holder: 'gloo-abc',
      fresh: true,
      acquireTime: at(-100),
      leaseDurationSeconds: 15,
      leaseTransitions: 3,
      lastTransitionTime: new Date(WALL0).toISOString(),
    });
    expect(stale).toEqual([]);
  });

  it('defaults leaseDurationSeconds to 15 when the Lease has none', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    expect(tracker.status(NS)?.leaseDurationSeconds).toBe(15);
    advance(14_999);
    expect(stale).toEqual([]);
    advance(1);
    expect(stale).toEqual([NS]);
  });

  it('has no status for a namespace it never saw', () => {
    expect(tracker.status(NS)).toBeUndefined();
    expect(tracker.status('other')).toBeUndefined();
  });
});

describe('renewals by the same holder', () => {
  it('do not matter (return false) and never make the lease stale while they keep coming', () => {
    expect(tracker.observe(NS, lease('gloo-abc', at(0), { leaseDurationSeconds: 15 }))).toBe(true);
    const first = tracker.status(NS);
    // Two minutes of renewals every 2 s: eight times the lease duration.
    for (let s = 2; s <= 120; s += 2) {
      advance(2_000);
      expect(tracker.observe(NS, lease('gloo-abc', at(s), { leaseDurationSeconds: 15 }))).toBe(false);
      expect(tracker.status(NS)?.fresh).toBe(true);
    }
    expect(stale).toEqual([]);
    // The status does not change with renewals, so it causes no status write.
    expect(tracker.status(NS)).toEqual(first);
  });

  it('renewals just inside the lease duration keep it fresh', () => {
    tracker.observe(NS, lease('gloo-abc', at(0), { leaseDurationSeconds: 10 }));
    for (let i = 1; i <= 10; i++) {
      advance(9_999);
      expect(tracker.observe(NS, lease('gloo-abc', at(i * 10), { leaseDurationSeconds: 10 }))).toBe(false);
    }
    expect(stale).toEqual([]);
    expect(tracker.status(NS)?.fresh).toBe(true);
  });

  it('keep a single timer armed (the previous one is cleared each time)', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    for (let s = 2; s <= 20; s += 2) {
      advance(2_000);
      tracker.observe(NS, lease('gloo-abc', at(s)));
    }
    expect(clock.pending()).toBe(1);
  });
});

describe('staleness', () => {
  it('fires onStaleness exactly once, leaseDurationSeconds after the last renewal seen', () => {
    tracker.observe(NS, lease('gloo-abc', at(0), { leaseDurationSeconds: 15 }));
    advance(4_000);
    tracker.observe(NS, lease('gloo-abc', at(4), { leaseDurationSeconds: 15 }));
    advance(14_999);
    expect(stale).toEqual([]);
    expect(tracker.status(NS)?.fresh).toBe(true);
    advance(1);
    expect(stale).toEqual([NS]);
    expect(tracker.status(NS)).toMatchObject({ holder: 'gloo-abc', fresh: false });
    advance(600_000);
    expect(stale).toEqual([NS]);
    expect(clock.pending()).toBe(0);
  });

  it('uses the Lease’s own leaseDurationSeconds', () => {
    tracker.observe(NS, lease('gloo-abc', at(0), { leaseDurationSeconds: 40 }));
    advance(39_999);
    expect(stale).toEqual([]);
    advance(1);
    expect(stale).toEqual([NS]);
  });

  it('an event that repeats the same renewTime (a resync, a label change) does not extend the lease', () => {
    tracker.observe(NS, lease('gloo-abc', at(0), { leaseDurationSeconds: 15 }));
    advance(10_000);
    expect(tracker.observe(NS, lease('gloo-abc', at(0), { leaseDurationSeconds: 15 }))).toBe(false);
    advance(4_999);
    expect(stale).toEqual([]);
    advance(1);
    expect(stale).toEqual([NS]);
  });

  it('an event with the same renewTime after staleness keeps it stale and does not matter', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    advance(15_000);
    expect(stale).toEqual([NS]);
    expect(tracker.observe(NS, lease('gloo-abc', at(0)))).toBe(false);
    expect(tracker.status(NS)?.fresh).toBe(false);
    expect(clock.pending()).toBe(0);
    advance(60_000);
    expect(stale).toEqual([NS]);
  });

  it('a renewal after staleness matters (returns true) and makes the lease fresh again', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    advance(20_000);
    expect(stale).toEqual([NS]);
    expect(tracker.observe(NS, lease('gloo-abc', at(20)))).toBe(true);
    expect(tracker.status(NS)).toMatchObject({ holder: 'gloo-abc', fresh: true });
    // Same holder all along: lastTransitionTime has not moved.
    expect(tracker.status(NS)?.lastTransitionTime).toBe(new Date(WALL0).toISOString());
    // And it can go stale again, once more.
    advance(15_000);
    expect(stale).toEqual([NS, NS]);
    expect(tracker.status(NS)?.fresh).toBe(false);
  });

  it('a new holder after staleness matters and is fresh', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    advance(16_000);
    expect(tracker.observe(NS, lease('gloo-xyz', at(16), { acquireTime: at(16) }))).toBe(true);
    expect(tracker.status(NS)).toMatchObject({ holder: 'gloo-xyz', fresh: true, acquireTime: at(16) });
  });

  it('each namespace is judged on its own', () => {
    tracker.observe('a', lease('gloo-a', at(0), { leaseDurationSeconds: 10 }));
    tracker.observe('b', lease('gloo-b', at(0), { leaseDurationSeconds: 10 }));
    for (let s = 2; s <= 30; s += 2) {
      advance(2_000);
      tracker.observe('b', lease('gloo-b', at(s), { leaseDurationSeconds: 10 }));
    }
    expect(stale).toEqual(['a']);
    expect(tracker.status('a')?.fresh).toBe(false);
    expect(tracker.status('b')?.fresh).toBe(true);
  });
});

describe('holder changes', () => {
  it('a new holder matters (returns true) and moves lastTransitionTime to when it was seen', () => {
    tracker.observe(NS, lease('gloo-abc', at(0), { leaseTransitions: 0 }));
    advance(5_000);
    const changed = tracker.observe(
      NS,
      lease('gloo-xyz', at(5), { acquireTime: at(5), leaseTransitions: 1 }),
    );
    expect(changed).toBe(true);
    expect(tracker.status(NS)).toEqual({
      holder: 'gloo-xyz',
      fresh: true,
      acquireTime: at(5),
      leaseDurationSeconds: 15,
      leaseTransitions: 1,
      lastTransitionTime: new Date(WALL0 + 5_000).toISOString(),
    });
  });

  it('the new holder’s lease runs from when the change was seen', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    advance(10_000);
    tracker.observe(NS, lease('gloo-xyz', at(10)));
    advance(14_999);
    expect(stale).toEqual([]);
    advance(1);
    expect(stale).toEqual([NS]);
  });

  it('a holder change even with the same renewTime matters', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    expect(tracker.observe(NS, lease('gloo-xyz', at(0)))).toBe(true);
    expect(tracker.status(NS)?.holder).toBe('gloo-xyz');
  });
});

describe('a released lease (empty holder)', () => {
  it('is not fresh, has no holder in status, and matters when the leader releases it', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    advance(1_000);
    expect(tracker.observe(NS, lease('', at(1), { leaseDurationSeconds: 1 }))).toBe(true);
    const s = tracker.status(NS);
    expect(s?.fresh).toBe(false);
    expect(s).not.toHaveProperty('holder');
    expect(s?.lastTransitionTime).toBe(new Date(WALL0 + 1_000).toISOString());
  });

  it('arms no staleness timer: nobody leads, so nothing can go stale', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    tracker.observe(NS, lease('', at(0)));
    expect(clock.pending()).toBe(0);
    advance(120_000);
    expect(stale).toEqual([]);
    expect(tracker.status(NS)?.fresh).toBe(false);
  });

  it('a Lease seen first without any holderIdentity is not fresh', () => {
    expect(tracker.observe(NS, lease(undefined, undefined))).toBe(true);
    expect(tracker.status(NS)).toMatchObject({ fresh: false, leaseDurationSeconds: 15 });
    expect(tracker.status(NS)).not.toHaveProperty('holder');
    advance(60_000);
    expect(stale).toEqual([]);
  });

  it('repeated events of the released lease do not matter', () => {
    tracker.observe(NS, lease('', at(0)));
    expect(tracker.observe(NS, lease('', at(0)))).toBe(false);
  });

  it('a candidate acquiring the released lease matters and is fresh', () => {
    tracker.observe(NS, lease('', at(0)));
    advance(500);
    expect(tracker.observe(NS, lease('gloo-new', at(0.5)))).toBe(true);
    expect(tracker.status(NS)).toMatchObject({ holder: 'gloo-new', fresh: true });
  });
});

describe('forget (the Lease was deleted)', () => {
  it('returns true for a known lease, clears its timer and its status', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    expect(clock.pending()).toBe(1);
    expect(tracker.forget(NS)).toBe(true);
    expect(clock.pending()).toBe(0);
    expect(tracker.status(NS)).toBeUndefined();
    advance(60_000);
    expect(stale).toEqual([]);
  });

  it('returns false for a lease it did not know, or already forgot', () => {
    expect(tracker.forget(NS)).toBe(false);
    tracker.observe(NS, lease('gloo-abc', at(0)));
    expect(tracker.forget(NS)).toBe(true);
    expect(tracker.forget(NS)).toBe(false);
  });

  it('leaves other namespaces alone', () => {
    tracker.observe('a', lease('gloo-a', at(0)));
    tracker.observe('b', lease('gloo-b', at(0)));
    tracker.forget('a');
    advance(15_000);
    expect(stale).toEqual(['b']);
  });

  it('a Lease re-created after forget matters again', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    tracker.forget(NS);
    expect(tracker.observe(NS, lease('gloo-abc', at(1)))).toBe(true);
  });
});

describe('stop', () => {
  it('clears every timer', () => {
    tracker.observe('a', lease('gloo-a', at(0)));
    tracker.observe('b', lease('gloo-b', at(0)));
    expect(clock.pending()).toBe(2);
    tracker.stop();
    expect(clock.pending()).toBe(0);
    advance(60_000);
    expect(stale).toEqual([]);
  });
});

describe('superseded timers', () => {
  it('a stale timer of a replaced record that fires anyway changes nothing', () => {
    const leaky = new FakeMonotonicClock(0, true);
    const seen: string[] = [];
    leaky.wallNow = () => new Date(WALL0);
    const t = new LeaseTracker((ns) => seen.push(ns), leaky);
    t.observe(NS, lease('gloo-abc', at(0)));
    leaky.advance(10_000);
    t.observe(NS, lease('gloo-abc', at(10)));
    // The first record's timer (due at 15 s) still fires: it must not touch the renewed record.
    leaky.advance(5_000);
    expect(seen).toEqual([]);
    expect(t.status(NS)?.fresh).toBe(true);
    leaky.advance(10_000);
    expect(seen).toEqual([NS]);
  });

  it('a timer of a forgotten lease that fires anyway changes nothing', () => {
    const leaky = new FakeMonotonicClock(0, true);
    const seen: string[] = [];
    leaky.wallNow = () => new Date(WALL0);
    const t = new LeaseTracker((ns) => seen.push(ns), leaky);
    t.observe(NS, lease('gloo-abc', at(0)));
    t.forget(NS);
    leaky.advance(60_000);
    expect(seen).toEqual([]);
    expect(t.status(NS)).toBeUndefined();
  });
});

describe('clock skew: staleness is judged on the monotonic clock, from when the change was seen', () => {
  it('a renewTime far in the past (the leader’s clock is behind) is fresh until leaseDuration passes here', () => {
    const past = '2001-01-01T00:00:00.000000Z';
    tracker.observe(NS, lease('gloo-abc', past, { leaseDurationSeconds: 15 }));
    expect(tracker.status(NS)?.fresh).toBe(true);
    expect(stale).toEqual([]);
    // The timer is armed for the full lease duration, not for "already expired".
    expect(clock.armed).toEqual([15_000]);
    advance(14_999);
    expect(tracker.status(NS)?.fresh).toBe(true);
    // It keeps renewing with its skewed clock: still fresh.
    expect(tracker.observe(NS, lease('gloo-abc', '2001-01-01T00:00:14.999000Z'))).toBe(false);
    advance(14_999);
    expect(stale).toEqual([]);
    advance(1);
    expect(stale).toEqual([NS]);
  });

  it('a renewTime far in the future (the leader’s clock is ahead) still goes stale after leaseDuration', () => {
    const future = '2099-01-01T00:00:00.000000Z';
    tracker.observe(NS, lease('gloo-abc', future, { leaseDurationSeconds: 15 }));
    expect(tracker.status(NS)?.fresh).toBe(true);
    expect(clock.armed).toEqual([15_000]);
    advance(14_999);
    expect(stale).toEqual([]);
    advance(1);
    expect(stale).toEqual([NS]);
    expect(tracker.status(NS)?.fresh).toBe(false);
  });

  it('a stepped wall clock on the operator’s node changes nothing', () => {
    tracker.observe(NS, lease('gloo-abc', at(0)));
    // The operator's wall clock jumps a day ahead, but monotonic time only moves 14 s.
    wall += 86_400_000;
    advance(14_000);
    expect(stale).toEqual([]);
    expect(tracker.status(NS)?.fresh).toBe(true);
    advance(1_000);
    expect(stale).toEqual([NS]);
  });
});

describe('leaderless gaps (glooha_product_leaderless_seconds)', () => {
  let gaps: Array<{ seconds: number; previousHolder: string; holder: string; leaseDurationSeconds: number }>;
  beforeEach(() => {
    gaps = [];
    tracker = new LeaseTracker(
      (ns) => stale.push(ns),
      clock,
      (_ns, g) => gaps.push(g),
    );
  });

  it("from the previous holder's last renewal seen to the next holder's first record, across a release", () => {
    tracker.observe(NS, lease('a_1', at(0), { leaseDurationSeconds: 15 }));
    advance(2_000);
    tracker.observe(NS, lease('a_1', at(2), { leaseDurationSeconds: 15 })); // its last renewal
    advance(1_500);
    tracker.observe(NS, lease('', at(3.5), { leaseDurationSeconds: 1 })); // released (by the operator)
    expect(gaps).toEqual([]);
    advance(1_200);
    tracker.observe(NS, lease('b_2', at(4.7), { leaseDurationSeconds: 15 }));
    expect(gaps).toEqual([{ seconds: 2.7, previousHolder: 'a_1', holder: 'b_2', leaseDurationSeconds: 15 }]);
    // Renewals of the new holder are no gap.
    advance(2_000);
    tracker.observe(NS, lease('b_2', at(6.7), { leaseDurationSeconds: 15 }));
    expect(gaps).toHaveLength(1);
  });

  it('a takeover after expiry is one gap of about leaseDuration + retry; the first holder seen is none', () => {
    tracker.observe(NS, lease('a_1', at(0)));
    advance(17_000);
    tracker.observe(NS, lease('b_2', at(17)));
    expect(gaps.map((g) => g.seconds)).toEqual([17]);
  });
});

describe('leaderless: how long nobody has led', () => {
  it('is undefined while the holder is fresh and for a namespace never seen', () => {
    expect(tracker.leaderless(NS)).toBeUndefined();
    tracker.observe(NS, lease('a_1', at(0), { leaseDurationSeconds: 15 }));
    advance(14_000);
    expect(tracker.leaderless(NS)).toBeUndefined();
  });

  it('once stale, counts from the holder’s last renewal seen, with its leaseDuration', () => {
    tracker.observe(NS, lease('a_1', at(0), { leaseDurationSeconds: 15 }));
    advance(3_000);
    tracker.observe(NS, lease('a_1', at(3), { leaseDurationSeconds: 15 }));
    advance(20_000);
    expect(tracker.leaderless(NS)).toEqual({ seconds: 20, leaseDurationSeconds: 15 });
  });

  it('a release after the holder stopped does not restart the count, nor shorten the holder’s leaseDuration', () => {
    tracker.observe(NS, lease('a_1', at(0), { leaseDurationSeconds: 15 }));
    advance(16_000);
    tracker.observe(NS, lease('', at(16), { leaseDurationSeconds: 1 }));
    advance(4_000);
    expect(tracker.leaderless(NS)).toEqual({ seconds: 20, leaseDurationSeconds: 15 });
  });

  it('ends when a new holder appears', () => {
    tracker.observe(NS, lease('a_1', at(0), { leaseDurationSeconds: 15 }));
    advance(17_000);
    tracker.observe(NS, lease('b_2', at(17), { leaseDurationSeconds: 15 }));
    expect(tracker.leaderless(NS)).toBeUndefined();
  });
});
