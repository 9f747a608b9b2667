// TypeScript shapes of the KgatewayHA resource: one kgateway install. The OpenAPI schema in schema.ts is
// the authority for what the API server accepts.

import type {
  AntiAffinity,
  AutoscalingSpec,
  DriftPolicy,
  ObjectMeta,
  PodDisruptionBudgetSpec,
  TopologySpreadConstraintSpec,
} from '../../api/types.js';
import type { GlooHAStatus } from '../gloo/types.js';

export interface KgatewayTargetSpec {
  /** Namespace of the kgateway install; defaults to the KgatewayHA's own namespace. */
  namespace?: string;
  /** The Helm release of kgateway's chart, when one namespace holds several. */
  helmRelease?: string;
}

export interface KgatewayControllerSpec {
  /** Fixed replicas; unset with autoscaling (and unset without it: KGATEWAY_CONTROLLER_REPLICAS). */
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

declare module '../../core/findings.js' {
  /** kgateway's own finding codes (see ProductFindingCodes). */
  interface ProductFindingCodes {
    /**
     * kgateway's controller Deployment has no container named controller. The code is Gloo's,
     * kept as the one status has always reported for either product.
     */
    GlooContainerNotFound: true;
    /** `glooha migrate kgateway`: a GlooHA setting kgateway cannot take. */
    KgatewayCannotExpress: true;
    /** `glooha migrate kgateway`: a gateway's Gateway to point at its GatewayParameters. */
    KgatewayGatewayReference: true;
    /** Warning: the install runs a kgateway line newer than the newest tested (version.ts). */
    KgatewayVersionUntested: true;
    /** Warning: the controller Deployment's version label is missing or not a version (version.ts). */
    KgatewayVersionUnknown: true;
    /** Problem: the installed GatewayParameters lack a field a gateway's spec needs (desired.ts). */
    GatewayParametersCannotExpress: true;
  }
}
