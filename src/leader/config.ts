// Leader-election settings: defaults, the flags/env variables that change them, and the start-up
// validation. Unlike Gloo (whose LEADER_ELECTION_* env vars silently fall back to the default when
// they fail to parse), every malformed or inconsistent value here is a start-up error that names the
// flag and the env variable, so a typo never quietly changes failover behaviour.

import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { parseDuration } from '../api/duration.js';

/** The three timings of client-go's leader election, in milliseconds. */
export interface LeaderElectionTimings {
  /**
   * How long candidates wait, after they last saw the Lease record change, before they may take it
   * over. Worst-case failover time after a hard crash (SIGKILL, node loss).
   */
  leaseDurationMs: number;
  /**
   * How long the leader keeps leading without a successful renew. Past it the leader steps down and
   * `canWrite()` is false. Must be shorter than leaseDuration: the difference is the safety margin
   * that absorbs clock-rate differences and writes still in flight.
   */
  renewDeadlineMs: number;
  /** Interval between acquire/renew attempts (each jittered by up to +20 %). */
  retryPeriodMs: number;
}

/** controller-runtime's defaults (and Gloo's). */
export const DEFAULT_TIMINGS: Readonly<LeaderElectionTimings> = Object.freeze({
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
});

/**
 * Attempts are spaced retryPeriod × [1, JITTER_FACTOR). The validation rule renewDeadline >
 * JITTER_FACTOR × retryPeriod guarantees that even the longest jittered gap leaves room for at least
 * one renew attempt before the deadline.
 */
export const JITTER_FACTOR = 1.2;

export const DEFAULT_LEASE_NAME = 'glooha-operator';

/**
 * Each timing's own upper bound. The elector's timers are setTimeout calls, which fire at once for
 * a delay beyond 2^31-1 ms (~24.8 days); an hour is already far past any useful failover time.
 */
export const MAX_TIMING_MS = 3_600_000;

/**
 * On SIGTERM the leader releases the Lease no sooner than this after its term ended (the drain of
 * in-flight reconciles counts towards it), so a write already on the wire lands while the Lease still
 * names it rather than in the next leader's term. Short, because a standby takes over right after.
 * Only without the server-side fence: while the API server enforces the fencing policy, a write that
 * arrives after the release is refused anyway (docs/leader-election.md, "Release on SIGTERM").
 */
export const RELEASE_GUARD_MS = 250;

/** Every setting's command-line flag and environment variable. A flag wins over its env variable. */
export const LEADER_ELECTION_FLAGS = {
  enabled: { flag: '--leader-elect', env: 'LEADER_ELECT' },
  leaseDuration: { flag: '--leader-elect-lease-duration', env: 'LEADER_ELECT_LEASE_DURATION' },
  renewDeadline: { flag: '--leader-elect-renew-deadline', env: 'LEADER_ELECT_RENEW_DEADLINE' },
  retryPeriod: { flag: '--leader-elect-retry-period', env: 'LEADER_ELECT_RETRY_PERIOD' },
  leaseName: { flag: '--leader-elect-lease-name', env: 'LEADER_ELECT_LEASE_NAME' },
  namespace: { flag: '--leader-elect-namespace', env: 'POD_NAMESPACE' },
  releaseOnCancel: { flag: '--leader-elect-release-on-cancel', env: 'LEADER_ELECT_RELEASE_ON_CANCEL' },
  requireFencingPolicy: {
    flag: '--leader-elect-require-fencing-policy',
    env: 'LEADER_ELECT_REQUIRE_FENCING_POLICY',
  },
} as const;

export type LeaderElectionSetting = keyof typeof LEADER_ELECTION_FLAGS;

/** A bad leader-election setting; `setting` says which one, `message` names its flag and env var. */
export class LeaderElectionConfigError extends Error {
  override readonly name = 'LeaderElectionConfigError';
  constructor(
    readonly setting: LeaderElectionSetting,
    message: string,
  ) {
    super(message);
  }
}

function describe(setting: LeaderElectionSetting): string {
  const { flag, env } = LEADER_ELECTION_FLAGS[setting];
  return `${flag} (env ${env})`;
}

