import { describe, expect, it } from 'vitest';
import { LeaderElector, type LeaderTerm, type StoppedLeadingInfo } from '../../../src/leader/elector.js';
import { NotLeaderError } from '../../../src/leader/leadership.js';
import type { LeaseRecord } from '../../../src/leader/lease-client.js';
import {
  advanceAll,
  FakeClock,
  FakeLeaseServer,
  memoryLogger,
  RecordingMetrics,
  settle,
  type FakeLeaseClient,
  type LogLine,
} from './fakes.js';

const LEASE = 15_000;
const RENEW = 10_000;
const RETRY = 2_000;

interface Harness {
  elector: LeaderElector;
  client: FakeLeaseClient;
  clock: FakeClock;
  started: { signal: AbortSignal; term: LeaderTerm; at: number }[];
  stopped: (StoppedLeadingInfo & { at: number })[];
  newLeaders: string[];
  metrics: RecordingMetrics;
  log: LogLine[];
}

interface HarnessOptions {
  clock?: FakeClock;
  random?: () => number;
  watch?: boolean;
  releaseOnCancel?: boolean;
  onStoppedLeading?: () => void | Promise<void>;
  requestTimeoutMs?: number;
  releaseGuardMs?: number | (() => number);
}

function candidate(server: FakeLeaseServer, id: string, opts: HarnessOptions = {}): Harness {
  const clock = opts.clock ?? (server.clock as FakeClock);
  const client = server.client(id);
  const metrics = new RecordingMetrics();
  const logger = memoryLogger();
  const h: Harness = {
    client,
    clock,
    started: [],
    stopped: [],
    newLeaders: [],
    metrics,
    log: logger.lines,
    elector: undefined as unknown as LeaderElector,
  };
  h.elector = new LeaderElector({
    lease: client,
    identity: id,
    name: 'glooha-operator',
    leaseDurationMs: LEASE,
    renewDeadlineMs: RENEW,
    retryPeriodMs: RETRY,
    releaseOnCancel: opts.releaseOnCancel,
    watch: opts.watch,
    requestTimeoutMs: opts.requestTimeoutMs,
    releaseGuardMs: opts.releaseGuardMs,
    clock,
    random: opts.random ?? (() => 0.5),
    metrics,
    logger,
    callbacks: {
      onStartedLeading: (signal, term) => void h.started.push({ signal, term, at: clock.now() }),
      onStoppedLeading: (info) => {
        h.stopped.push({ ...info, at: clock.now() });
        return opts.onStoppedLeading?.();
      },
      onNewLeader: (identity) => void h.newLeaders.push(identity),
    },
  });
  return h;
}

function record(holder: string, extra: Partial<LeaseRecord> = {}): LeaseRecord {
  return {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: '2030-01-01T00:00:00.000000Z',
    renewTime: '2030-01-01T00:00:00.000000Z',
    leaseTransitions: 0,
    ...extra,
  };
}

