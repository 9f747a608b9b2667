// TypeScript shapes of the GlooHA resource. The OpenAPI schema in schema.ts is the authority for
// what the API server accepts; these types describe the same object for the code that reads it.
// Fields that the schema defaults are still optional here: an object read from a file (glooha
// render) has not been defaulted yet. Call `applyDefaults` (validate.ts) to get a `DefaultedSpec`.

import type { ConditionType } from './constants.js';

/** An int or a percentage string such as "50%" (Kubernetes intstr, as PDBs use it). */
export type IntOrPercent = number | string;

export type AntiAffinity = 'none' | 'preferred' | 'required';
export type DriftPolicy = 'enforce' | 'warn' | 'ignore';

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface TargetSpec {
  /** Namespace of the Gloo install; defaults to the GlooHA's own namespace. */
  namespace?: string;
  /** Narrows the install's Deployments when one namespace holds several installs. */
  selector?: LabelSelector;
  /** Narrows to objects whose `meta.helm.sh/release-name` annotation has this value. */
  helmRelease?: string;
}

export interface LeaderElectionSpec {
  enabled?: boolean;
  leaseDuration?: string;
  renewDeadline?: string;
  retryPeriod?: string;
}

export interface PodDisruptionBudgetSpec {
  minAvailable?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
}

export interface TopologySpreadConstraintSpec {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  minDomains?: number;
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
  matchLabelKeys?: string[];
}

export interface GlooSpec {
  replicas?: number;
  leaderElection?: LeaderElectionSpec;
  podDisruptionBudget?: PodDisruptionBudgetSpec;
  antiAffinity?: AntiAffinity;
  topologySpreadConstraints?: TopologySpreadConstraintSpec[];
}

export interface DiscoverySpec {
  replicas?: number;
}

export interface AutoscalingSpec {
  minReplicas: number;
  maxReplicas: number;
}

export interface GatewayProxySpec {
  /** The proxy's Deployment; defaults to the kebab-case of its key, as Gloo's chart names it. */
  deploymentName?: string;
  replicas?: number;
  autoscaling?: AutoscalingSpec;
  podDisruptionBudget?: PodDisruptionBudgetSpec;
  antiAffinity?: AntiAffinity;
  topologySpreadConstraints?: TopologySpreadConstraintSpec[];
}

export interface GlooHASpec {
  target?: TargetSpec;
  gloo?: GlooSpec;
  discovery?: DiscoverySpec;
  /** Keyed by the proxy's name under `gatewayProxies` in Gloo's Helm values (e.g. `gatewayProxy`). */
  gatewayProxies?: Record<string, GatewayProxySpec>;
  driftPolicy?: DriftPolicy;
  /** Flux-style: while true the operator writes nothing to the install and only reports (status). */
  suspend?: boolean;
}

