// Property: every leaderElection combination the validator accepts meets client-go's rule
// (leaseDuration > renewDeadline > 1.2 × retryPeriod) and each timing's own bound, and every
// combination that meets them is accepted. Combinations are drawn (seeded, so a failure reproduces)
// from values on both sides of each bound, values that overflow int64 nanoseconds in CEL when summed,
// and absent fields (the schema defaults them). test/integration/crd.test.ts runs a sample of the same
// combinations through the API server with the generated CRD.
import { describe, expect, it } from 'vitest';

import { parseDuration } from '../../../src/api/duration.js';
import { LEASE_BOUNDS } from '../../../src/products/gloo/rules.js';
import { DEFAULTS } from '../../../src/products/gloo/schema.js';
import { validateGlooHA } from '../../../src/products/gloo/validate.js';
import { leaderElectionEnv } from '../../../src/products/gloo/leader-election.js';
import { glooHAObject } from './rule-cases.js';

/** Edge values of every bound, ordinary values, and values whose sums overflow int64 nanoseconds. */
export const TIMING_VALUES = [
  undefined,
  '0s',
  '1ms',
  '199ms',
  '200ms',
  '833ms',
  '834ms',
  '999ms',
  '1s',
  '1.2s',
  '2s',
  '2.5s',
  '8s',
  '8.334s',
  '10s',
  '12s',
  '15s',
  '59.999s',
  '1m',
  '8m19.999s',
  '8m20s',
  '9m59.999s',
  '10m',
  '10m1ms',
  '11m',
  '1h',
  '512410h',
  '999999h',
] as const;

/** A seeded generator (mulberry32): the same combinations on every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Timings {
  leaseDuration?: string;
  renewDeadline?: string;
  retryPeriod?: string;
}

export function drawTimings(n: number, seed: number): Timings[] {
  const next = seeded(seed);
  const pick = () => TIMING_VALUES[Math.floor(next() * TIMING_VALUES.length)];
  return Array.from({ length: n }, () => {
    const t: Timings = {};
    const [lease, renew, retry] = [pick(), pick(), pick()];
    if (lease !== undefined) t.leaseDuration = lease;
    if (renew !== undefined) t.renewDeadline = renew;
    if (retry !== undefined) t.retryPeriod = retry;
    return t;
  });
}

const ns = (d: string) => parseDuration(d)!;

/** The rule and the bounds, in exact integer nanoseconds. */
export function meetsEveryBound(t: Timings): boolean {
  const lease = ns(t.leaseDuration ?? DEFAULTS.leaderElection.leaseDuration);
  const renew = ns(t.renewDeadline ?? DEFAULTS.leaderElection.renewDeadline);
  const retry = ns(t.retryPeriod ?? DEFAULTS.leaderElection.retryPeriod);
  return (
    lease <= ns(LEASE_BOUNDS.maxLeaseDuration) &&
    retry <= ns(LEASE_BOUNDS.maxRetryPeriod) &&
    renew >= ns(LEASE_BOUNDS.minRenewDeadline) &&
    retry >= ns(LEASE_BOUNDS.minRetryPeriod) &&
    lease > renew &&
    // renewDeadline > 1.2 × retryPeriod, exactly
    5n * renew > 6n * retry
  );
}

describe('leaderElection timings: accepted exactly when client-go accepts them and each is in bounds', () => {
  const combos = drawTimings(4000, 28);

  it('draws both accepted and refused combinations', () => {
    const accepted = combos.filter(meetsEveryBound).length;
    expect(accepted).toBeGreaterThan(100);
    expect(combos.length - accepted).toBeGreaterThan(100);
  });

  it('every accepted combination meets the rule and the bounds, and every such combination is accepted', () => {
    const wrong: string[] = [];
    for (const t of combos) {
      const result = validateGlooHA(glooHAObject({ gloo: { replicas: 2, leaderElection: t } }));
      if (result.ok !== meetsEveryBound(t))
        wrong.push(`${JSON.stringify(t)}: validator ${result.ok ? 'accepts' : 'refuses'}`);
      if (result.ok) {
        // What the operator writes to the gloo container is what client-go then checks.
        const env = Object.fromEntries(
          leaderElectionEnv(result.value.spec.gloo.leaderElection).map((e) => [e.name, e.value]),
        );
        const lease = ns(env.LEADER_ELECTION_LEASE_DURATION!);
        const renew = ns(env.LEADER_ELECTION_RENEW_PERIOD!);
        const retry = ns(env.LEADER_ELECTION_RETRY_PERIOD!);
        if (!(lease > renew && 5n * renew > 6n * retry))
          wrong.push(`${JSON.stringify(t)}: writes ${JSON.stringify(env)}, which client-go refuses`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('retryPeriod: 11m (the reported case) is refused', () => {
    const result = validateGlooHA(glooHAObject({ gloo: { leaderElection: { retryPeriod: '11m' } } }));
    expect(result.ok).toBe(false);
  });
});