describe('LeaderElector: acquire and renew', () => {
  it('creates an absent Lease and starts leading once', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(0);

    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.canWrite()).toBe(true);
    expect(() => a.elector.assertLeading()).not.toThrow();
    expect(a.started).toHaveLength(1);
    expect(a.started[0]?.signal.aborted).toBe(false);
    expect(a.elector.leadingSignal).toBe(a.started[0]?.signal);
    expect(a.newLeaders).toEqual(['a']);
    expect(a.metrics.leading.get('glooha-operator')).toBe(true);
    const lease = server.current();
    expect(lease?.record).toMatchObject({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
    });
    expect(lease?.record.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await a.elector.stop();
  });

  it('renews every retryPeriod (jittered) for a minute with no further callbacks', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { random: () => 0.5 }); // interval 2000 × 1.1 = 2200 ms
    a.elector.start();
    await clock.advance(60_000);

    const updates = server.writes.filter((w) => w.op === 'update');
    expect(updates.length).toBe(Math.floor(60_000 / 2_200));
    for (let i = 1; i < updates.length; i++) {
      expect((updates[i]?.at ?? 0) - (updates[i - 1]?.at ?? 0)).toBe(2_200);
      expect(updates[i]?.record.acquireTime).toBe(updates[0]?.record.acquireTime);
      expect(updates[i]?.record.leaseTransitions).toBe(0);
    }
    expect(a.started).toHaveLength(1);
    expect(a.stopped).toHaveLength(0);
    expect(a.newLeaders).toEqual(['a']);
    expect(a.metrics.transitions).toBe(1);
    expect(a.metrics.renews.every((r) => r.result === 'success')).toBe(true);
    // The leader renews from its own cached resourceVersion: one PUT per renew, no GETs.
    expect(a.client.count('get')).toBe(1);
    await a.elector.stop();
  });

  it('keeps renew gaps within [retryPeriod, 1.2 × retryPeriod)', async () => {
    for (const r of [0, 0.999999]) {
      const clock = new FakeClock();
      const server = new FakeLeaseServer(clock);
      const a = candidate(server, 'a', { random: () => r });
      a.elector.start();
      await clock.advance(30_000);
      const at = server.writes.map((w) => w.at);
      const gaps = at.slice(1).map((t, i) => t - (at[i] ?? 0));
      expect(gaps.length).toBeGreaterThan(5);
      for (const g of gaps) {
        expect(g).toBeGreaterThanOrEqual(RETRY);
        expect(g).toBeLessThan(RETRY * 1.2);
      }
      await a.elector.stop();
    }
  });

  it('with a random jitter source every gap is in bounds', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { random: Math.random });
    a.elector.start();
    await clock.advance(120_000);
    const at = server.writes.map((w) => w.at);
    for (let i = 1; i < at.length; i++) {
      const g = (at[i] ?? 0) - (at[i - 1] ?? 0);
      expect(g).toBeGreaterThanOrEqual(RETRY);
      expect(g).toBeLessThan(RETRY * 1.2);
    }
    await a.elector.stop();
  });
});