/** The spec after schema defaulting: the fields the schema defaults are present. */
export interface DefaultedSpec extends GlooHASpec {
  gloo: GlooSpec & {
    replicas: number;
    leaderElection: Required<LeaderElectionSpec>;
    antiAffinity: AntiAffinity;
  };
  discovery?: DiscoverySpec & { replicas: number };
  gatewayProxies?: Record<string, GatewayProxySpec & { antiAffinity: AntiAffinity }>;
  driftPolicy: DriftPolicy;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

export interface Condition {
  type: ConditionType | string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface PodDisruptionBudgetStatus {
  name: string;
  /** True when the PDB is glooha's; false when an existing one (e.g. the chart's) stands in. */
  owned: boolean;
  minAvailable?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
  currentHealthy?: number;
  desiredHealthy?: number;
  disruptionsAllowed?: number;
}

export interface ComponentStatus {
  deploymentName?: string;
  desiredReplicas?: number;
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  autoscaling?: { hpaName: string; minReplicas: number; maxReplicas: number; currentReplicas?: number };
  podDisruptionBudget?: PodDisruptionBudgetStatus;
}

export interface LeaderStatus {
  /** holderIdentity of the `gloo` Lease (a gloo pod name), empty when nobody holds it. */
  holder?: string;
  /**
   * Whether the holder renewed within leaseDurationSeconds, judged on the operator's own monotonic
   * clock from when it saw the last renewal (never by comparing renewTime with its wall clock).
   */
  fresh?: boolean;
  acquireTime?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
  /** When the operator last saw the holder change. */
  lastTransitionTime?: string;
}

export interface WarningStatus {
  code: string;
  message: string;
  component?: string;
  path?: string;
}

/**
 * The status every kind reports, as the engine writes it: components keyed as each product's
 * status.components is (`gloo`, `gatewayProxies.<key>`, `controller`, ...).
 */
export interface HAStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  components?: { [key: string]: ComponentStatus | Record<string, ComponentStatus> | undefined };
  leader?: LeaderStatus;
  warnings?: WarningStatus[];
  helmValuesConfigMap?: string;
  /** The value of the glooha.io/reconcile-requested-at annotation the operator last handled. */
  lastHandledReconcileAt?: string;
}

export interface GlooHAStatus extends HAStatus {
  components?: {
    gloo?: ComponentStatus;
    discovery?: ComponentStatus;
    gatewayProxies?: Record<string, ComponentStatus>;
    /** kgateway's controller, and its Gateways' proxies (a KgatewayHA's components). */
    controller?: ComponentStatus;
    gateways?: Record<string, ComponentStatus>;
  };
  leader?: LeaderStatus;
  warnings?: WarningStatus[];
  helmValuesConfigMap?: string;
  /** The value of the glooha.io/reconcile-requested-at annotation the operator last handled. */
  lastHandledReconcileAt?: string;
}

export interface GlooHA {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: GlooHASpec;
  status?: GlooHAStatus;
}

/** A GlooHA whose spec has been defaulted (and validated). */
export interface DefaultedGlooHA extends GlooHA {
  spec: DefaultedSpec;
}

// ---- KgatewayHA: one kgateway install (src/products/kgateway/schema.ts is the authority) ------------------------

export interface KgatewayTargetSpec {
  /** Namespace of the kgateway install; defaults to the KgatewayHA's own namespace. */
  namespace?: string;
  /** The Helm release of kgateway's chart, when one namespace holds several. */
  helmRelease?: string;
}

export interface KgatewayControllerSpec {
  /** Fixed replicas; unset with autoscaling (and unset without it: KGATEWAY_DEFAULTS.controllerReplicas). */
  replicas?: number;
  autoscaling?: AutoscalingSpec;
  /** A PriorityClass for the controller's pods (must exist: the operator checks it first). */
  priorityClassName?: string;
  leaderElection?: { enabled?: boolean };
  podDisruptionBudget?: PodDisruptionBudgetSpec;
  antiAffinity?: AntiAffinity;
  topologySpreadConstraints?: TopologySpreadConstraintSpec[];
}

export interface KgatewayGatewaySpec {
  replicas?: number;
  autoscaling?: AutoscalingSpec;
  podDisruptionBudget?: PodDisruptionBudgetSpec;
  antiAffinity?: AntiAffinity;
  topologySpreadConstraints?: TopologySpreadConstraintSpec[];
}

export interface KgatewayHASpec {
  target?: KgatewayTargetSpec;
  controller?: KgatewayControllerSpec;
  /** Keyed by Gateway name, in the install's namespace. */
  gateways?: Record<string, KgatewayGatewaySpec>;
  driftPolicy?: DriftPolicy;
  suspend?: boolean;
}

export interface DefaultedKgatewaySpec extends KgatewayHASpec {
  controller: KgatewayControllerSpec & {
    leaderElection: { enabled: boolean };
    antiAffinity: AntiAffinity;
  };
  gateways?: Record<string, KgatewayGatewaySpec & { antiAffinity: AntiAffinity }>;
  driftPolicy: DriftPolicy;
}

/** The same shape as a GlooHA's: the components a KgatewayHA reports are `controller`. */
export type KgatewayHAStatus = GlooHAStatus;

export interface KgatewayHA {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: KgatewayHASpec;
  status?: KgatewayHAStatus;
}

export interface DefaultedKgatewayHA extends KgatewayHA {
  spec: DefaultedKgatewaySpec;
}

/**
 * An object of any kind the operator reconciles, as the engine handles it: the fields every kind
 * shares (each product's own type, GlooHA or KgatewayHA, is one).
 */
export interface HAObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: {
    suspend?: boolean;
    driftPolicy?: DriftPolicy;
    target?: { namespace?: string; selector?: LabelSelector; helmRelease?: string };
  };
  status?: HAStatus;
}
