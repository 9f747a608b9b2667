// The operator's Kubernetes API use, as the chart must grant it: every (API group, resource, verb) it
// calls, and nothing else. The unit tests compare the rendered (Cluster)Roles with this list exactly;
// the integration test asks the real API server (SelfSubjectAccessReview) whether the chart's
// ServiceAccount may do each of these, and may not do the things in `mustNotAllow`.
// Change it together with charts/glooha-operator/templates/_helpers.tpl and the chart README's table.

import type { Permission } from '../../../src/controller/permissions.js';
import { RECONCILER_PERMISSIONS } from '../../../src/products/index.js';

export type { Permission };

/** In every namespace it reconciles (ClusterRole in cluster mode, each watched namespace's Role otherwise). */
export const reconcilerPermissions: readonly Permission[] = RECONCILER_PERMISSIONS;

/** In the release namespace, namespaced mode: its own leader-election Lease and its Events. */
export const electionPermissions: Permission[] = [
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
  },
  { group: '', resource: 'events', verbs: ['create', 'patch'] },
  { group: 'events.k8s.io', resource: 'events', verbs: ['create', 'patch'] },
];

export interface Check {
  group: string;
  resource: string;
  verb: string;
  subresource?: string;
  /** Cluster-scoped resources only. */
  clusterScoped?: boolean;
}

/** Things the operator never does: the chart must not allow them (in any namespace). */
export const mustNotAllow: Check[] = [
  { group: '', resource: 'secrets', verb: 'get' },
  { group: '', resource: 'secrets', verb: 'list' },
  { group: '', resource: 'secrets', verb: 'watch' },
  { group: '', resource: 'pods', verb: 'create' },
  { group: '', resource: 'pods', verb: 'create', subresource: 'exec' },
  { group: '', resource: 'serviceaccounts', verb: 'create', subresource: 'token' },
  { group: '', resource: 'serviceaccounts', verb: 'create' },
  { group: '', resource: 'configmaps', verb: 'update' },
  { group: 'apps', resource: 'deployments', verb: 'create' },
  { group: 'apps', resource: 'deployments', verb: 'delete' },
  { group: 'apps', resource: 'deployments', verb: 'update' },
  { group: 'apps', resource: 'deployments', verb: 'patch', subresource: 'scale' },
  { group: 'autoscaling', resource: 'horizontalpodautoscalers', verb: 'update' },
  { group: 'glooha.io', resource: 'gloohas', verb: 'create' },
  { group: 'glooha.io', resource: 'gloohas', verb: 'delete' },
  { group: 'glooha.io', resource: 'gloohas', verb: 'update' },
  { group: 'glooha.io', resource: 'kgatewayhas', verb: 'create' },
  { group: 'glooha.io', resource: 'kgatewayhas', verb: 'delete' },
  { group: 'coordination.k8s.io', resource: 'leases', verb: 'delete' },
  { group: 'rbac.authorization.k8s.io', resource: 'roles', verb: 'escalate' },
  { group: 'rbac.authorization.k8s.io', resource: 'roles', verb: 'bind' },
  { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', verb: 'create', clusterScoped: true },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'clusterrolebindings',
    verb: 'create',
    clusterScoped: true,
  },
  { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', verb: 'get', clusterScoped: true },
  { group: '', resource: 'namespaces', verb: 'delete', clusterScoped: true },
  { group: '', resource: 'nodes', verb: 'list', clusterScoped: true },
  { group: '', resource: 'users', verb: 'impersonate', clusterScoped: true },
  { group: '', resource: 'serviceaccounts', verb: 'impersonate' },
];

/** Every (group, resource, verb) triple of a permission list, as sortable strings ("apps/deployments:get"). */
export function triples(perms: readonly Permission[]): string[] {
  return perms.flatMap((p) => p.verbs.map((v) => `${p.group}/${p.resource}:${v}`)).sort();
}

export function checksOf(perms: readonly Permission[]): Check[] {
  return perms.flatMap((p) => {
    const [resource = '', subresource] = p.resource.split('/');
    return p.verbs.map((verb) => ({
      group: p.group,
      resource,
      verb,
      ...(subresource ? { subresource } : {}),
    }));
  });
}
