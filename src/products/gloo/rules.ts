// The validation rules of the GlooHA kind (the rule-table mechanism: src/api/rules.ts), and those of
// the definitions both kinds share, which sit beside the shared definitions in schema.ts.

import { DURATION_MAX_LENGTH, DURATION_PATTERN } from '../../api/duration.js';
import { PERCENT_PATTERN } from '../../api/intstr.js';
import { controlPlaneRules, nameLengthRule, proxyRules, type Rule } from '../../api/rules.js';

/** CEL: is `expr` a string in glooha's duration syntax (the size guard keeps duration() from overflowing). */
const celDurationSyntax = (expr: string) =>
  `(size(${expr}) <= ${DURATION_MAX_LENGTH} && ${expr}.matches('${DURATION_PATTERN}'))`;
const celPositiveDuration = (field: string) =>
  `!has(self.${field}) || (${celDurationSyntax(`self.${field}`)} && duration(self.${field}) > duration('0s'))`;
/** CEL: `d` repeated n times and summed: durations cannot be multiplied, and 1.2 × would need a double. */
const celTimes = (n: number, field: string) =>
  Array.from({ length: n }, () => `duration(self.${field})`).join(' + ');

/**
 * Bounds on the leader-election timings. They keep Gloo's election working, and they keep every CEL
 * expression far from int64 overflow (5 × 10m in nanoseconds is 3e12, int64 ends at 9.2e18):
 *  - retryPeriod ≥ 200ms: every gloo replica reads or writes the Lease once per retryPeriod, and
 *    client-go's default client rate limit is 5 requests a second (rest.Config QPS 5); faster retries
 *    are throttled by the client itself and only add API-server load.
 *  - renewDeadline ≥ 1s: the leader gives up after renewDeadline without a successful renewal; the
 *    Kubernetes API latency SLO for a single-object write is 1s at the 99th percentile, so a shorter
 *    deadline makes a healthy cluster's ordinary tail latency cost Gloo its leader.
 *  - leaseDuration ≤ 10m: after a leader crashes, nobody leads for up to leaseDuration (Gloo then
 *    writes no statuses). Ten minutes is Kubernetes' default Deployment progress deadline; a longer
 *    lease outlasts the rollout that replaced the crashed leader.
 *  - retryPeriod ≤ 10m, on its own: the jitter rule skips values beyond the bounds (its sums would
 *    overflow), so without this bound retryPeriod: 11m passed every rule. renewDeadline needs no
 *    bound of its own: leaseDuration always has a value (default 15s) and must exceed it.
 * With all bounds and rules met, every accepted combination satisfies client-go's rule (the property
 * test in test/unit/api/leader-election-property.test.ts checks it).
 */
export const LEASE_BOUNDS = {
  minRetryPeriod: '200ms',
  minRenewDeadline: '1s',
  maxLeaseDuration: '10m',
  maxRetryPeriod: '10m',
} as const;

/** CEL: the field is absent or malformed (the format rule reports it), or `test` holds. */
const celDurationGuard = (field: string, test: string) =>
  `!has(self.${field}) || !${celDurationSyntax(`self.${field}`)} || ${test}`;

/** Gloo's chart selects its pods on these keys (gloo, and gateway-proxy-id for proxies). */
export const CHART_SELECTOR_KEYS = ['gloo', 'gateway-proxy-id'] as const;

/** CEL: a qualified name's prefix (before '/') is at most 253 characters (a DNS subdomain). */
const celPrefixFits = (expr: string) => `(!${expr}.contains('/') || ${expr}.indexOf('/') <= 253)`;

/**
 * Two gatewayProxies entries that may manage one Deployment. A proxy's Deployment is its
 * deploymentName, else the kebab-case of its key (Gloo's chart: publicGw → public-gw). CEL has no
 * regex replace to compute that kebab-case, but kebab-casing only inserts dashes and lowercases, so
 * two names that are equal after kebab-casing are equal lowercased with their dashes removed. That
 * comparison is what the rule uses: it rejects every real collision (publicGw + public-gw) and, on
 * the safe side, names that differ only in case and dashes (gatewayproxy + gatewayProxy), which are
 * one typo apart anyway. Two explicit deploymentNames are compared exactly.
 */
const celSquash = (expr: string) => `${expr}.lowerAscii().replace('-', '')`;
const celProxyName = (k: string) => `(has(self[${k}].deploymentName) ? self[${k}].deploymentName : ${k})`;
/** Deployments that are not gateway proxies: the gloo and discovery components manage them. */
export const RESERVED_DEPLOYMENTS = ['gloo', 'discovery'] as const;

