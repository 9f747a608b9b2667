// The LeaderlessGap event: only above the Lease's duration plus one retry, naming both holders.
import { describe, expect, it } from 'vitest';
import {
  failoverBound,
  leaderlessGapEvent,
  secondsToFailoverBound,
} from '../../../src/controller/leaderless-gap.js';

const gap = (seconds: number) => ({
  seconds,
  previousHolder: 'a_1',
  holder: 'b_2',
  leaseDurationSeconds: 15,
});

describe('leaderlessGapEvent', () => {
  it('says nothing within leaseDuration + retryPeriod (a handover, or a quick expiry takeover)', () => {
    expect(leaderlessGapEvent(gap(0.8), 'kgateway-envoy', 2)).toBeUndefined();
    expect(leaderlessGapEvent(gap(17), 'kgateway-envoy', 2)).toBeUndefined();
  });

  it('is a Warning above it, with the gap, the bound and both holders', () => {
    expect(leaderlessGapEvent(gap(17.8), 'kgateway-envoy', 2)).toEqual({
      type: 'Warning',
      reason: 'LeaderlessGap',
      message:
        'the kgateway-envoy Lease had no live holder for 17.8s, above leaseDuration + retryPeriod (17s): a_1 was followed by b_2',
    });
  });
});

describe('failoverBound: how long a product may go leaderless before its HA object is not Ready', () => {
  it('is leaseDuration + retryPeriod + slack, the slack covering client-go’s 1.2 × retryPeriod jitter and 5 s', () => {
    expect(failoverBound(15, 2)).toEqual({ seconds: 25, slackSeconds: 8 });
    expect(failoverBound(15, 5)).toEqual({ seconds: 31, slackSeconds: 11 });
    expect(failoverBound(137, 26)).toEqual({ seconds: 200, slackSeconds: 37 });
  });

  it('counts down to it, then stays at 0', () => {
    const spell = (seconds: number) => ({ seconds, leaseDurationSeconds: 15, retryPeriodSeconds: 2 });
    expect(secondsToFailoverBound(spell(0))).toBe(25);
    expect(secondsToFailoverBound(spell(24.5))).toBe(0.5);
    expect(secondsToFailoverBound(spell(25))).toBe(0);
    expect(secondsToFailoverBound(spell(300))).toBe(0);
  });
});