describe('LeaderElector: competing candidates', () => {
  it('elects exactly one of three; followers issue no writes while the leader renews', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const hs = ['a', 'b', 'c'].map((id) => candidate(server, id));
    for (const h of hs) h.elector.start();
    await clock.advanceChecking(30_000, 100, () => {
      expect(hs.filter((h) => h.elector.isLeader())).toHaveLength(1);
    });
    const leader = hs.find((h) => h.elector.isLeader()) as Harness;
    for (const h of hs) {
      expect(h.newLeaders).toEqual([leader.elector.identity]);
      if (h !== leader) {
        expect(h.started).toHaveLength(0);
        expect(server.writes.filter((w) => w.client === h.elector.identity)).toHaveLength(0);
        // a lost race (409) is not an error
        expect(h.log.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
      }
    }
    for (const h of hs) await h.elector.stop();
  });

  it('a candidate that loses the create race gets a 409 and backs off quietly', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { watch: false });
    const b = candidate(server, 'b', { watch: false });
    a.elector.start();
    b.elector.start();
    await clock.advance(0);
    expect([a, b].filter((h) => h.elector.isLeader())).toHaveLength(1);
    const loser = a.elector.isLeader() ? b : a;
    expect(loser.client.count('create')).toBe(1);
    expect(loser.client.count('get')).toBeGreaterThanOrEqual(2); // re-read after the conflict
    expect(loser.log.filter((l) => l.level === 'warn')).toEqual([]);
    await a.elector.stop();
    await b.elector.stop();
  });

  it('a leader whose API calls fail steps down at renewDeadline; the follower takes over only after leaseDuration', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(0);
    const b = candidate(server, 'b');
    b.elector.start();
    await clock.advance(5_000);
    expect(a.elector.isLeader()).toBe(true);

    a.client.mode = 'error'; // partition: every call of a's fails
    const lastGood = server.writes.filter((w) => w.client === 'a').at(-1)?.at ?? 0;
    const bLastSawChange = lastGood; // b's watch saw that write at once
    await clock.advanceChecking(30_000, 50, () => {
      expect(a.elector.canWrite() && b.elector.canWrite()).toBe(false);
    });

    expect(a.stopped).toHaveLength(1);
    expect(a.stopped[0]?.reason).toBe('renew-deadline-exceeded');
    expect(a.stopped[0]?.at).toBe(lastGood + RENEW);
    expect(a.started[0]?.signal.aborted).toBe(true);
    expect(a.started[0]?.signal.reason).toBeInstanceOf(NotLeaderError);
    expect(a.metrics.leading.get('glooha-operator')).toBe(false);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.elector.status().state).toBe('candidate'); // rejoined, did not exit

    expect(b.elector.isLeader()).toBe(true);
    const bAcquired = b.started[0]?.at ?? 0;
    expect(bAcquired).toBeGreaterThanOrEqual(bLastSawChange + LEASE);
    expect(bAcquired).toBeLessThanOrEqual(bLastSawChange + LEASE + 1);
    expect(server.current()?.record.leaseTransitions).toBe(1);
    expect(b.newLeaders).toEqual(['a', 'b']);
    await a.elector.stop();
    await b.elector.stop();
  });

  it('after stepping down on failed renews, the first failed acquire attempt is logged at warn', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(5_000);
    expect(a.elector.isLeader()).toBe(true);
    a.client.mode = 'error';
    await clock.advance(30_000);
    expect(a.stopped[0]?.reason).toBe('renew-deadline-exceeded');
    const acquireFailures = a.log.filter((l) => l.msg === 'lease acquire attempt failed');
    expect(acquireFailures.length).toBeGreaterThan(0);
    expect(acquireFailures[0]).toMatchObject({ level: 'warn', fields: { failures: 1 } });
    await a.elector.stop();
  });

  it('a hung renew is aborted by the request timeout and the leader still steps down at renewDeadline', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { requestTimeoutMs: 3_000 });
    a.elector.start();
    await clock.advance(1_000);
    a.client.mode = 'hang';
    const lastGood = server.writes.at(-1)?.at ?? 0;
    await clock.advance(20_000);
    expect(a.stopped[0]?.reason).toBe('renew-deadline-exceeded');
    expect(a.stopped[0]?.at).toBe(lastGood + RENEW);
    const hung = a.client.calls.filter((c) => c.at > lastGood && c.at < lastGood + RENEW);
    expect(hung.length).toBeGreaterThanOrEqual(2); // the timeout let it try again
    expect(hung.every((c) => c.signalAborted)).toBe(true);
    // stop() still tries to release (the last record names a) and gives up after the request timeout
    // and a read-back bounded by half of it
    const stopping = a.elector.stop();
    await clock.advance(3_000 + 1_500);
    await stopping;
    const failed = a.log.find((l) => l.msg.startsWith('could not release the lease'));
    expect(failed?.fields.readBack).toBe('failed');
  });

  it('survives transient API errors shorter than renewDeadline without any callback', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(1_000);
    a.client.failNext = 3; // ~6.6 s of failures
    await clock.advance(30_000);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.started).toHaveLength(1);
    expect(a.stopped).toHaveLength(0);
    expect(a.metrics.renews.filter((r) => r.result === 'error')).toHaveLength(3);
    expect(a.log.filter((l) => l.msg === 'lease renew failed')).toHaveLength(3);
    await a.elector.stop();
  });

  it('loses on 409: someone else took the Lease (no watch: found at the next renew)', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { watch: false });
    a.elector.start();
    await clock.advance(1_000);
    server.put(record('intruder'));
    await clock.advance(RETRY * 1.2);
    expect(a.stopped).toHaveLength(1);
    expect(a.stopped[0]?.reason).toBe('lease-lost');
    expect(a.stopped[0]?.message).toContain('intruder');
    expect(a.newLeaders).toEqual(['a', 'intruder']);
    // a never overwrote the intruder's record
    expect(server.current()?.record.holderIdentity).toBe('intruder');
    await a.elector.stop();
  });

  it('loses at once when the watch shows another holder', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(1_000);
    const t = clock.now();
    server.put(record('intruder'));
    await clock.advance(0);
    expect(a.stopped[0]?.reason).toBe('lease-lost');
    expect(a.stopped[0]?.at).toBe(t);
    await a.elector.stop();
  });
});

