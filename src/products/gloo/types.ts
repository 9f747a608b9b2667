// TypeScript shapes of the GlooHA resource. The OpenAPI schema in schema.ts is the authority for
// what the API server accepts; these types describe the same object for the code that reads it.
// Fields that the schema defaults are still optional here: an object read from a file (glooha
// render) has not been defaulted yet. Call `defaultSpec` (validate.ts) to get a `DefaultedSpec`.

import type {
  AntiAffinity,
  AutoscalingSpec,
  ComponentStatus,
  DriftPolicy,
  HAStatus,
  LabelSelector,
  LeaderStatus,
  ObjectMeta,
  PodDisruptionBudgetSpec,
  TopologySpreadConstraintSpec,
  WarningStatus,
} from '../../api/types.js';

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

declare module '../../core/findings.js' {
  /** Gloo's own finding codes (see ProductFindingCodes). */
  interface ProductFindingCodes {
    /** The gloo Deployment has no container named gloo, so the lease env cannot be set. */
    GlooContainerNotFound: true;
  }
}