/** Formats milliseconds the way the flags take them: 15s, 1.5s, 500ms, 2m. */
export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0 || ms >= 1000) return `${+(ms / 1000).toFixed(3)}s`;
  return `${+ms.toFixed(3)}ms`;
}

/**
 * Milliseconds of a duration in the project's one duration grammar (src/api/duration.ts: Go's syntax
 * with a unit on every component, "15s", "1m30s", "1.5s", "500ms"), or undefined. A bare number is
 * rejected: "15" could mean seconds or milliseconds, and guessing wrong changes failover time by 1000×.
 */
export function parseDurationMs(text: string): number | undefined {
  const ns = parseDuration(text);
  return ns === undefined ? undefined : Number(ns) / 1e6;
}

/**
 * Enforces client-go's rule `leaseDuration > renewDeadline > 1.2 × retryPeriod` (plus positivity and
 * whole seconds for the lease duration, because the Lease stores `leaseDurationSeconds` as an integer
 * and other candidates read it from there). Throws {@link LeaderElectionConfigError}.
 */
export function validateLeaderElectionConfig(t: LeaderElectionTimings): void {
  const checks: [LeaderElectionSetting, number][] = [
    ['leaseDuration', t.leaseDurationMs],
    ['renewDeadline', t.renewDeadlineMs],
    ['retryPeriod', t.retryPeriodMs],
  ];
  for (const [setting, value] of checks) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new LeaderElectionConfigError(
        setting,
        `${describe(setting)} must be a positive duration, got ${value}ms`,
      );
    }
    if (value > MAX_TIMING_MS) {
      throw new LeaderElectionConfigError(
        setting,
        `${describe(setting)} must be at most ${formatDuration(MAX_TIMING_MS)}, got ${formatDuration(value)}: after a crash nobody leads for up to the lease duration`,
      );
    }
  }
  if (t.leaseDurationMs % 1000 !== 0) {
    throw new LeaderElectionConfigError(
      'leaseDuration',
      `${describe('leaseDuration')} must be a whole number of seconds (the Lease stores leaseDurationSeconds), got ${formatDuration(t.leaseDurationMs)}`,
    );
  }
  if (!(t.leaseDurationMs > t.renewDeadlineMs)) {
    throw new LeaderElectionConfigError(
      'renewDeadline',
      `${describe('renewDeadline')} = ${formatDuration(t.renewDeadlineMs)} must be less than ` +
        `${describe('leaseDuration')} = ${formatDuration(t.leaseDurationMs)}: a leader must give up ` +
        `before the others may take over`,
    );
  }
  const jittered = JITTER_FACTOR * t.retryPeriodMs;
  // 5 × renewDeadline > 6 × retryPeriod in whole microseconds (the grammar's finest unit): exact,
  // where 1.2 × a float may round either way at the boundary.
  const us = (ms: number) => Math.round(ms * 1000);
  if (!(5 * us(t.renewDeadlineMs) > 6 * us(t.retryPeriodMs))) {
    throw new LeaderElectionConfigError(
      'retryPeriod',
      `${describe('retryPeriod')} = ${formatDuration(t.retryPeriodMs)} is too long: ${JITTER_FACTOR} × ` +
        `retryPeriod = ${formatDuration(jittered)} must be less than ${describe('renewDeadline')} = ` +
        `${formatDuration(t.renewDeadlineMs)}, or the leader may not get a single renew attempt in time`,
    );
  }
}

export interface LeaderElectionConfig extends LeaderElectionTimings {
  /** false (--leader-elect=false): no Lease, this replica always leads. Only for single-replica use. */
  enabled: boolean;
  leaseName: string;
  namespace: string;
  /** Pod name plus a random suffix: unique across restarts of the same pod. */
  identity: string;
  /** Clear the Lease holder on graceful shutdown so a candidate takes over at once. */
  releaseOnCancel: boolean;
  /**
   * Start the controllers of a term only once the API server is seen to enforce the chart's fencing
   * policy (src/leader/fencing-probe.ts): without it a stale leader's late writes would be accepted.
   * The chart sets it whenever it installs the policy.
   */
  requireFencingPolicy: boolean;
}

/** Raw values as the command line gave them (undefined = flag absent). Booleans may be given as such. */
export type LeaderElectionFlagValues = Partial<Record<LeaderElectionSetting, string | boolean | undefined>>;