describe('LeaderElector: clocks and pauses', () => {
  it("does not take over early when the holder's timestamps are far in the past, nor wait forever when they are in the future", async () => {
    for (const stamp of ['2000-01-01T00:00:00.000000Z', '2099-01-01T00:00:00.000000Z']) {
      const clock = new FakeClock();
      const server = new FakeLeaseServer(clock);
      server.put(record('other', { renewTime: stamp, acquireTime: stamp }));
      const b = candidate(server, 'b');
      b.elector.start();
      await clock.advance(LEASE - 1);
      expect(b.elector.isLeader()).toBe(false);
      expect(server.writes).toHaveLength(0);
      await clock.advance(RETRY * 1.2);
      expect(b.elector.isLeader()).toBe(true);
      await b.elector.stop();
    }
  });

  it('a live holder with a skewed clock (timestamps going backwards) is never taken over', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const b = candidate(server, 'b');
    b.elector.start();
    let year = 2050;
    for (let i = 0; i < 20; i++) {
      // the holder renews every 5 s; its wall clock runs backwards a year each time
      const stamp = `${year--}-01-01T00:00:00.000000Z`;
      server.put(record('other', { renewTime: stamp }));
      await clock.advance(5_000);
      expect(b.elector.isLeader()).toBe(false);
    }
    await b.elector.stop();
  });

  it('a local wall clock jump does not matter either: only the monotonic clock is used', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(1_000);
    clock.wallBase -= 3_600_000; // NTP steps the wall clock back an hour
    await clock.advance(5_000);
    expect(a.elector.canWrite()).toBe(true);
    clock.wallBase += 7_200_000; // and forward two hours
    await clock.advance(5_000);
    expect(a.elector.canWrite()).toBe(true);
    expect(a.stopped).toHaveLength(0);
    await a.elector.stop();
  });

  it('after a pause longer than the lease, canWrite() is false on waking — before any timer runs — and the woken replica writes nothing', async () => {
    const clockA = new FakeClock();
    const clockB = new FakeClock();
    const server = new FakeLeaseServer(clockB);
    const a = candidate(server, 'a', { clock: clockA });
    const b = candidate(server, 'b', { clock: clockB });
    a.elector.start();
    await advanceAll([clockA, clockB], 100);
    b.elector.start();
    await advanceAll([clockA, clockB], 3_000);
    expect(a.elector.canWrite()).toBe(true);
    const term1 = a.started[0]?.term as LeaderTerm;

    // SIGSTOP a for 20 s: its clock moves, nothing of it runs; b carries on.
    a.client.freeze();
    const writesBefore = server.writes.filter((w) => w.client === 'a').length;
    clockA.freeze(20_000);
    await clockB.advance(20_000);
    expect(b.elector.isLeader()).toBe(true);

    // First instruction after SIGCONT: the fence is already closed, no timer needed.
    expect(a.elector.isLeader()).toBe(true); // the step-down timer has not run yet...
    expect(a.elector.canWrite()).toBe(false); // ...but the fence is closed
    expect(term1.canWrite()).toBe(false);
    expect(() => a.elector.assertLeading()).toThrow(NotLeaderError);
    expect(() => a.elector.assertLeading()).toThrow(/renew deadline/);

    a.client.thaw();
    await advanceAll([clockA, clockB], 10_000);
    expect(a.stopped[0]?.reason).toBe('renew-deadline-exceeded');
    expect(a.elector.isLeader()).toBe(false);
    expect(server.writes.filter((w) => w.client === 'a').length).toBe(writesBefore);
    expect(b.elector.canWrite()).toBe(true);
    expect(term1.signal.aborted).toBe(true);
    await a.elector.stop();
    await b.elector.stop();
  });

  it('after a pause longer than renewDeadline (nobody else around) it writes again only after a successful renew, in a new term', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(1_000);
    const term1 = a.started[0]?.term as LeaderTerm;
    clock.freeze(12_000);
    expect(a.elector.canWrite()).toBe(false);

    // wake up: the overdue timers run; it steps down, then re-acquires (the Lease still names it)
    let sawWriteAllowedBeforeRenew = false;
    const renewsBefore = server.writes.length;
    await clock.advanceChecking(5_000, 10, () => {
      if (a.elector.canWrite() && server.writes.length === renewsBefore) sawWriteAllowedBeforeRenew = true;
    });
    expect(sawWriteAllowedBeforeRenew).toBe(false);
    expect(a.stopped).toHaveLength(1);
    expect(a.started).toHaveLength(2);
    expect(a.elector.canWrite()).toBe(true);
    expect(term1.canWrite()).toBe(false); // an old term never comes back
    expect(() => term1.assertLeading()).toThrow(NotLeaderError);
    expect(a.started[1]?.term.canWrite()).toBe(true);
    // same holder: acquireTime is kept and it does not count as a transition
    expect(server.current()?.record.leaseTransitions).toBe(0);
    await a.elector.stop();
  });

  it('canWrite() turns false exactly at renewDeadline after the last renew was SENT', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { watch: false });
    a.elector.start();
    await clock.advance(0);
    a.client.mode = 'error';
    const sent = server.writes.at(-1)?.at ?? 0;
    await clock.advance(sent + RENEW - 1 - clock.now());
    expect(a.elector.canWrite()).toBe(true);
    clock.freeze(1);
    expect(a.elector.canWrite()).toBe(false);
    await a.elector.stop();
  });
});

