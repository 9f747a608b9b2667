import { describe, expect, it } from 'vitest';
import { FAIRNESS_EVERY, Priority, ReadyQueue } from '../../../src/runtime/ready-queue.js';

const drain = (q: ReadyQueue) => {
  const out: string[] = [];
  for (let n = q.pop(); n; n = q.pop()) out.push(n.key);
  return out;
};

describe('ReadyQueue', () => {
  it('hands out higher priorities first, FIFO within one', () => {
    const q = new ReadyQueue();
    q.push('l1', Priority.low);
    q.push('n1', Priority.normal);
    q.push('l2', Priority.low);
    q.push('n2', Priority.normal);
    q.push('h1', 7);
    expect(q.size).toBe(5);
    expect(q.pop()).toEqual({ key: 'h1', priority: 7 });
    expect(drain(q)).toEqual(['n1', 'n2', 'l1', 'l2']);
    expect(q.size).toBe(0);
    expect(q.pop()).toBeUndefined();
  });

  it('a key pushed low then high moves up, to the back of the higher line', () => {
    const q = new ReadyQueue();
    q.push('a', Priority.low);
    q.push('b', Priority.low);
    q.push('n', Priority.normal);
    q.push('b', Priority.normal);
    expect(q.size).toBe(3);
    expect(q.priority('b')).toBe(Priority.normal);
    expect(drain(q)).toEqual(['n', 'b', 'a']);
  });

  it('a key pushed high then low stays high and keeps its place; a same-priority push keeps its place', () => {
    const q = new ReadyQueue();
    q.push('a', Priority.normal);
    q.push('b', Priority.normal);
    q.push('a', Priority.low);
    q.push('a', Priority.normal);
    expect(q.priority('a')).toBe(Priority.normal);
    expect(q.size).toBe(2);
    expect(drain(q)).toEqual(['a', 'b']);
  });

  it('while a higher priority keeps keys ready, every FAIRNESS_EVERY-th hand-out is the lowest waiting', () => {
    const q = new ReadyQueue();
    for (let i = 0; i < 3; i++) q.push(`l${i}`, Priority.low);
    // An endless stream of live keys: strict priority would never reach l0.
    let n = 0;
    const order: string[] = [];
    for (let i = 0; i < 3 * FAIRNESS_EVERY; i++) {
      q.push(`n${n++}`, Priority.normal);
      order.push(q.pop()!.key);
      q.push(`n${n++}`, Priority.normal);
    }
    const lows = order.flatMap((k, i) => (k.startsWith('l') ? [[k, i]] : []));
    expect(lows).toEqual([
      ['l0', FAIRNESS_EVERY - 1],
      ['l1', 2 * FAIRNESS_EVERY - 1],
      ['l2', 3 * FAIRNESS_EVERY - 1],
    ]);
    // With three levels the bound serves the lowest, not the middle one.
    const three = new ReadyQueue();
    three.push('low', Priority.low);
    for (let i = 0; i < FAIRNESS_EVERY; i++) three.push(`mid${i}`, Priority.normal);
    for (let i = 0; i < FAIRNESS_EVERY; i++) three.push(`high${i}`, 10);
    const got = drain(three);
    expect(got.indexOf('low')).toBe(FAIRNESS_EVERY - 1);
    expect(got.filter((k) => k.startsWith('high'))).toHaveLength(FAIRNESS_EVERY);
  });

  it('the fairness count only runs while a lower priority waits: a lone priority resets it', () => {
    const q = new ReadyQueue();
    // Nine hand-outs of normal keys with nothing lower waiting: no debt builds up.
    for (let i = 0; i < FAIRNESS_EVERY - 1; i++) {
      q.push(`n${i}`, Priority.normal);
      expect(q.pop()!.key).toBe(`n${i}`);
    }
    q.push('low', Priority.low);
    q.push('n', Priority.normal);
    q.push('m', Priority.normal);
    expect(q.pop()!.key).toBe('n');
    expect(q.pop()!.key).toBe('m');
    expect(q.pop()!.key).toBe('low');
  });

  it('keys() lists highest first; clear empties every line', () => {
    const q = new ReadyQueue();
    q.push('l', Priority.low);
    q.push('n', Priority.normal);
    expect(q.keys()).toEqual(['n', 'l']);
    expect(Object.fromEntries(q.sizes())).toEqual({ [Priority.normal]: 1, [Priority.low]: 1 });
    q.clear();
    expect(q.size).toBe(0);
    expect(q.has('n')).toBe(false);
    expect(q.pop()).toBeUndefined();
  });
});
