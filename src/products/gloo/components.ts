// The spec seen per component: gloo, discovery and each gateway proxy reduced to one shape (what
// Deployment, how many replicas, which budget and spreading), so the rest of the core treats them alike.

import type { DefaultedSpec } from './types.js';
import type { ComponentIntent } from '../../core/component.js';
import { proxyDeploymentName } from './install.js';

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
      singleReplica: true,
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