describe('LeaderElector: graceful handover', () => {
  it('stop() ends the term, awaits onStoppedLeading, then releases; a watching candidate takes over at once', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    let holderDuringStopCallback: string | undefined;
    const a = candidate(server, 'a', {
      onStoppedLeading: async () => {
        await new Promise<void>((r) => clock.setTimeout(r, 500)); // draining workers
        holderDuringStopCallback = server.current()?.record.holderIdentity;
      },
    });
    a.elector.start();
    await clock.advance(0);
    const b = candidate(server, 'b');
    b.elector.start();
    await clock.advance(5_000);

    const stopping = a.elector.stop();
    expect(a.elector.canWrite()).toBe(false);
    expect(a.started[0]?.signal.aborted).toBe(true);
    const t0 = clock.now();
    await clock.advance(500);
    await stopping;
    expect(holderDuringStopCallback).toBe('a'); // not released while still draining
    expect(a.stopped[0]?.reason).toBe('shutdown');
    expect(
      server.writes.find((w) => w.client === 'a' && w.record.holderIdentity === '')?.record,
    ).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
    });
    await clock.advance(0);
    expect(b.elector.isLeader()).toBe(true);
    expect((b.started[0]?.at ?? 0) - t0).toBe(500); // right after the release, no retry wait
    expect(a.elector.status().state).toBe('stopped');
    expect(a.metrics.leading.get('glooha-operator')).toBe(false);
    await b.elector.stop();
  });

  it('after a release exactly one of the waiting candidates wins; the losers of the 409 race stay quiet', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(0);
    const others = ['b', 'c', 'd'].map((id) => candidate(server, id));
    for (const h of others) h.elector.start();
    await clock.advance(3_000);
    await a.elector.stop();
    await clock.advance(0);
    expect(others.filter((h) => h.elector.isLeader())).toHaveLength(1);
    // all three raced with the same resourceVersion: one PUT won, two got a 409
    const racers = others.filter((h) => h.client.count('update') > 0);
    expect(racers).toHaveLength(3);
    for (const h of others)
      expect(h.log.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    await clock.advance(10_000);
    expect(others.filter((h) => h.elector.isLeader())).toHaveLength(1);
    for (const h of others) await h.elector.stop();
  });

  it('without the watch the released Lease is taken on the next poll', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { watch: false });
    const b = candidate(server, 'b', { watch: false });
    a.elector.start();
    await clock.advance(0);
    b.elector.start();
    await clock.advance(3_000);
    await a.elector.stop();
    const t0 = clock.now();
    await clock.advance(RETRY * 1.2);
    expect(b.elector.isLeader()).toBe(true);
    expect((b.started[0]?.at ?? 0) - t0).toBeLessThan(RETRY * 1.2);
    await b.elector.stop();
  });

  it('with a release guard the Lease is released that long after the term ended, the drain included', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', {
      releaseGuardMs: 250,
      onStoppedLeading: () => new Promise<void>((r) => clock.setTimeout(r, 100)),
    });
    a.elector.start();
    await clock.advance(0);
    const t0 = clock.now();
    const stopping = a.elector.stop();
    expect(a.elector.canWrite()).toBe(false);
    await clock.advance(249);
    expect(server.current()?.record.holderIdentity).toBe('a'); // drained at 100, still guarding
    await clock.advance(1);
    await stopping;
    const release = server.writes.find((w) => w.client === 'a' && w.record.holderIdentity === '');
    expect(release?.at).toBe(t0 + 250);
  });

  it('a release guard given as a function is asked when the release is due, not when the elector is built', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    let guard = 250;
    const a = candidate(server, 'a', { releaseGuardMs: () => guard });
    a.elector.start();
    await clock.advance(0);
    guard = 0; // e.g. the fencing policy was seen enforced during the term
    const t0 = clock.now();
    await a.elector.stop();
    const release = server.writes.find((w) => w.client === 'a' && w.record.holderIdentity === '');
    expect(release?.at).toBe(t0);
  });

  it('a release whose response is lost (504 after the commit) is read back and logged as released', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { watch: false });
    a.elector.start();
    await clock.advance(0);
    a.client.commitThenFailUpdates = 1;
    await a.elector.stop();
    expect(server.current()?.record.holderIdentity).toBe('');
    expect(a.client.count('get')).toBeGreaterThanOrEqual(1);
    const released = a.log.find((l) => l.msg === 'released the lease');
    expect(released?.fields.confirmedByReadBack).toBe(true);
    expect(a.log.some((l) => l.msg.startsWith('could not release the lease'))).toBe(false);
  });

  it('releaseOnCancel=false leaves the Lease to expire', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { releaseOnCancel: false });
    a.elector.start();
    await clock.advance(0);
    await a.elector.stop();
    expect(server.current()?.record.holderIdentity).toBe('a');
  });

  it('does not release a Lease someone else holds by now', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { watch: false });
    a.elector.start();
    await clock.advance(0);
    server.put(record('other'));
    await a.elector.stop();
    expect(server.current()?.record.holderIdentity).toBe('other');
  });

  it('a candidate stopped while its acquire is in flight releases the Lease if that acquire won', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { watch: false });
    const openCreate = a.client.hold('create');
    a.elector.start();
    await clock.advance(0); // GET done, create in flight
    expect(a.client.count('create')).toBe(1);
    const stopping = a.elector.stop();
    openCreate(); // ...and it lands after stop() was called
    await clock.advance(0);
    await stopping;
    expect(server.writes.map((w) => [w.op, w.record.holderIdentity])).toEqual([
      ['create', 'a'],
      ['update', ''],
    ]);
    expect(a.started).toHaveLength(0);
  });

  it('a candidate whose calls fail on an available Lease retries once per retry period, not in a tight loop', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    server.put(record(''));
    const b = candidate(server, 'b');
    b.client.mode = 'error';
    b.elector.start();
    await clock.advance(11_000);
    expect(b.client.calls.length).toBeGreaterThanOrEqual(4);
    expect(b.client.calls.length).toBeLessThanOrEqual(6);
    await b.elector.stop();
  });

  it('stop() is idempotent, works before start and while stepping down; start() twice throws', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const idle = candidate(server, 'idle');
    await idle.elector.stop();
    expect(idle.elector.status().state).toBe('stopped');

    let release: () => void = () => {};
    const a = candidate(server, 'a', { onStoppedLeading: () => new Promise<void>((r) => (release = r)) });
    a.elector.start();
    expect(() => a.elector.start()).toThrow(/already/);
    await clock.advance(0);
    a.client.mode = 'error';
    await clock.advance(RENEW + 1);
    expect(a.elector.status().state).toBe('stepping-down');
    const p1 = a.elector.stop();
    const p2 = a.elector.stop();
    expect(p1).toBe(p2);
    release();
    await p1;
    expect(a.elector.status().state).toBe('stopped');
    expect(a.stopped).toHaveLength(1);
    await clock.advance(10_000);
    expect(a.started).toHaveLength(1); // did not rejoin after stop
  });

  it('leadingSignal is an aborted signal while not leading', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    server.put(record('other'));
    const b = candidate(server, 'b');
    expect(b.elector.leadingSignal.aborted).toBe(true);
    b.elector.start();
    await clock.advance(1_000);
    expect(b.elector.leadingSignal.aborted).toBe(true);
    expect(b.elector.leader).toBe('other');
    expect(() => b.elector.assertLeading()).toThrow(NotLeaderError);
    await b.elector.stop();
  });
});

