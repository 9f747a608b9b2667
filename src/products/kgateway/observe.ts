// From cached API objects to the ObservedKgateway the kgateway core takes. kgateway's chart labels its
// controller kgateway=kgateway (kgateway.selectorLabels); spec.target.helmRelease picks one release's
// controller when a namespace holds several.
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { KgatewayTargetSpec } from './types.js';
import {
  isOwnedBy,
  observedDeployment,
  observedHpas,
  observedPdbs,
  type InstallObjects,
} from '../../controller/observe.js';
import type { ObservedDeployment } from '../../core/observed.js';
import type { Owner } from '../../core/ownership.js';
import type { ObservedGateway, ObservedKgateway } from './desired.js';

const INSTANCE_LABEL = 'app.kubernetes.io/instance';

/**
 * Whether a Deployment belongs to the install spec.target names: the controller of the Helm release
 * spec.target.helmRelease names (kgateway's chart sets app.kubernetes.io/instance to the release), or
 * a proxy kgateway's deployer made. The one rule the plan and the observation share.
 */
export function inTarget(d: KubernetesObject, target: KgatewayTargetSpec | undefined): boolean {
  const labels = d.metadata?.labels ?? {};
  if (labels.kgateway === 'kgateway')
    return !target?.helmRelease || labels[INSTANCE_LABEL] === target.helmRelease;
  return labels.kgateway === 'kube-gateway';
}

export function observeKgateway(
  objs: InstallObjects,
  owner: Owner,
  target: KgatewayTargetSpec | undefined,
  gatewayApi: {
    served: boolean;
    /** The GatewayParameters' cover fields (desired.ts ObservedKgateway.parameterFields), given the controller found. */
    parameterFields?: (controller: ObservedDeployment | undefined) => readonly string[] | undefined;
    gateways: KubernetesObject[];
    parameters: KubernetesObject[];
  } = {
    served: false,
    gateways: [],
    parameters: [],
  },
): ObservedKgateway {
  const isController = (d: V1Deployment) =>
    d.metadata?.labels?.kgateway === 'kgateway' && inTarget(d, target);
  const found = objs.deployments.find(isController);
  const controller = found && observedDeployment(found);
  const fields = gatewayApi.parameterFields?.(controller);
  const ours = (o: KubernetesObject) => isOwnedBy(o, owner);
  return {
    namespace: objs.namespace,
    ...(controller ? { controller } : {}),
    hpas: observedHpas(objs.hpas, ours),
    pdbs: observedPdbs(objs.pdbs, ours),
    gatewayApi: gatewayApi.served,
    ...(fields ? { parameterFields: fields } : {}),
    gateways: gatewayApi.gateways.map((g): ObservedGateway => ({
      name: g.metadata?.name ?? '',
      parametersRef: (
        g as { spec?: { infrastructure?: { parametersRef?: ObservedGateway['parametersRef'] } } }
      ).spec?.infrastructure?.parametersRef,
    })),
    gatewayParameters: gatewayApi.parameters.map((p) => p.metadata?.name ?? ''),
    // The deployer's proxies: labelled kgateway=kube-gateway (pkg/kgateway/helm/envoy).
    proxies: objs.deployments
      .filter((d) => d.metadata?.labels?.kgateway === 'kube-gateway')
      .map(observedDeployment),
  };
}
