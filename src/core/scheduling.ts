// Pod anti-affinity and topology spread for a component, selecting the component's own pods. The
// Deployment patches and the Helm values both build them here, from the same selector, so that the
// operator and `helm upgrade -f <values>` produce identical fields and never undo each other.

import type { AntiAffinity, LabelSelector, TopologySpreadConstraintSpec } from '../api/types.js';
import { copySelector } from './selectors.js';

const HOSTNAME = 'kubernetes.io/hostname';

/** affinity.podAntiAffinity for the given mode, or undefined for none. */
export function podAntiAffinity(
  mode: AntiAffinity,
  selector: LabelSelector,
): Record<string, unknown> | undefined {
  const term = { labelSelector: copySelector(selector), topologyKey: HOSTNAME };
  switch (mode) {
    case 'preferred':
      return { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] };
    case 'required':
      return { requiredDuringSchedulingIgnoredDuringExecution: [term] };
    default:
      return undefined;
  }
}

/** The spec's constraints with the component's selector filled in (a constraint without one counts no pods). */
export function topologySpreadConstraints(
  constraints: TopologySpreadConstraintSpec[] | undefined,
  selector: LabelSelector,
): Record<string, unknown>[] | undefined {
  if (!constraints || constraints.length === 0) return undefined;
  return constraints.map((c) => ({
    maxSkew: c.maxSkew,
    topologyKey: c.topologyKey,
    whenUnsatisfiable: c.whenUnsatisfiable,
    labelSelector: copySelector(selector),
    ...(c.minDomains !== undefined ? { minDomains: c.minDomains } : {}),
    ...(c.nodeAffinityPolicy ? { nodeAffinityPolicy: c.nodeAffinityPolicy } : {}),
    ...(c.nodeTaintsPolicy ? { nodeTaintsPolicy: c.nodeTaintsPolicy } : {}),
    ...(c.matchLabelKeys ? { matchLabelKeys: [...c.matchLabelKeys] } : {}),
  }));
}