describe('LeaderElector: the watch', () => {
  it('falls back to polling while the watch reports errors, and never throws', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    server.put(record('other'));
    const b = candidate(server, 'b');
    b.client.watchMode = 'fail';
    b.elector.start();
    await clock.advance(14_000);
    // one watch: retrying is the watch's own job (the informer loop), not the elector's
    expect(b.client.watchStarts).toBe(1);
    // polling: a GET about every retryPeriod
    expect(b.client.count('get')).toBeGreaterThanOrEqual(6);
    expect(b.log.filter((l) => l.msg.startsWith('lease watch failed') && l.level === 'warn')).toHaveLength(1);
    await clock.advance(20_000);
    expect(b.elector.isLeader()).toBe(true); // other's lease expired; polling found it
    await b.elector.stop();
  });

  it('a watch that fails and then delivers again is trusted again (no polling)', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(0);
    const b = candidate(server, 'b');
    b.elector.start();
    await clock.advance(3_000);
    b.client.failWatches(new Error('connection reset'));
    await clock.advance(3_000); // a's renewals arrive through the (reconnected) watch
    expect(b.elector.status().watching).toBe(true);
    const gets = b.client.count('get');
    await clock.advance(10_000);
    expect(b.client.count('get')).toBe(gets);
    await a.elector.stop();
    await clock.advance(0);
    expect(b.elector.isLeader()).toBe(true);
    await b.elector.stop();
  });

  it('one watch for the whole life of the elector; stop() ends it and leaves no timer', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a', { random: () => 0 });
    a.elector.start();
    await clock.advance(200_000);
    expect(a.client.watchStarts).toBe(1);
    expect(a.client.watches.size).toBe(1);
    await a.elector.stop();
    expect(a.client.watches.size).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a deleted Lease: the leader re-creates it; a candidate gives the holder a lease duration first', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    a.elector.start();
    await clock.advance(0);
    const b = candidate(server, 'b');
    b.elector.start();
    await clock.advance(3_000);
    server.delete();
    await clock.advance(0);
    expect(server.current()?.record.holderIdentity).toBe('a');
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect(server.writes.filter((w) => w.client === 'b')).toHaveLength(0);

    // now the leader is gone for good (no release): b creates it after a lease duration
    a.client.mode = 'error';
    await clock.advance(RENEW);
    server.delete();
    const t = clock.now();
    await clock.advance(LEASE - 100);
    expect(b.elector.isLeader()).toBe(false);
    await clock.advance(RETRY * 1.2 + 200);
    expect(b.elector.isLeader()).toBe(true);
    expect((b.started[0]?.at ?? 0) - t).toBeGreaterThanOrEqual(LEASE - 1);
    await a.elector.stop();
    await b.elector.stop();
  });
});

