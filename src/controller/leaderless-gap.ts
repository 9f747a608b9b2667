// What a leaderless gap of the managed product is reported as: every gap goes into
// glooha_product_leaderless_seconds; one longer than the Lease's duration plus one retry of the
// product's elector (a leader change that waited out the Lease, or worse) is also a Warning event on
// the HA object, so `kubectl describe` shows it next to the object's other events.
import type { LeaderlessGap } from './lease-tracker.js';
import type { PlannedEvent } from './plan-types.js';

export const LEADERLESS_GAP_REASON = 'LeaderlessGap';

/** The expected bound of a gap: the Lease's duration plus one retry period. */
export function leaderlessBoundSeconds(leaseDurationSeconds: number, retryPeriodSeconds: number): number {
  return leaseDurationSeconds + retryPeriodSeconds;
}

/** The event for a gap above the bound; undefined within it. */
export function leaderlessGapEvent(
  gap: LeaderlessGap,
  leaseName: string,
  retryPeriodSeconds: number,
): PlannedEvent | undefined {
  const bound = leaderlessBoundSeconds(gap.leaseDurationSeconds, retryPeriodSeconds);
  if (gap.seconds <= bound) return undefined;
  return {
    type: 'Warning',
    reason: LEADERLESS_GAP_REASON,
    message: `the ${leaseName} Lease had no live holder for ${gap.seconds.toFixed(1)}s, above leaseDuration + retryPeriod (${bound}s): ${gap.previousHolder} was followed by ${gap.holder}`,
  };
}
