// The engine's own Kubernetes API use in every namespace it reconciles, whatever the product: the
// Deployments, HPAs, PDBs, RBAC, ConfigMaps, Events and Leases every reconciler reads or writes.
// Each product adds its own (Product.permissions); src/products/index.ts joins them into the
// operator's RECONCILER_PERMISSIONS. Change it together with charts/glooha-operator/templates/_helpers.tpl
// and the chart README's table.

export interface Permission {
  group: string;
  resource: string;
  verbs: string[];
}

/** In every namespace it reconciles (ClusterRole in cluster mode, each watched namespace's Role otherwise). */
export const ENGINE_PERMISSIONS: readonly Permission[] = [
  { group: 'apps', resource: 'deployments', verbs: ['get', 'list', 'watch', 'patch'] },
  // create/delete: a product's core creates (and prunes) an HPA for an autoscaled proxy that has none.
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
  // The product's elected pods (only those, by label selector): whether the Lease holder's pod has
  // ended (src/controller/holder-release.ts).
  { group: '', resource: 'pods', verbs: ['get', 'list', 'watch'] },
  { group: '', resource: 'events', verbs: ['create', 'patch'] },
  { group: 'events.k8s.io', resource: 'events', verbs: ['create', 'patch'] },
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
  },
];
