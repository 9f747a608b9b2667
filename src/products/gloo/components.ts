// The spec seen per component: gloo, discovery and each gateway proxy reduced to one shape (what
// Deployment, how many replicas, which budget and spreading), so the rest of the core treats them alike.

import { DEFAULTS } from './schema.js';
import type {
  AntiAffinity,
  AutoscalingSpec,
  DefaultedSpec,
  PodDisruptionBudgetSpec,
  TopologySpreadConstraintSpec,
} from '../../api/types.js';
import { proxyDeploymentName } from '../../core/observed.js';

export type ComponentRole = 'gloo' | 'discovery' | 'gatewayProxy' | 'controller';

export interface ComponentIntent {
  /** 'gloo', 'discovery', 'gatewayProxies.<key>' or (kgateway) 'controller': status key and finding component. */
  id: string;
  role: ComponentRole;
  /** The gatewayProxies key (Helm values name) for proxies. */
  key?: string;
  /** Where the component's settings live in the GlooHA, for findings. */
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

export function intentsOf(spec: DefaultedSpec): ComponentIntent[] {
  const intents: ComponentIntent[] = [
    {
      id: 'gloo',
      role: 'gloo',
      specPath: 'spec.gloo',
      deploymentName: 'gloo',
      replicas: spec.gloo.replicas,
      podDisruptionBudget: spec.gloo.podDisruptionBudget,
      antiAffinity: spec.gloo.antiAffinity,
      topologySpreadConstraints: spec.gloo.topologySpreadConstraints,
    },
  ];
  if (spec.discovery) {
    intents.push({
      id: 'discovery',
      role: 'discovery',
      specPath: 'spec.discovery',
      deploymentName: 'discovery',
      replicas: spec.discovery.replicas,
      antiAffinity: 'none',
    });
  }
  for (const [key, p] of Object.entries(spec.gatewayProxies ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    intents.push({
      id: `gatewayProxies.${key}`,
      role: 'gatewayProxy',
      key,
      specPath: `spec.gatewayProxies[${key}]`,
      deploymentName: proxyDeploymentName(key, p.deploymentName),
      replicas: p.replicas,
      autoscaling: p.autoscaling,
      podDisruptionBudget: p.podDisruptionBudget,
      antiAffinity: p.antiAffinity,
      topologySpreadConstraints: p.topologySpreadConstraints,
    });
  }
  return intents;
}

/** The fewest replicas the component may run: its fixed count or the HPA's minimum. */
export function floorReplicas(c: ComponentIntent): number {
  return c.replicas ?? c.autoscaling?.minReplicas ?? 1;
}

/**
 * The PDB the component should have: the spec's, else maxUnavailable: 1 when it runs more than one
 * replica (a PDB on a single replica either blocks drains or protects nothing). Discovery never gets
 * one: it is a single replica by design.
 */
export function budgetOf(c: ComponentIntent): PodDisruptionBudgetSpec | undefined {
  if (c.role === 'discovery') return undefined;
  if (c.podDisruptionBudget) return c.podDisruptionBudget;
  return floorReplicas(c) > 1 ? { ...DEFAULTS.podDisruptionBudget } : undefined;
}
