// The leader's own timers under a reconcile storm, elector and work queue together on the real event
// loop: thousands of queued keys whose handlers do CPU work and no I/O (a refused or no-op reconcile)
// must not hold back the renewals. In bench:scale at 500 installs a leader's renew and renew-deadline
// timers once fired 41 s late behind such a chain, and it lost its own Lease while the storm ran.
// Real clock and timers: what is measured is the event loop. The Lease is the in-memory fake (no I/O).
import { describe, expect, it } from 'vitest';
import { LeaderElector } from '../../../src/leader/elector.js';
import { realClock } from '../../../src/runtime/clock.js';
import { Workqueue } from '../../../src/runtime/workqueue.js';
import { FakeLeaseServer, memoryLogger, RecordingMetrics } from './fakes.js';

const RETRY_MS = 1_000;
const KEYS = 5_000;

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* one reconcile's CPU: a plan computed, nothing sent */
  }
};

describe('LeaderElector under a reconcile storm', () => {
  it(`${KEYS} queued keys of CPU-only reconciles: every renewal within retryPeriod of its due time, the term kept`, async () => {
    const server = new FakeLeaseServer(realClock);
    const stopped: string[] = [];
    // Wrapped: a promise resolved with a promise would wait for the storm to end, not for it to start.
    type Storm = { done: Promise<{ startedAt: number; endedAt: number }> };
    let stormRan: (storm: Storm) => void = () => {};
    const storm = new Promise<Storm>((r) => (stormRan = r));
    const elector = new LeaderElector({
      lease: server.client('a'),
      identity: 'a',
      name: 'glooha-operator',
      leaseDurationMs: 6_000,
      renewDeadlineMs: 4_000,
      retryPeriodMs: RETRY_MS,
      clock: realClock,
      random: () => 0,
      metrics: new RecordingMetrics(),
      logger: memoryLogger(),
      callbacks: {
        onStartedLeading: () => stormRan({ done: runStorm() }),
        onStoppedLeading: (info) => void stopped.push(info.reason),
        onNewLeader: () => {},
      },
    });
    elector.start();
    const leading = await Promise.race([
      storm,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 10_000)),
    ]);
    if (!leading) throw new Error('timed out after 10 s waiting for the elector to lead');
    const { startedAt, endedAt } = await leading.done;
    await elector.stop();

    const renewals = server.writes
      .filter((w) => w.client === 'a' && w.op === 'update' && w.at >= startedAt && w.at <= endedAt)
      .map((w) => w.at);
    const marks = [startedAt, ...renewals, endedAt];
    const gaps = marks.slice(1).map((t, i) => t - marks[i]!);
    // The storm is long enough to need several renewals (5000 × 1 ms, more on a loaded machine)...
    expect(endedAt - startedAt).toBeGreaterThan(3 * RETRY_MS);
    expect(renewals.length).toBeGreaterThanOrEqual(2);
    // ...each came at most one retryPeriod late, and the leader never stepped down.
    expect(
      Math.max(...gaps),
      `gaps between renewals during the storm: ${gaps.map(Math.round).join(', ')} ms`,
    ).toBeLessThan(2 * RETRY_MS);
    expect(stopped.filter((r) => r !== 'shutdown')).toEqual([]);
  }, 60_000);
});

/** KEYS keys through a work queue of 4 workers, each handler 1 ms of CPU and no I/O. */
async function runStorm(): Promise<{ startedAt: number; endedAt: number }> {
  let handled = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((r) => (done = r));
  const q = new Workqueue(
    async () => {
      busy(1);
      if (++handled === KEYS) done();
    },
    { concurrency: 4 },
  );
  for (let i = 0; i < KEYS; i++) q.add(`ns/install-${i}`);
  const startedAt = realClock.now();
  q.start();
  await all;
  const endedAt = realClock.now();
  await q.shutDown({ abort: true });
  return { startedAt, endedAt };
}
