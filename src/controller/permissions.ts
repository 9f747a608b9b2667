// The operator's Kubernetes API use in every namespace it reconciles: every (API group, resource,
// verb) the reconciler calls, and nothing else. One list, read by `glooha check` (which asks the API
// server whether the operator's ServiceAccount may do each) and by the chart's tests (the rendered
// (Cluster)Roles must grant exactly this: test/unit/chart/expected-rbac.ts). Change it together with
// charts/glooha-operator/templates/_helpers.tpl and the chart README's table.

export interface Permission {
  group: string;
  resource: string;
  verbs: string[];
}

/** In every namespace it reconciles (ClusterRole in cluster mode, each watched namespace's Role otherwise). */
export const RECONCILER_PERMISSIONS: readonly Permission[] = [
  // patch: the finalizer is set by a merge patch of the GlooHA's metadata.finalizers (a custom resource
  // has no finalizers subresource; gloohas/finalizers only gates blockOwnerDeletion on ownerReferences).
  { group: 'glooha.io', resource: 'gloohas', verbs: ['get', 'list', 'watch', 'patch'] },
  { group: 'glooha.io', resource: 'gloohas/status', verbs: ['get', 'update', 'patch'] },
  { group: 'glooha.io', resource: 'gloohas/finalizers', verbs: ['update'] },
  { group: 'glooha.io', resource: 'kgatewayhas', verbs: ['get', 'list', 'watch', 'patch'] },
  { group: 'glooha.io', resource: 'kgatewayhas/status', verbs: ['get', 'update', 'patch'] },
  { group: 'glooha.io', resource: 'kgatewayhas/finalizers', verbs: ['update'] },
  { group: 'apps', resource: 'deployments', verbs: ['get', 'list', 'watch', 'patch'] },
  // create/delete: src/core/desired.ts creates (and prunes) an HPA for an autoscaled proxy that has none.
  {
    group: 'autoscaling',
    resource: 'horizontalpodautoscalers',
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  },
  {
    group: 'policy',
    resource: 'poddisruptionbudgets',
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  },
  { group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
  { group: '', resource: 'serviceaccounts', verbs: ['get', 'list', 'watch'] },
  { group: '', resource: 'events', verbs: ['create', 'patch'] },
  { group: 'events.k8s.io', resource: 'events', verbs: ['create', 'patch'] },
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
  },
  // kgateway: the Gateways a KgatewayHA's spec.gateways names, and the GatewayParameters they name,
  // into which the operator writes the proxies' HA fields (server-side apply; never created or deleted).
  { group: 'gateway.networking.k8s.io', resource: 'gateways', verbs: ['get', 'list', 'watch'] },
  { group: 'gateway.kgateway.dev', resource: 'gatewayparameters', verbs: ['get', 'list', 'watch', 'patch'] },
];
