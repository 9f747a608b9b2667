// Names, labels and ownerReferences of the objects glooha owns.
//
// Kubernetes ignores an ownerReference across namespaces (the garbage collector treats the owner as
// missing and deletes the dependent), so only objects in the GlooHA's own namespace get one; objects
// in another namespace (spec.target.namespace) carry the owner labels only, and the reconciler removes
// them through its finalizer. Without a uid (an offline render) there is no ownerReference either:
// a made-up uid would get the objects garbage-collected.

import {
  API_VERSION,
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
  /** The owner's kind (GlooHA, KgatewayHA, ...): its objects carry it in the owner-kind label. */
  kind: string;
}

/** The owner an object of any kind is to the objects it owns. */
export function ownerOf(obj: {
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string };
}): Owner {
  return {
    name: obj.metadata.name,
    namespace: obj.metadata.namespace ?? 'default',
    uid: obj.metadata.uid,
    kind: obj.kind,
  };
}

export const names = {
  pdb: (deploymentName: string) => `${deploymentName}-glooha`,
  hpa: (deploymentName: string) => `${deploymentName}-glooha`,
  leaderElectionRole: (owner: Owner) => `glooha-${owner.name}-leader-election`,
};

/** Labels that mark an object as owned by `owner` (the reconciler prunes by them). */
export function ownerLabels(owner: Owner, component: string): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGER,
    [LABEL_OWNER_NAME]: owner.name,
    [LABEL_OWNER_NAMESPACE]: owner.namespace,
    [LABEL_OWNER_KIND]: owner.kind,
    [LABEL_COMPONENT]: component,
  };
}

/** The label selector that lists every object owned by `owner`. */
export function ownedSelector(owner: Owner): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGER,
    [LABEL_OWNER_NAME]: owner.name,
    [LABEL_OWNER_NAMESPACE]: owner.namespace,
    [LABEL_OWNER_KIND]: owner.kind,
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
        kind: owner.kind,
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
