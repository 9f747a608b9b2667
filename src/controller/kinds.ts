// The kinds the reconciler reads and writes, and where they live on the API server. One table, so the
// watches, the owned-object informers and the writer cannot disagree.
import type { ResourceRef } from '../kube/paths.js';

export interface KindInfo extends ResourceRef {
  kind: string;
}

/** Kinds the operator creates and owns (labelled managed-by glooha-operator), in apply order. */
export const OWNED_KINDS: readonly KindInfo[] = [
  { kind: 'PodDisruptionBudget', group: 'policy', version: 'v1', plural: 'poddisruptionbudgets' },
  {
    kind: 'HorizontalPodAutoscaler',
    group: 'autoscaling',
    version: 'v2',
    plural: 'horizontalpodautoscalers',
  },
  { kind: 'Role', group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles' },
  { kind: 'RoleBinding', group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings' },
  { kind: 'ConfigMap', group: '', version: 'v1', plural: 'configmaps' },
];

export const DEPLOYMENTS: KindInfo = {
  kind: 'Deployment',
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
};
export const HPAS = OWNED_KINDS[1]!;
export const PDBS = OWNED_KINDS[0]!;
export const LEASES: KindInfo = {
  kind: 'Lease',
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
};

export const PODS: KindInfo = { kind: 'Pod', group: '', version: 'v1', plural: 'pods' };

/**
 * The kinds whose list types the operator reads from the API server's OpenAPI (the built-in ones it
 * writes; ConfigMaps hold no list), and that `glooha render --merge-into` carries a snapshot of.
 */
export const LIST_TYPED_KINDS: readonly KindInfo[] = [DEPLOYMENTS, ...OWNED_KINDS].filter(
  (k) => k.group !== '',
);

/**
 * Where objects of `kind` live: one of the kinds every product writes, or of `extra` (a product's
 * own, such as kgateway's GatewayParameters). Throws for a kind the operator never writes.
 */
export function kindInfo(kind: string, extra: readonly KindInfo[] = []): KindInfo {
  const info = [...OWNED_KINDS, DEPLOYMENTS, ...extra].find((k) => k.kind === kind);
  if (!info) throw new Error(`the operator does not write objects of kind ${kind}`);
  return info;
}
