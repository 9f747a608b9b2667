// Label selector semantics (metav1.LabelSelector), to tell which existing PDBs cover a component's pods.

import type { LabelSelector } from '../api/types.js';

/** Whether `selector` selects an object with `labels`. An empty selector selects everything (as in PDBs). */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[k] !== v) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const value = labels[req.key];
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (value === undefined) return false;
        break;
      case 'DoesNotExist':
        if (value !== undefined) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** A deep copy of a selector with only the fields Kubernetes knows, for reuse in objects we write. */
export function copySelector(selector: LabelSelector): LabelSelector {
  const out: LabelSelector = {};
  if (selector.matchLabels && Object.keys(selector.matchLabels).length > 0)
    out.matchLabels = { ...selector.matchLabels };
  if (selector.matchExpressions && selector.matchExpressions.length > 0) {
    out.matchExpressions = selector.matchExpressions.map((e) => ({
      key: e.key,
      operator: e.operator,
      ...(e.values ? { values: [...e.values] } : {}),
    }));
  }
  return out;
}

/** Labels a Deployment's pods certainly carry: the template labels, else what the selector requires. */
export function podLabelsOf(d: {
  podLabels?: Record<string, string>;
  selector: LabelSelector;
}): Record<string, string> {
  return d.podLabels ?? { ...(d.selector.matchLabels ?? {}) };
}
