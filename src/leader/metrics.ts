// The hooks the elector reports through; src/metrics backs them with Prometheus series. Kept as an
// interface so the elector does not depend on prom-client and unit tests can record calls.

export type RenewResult = 'success' | 'conflict' | 'error';

export interface LeaderElectionMetrics {
  /** leader_election_master_status{name}: 1 while this replica leads, else 0. */
  setLeading(name: string, leading: boolean): void;
  /** leader_election_transitions_total{name}: this replica observed a new, different leader. */
  leaderChanged(name: string): void;
  /**
   * One renew attempt by the leader finished: leader_election_renew_duration_seconds{name,result};
   * on success also leader_election_last_renew_timestamp_seconds{name} = `wallTime`.
   */
  renewAttempt(name: string, result: RenewResult, seconds: number, wallTime: Date): void;
}

export const noLeaderElectionMetrics: LeaderElectionMetrics = {
  setLeading: () => {},
  leaderChanged: () => {},
  renewAttempt: () => {},
};