/**
 * An int-or-string's integer is stored by Kubernetes as an int32 (intstr.IntOrString), but the CRD's
 * int-or-string node has no integer format, so the API server admits any int64. A larger value would
 * be admitted here and then refused when glooha writes the PDB (500, "cannot unmarshal number ...
 * into Go value of type int32"), so the bound is checked at admission.
 */
export const INT32_MAX = 2 ** 31 - 1;
const celInt32Count = (expr: string) => `(${expr} >= 0 && ${expr} <= ${INT32_MAX})`;

const durationMessage = (field: string, env: string, example: string) =>
  `${field} must be a positive Go duration with units h, m, s or ms, such as ${example} (it becomes ${env} on the gloo container, and Gloo silently ignores a value it cannot parse)`;

const timingRule =
  "client-go requires leaseDuration > renewDeadline > 1.2 × retryPeriod; Gloo's defaults are 15s, 10s and 2s";

/**
 * The rules of the definitions both kinds share (schema.ts defines them): a PodDisruptionBudget, an
 * autoscaling block, a topology spread constraint.
 */
export const SHARED_DEFINITION_RULES: readonly Rule[] = [
  {
    id: 'pdb-exactly-one',
    on: 'PodDisruptionBudget',
    rule: 'has(self.minAvailable) != has(self.maxUnavailable)',
    message:
      'podDisruptionBudget must set exactly one of minAvailable or maxUnavailable (Kubernetes rejects a PDB with both, and one with neither protects nothing)',
  },
  {
    id: 'pdb-min-available-format',
    on: 'PodDisruptionBudget',
    rule: `!has(self.minAvailable) || (type(self.minAvailable) == int ? ${celInt32Count('self.minAvailable')} : self.minAvailable.matches('${PERCENT_PATTERN}'))`,
    fieldPath: '.minAvailable',
    message: `minAvailable must be an integer from 0 to ${INT32_MAX} or a percentage from 0% to 100%, such as 1 or 50%`,
  },
  {
    id: 'pdb-max-unavailable-format',
    on: 'PodDisruptionBudget',
    rule: `!has(self.maxUnavailable) || (type(self.maxUnavailable) == int ? ${celInt32Count('self.maxUnavailable')} : self.maxUnavailable.matches('${PERCENT_PATTERN}'))`,
    fieldPath: '.maxUnavailable',
    message: `maxUnavailable must be an integer from 0 to ${INT32_MAX} or a percentage from 0% to 100%, such as 1 or 25%`,
  },
  {
    id: 'pdb-min-available-not-all',
    on: 'PodDisruptionBudget',
    rule: "!has(self.minAvailable) || type(self.minAvailable) == int || self.minAvailable != '100%'",
    fieldPath: '.minAvailable',
    message:
      'minAvailable must not be 100%: a PDB that needs every pod available blocks every node drain; use maxUnavailable: 1 instead',
  },
  {
    id: 'pdb-max-unavailable-not-zero',
    on: 'PodDisruptionBudget',
    rule: "!has(self.maxUnavailable) || (type(self.maxUnavailable) == int ? self.maxUnavailable != 0 : self.maxUnavailable != '0%')",
    fieldPath: '.maxUnavailable',
    message:
      'maxUnavailable must not be 0 or 0%: a PDB that allows no disruption blocks every node drain; use 1 (or more)',
  },

  {
    id: 'autoscaling-min-replicas',
    on: 'Autoscaling',
    rule: '!has(self.minReplicas) || self.minReplicas >= 1',
    fieldPath: '.minReplicas',
    message:
      'autoscaling.minReplicas must be at least 1: glooha never lets a gateway proxy scale to zero (use 2 or more for high availability)',
  },
  {
    id: 'autoscaling-min-le-max',
    on: 'Autoscaling',
    rule: '!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas',
    fieldPath: '.maxReplicas',
    message:
      'autoscaling.maxReplicas must be at least autoscaling.minReplicas: raise maxReplicas or lower minReplicas',
  },

  // ---- topology spread -----------------------------------------------------------------------------
  {
    id: 'topology-spread-min-domains',
    on: 'TopologySpreadConstraint',
    rule: "!has(self.minDomains) || self.whenUnsatisfiable == 'DoNotSchedule'",
    fieldPath: '.minDomains',
    message:
      'minDomains can only be set with whenUnsatisfiable: DoNotSchedule (Kubernetes rejects it otherwise); remove it or change whenUnsatisfiable',
  },
  {
    id: 'topology-key-prefix',
    on: 'TopologySpreadConstraint',
    rule: `!has(self.topologyKey) || ${celPrefixFits('self.topologyKey')}`,
    fieldPath: '.topologyKey',
    message:
      'topologyKey must be a node label key: its prefix (before /) is a DNS subdomain of at most 253 characters, such as topology.kubernetes.io/zone',
  },
  {
    id: 'match-label-keys-prefix',
    on: 'TopologySpreadConstraint',
    rule: `!has(self.matchLabelKeys) || self.matchLabelKeys.all(k, ${celPrefixFits('k')})`,
    fieldPath: '.matchLabelKeys',
    message:
      'matchLabelKeys must be pod label keys: a prefix (before /) is a DNS subdomain of at most 253 characters, such as pod-template-hash or app.kubernetes.io/version',
  },
  {
    id: 'match-label-keys-not-selector',
    on: 'TopologySpreadConstraint',
    rule: `!has(self.matchLabelKeys) || self.matchLabelKeys.all(k, !(k in [${CHART_SELECTOR_KEYS.map((k) => `'${k}'`).join(', ')}]))`,
    fieldPath: '.matchLabelKeys',
    message:
      "matchLabelKeys must not name a key of the Deployment's selector (gloo or gateway-proxy-id in Gloo's chart): glooha already selects on those, and Kubernetes then cannot create the pods; use a key such as pod-template-hash",
  },
];

