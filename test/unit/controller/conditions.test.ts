// metav1.Condition bookkeeping: lastTransitionTime moves only when the status flips.
import { describe, expect, it } from 'vitest';
import {
  findCondition,
  setCondition,
  type Condition,
  type ConditionInput,
} from '../../../src/controller/conditions.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const T1 = new Date('2030-01-01T00:05:00.000Z');
const T2 = new Date('2030-01-01T01:00:00.000Z');

const ready = (status: Condition['status'], extra: Partial<ConditionInput> = {}): ConditionInput => ({
  type: 'Ready',
  status,
  reason: status === 'True' ? 'Reconciled' : 'Progressing',
  message: status === 'True' ? 'all good' : 'waiting',
  observedGeneration: 1,
  ...extra,
});

describe('setCondition', () => {
  it('appends a condition of a new type, stamped with now', () => {
    const out = setCondition([], ready('True'), T0);
    expect(out).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'Reconciled',
        message: 'all good',
        observedGeneration: 1,
        lastTransitionTime: T0.toISOString(),
      },
    ]);
  });

  it('appends new types after the existing ones, keeping their order and content', () => {
    const first = setCondition([], ready('True'), T0);
    const out = setCondition(
      first,
      { type: 'Stalled', status: 'False', reason: 'Progressing', message: 'ok' },
      T1,
    );
    expect(out.map((c) => c.type)).toEqual(['Ready', 'Stalled']);
    expect(out[0]).toEqual(first[0]);
    expect(out[1]?.lastTransitionTime).toBe(T1.toISOString());
  });

  it('keeps lastTransitionTime when the status is unchanged, even if reason, message or generation change', () => {
    const first = setCondition([], ready('False'), T0);
    const out = setCondition(
      first,
      ready('False', { reason: 'DeploymentNotFound', message: 'no gloo', observedGeneration: 2 }),
      T1,
    );
    expect(out).toHaveLength(1);
    expect(out[0]).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'DeploymentNotFound',
      message: 'no gloo',
      observedGeneration: 2,
      lastTransitionTime: T0.toISOString(),
    });
  });

  it('moves lastTransitionTime when the status flips, each time it flips', () => {
    const a = setCondition([], ready('False'), T0);
    const b = setCondition(a, ready('True'), T1);
    expect(b[0]?.status).toBe('True');
    expect(b[0]?.lastTransitionTime).toBe(T1.toISOString());
    const c = setCondition(b, ready('True'), T2);
    expect(c[0]?.lastTransitionTime).toBe(T1.toISOString());
    const d = setCondition(c, ready('Unknown'), T2);
    expect(d[0]?.status).toBe('Unknown');
    expect(d[0]?.lastTransitionTime).toBe(T2.toISOString());
  });

  it('replaces a condition in place, leaving the others untouched', () => {
    let cs: Condition[] = [];
    cs = setCondition(cs, { type: 'Stalled', status: 'False', reason: 'P', message: 'm' }, T0);
    cs = setCondition(cs, ready('False'), T0);
    cs = setCondition(cs, { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'm' }, T0);
    const out = setCondition(cs, ready('True'), T1);
    expect(out.map((c) => c.type)).toEqual(['Stalled', 'Ready', 'Degraded']);
    expect(out[0]).toBe(cs[0]);
    expect(out[2]).toBe(cs[2]);
    expect(out[1]).toMatchObject({ status: 'True', lastTransitionTime: T1.toISOString() });
  });

  it('does not mutate the existing list or its conditions', () => {
    const existing = setCondition([], ready('False'), T0);
    const snapshot = structuredClone(existing);
    setCondition(existing, ready('True'), T1);
    setCondition(existing, { type: 'Drifted', status: 'False', reason: 'NoDrift', message: 'm' }, T1);
    expect(existing).toEqual(snapshot);
  });

  it('rewriting the same condition yields an equal list (no status write in a steady state)', () => {
    const once = setCondition([], ready('True'), T0);
    const twice = setCondition(once, ready('True'), T2);
    expect(twice).toEqual(once);
  });

  it('drops no fields and adds no observedGeneration when none is given', () => {
    const out = setCondition([], { type: 'Drifted', status: 'False', reason: 'NoDrift', message: 'm' }, T0);
    expect(out[0]).toEqual({
      type: 'Drifted',
      status: 'False',
      reason: 'NoDrift',
      message: 'm',
      lastTransitionTime: T0.toISOString(),
    });
    expect(out[0]).not.toHaveProperty('observedGeneration');
  });
});

describe('findCondition', () => {
  const cs = setCondition(
    setCondition([], ready('True'), T0),
    { type: 'Stalled', status: 'False', reason: 'P', message: 'm' },
    T0,
  );

  it('finds a condition by type', () => {
    expect(findCondition(cs, 'Stalled')?.reason).toBe('P');
    expect(findCondition(cs, 'Ready')?.status).toBe('True');
  });

  it('returns undefined for a missing type or a missing list', () => {
    expect(findCondition(cs, 'Degraded')).toBeUndefined();
    expect(findCondition(undefined, 'Ready')).toBeUndefined();
  });
});
