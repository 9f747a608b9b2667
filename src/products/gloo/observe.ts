// From cached API objects to the ObservedInstall Gloo's core takes (the generic shapes are
// src/controller/observe.ts's).
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { TargetSpec } from './types.js';
import { selects } from '../../core/selectors.js';
import type { ObservedInstall } from './install.js';
import type { Owner } from '../../core/ownership.js';
import {
  isOwnedBy,
  observedDeployment,
  observedHpas,
  observedPdbs,
  type InstallObjects,
} from '../../controller/observe.js';

const HELM_RELEASE_ANNOTATION = 'meta.helm.sh/release-name';

/** Whether an object belongs to the install spec.target names (selector and Helm release narrow it). */
export function inTarget(obj: KubernetesObject, target: TargetSpec | undefined): boolean {
  if (target?.selector && !selects(target.selector, obj.metadata?.labels ?? {})) return false;
  if (target?.helmRelease && obj.metadata?.annotations?.[HELM_RELEASE_ANNOTATION] !== target.helmRelease)
    return false;
  return true;
}

/**
 * Gloo's chart labels its Deployments gloo=gloo / gloo=discovery / gloo=gateway-proxy; spec.target's
 * selector or Helm release name tells installs apart when one namespace holds several. Objects a
 * GlooHA owned before owner-kind labels were symmetric carry none: still its own.
 */
export function observeInstall(objs: InstallObjects, owner: Owner, target?: TargetSpec): ObservedInstall {
  const matches = (d: V1Deployment) => inTarget(d, target);
  const deployments = objs.deployments.filter(matches);
  const byRole = (role: string) => deployments.filter((d) => d.metadata?.labels?.gloo === role);
  const gloo = byRole('gloo')[0];
  const discovery = byRole('discovery')[0];
  const ours = (o: KubernetesObject) => isOwnedBy(o, owner, true);
  return {
    namespace: objs.namespace,
    ...(gloo ? { gloo: observedDeployment(gloo) } : {}),
    ...(discovery ? { discovery: observedDeployment(discovery) } : {}),
    // Proxies with a custom deploymentName may not carry gloo=gateway-proxy: offer every Deployment
    // that is not gloo or discovery; the core matches them by name.
    gatewayProxies: deployments.filter((d) => d !== gloo && d !== discovery).map(observedDeployment),
    hpas: observedHpas(objs.hpas, ours),
    pdbs: observedPdbs(objs.pdbs, ours),
  };
}
