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
  | 'GlooContainerNotFound'
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

/** What `glooha migrate kgateway` reports: settings kgateway cannot take, and steps left to the user. */
export type MigrationNoteCode = 'KgatewayCannotExpress' | 'KgatewayGatewayReference';

export type FindingCode = WarningCode | ProblemCode | HelmNoteCode | MigrationNoteCode;

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
