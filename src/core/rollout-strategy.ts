// Rolling updates that cannot wedge.
//
// With required pod anti-affinity on kubernetes.io/hostname, a surge pod needs a node that runs none
// of the component's pods. When replicas ≥ the nodes the pods can run on there is no such node, and
// the Deployment default that Gloo's chart keeps (25% surge, 25% unavailable: maxSurge 1,
// maxUnavailable 0 for 2–4 replicas) never finishes: the surge pod stays Pending, no old pod is removed.
// Replacing pods in place — maxSurge 0, maxUnavailable 1 — progresses on any cluster that can run the
// replicas at all, without reading Nodes (the operator has no permission to), at the cost of one pod
// of capacity while a rollout runs: the disruption the PDB already allows a node drain. We choose
// this over refusing or warning with a node count because it is always safe to apply, needs no
// cluster-wide read, and still holds when nodes come and go.
//
// Only required anti-affinity gets it: with preferred (or none) the surge pod schedules anyway.
// And only with 2 replicas or more, at the floor and now: replacing the only pod in place is an
// outage (1→0→1 available on every rollout). Below 2 the field is left to the Deployment's default
// (25%/25%: one surge pod, none unavailable), which at worst waits for a node, never loses the pod.
// Gloo's chart has no strategy values, so Helm never sets or removes this field: the handover on
// deletion resets it too (handover.ts), since the count that follows is the chart's 1.
// And only under driftPolicy enforce, the one policy that keeps the count: under warn or ignore a
// plain Helm upgrade (or anyone) may lower it to 1 and the operator leaves it there, with the
// in-place strategy it applied still on the Deployment. There the Deployment's default stays, and a
// warning says what required anti-affinity then costs (a rollout waits for a free node).

/** Fewer replicas than this are never replaced in place (maxSurge 0 would take the last pod down). */
export const IN_PLACE_MIN_REPLICAS = 2;

import { scaledValue } from '../api/intstr.js';
import type { DriftPolicy, PodDisruptionBudgetSpec } from '../api/types.js';
import { floorReplicas, type ComponentIntent } from './component.js';
import { describeComponent, type Finding } from './findings.js';

export interface RollingUpdateStrategy {
  type: 'RollingUpdate';
  rollingUpdate: { maxSurge: number; maxUnavailable: number };
}

/** Pods a drain may take at once under the PDB in force (glooha's or a foreign one), at the replica floor. */
export function disruptionsAllowed(
  c: ComponentIntent,
  budget: PodDisruptionBudgetSpec | undefined,
): number | undefined {
  if (!budget) return undefined;
  const floor = floorReplicas(c);
  if (budget.minAvailable !== undefined) return Math.max(0, floor - scaledValue(budget.minAvailable, floor));
  if (budget.maxUnavailable !== undefined) return scaledValue(budget.maxUnavailable, floor);
  return undefined;
}

/**
 * The rollout strategy for component `c` under `driftPolicy`: in place only where the operator keeps
 * the count (enforce); otherwise none, with a warning when required anti-affinity would have wanted it.
 */
export function keptRolloutStrategy(
  c: ComponentIntent,
  driftPolicy: DriftPolicy,
  budget: PodDisruptionBudgetSpec | undefined,
  replicas?: number,
): ReturnType<typeof rolloutStrategy> {
  const planned = rolloutStrategy(c, budget, replicas);
  if (driftPolicy === 'enforce' || !planned.strategy) return planned;
  return {
    findings: [
      {
        code: 'InPlaceRolloutNeedsEnforce',
        component: c.id,
        path: 'spec.driftPolicy',
        message: `${describeComponent(c.id)} has required anti-affinity, but driftPolicy ${driftPolicy} lets its replica count fall below 2 and stay there, so the operator does not replace its pods in place (maxSurge 0 would take a single pod down): its rollouts keep the Deployment's default, one surge pod, which waits for a node that runs none of its pods. Use driftPolicy enforce, or antiAffinity: preferred`,
      },
    ],
  };
}

/**
 * The rollout strategy for component `c` under `budget`; `replicas` is the count the Deployment will
 * run once applied (undefined: the component's floor alone decides).
 */
export function rolloutStrategy(
  c: ComponentIntent,
  budget: PodDisruptionBudgetSpec | undefined,
  replicas?: number,
): {
  strategy?: RollingUpdateStrategy;
  findings: Finding[];
} {
  if (c.antiAffinity !== 'required') return { findings: [] };
  if (Math.min(floorReplicas(c), replicas ?? Infinity) < IN_PLACE_MIN_REPLICAS) return { findings: [] };
  const strategy: RollingUpdateStrategy = {
    type: 'RollingUpdate',
    rollingUpdate: { maxSurge: 0, maxUnavailable: 1 },
  };
  const allowed = disruptionsAllowed(c, budget);
  const findings: Finding[] = [];
  if (allowed === 0) {
    findings.push({
      code: 'RolloutExceedsDisruptionBudget',
      component: c.id,
      path: `${c.specPath}.podDisruptionBudget`,
      message: `${describeComponent(c.id)} has required anti-affinity, so its rollouts replace one pod at a time (maxSurge 0, maxUnavailable 1), but the PDB in force allows no disruption: a rollout takes one pod down although a drain may not. Allow one disruption (maxUnavailable: 1), or use antiAffinity: preferred`,
    });
  }
  return { strategy, findings };
}
