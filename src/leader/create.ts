// One call for the main entry: the elector for the operator's Lease, from the resolved config.

import type { KubeClient } from '../kube/client.js';
import type { Logger } from '../log.js';
import { RELEASE_GUARD_MS, type LeaderElectionConfig } from './config.js';
import { LeaderElector, type LeaderCallbacks } from './elector.js';
import { KubeLeaseClient } from './lease-client.js';
import type { LeaderElectionMetrics } from './metrics.js';

export interface CreateLeaderElectorDeps {
  /** The operator's one transport (the Lease requests are counted and pooled with the rest). */
  client: KubeClient;
  callbacks: LeaderCallbacks;
  logger?: Logger;
  /** metrics.leaderElection from src/metrics. */
  metrics?: LeaderElectionMetrics;
  /** The release guard, asked at release time (default: always RELEASE_GUARD_MS). */
  releaseGuardMs?: () => number;
}

/** Builds (does not start) the elector for `config` (config.enabled must be true). */
export function createLeaderElector(
  config: LeaderElectionConfig,
  deps: CreateLeaderElectorDeps,
): LeaderElector {
  if (!config.enabled)
    throw new Error('leader election is disabled (--leader-elect=false); use AlwaysLeader');
  return new LeaderElector({
    lease: new KubeLeaseClient({
      client: deps.client,
      namespace: config.namespace,
      name: config.leaseName,
      logger: deps.logger,
      labels: {
        'app.kubernetes.io/name': 'glooha-operator',
        'app.kubernetes.io/component': 'leader-election',
      },
    }),
    identity: config.identity,
    name: config.leaseName,
    leaseDurationMs: config.leaseDurationMs,
    renewDeadlineMs: config.renewDeadlineMs,
    retryPeriodMs: config.retryPeriodMs,
    releaseOnCancel: config.releaseOnCancel,
    releaseGuardMs: deps.releaseGuardMs ?? RELEASE_GUARD_MS,
    callbacks: deps.callbacks,
    logger: deps.logger,
    metrics: deps.metrics,
  });
}
