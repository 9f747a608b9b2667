// TypeScript shapes every kind of the glooha.io API shares: the settings each product's spec is built
// from (a PDB, spread constraints, autoscaling bounds) and the status the engine writes. Each product's
// own kind is typed in its folder (src/products/<product>/types.ts); its OpenAPI schema is the
// authority for what the API server accepts.

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

export interface AutoscalingSpec {
  minReplicas: number;
  maxReplicas: number;
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
  // A type of the operator's own, or any other: `string & {}` keeps the named ones for editors.
  type: ConditionType | (string & {});
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
