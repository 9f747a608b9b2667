// From cached API objects to the plain ObservedInstall the pure core takes. Only this module knows
// the Kubernetes object shapes the caches hold; the core sees just what it needs.
import type {
  KubernetesObject,
  V1Deployment,
  V1PodDisruptionBudget,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import {
  KGATEWAY_KIND,
  LABEL_OWNER_KIND,
  LABEL_OWNER_NAME,
  LABEL_OWNER_NAMESPACE,
} from '../api/constants.js';
import type { IntOrPercent, LabelSelector, TargetSpec } from '../api/types.js';
import { selects } from '../core/selectors.js';
import type { ObservedDeployment, ObservedHPA, ObservedInstall, ObservedPDB } from '../core/observed.js';
import type { Owner } from '../core/ownership.js';

export function isOwnedBy(obj: KubernetesObject, owner: Owner): boolean {
  const labels = obj.metadata?.labels ?? {};
  const kind = labels[LABEL_OWNER_KIND];
  const sameKind = owner.kind === KGATEWAY_KIND ? kind === KGATEWAY_KIND : kind === undefined;
  return (
    sameKind && labels[LABEL_OWNER_NAME] === owner.name && labels[LABEL_OWNER_NAMESPACE] === owner.namespace
  );
}

const HELM_RELEASE_ANNOTATION = 'meta.helm.sh/release-name';

export function observedDeployment(d: V1Deployment): ObservedDeployment {
  const spec = d.spec;
  return {
    name: d.metadata?.name ?? '',
    labels: d.metadata?.labels,
    selector: (spec?.selector ?? {}) as LabelSelector,
    podLabels: spec?.template?.metadata?.labels,
    containers: (spec?.template?.spec?.containers ?? []).map((c) => ({
      name: c.name,
      env: (c.env ?? []).map((e) => ({ name: e.name, ...(e.value === undefined ? {} : { value: e.value }) })),
    })),
    serviceAccountName: spec?.template?.spec?.serviceAccountName,
    replicas: spec?.replicas,
    ...(d.metadata?.annotations?.[HELM_RELEASE_ANNOTATION]
      ? { helmRelease: d.metadata.annotations[HELM_RELEASE_ANNOTATION] }
      : {}),
  };
}

export interface InstallObjects {
  namespace: string;
  deployments: V1Deployment[];
  hpas: V2HorizontalPodAutoscaler[];
  pdbs: V1PodDisruptionBudget[];
}

/** Whether an object belongs to the install spec.target names (selector and Helm release narrow it). */
export function inTarget(obj: KubernetesObject, target: TargetSpec | undefined): boolean {
  if (target?.selector && !selects(target.selector, obj.metadata?.labels ?? {})) return false;
  if (target?.helmRelease && obj.metadata?.annotations?.[HELM_RELEASE_ANNOTATION] !== target.helmRelease)
    return false;
  return true;
}

/**
 * Gloo's chart labels its Deployments gloo=gloo / gloo=discovery / gloo=gateway-proxy; spec.target's
 * selector or Helm release name tells installs apart when one namespace holds several.
 */
export function observeInstall(objs: InstallObjects, owner: Owner, target?: TargetSpec): ObservedInstall {
  const matches = (d: V1Deployment) => inTarget(d, target);
  const deployments = objs.deployments.filter(matches);
  const byRole = (role: string) => deployments.filter((d) => d.metadata?.labels?.gloo === role);
  const gloo = byRole('gloo')[0];
  const discovery = byRole('discovery')[0];
  return {
    namespace: objs.namespace,
    ...(gloo ? { gloo: observedDeployment(gloo) } : {}),
    ...(discovery ? { discovery: observedDeployment(discovery) } : {}),
    // Proxies with a custom deploymentName may not carry gloo=gateway-proxy: offer every Deployment
    // that is not gloo or discovery; the core matches them by name.
    gatewayProxies: deployments.filter((d) => d !== gloo && d !== discovery).map(observedDeployment),
    hpas: objs.hpas
      .filter((h) => h.spec?.scaleTargetRef?.kind === 'Deployment')
      .map((h): ObservedHPA => ({
        name: h.metadata?.name ?? '',
        targetName: h.spec?.scaleTargetRef?.name ?? '',
        minReplicas: h.spec?.minReplicas,
        maxReplicas: h.spec?.maxReplicas ?? 0,
        ours: isOwnedBy(h, owner),
      })),
    pdbs: objs.pdbs.map((p): ObservedPDB => ({
      name: p.metadata?.name ?? '',
      selector: (p.spec?.selector ?? {}) as LabelSelector,
      ...(p.spec?.minAvailable === undefined ? {} : { minAvailable: p.spec.minAvailable as IntOrPercent }),
      ...(p.spec?.maxUnavailable === undefined
        ? {}
        : { maxUnavailable: p.spec.maxUnavailable as IntOrPercent }),
      ours: isOwnedBy(p, owner),
    })),
  };
}
