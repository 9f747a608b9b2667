// The two phases of npm test's lanes: the timing lanes of phase 2 never start beside a CPU-bound lane
// of phase 1, and never wait for a phase-1 lane that only waits itself (the products lane, for its
// controller's build on a cold machine).
import { describe, expect, it } from 'vitest';
import { runPhases, type PhasedLane } from '../../../scripts/lane-phases.js';

interface Lane extends PhasedLane {
  name: string;
}

/** Lanes that end when the test says so; `log` records starts and ends in order. */
function harness() {
  const log: string[] = [];
  const finish = new Map<string, () => void>();
  const streams = new Map<string, boolean>();
  const run = (lane: Lane, stream: boolean) => {
    log.push(`start ${lane.name}`);
    streams.set(lane.name, stream);
    return new Promise<string>((resolve) =>
      finish.set(lane.name, () => {
        log.push(`end ${lane.name}`);
        resolve(lane.name);
      }),
    );
  };
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  /** Lets the runner react to what happened so far, ends a running lane, and lets it react again. */
  const end = async (name: string) => {
    await settle();
    const f = finish.get(name);
    if (!f) throw new Error(`${name} is not running (started: ${log.join(', ')})`);
    f();
    await settle();
  };
  return { log, run, end, streams };
}

describe('runPhases', () => {
  const unit = { name: 'unit' };
  const integration = { name: 'integration' };
  const products = { name: 'products', waits: true };
  const timing = { name: 'timing' };
  const gloo = { name: 'timing gloo' };

  it('starts phase 2 once the CPU-bound lanes end, beside a phase-1 lane that only waits', async () => {
    const h = harness();
    const all = runPhases([unit, integration, products], [timing, gloo], h.run);
    await h.end('unit');
    expect(h.log).not.toContain('start timing');
    await h.end('integration');
    expect(h.log).toEqual([
      'start unit',
      'start integration',
      'start products',
      'end unit',
      'end integration',
      'start timing',
      'start timing gloo',
    ]);
    await h.end('timing');
    await h.end('timing gloo');
    await h.end('products');
    // Every result, phase 1's first, in the lanes' order.
    expect(await all).toEqual(['unit', 'integration', 'products', 'timing', 'timing gloo']);
    // Side by side: nothing streams.
    expect([...h.streams.values()]).toEqual([false, false, false, false, false]);
  });

  it('without a waiting lane, phase 2 waits for all of phase 1', async () => {
    const h = harness();
    const all = runPhases([unit, integration], [timing], h.run);
    await h.end('integration');
    expect(h.log).not.toContain('start timing');
    await h.end('unit');
    expect(h.log.at(-1)).toBe('start timing');
    await h.end('timing');
    expect(await all).toEqual(['unit', 'integration', 'timing']);
    // timing runs alone: it streams.
    expect(h.streams.get('timing')).toBe(true);
  });

  it('a lane alone in a run streams; a waiting lane beside phase 2 does not', async () => {
    const h = harness();
    const alone = runPhases([unit], [], h.run);
    await h.end('unit');
    expect(await alone).toEqual(['unit']);
    expect(h.streams.get('unit')).toBe(true);

    const p = harness();
    const beside = runPhases([products], [gloo], p.run);
    await p.end('timing gloo');
    await p.end('products');
    expect(await beside).toEqual(['products', 'timing gloo']);
    expect([...p.streams.values()]).toEqual([false, false]);
  });
});
