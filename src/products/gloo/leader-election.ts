// Gloo's leader election as objects: the env vars on the gloo container and the least-privilege RBAC
// its ServiceAccount needs on the `gloo` Lease.
//
// RBAC: client-go's LeaseLock only gets, creates and updates its Lease. Kubernetes cannot restrict
// `create` by resourceName (the name is not known at authorization time), so create gets a rule of
// its own; every other verb is limited to the `gloo` Lease. `list` and `watch` honour resourceNames
// only for requests with a metadata.name field selector, which is the only listing a single-Lease
// client would do. Gloo's chart grants `*` on leases and configmaps; glooha grants leases only
// (controller-runtime has used the Lease lock by default since v0.12; a Gloo built on an older one
// used configmapsleases and would also need the `gloo` ConfigMap, which the chart's role still grants).

import {
  ENV_DISABLE_LEADER_ELECTION,
  ENV_LEASE_DURATION,
  ENV_RENEW_PERIOD,
  ENV_RETRY_PERIOD,
  GLOO_LEASE_NAME,
} from './api.js';
import type { LeaderElectionSpec } from './types.js';
import type { EnvVar } from '../../core/component-planner.js';

export type { EnvVar };

/**
 * A boolean env var as Go's strconv.ParseBool reads it (Gloo reads DISABLE_LEADER_ELECTION so):
 * 1, t, T, TRUE, true, True are true; 0, f, F, FALSE, false, False are false; anything else is not
 * a boolean (undefined).
 */
export function parseGoBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** The env glooha manages on the gloo container. */
export function leaderElectionEnv(le: Required<LeaderElectionSpec>): EnvVar[] {
  if (!le.enabled) return [{ name: ENV_DISABLE_LEADER_ELECTION, value: 'true' }];
  return [
    { name: ENV_LEASE_DURATION, value: le.leaseDuration },
    { name: ENV_RENEW_PERIOD, value: le.renewDeadline },
    { name: ENV_RETRY_PERIOD, value: le.retryPeriod },
  ];
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export const LEASE_RULES: PolicyRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: [GLOO_LEASE_NAME],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
  },
];
