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

/** Watch delivery of the new holder's record to the operator, and the pods' start-up: fixed seconds. */
export const FAILOVER_SLACK_FIXED_SECONDS = 5;

/**
 * How long the product may go without a live leader before the HA object stops being Ready: the
 * failover bound its settings imply. A crashed holder's Lease expires after leaseDuration, and a
 * candidate retries every retryPeriod with client-go's jitter (up to 1.2 × retryPeriod more), so a
 * normal failover ends within leaseDuration + retryPeriod + slack, slack = 1.2 × retryPeriod + 5 s.
 * Rounded up to a whole second (status messages quote it). docs/health.md explains it.
 */
export function failoverBound(
  leaseDurationSeconds: number,
  retryPeriodSeconds: number,
): { seconds: number; slackSeconds: number } {
  const slackSeconds = Math.ceil(1.2 * retryPeriodSeconds + FAILOVER_SLACK_FIXED_SECONDS);
  return { seconds: leaseDurationSeconds + retryPeriodSeconds + slackSeconds, slackSeconds };
}

/** How long the product has gone without a live leader, against the bound its settings imply. */
export interface LeaderlessSpell {
  /** Since the last holder's last renewal (or the release of the Lease), on the operator's clock. */
  seconds: number;
  leaseDurationSeconds: number;
  retryPeriodSeconds: number;
}

/** Seconds left before `spell` passes its failover bound; 0 once it has. */
export function secondsToFailoverBound(spell: LeaderlessSpell): number {
  const { seconds } = failoverBound(spell.leaseDurationSeconds, spell.retryPeriodSeconds);
  return Math.max(0, seconds - spell.seconds);
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
