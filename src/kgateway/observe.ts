// From cached API objects to the ObservedKgateway the kgateway core takes, as controller/observe.ts
// does for Gloo. kgateway's chart labels its controller kgateway=kgateway (kgateway.selectorLabels);
// spec.target.helmRelease picks one release's controller when a namespace holds several.
import type { V1Deployment } from '@kubernetes/client-node';
import type { KgatewayTargetSpec } from '../api/types.js';
import { observedDeployment, observeInstall, type InstallObjects } from '../controller/observe.js';
import type { Owner } from '../core/ownership.js';
import type { ObservedKgateway } from './desired.js';

const INSTANCE_LABEL = 'app.kubernetes.io/instance';

export function observeKgateway(
  objs: InstallObjects,
  owner: Owner,
  target: KgatewayTargetSpec | undefined,
): ObservedKgateway {
  const isController = (d: V1Deployment) =>
    d.metadata?.labels?.kgateway === 'kgateway' &&
    (!target?.helmRelease || d.metadata.labels[INSTANCE_LABEL] === target.helmRelease);
  const controller = objs.deployments.find(isController);
  // HPAs and PDBs are read as for Gloo (only their kind-independent parts).
  const { hpas, pdbs } = observeInstall({ ...objs, deployments: [] }, owner);
  return {
    namespace: objs.namespace,
    ...(controller ? { controller: observedDeployment(controller) } : {}),
    hpas,
    pdbs,
  };
}
