// A reconcile storm must not starve the event loop: thousands of queued keys whose handler ends
// without I/O (a reconcile refused by the client-side fence after losing leadership, a no-op plan)
// used to run back to back in one microtask chain, so no timer ran until the queue was empty: the
// leader's renew (every retryPeriod) and renew-deadline timers fired 41 s late in bench:scale and it
// lost its own Lease. Real timers here: the point is what the event loop does.
import { describe, expect, it } from 'vitest';

import { Workqueue } from '../../../src/runtime/workqueue.js';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* CPU work of one refused reconcile (plan computed, first write refused) */
  }
};

describe('work queue under a storm of keys', () => {
  it('5000 queued keys with I/O-free handlers do not delay a renew timer beyond retryPeriod', async () => {
    const retryPeriodMs = 2_000;
    let handled = 0;
    const q = new Workqueue(
      async () => {
        busy(1);
        handled++;
        throw Object.assign(new Error('this replica no longer leads'), { name: 'NotLeaderError' });
      },
      { concurrency: 4 },
    );
    for (let i = 0; i < 5_000; i++) q.add(`ns/install-${i}`);
    const renewDue = performance.now() + 100;
    const renewedLate = new Promise<number>((resolve) =>
      setTimeout(() => resolve(performance.now() - renewDue), 100),
    );
    q.start();
    const late = await renewedLate;
    const handledWhenRenewed = handled;
    await q.shutDown({ abort: true });
    // The storm was still going when the timer ran (the queue holds ~5 s of CPU work)...
    expect(handledWhenRenewed).toBeLessThan(5_000);
    // ...and the timer ran on time, give or take one event-loop budget and a loaded machine.
    expect(late).toBeLessThan(retryPeriodMs);
    expect(late).toBeLessThan(500);
  }, 30_000);
});
