// The LeaderlessGap event: only above the Lease's duration plus one retry, naming both holders.
import { describe, expect, it } from 'vitest';
import { leaderlessGapEvent } from '../../../src/controller/leaderless-gap.js';

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
