export {
  DEFAULT_LEASE_NAME,
  DEFAULT_TIMINGS,
  formatDuration,
  JITTER_FACTOR,
  LEADER_ELECTION_FLAGS,
  LeaderElectionConfigError,
  makeIdentity,
  parseDurationMs,
  resolveLeaderElectionConfig,
  validateLeaderElectionConfig,
  type LeaderElectionConfig,
  type LeaderElectionFlagValues,
  type LeaderElectionSetting,
  type LeaderElectionTimings,
  type ResolveLeaderElectionInput,
} from './config.js';
export {
  LeaderElector,
  type ElectorState,
  type ElectorStatus,
  type LeaderCallbacks,
  type LeaderElectorOptions,
  type LeaderTerm,
  type StepDownReason,
  type StoppedLeadingInfo,
} from './elector.js';
export { createLeaderElector, type CreateLeaderElectorDeps } from './create.js';
export { AlwaysLeader, NotLeaderError, type Leadership } from './leadership.js';
export {
  formatMicroTime,
  KubeLeaseClient,
  LeaseConflictError,
  toObservedLease,
  type KubeLeaseClientOptions,
  type LeaseClient,
  type LeaseRecord,
  type LeaseWatch,
  type LeaseWatchHandlers,
  type ObservedLease,
} from './lease-client.js';
export { noLeaderElectionMetrics, type LeaderElectionMetrics, type RenewResult } from './metrics.js';