export interface ResolveLeaderElectionInput {
  flags?: LeaderElectionFlagValues;
  env?: Record<string, string | undefined>;
  /** Defaults to env POD_NAME, then the hostname (which is the pod name in Kubernetes). */
  podName?: string;
  /** Fallback namespace when neither the flag nor POD_NAMESPACE is set (e.g. the in-cluster SA namespace). */
  defaultNamespace?: string;
}

/**
 * `<pod name>_<8 hex chars>`: the suffix keeps identities unique when a pod restarts in place. The pod
 * name is kept whole (pod names cannot contain '_'): the chart's fencing policy matches it against
 * the pod name in the writer's ServiceAccount token.
 */
export function makeIdentity(podName?: string): string {
  const base = podName || hostname() || 'glooha-operator';
  return `${base}_${randomBytes(4).toString('hex')}`;
}

function parseBool(setting: LeaderElectionSetting, raw: string | boolean): boolean {
  if (typeof raw === 'boolean') return raw;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', ''].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new LeaderElectionConfigError(setting, `${describe(setting)} must be true or false, got "${raw}"`);
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/**
 * Resolves the leader-election settings from flags (first), env variables (second) and defaults,
 * and validates them. Throws {@link LeaderElectionConfigError} naming the offending flag.
 */
export function resolveLeaderElectionConfig(input: ResolveLeaderElectionInput = {}): LeaderElectionConfig {
  const flags = input.flags ?? {};
  const env = input.env ?? process.env;
  const raw = (setting: LeaderElectionSetting): string | boolean | undefined => {
    const fromFlag = flags[setting];
    if (fromFlag !== undefined) return fromFlag;
    const fromEnv = env[LEADER_ELECTION_FLAGS[setting].env];
    return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
  };
  const duration = (setting: LeaderElectionSetting, fallback: number): number => {
    const v = raw(setting);
    if (v === undefined) return fallback;
    const ms = typeof v === 'string' ? parseDurationMs(v) : undefined;
    if (ms === undefined) {
      throw new LeaderElectionConfigError(
        setting,
        `${describe(setting)} must be a duration with a unit such as 15s, 1m or 500ms, got "${String(v)}"`,
      );
    }
    return ms;
  };
  const str = (setting: LeaderElectionSetting): string | undefined => {
    const v = raw(setting);
    return typeof v === 'string' ? v.trim() : undefined;
  };

  const enabledRaw = raw('enabled');
  const releaseRaw = raw('releaseOnCancel');
  const requireFencingRaw = raw('requireFencingPolicy');
  const config: LeaderElectionConfig = {
    enabled: enabledRaw === undefined ? true : parseBool('enabled', enabledRaw),
    leaseDurationMs: duration('leaseDuration', DEFAULT_TIMINGS.leaseDurationMs),
    renewDeadlineMs: duration('renewDeadline', DEFAULT_TIMINGS.renewDeadlineMs),
    retryPeriodMs: duration('retryPeriod', DEFAULT_TIMINGS.retryPeriodMs),
    leaseName: str('leaseName') || DEFAULT_LEASE_NAME,
    namespace: str('namespace') || input.defaultNamespace || '',
    identity: makeIdentity(input.podName ?? env.POD_NAME),
    releaseOnCancel: releaseRaw === undefined ? true : parseBool('releaseOnCancel', releaseRaw),
    requireFencingPolicy:
      requireFencingRaw === undefined ? false : parseBool('requireFencingPolicy', requireFencingRaw),
  };
  if (!config.enabled) return config;
  if (!DNS_SUBDOMAIN.test(config.leaseName)) {
    throw new LeaderElectionConfigError(
      'leaseName',
      `${describe('leaseName')} must be a DNS subdomain name (lower case, digits, '-', '.'), got "${config.leaseName}"`,
    );
  }
  if (!config.namespace) {
    throw new LeaderElectionConfigError(
      'namespace',
      `${describe('namespace')} is not set: the Lease lives in the operator's namespace; set POD_NAMESPACE ` +
        `from the downward API (fieldRef metadata.namespace)`,
    );
  }
  validateLeaderElectionConfig(config);
  return config;
}
