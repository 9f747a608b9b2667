// Findings are what the core reports besides objects: warnings (HA weaknesses in the Polaris /
// kube-score sense; reconcile proceeds) and problems (the install contradicts the spec; the affected
// part is not applied). Both are data with a stable CamelCase code, so the reconciler can put them in
// status and conditions and `glooha render` can print them.

export interface Finding {
  code: FindingCode;
  message: string;
  /** 'gloo', 'discovery' or 'gatewayProxies.<key>' */
  component?: string;
  /** The spec field the finding is about (for Helm notes: the values path), when there is one. */
  path?: string;
}

export type WarningCode =
  | 'SingleReplica'
  | 'NoPodDisruptionBudget'
  | 'NoAntiAffinity'
  | 'HPAMinReplicasBelowPDBMinAvailable'
  | 'PDBAllowsFullOutage'
  | 'PDBProtectsNothing'
  | 'UnmanagedGatewayProxy'
  | 'DiscoveryReplicas'
  | 'DeprecatedValue'
  | 'RolloutExceedsDisruptionBudget'
  | 'InPlaceRolloutNeedsEnforce';

export type ProblemCode =
  | 'DeploymentNotFound'
  | 'GatewayProxyNotFound'
  | 'LeaderElectionDisabledByHelm'
  | 'ForeignPodDisruptionBudget'
  | 'MultiplePodDisruptionBudgets'
  | 'MultipleHorizontalPodAutoscalers'
  | 'HorizontalPodAutoscalerConflict'
  | 'MatchLabelKeyInSelector'
  | 'GatewayNotFound'
  | 'GatewayParametersRefMissing'
  | 'GatewayParametersNotFound'
  | 'GatewayAPINotServed'
  | 'PriorityClassNotFound'
  | 'PriorityClassesUnreadable';

export type HelmNoteCode =
  'HelmListReplaced' | 'HelmCannotExpress' | 'HelmProxyDefaultsInherited' | 'HelmReplicasFollowHPA';

/**
 * The codes a product adds of its own (a container of its named in a code, a migration's notes):
 * each product declares them in its folder by merging keys into this interface
 * (`declare module '../../core/findings.js' { interface ProductFindingCodes { Code: true } }`), so
 * the engine's union names no product and a finding's code stays checked.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ProductFindingCodes {}

export type FindingCode = WarningCode | ProblemCode | HelmNoteCode | keyof ProductFindingCodes;

/** "gloo", "discovery", "gateway proxy publicGw": how messages name a component. */
export function describeComponent(component: string): string {
  return component.startsWith('gatewayProxies.')
    ? `gateway proxy ${component.slice('gatewayProxies.'.length)}`
    : component;
}

/** One line per finding, for logs and the CLI: `[Code] component: message`. */
export function formatFinding(f: Finding): string {
  return `[${f.code}]${f.component ? ` ${f.component}:` : ''} ${f.message}`;
}