describe('LeaderElector: callbacks', () => {
  it('a throwing or rejecting callback is logged, not fatal', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const logger = memoryLogger();
    const elector = new LeaderElector({
      lease: server.client('a'),
      identity: 'a',
      name: 'x',
      leaseDurationMs: LEASE,
      renewDeadlineMs: RENEW,
      retryPeriodMs: RETRY,
      clock,
      logger,
      callbacks: {
        onStartedLeading: () => Promise.reject(new Error('boom')),
        onStoppedLeading: () => {
          throw new Error('bang');
        },
        onNewLeader: () => {
          throw new Error('pow');
        },
      },
    });
    elector.start();
    await clock.advance(5_000);
    expect(elector.isLeader()).toBe(true);
    await elector.stop();
    await settle();
    const errors = logger.lines.filter((l) => l.level === 'error').map((l) => l.msg);
    expect(errors).toEqual(
      expect.arrayContaining([
        'onNewLeader callback failed',
        'onStartedLeading callback failed',
        'onStoppedLeading callback failed',
      ]),
    );
    expect(server.current()?.record.holderIdentity).toBe(''); // still released
  });
});

describe('LeaderElector: a guarded loop', () => {
  it('an exception escaping a renew round (a throwing metrics hook) is logged, the leader steps down, and the loop goes on', async () => {
    const clock = new FakeClock();
    const server = new FakeLeaseServer(clock);
    const a = candidate(server, 'a');
    const unhandled: unknown[] = [];
    const onUnhandled = (r: unknown) => unhandled.push(r);
    process.on('unhandledRejection', onUnhandled);
    try {
      a.elector.start();
      await clock.advance(0);
      expect(a.elector.isLeader()).toBe(true);
      let fail = true;
      const renew = a.metrics.renewAttempt.bind(a.metrics);
      a.metrics.renewAttempt = (...args) => {
        if (fail) throw new Error('metrics broke');
        renew(...args);
      };
      await clock.advance(RETRY * 1.2);
      expect(a.log.some((l) => l.level === 'error' && l.msg.includes('leader election loop failed'))).toBe(
        true,
      );
      expect(a.stopped.map((s) => s.reason)).toEqual(['lease-lost']);
      expect(a.elector.canWrite()).toBe(false);
      fail = false;
      await clock.advance(LEASE + RETRY * 2);
      expect(a.elector.isLeader()).toBe(true); // back, as a new term
      expect(a.started).toHaveLength(2);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await a.elector.stop();
    }
  });
});
