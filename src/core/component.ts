// One component of an install (a Deployment the operator keeps available) as every product's core
// sees it: what Deployment, how many replicas, which budget and spreading. Each product reduces its
// spec to these (Gloo: products/gloo/components.ts; kgateway: products/kgateway/desired.ts).

import type {
  AntiAffinity,
  AutoscalingSpec,
  PodDisruptionBudgetSpec,
  TopologySpreadConstraintSpec,
} from '../api/types.js';

/** The budget a component running more than one replica gets when its spec names none. */
export const DEFAULT_POD_DISRUPTION_BUDGET = { maxUnavailable: 1 } as const;

/** What the component is to its product (Gloo's gloo, discovery, gatewayProxy; kgateway's controller, ...). */
export type ComponentRole = string;

export interface ComponentIntent {
  /** Its status key and finding component: `name`, or `group.key` (see ComponentPlan.id). */
  id: string;
  role: ComponentRole;
  /** The key of its entry in the spec's map of such components (proxies), if it is one. */
  key?: string;
  /**
   * It runs a single replica by design (Gloo's discovery, which has no leader election): no PDB and
   * no HA findings.
   */
  singleReplica?: boolean;
  /** Where the component's settings live in the object, for findings. */
  specPath: string;
  deploymentName: string;
  /** Fixed replicas; absent for an autoscaled proxy. */
  replicas?: number;
  autoscaling?: AutoscalingSpec;
  /** The PDB settings from the spec (before defaulting by replica count). */
  podDisruptionBudget?: PodDisruptionBudgetSpec;
  antiAffinity: AntiAffinity;
  topologySpreadConstraints?: TopologySpreadConstraintSpec[];
}

/** The fewest replicas the component may run: its fixed count or the HPA's minimum. */
export function floorReplicas(c: ComponentIntent): number {
  return c.replicas ?? c.autoscaling?.minReplicas ?? 1;
}

/**
 * The PDB the component should have: the spec's, else maxUnavailable: 1 when it runs more than one
 * replica (a PDB on a single replica either blocks drains or protects nothing). A component that runs
 * a single replica by design (Gloo's discovery) never gets one.
 */
export function budgetOf(c: ComponentIntent): PodDisruptionBudgetSpec | undefined {
  if (c.singleReplica) return undefined;
  if (c.podDisruptionBudget) return c.podDisruptionBudget;
  return floorReplicas(c) > 1 ? { ...DEFAULT_POD_DISRUPTION_BUDGET } : undefined;
}
