// One call for the main entry: the elector for the operator's Lease, from the resolved config.

import type { KubeConfig } from '@kubernetes/client-node';
import type { RestClientMetrics } from '../kube/instrumented.js';
import type { Logger } from '../log.js';
import type { LeaderElectionConfig } from './config.js';
import { LeaderElector, type LeaderCallbacks } from './elector.js';
import { KubeLeaseClient } from './lease-client.js';
import type { LeaderElectionMetrics } from './metrics.js';

export interface CreateLeaderElectorDeps {
  kubeConfig: KubeConfig;
  callbacks: LeaderCallbacks;
  logger?: Logger;
  /** metrics.leaderElection from src/metrics. */
  metrics?: LeaderElectionMetrics;
  /** metrics.restClient from src/metrics: counts the Lease requests. */
  restClientMetrics?: RestClientMetrics;
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
      kubeConfig: deps.kubeConfig,
      namespace: config.namespace,
      name: config.leaseName,
      metrics: deps.restClientMetrics,
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
    callbacks: deps.callbacks,
    logger: deps.logger,
    metrics: deps.metrics,
  });
}
