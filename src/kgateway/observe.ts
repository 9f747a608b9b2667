// From cached API objects to the ObservedKgateway the kgateway core takes, as controller/observe.ts
// does for Gloo. kgateway's chart labels its controller kgateway=kgateway (kgateway.selectorLabels);
// spec.target.helmRelease picks one release's controller when a namespace holds several.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KgatewayTargetSpec } from '../api/types.js';
import { observedDeployment, observeInstall, type InstallObjects } from '../controller/observe.js';
import type { Owner } from '../core/ownership.js';
import type { ObservedGateway, ObservedKgateway } from './desired.js';

const INSTANCE_LABEL = 'app.kubernetes.io/instance';

/** Whether `d` is the controller Deployment of the kgateway release `target` names (any, without one). */
export function isKgatewayController(d: KubernetesObject, target: KgatewayTargetSpec | undefined): boolean {
  const labels = d.metadata?.labels ?? {};
  return (
    labels.kgateway === 'kgateway' && (!target?.helmRelease || labels[INSTANCE_LABEL] === target.helmRelease)
  );
}

export function observeKgateway(
  objs: InstallObjects,
  owner: Owner,
  target: KgatewayTargetSpec | undefined,
  gatewayApi: { served: boolean; gateways: KubernetesObject[]; parameters: KubernetesObject[] } = {
    served: false,
    gateways: [],
    parameters: [],
  },
): ObservedKgateway {
  const controller = objs.deployments.find((d) => isKgatewayController(d, target));
  // HPAs and PDBs are read as for Gloo (only their kind-independent parts).
  const { hpas, pdbs } = observeInstall({ ...objs, deployments: [] }, owner);
  return {
    namespace: objs.namespace,
    ...(controller ? { controller: observedDeployment(controller) } : {}),
    hpas,
    pdbs,
    gatewayApi: gatewayApi.served,
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
