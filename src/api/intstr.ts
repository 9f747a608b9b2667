// Int-or-percent values (PDB minAvailable/maxUnavailable), with Kubernetes' rounding. The disruption
// controller rounds a minAvailable percentage up (intstr.GetScaledValueFromIntOrPercent(..., true)),
// which is what makes "minAvailable: 60%" of 2 replicas mean 2 and block every drain.

import type { IntOrPercent } from './types.js';

/** The accepted percentage syntax, shared verbatim with the CRD's CEL rules. */
export const PERCENT_PATTERN = '^(100|[1-9]?[0-9])%$';
const percent = new RegExp(PERCENT_PATTERN);

export function isPercent(value: unknown): value is string {
  return typeof value === 'string' && percent.test(value);
}

export function isIntOrPercent(value: unknown): value is IntOrPercent {
  return (Number.isInteger(value) && (value as number) >= 0) || isPercent(value);
}

/** Percent as an integer 0..100; the caller has checked isPercent. */
export function percentValue(value: string): number {
  return Number.parseInt(value.slice(0, -1), 10);
}

/** The absolute number of pods a value means for `total` pods, rounding percentages up. */
export function scaledValue(value: IntOrPercent, total: number): number {
  if (typeof value === 'number') return value;
  return Math.ceil((percentValue(value) * total) / 100);
}