export const GLOO_RULES: readonly Rule[] = [
  // ---- the object --------------------------------------------------------------------------
  nameLengthRule('name-length', 'GlooHA'),

  // ---- gloo -----------------------------------------------------------------------------------
  ...controlPlaneRules({
    prefix: 'gloo',
    on: 'Gloo',
    what: 'the gloo control plane',
    leaderless: 'without a leader every gloo replica writes statuses and they overwrite each other',
  }),

  // ---- leader election -------------------------------------------------------------------------
  {
    id: 'lease-duration-format',
    on: 'LeaderElection',
    rule: celPositiveDuration('leaseDuration'),
    fieldPath: '.leaseDuration',
    message: durationMessage('leaseDuration', 'LEADER_ELECTION_LEASE_DURATION', '15s or 1m'),
  },
  {
    id: 'renew-deadline-format',
    on: 'LeaderElection',
    rule: celPositiveDuration('renewDeadline'),
    fieldPath: '.renewDeadline',
    message: durationMessage('renewDeadline', 'LEADER_ELECTION_RENEW_PERIOD', '10s or 1m'),
  },
  {
    id: 'retry-period-format',
    on: 'LeaderElection',
    rule: celPositiveDuration('retryPeriod'),
    fieldPath: '.retryPeriod',
    message: durationMessage('retryPeriod', 'LEADER_ELECTION_RETRY_PERIOD', '2s or 500ms'),
  },
  {
    id: 'lease-duration-exceeds-renew-deadline',
    on: 'LeaderElection',
    rule:
      '!has(self.leaseDuration) || !has(self.renewDeadline) || ' +
      `!${celDurationSyntax('self.leaseDuration')} || !${celDurationSyntax('self.renewDeadline')} || ` +
      'duration(self.leaseDuration) > duration(self.renewDeadline)',
    fieldPath: '.leaseDuration',
    message: `leaseDuration must be longer than renewDeadline (${timingRule}): raise leaseDuration or lower renewDeadline`,
  },
  {
    id: 'renew-deadline-exceeds-jittered-retry-period',
    on: 'LeaderElection',
    rule:
      '!has(self.renewDeadline) || !has(self.retryPeriod) || ' +
      `!${celDurationSyntax('self.renewDeadline')} || !${celDurationSyntax('self.retryPeriod')} || ` +
      // 5 × renewDeadline > 6 × retryPeriod is renewDeadline > 1.2 × retryPeriod, exactly.
      // The bounds first: && and || short-circuit in CEL, so an out-of-range value (its own rule
      // reports it) never reaches the sums that would overflow int64 nanoseconds.
      `!(duration(self.renewDeadline) <= duration('${LEASE_BOUNDS.maxLeaseDuration}')) || !(duration(self.retryPeriod) <= duration('${LEASE_BOUNDS.maxRetryPeriod}')) || ` +
      `${celTimes(5, 'renewDeadline')} > ${celTimes(6, 'retryPeriod')}`,
    fieldPath: '.renewDeadline',
    message: `renewDeadline must be longer than 1.2 × retryPeriod (${timingRule}): raise renewDeadline or lower retryPeriod`,
  },
  {
    id: 'lease-duration-max',
    on: 'LeaderElection',
    rule: celDurationGuard(
      'leaseDuration',
      `duration(self.leaseDuration) <= duration('${LEASE_BOUNDS.maxLeaseDuration}')`,
    ),
    fieldPath: '.leaseDuration',
    message: `leaseDuration must be at most ${LEASE_BOUNDS.maxLeaseDuration}: after a leader crashes nobody leads Gloo for up to leaseDuration; Gloo's default is 15s`,
  },
  {
    id: 'retry-period-max',
    on: 'LeaderElection',
    rule: celDurationGuard(
      'retryPeriod',
      `duration(self.retryPeriod) <= duration('${LEASE_BOUNDS.maxRetryPeriod}')`,
    ),
    fieldPath: '.retryPeriod',
    message: `retryPeriod must be at most ${LEASE_BOUNDS.maxRetryPeriod} (and 1.2 × retryPeriod below renewDeadline): a standby retries acquiring the Lease once per retryPeriod; Gloo's default is 2s`,
  },
  {
    id: 'renew-deadline-min',
    on: 'LeaderElection',
    rule: celDurationGuard(
      'renewDeadline',
      `duration(self.renewDeadline) <= duration('0s') || duration(self.renewDeadline) >= duration('${LEASE_BOUNDS.minRenewDeadline}')`,
    ),
    fieldPath: '.renewDeadline',
    message: `renewDeadline must be at least ${LEASE_BOUNDS.minRenewDeadline}: a shorter deadline makes an ordinary slow API-server write (the latency SLO is 1s) cost Gloo its leader; Gloo's default is 10s`,
  },
  {
    id: 'retry-period-min',
    on: 'LeaderElection',
    rule: celDurationGuard(
      'retryPeriod',
      `duration(self.retryPeriod) <= duration('0s') || duration(self.retryPeriod) >= duration('${LEASE_BOUNDS.minRetryPeriod}')`,
    ),
    fieldPath: '.retryPeriod',
    message: `retryPeriod must be at least ${LEASE_BOUNDS.minRetryPeriod}: each gloo replica calls the API server once per retryPeriod, and client-go's default rate limit is 5 requests a second; Gloo's default is 2s`,
  },

  // ---- discovery --------------------------------------------------------------------------------
  {
    id: 'discovery-replicas',
    on: 'Discovery',
    rule: '!has(self.replicas) || (self.replicas >= 0 && self.replicas <= 1)',
    fieldPath: '.replicas',
    message:
      'discovery.replicas must be 0 or 1: discovery has no leader election, so two replicas would both write Upstreams; use 1 (or 0 to stop discovery)',
  },

  // ---- gateway proxies ----------------------------------------------------------------------------
  {
    id: 'gateway-proxy-names',
    on: 'GatewayProxies',
    rule: "self.all(k, size(k) <= 63 && k.matches('^[a-z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$'))",
    message:
      "gatewayProxies keys must be the proxy's name under gatewayProxies in Gloo's Helm values, such as gatewayProxy: a lowercase letter, then letters, digits or dashes, at most 63 characters",
  },
  {
    id: 'gateway-proxy-deployments-distinct',
    on: 'GatewayProxies',
    rule:
      'self.all(a, self.all(b, a == b || ' +
      '(has(self[a].deploymentName) && has(self[b].deploymentName) ? self[a].deploymentName != self[b].deploymentName : ' +
      `${celSquash(celProxyName('a'))} != ${celSquash(celProxyName('b'))})))`,
    message:
      "two gatewayProxies entries must not manage the same Deployment: their deploymentName, or their key kebab-cased as Gloo's chart does (publicGw and public-gw both mean Deployment public-gw), must differ in more than case and dashes; remove one entry or set distinct deploymentNames",
  },
  {
    id: 'gateway-proxy-not-gloo-or-discovery',
    on: 'GatewayProxies',
    rule: `self.all(k, !(${celProxyName('k')} in [${RESERVED_DEPLOYMENTS.map((d) => `'${d}'`).join(', ')}]))`,
    message:
      'gatewayProxies entries must not name the gloo or discovery Deployment (as deploymentName, or as the key): spec.gloo and spec.discovery manage those; rename the entry or set its deploymentName',
  },
  ...proxyRules('proxy', 'GatewayProxy'),
  // ---- label selectors ------------------------------------------------------------------------------
  {
    // As the API server validates a label selector elsewhere (ValidateLabelSelectorRequirement): an
    // In with no values selects nothing (TargetNotFound), an Exists with values is ambiguous.
    id: 'selector-requirement-values',
    on: 'LabelSelectorRequirement',
    rule: "self.operator in ['In', 'NotIn'] ? (has(self.values) && size(self.values) > 0) : (!has(self.values) || size(self.values) == 0)",
    fieldPath: '.values',
    message:
      'values must be non-empty for operator In or NotIn, and empty for Exists or DoesNotExist (as Kubernetes requires of a label selector)',
  },
  ...SHARED_DEFINITION_RULES,
];
