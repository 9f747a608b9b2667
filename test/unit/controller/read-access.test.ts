// The decision of which cluster-scoped kinds to watch, from RBAC's answers: a grant starts a watch, a
// revocation stops it, and a review that failed changes nothing (never a flap on a transient error).
import { describe, expect, it } from 'vitest';
import { decideReads, forbidden, readAnswer, type ReadAnswer } from '../../../src/controller/read-access.js';

const err = (error: string) => ({ error });

describe('readAnswer: list and watch together', () => {
  it('both allowed: readable', () => {
    expect(readAnswer([true, true])).toEqual({ readable: true });
  });

  it('either denied: not readable, even when the other review failed', () => {
    expect(readAnswer([false, true])).toEqual({ readable: false });
    expect(readAnswer([true, false])).toEqual({ readable: false });
    expect(readAnswer([err('503'), false])).toEqual({ readable: false });
    expect(readAnswer([false, err('timeout')])).toEqual({ readable: false });
  });

  it('a failed review and no denial: unknown, with the first error', () => {
    expect(readAnswer([err('503 Service Unavailable'), true])).toEqual({ error: '503 Service Unavailable' });
    expect(readAnswer([true, err('timeout')])).toEqual({ error: 'timeout' });
    expect(readAnswer([err('a'), err('b')])).toEqual({ error: 'a' });
  });
});

describe('decideReads', () => {
  const kinds = ['PriorityClass', 'StorageClass'];
  const answers = (entries: Record<string, ReadAnswer>) => new Map(Object.entries(entries));

  it('nothing watched yet, one kind allowed: it starts, the other stays off', () => {
    const d = decideReads(
      new Set(),
      kinds,
      answers({ PriorityClass: { readable: true }, StorageClass: { readable: false } }),
    );
    expect(d).toEqual({ readable: ['PriorityClass'], start: ['PriorityClass'], stop: [], kept: [] });
  });

  it('a watched kind denied now: it stops; one allowed again: nothing to do', () => {
    const d = decideReads(
      new Set(kinds),
      kinds,
      answers({ PriorityClass: { readable: false }, StorageClass: { readable: true } }),
    );
    expect(d).toEqual({ readable: ['StorageClass'], start: [], stop: ['PriorityClass'], kept: [] });
  });

  it('a failed review keeps a watched kind watched (no stop on a transient error)', () => {
    const d = decideReads(
      new Set(['PriorityClass']),
      kinds,
      answers({ PriorityClass: err('503'), StorageClass: { readable: false } }),
    );
    expect(d.readable).toEqual(['PriorityClass']);
    expect(d.stop).toEqual([]);
    expect(d.kept).toEqual([{ kind: 'PriorityClass', readable: true, reason: '503' }]);
  });

  it('a failed review keeps an unwatched kind unwatched (no start on a guess)', () => {
    const d = decideReads(
      new Set(),
      kinds,
      answers({ PriorityClass: err('forbidden'), StorageClass: err('x') }),
    );
    expect(d).toEqual({
      readable: [],
      start: [],
      stop: [],
      kept: [
        { kind: 'PriorityClass', readable: false, reason: 'forbidden' },
        { kind: 'StorageClass', readable: false, reason: 'x' },
      ],
    });
  });

  it('a kind with no answer counts as a failed review', () => {
    const d = decideReads(new Set(['StorageClass']), kinds, answers({ PriorityClass: { readable: true } }));
    expect(d.readable).toEqual(['PriorityClass', 'StorageClass']);
    expect(d.kept).toEqual([{ kind: 'StorageClass', readable: true, reason: 'not asked' }]);
  });

  it('the same answers twice: the second decision starts and stops nothing (no flapping)', () => {
    const a = answers({ PriorityClass: { readable: true }, StorageClass: { readable: false } });
    const first = decideReads(new Set(), kinds, a);
    const second = decideReads(new Set(first.readable), kinds, a);
    expect(second.start).toEqual([]);
    expect(second.stop).toEqual([]);
    expect(second.readable).toEqual(first.readable);
  });
});

describe('forbidden: what asks RBAC again at once', () => {
  it('a 403 from a list (status code) or a watch error event (code)', () => {
    expect(forbidden({ code: 403 })).toBe(true);
    expect(forbidden({ statusCode: 403 })).toBe(true);
  });

  it('not other failures', () => {
    for (const e of [
      { code: 401 },
      { code: 404 },
      { code: 410 },
      { code: 500 },
      new Error('reset'),
      undefined,
    ])
      expect(forbidden(e)).toBe(false);
  });
});
