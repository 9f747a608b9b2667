// Names, labels and ownerReferences of the objects glooha owns.
//
// Kubernetes ignores an ownerReference across namespaces (the garbage collector treats the owner as
// missing and deletes the dependent), so only objects in the GlooHA's own namespace get one; objects
// in another namespace (spec.target.namespace) carry the owner labels only, and the reconciler removes
// them through its finalizer. Without a uid (an offline render) there is no ownerReference either:
// a made-up uid would get the objects garbage-collected.

import {
  API_VERSION,
  KGATEWAY_KIND,
  KIND,
  LABEL_COMPONENT,
  LABEL_MANAGED_BY,
  LABEL_OWNER_KIND,
  LABEL_OWNER_NAME,
  LABEL_OWNER_NAMESPACE,
  MANAGER,
} from '../api/constants.js';
import type { KubeObject } from './templates.js';

export interface Owner {
  name: string;
  namespace: string;
  uid?: string;
  /** KgatewayHA for a KgatewayHA; absent (or GlooHA) for a GlooHA. */
  kind?: typeof KIND | typeof KGATEWAY_KIND;
}

/** The owner a GlooHA or KgatewayHA is to the objects it owns. */
export function ownerOf(obj: {
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string };
}): Owner {
  return {
    name: obj.metadata.name,
    namespace: obj.metadata.namespace ?? 'default',
    uid: obj.metadata.uid,
    ...(obj.kind === KGATEWAY_KIND ? { kind: KGATEWAY_KIND } : {}),
  };
}

/** The owner-kind label of a KgatewayHA's objects; none for a GlooHA's. */
function kindLabel(owner: Owner): Record<string, string> {
  return owner.kind === KGATEWAY_KIND ? { [LABEL_OWNER_KIND]: KGATEWAY_KIND } : {};
}

export const names = {
  pdb: (deploymentName: string) => `${deploymentName}-glooha`,
  hpa: (deploymentName: string) => `${deploymentName}-glooha`,
  leaderElectionRole: (owner: Owner) => `glooha-${owner.name}-leader-election`,
  // A GlooHA and a KgatewayHA of one name may share a namespace (during a migration): their values differ.
  helmValuesConfigMap: (owner: Owner) =>
    owner.kind === KGATEWAY_KIND ? `${owner.name}-kgateway-helm-values` : `${owner.name}-helm-values`,
};

/** Labels that mark an object as owned by this GlooHA (the reconciler prunes by them). */
export function ownerLabels(owner: Owner, component: string): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGER,
    [LABEL_OWNER_NAME]: owner.name,
    [LABEL_OWNER_NAMESPACE]: owner.namespace,
    ...kindLabel(owner),
    [LABEL_COMPONENT]: component,
  };
}

/** The label selector that lists every object owned by this GlooHA. */
export function ownedSelector(owner: Owner): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGER,
    [LABEL_OWNER_NAME]: owner.name,
    [LABEL_OWNER_NAMESPACE]: owner.namespace,
    ...kindLabel(owner),
  };
}

export function ownedMetadata(
  owner: Owner,
  name: string,
  namespace: string,
  component: string,
): KubeObject['metadata'] {
  const metadata: KubeObject['metadata'] = { name, namespace, labels: ownerLabels(owner, component) };
  if (owner.uid && namespace === owner.namespace) {
    metadata.ownerReferences = [
      {
        apiVersion: API_VERSION,
        kind: owner.kind ?? KIND,
        name: owner.name,
        uid: owner.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
  }
  return metadata;
}

/** Metadata of a partial apply on an object someone else owns: identity only. */
export function patchMetadata(name: string, namespace: string): KubeObject['metadata'] {
  return { name, namespace };
}
