// What the engine needs of a product (Gloo, kgateway, ...): the one interface a product implements.
// The engine — the manager, the informers, the reconciler, plan and actions, status — knows products
// only through it; each product lives in its own folder under src/products/ and is registered in
// src/products/registered.ts. A test (test/unit/engine/names-no-product.test.ts) fails if the engine names
// one.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApiKind } from '../api/kind.js';
import type { FieldError } from '../api/structural.js';
import type { DriftPolicy, HAObject, IntOrPercent } from '../api/types.js';
import type { Finding } from '../core/findings.js';
import type { Owner } from '../core/ownership.js';
import type { KubeObject } from '../core/templates.js';
import type { KindInfo } from './kinds.js';
import type { Permission } from './permissions.js';
import type { Snapshot } from './plan-types.js';
import type { Stall } from './status.js';

/** One component of an install (a Deployment the operator keeps available), as planned. */
export interface ComponentPlan {
  /**
   * Its key in status.components: `name`, or `group.key` for an entry of the map `group`
   * (e.g. gatewayProxies.<key>). Also the component of its findings.
   */
  id: string;
  deploymentName: string;
  /** False when the install has no such Deployment (a problem says so). */
  found: boolean;
  /** Fixed replicas, or the HPA's minReplicas for an autoscaled proxy. */
  desiredReplicas: number;
  /** Whether the Deployment patch sets spec.replicas (false when an HPA owns them). */
  managesReplicas: boolean;
  autoscaling?: { hpaName: string; owned: boolean; minReplicas: number; maxReplicas: number };
  podDisruptionBudget?: {
    name: string;
    owned: boolean;
    minAvailable?: IntOrPercent;
    maxUnavailable?: IntOrPercent;
  };
}

/** What a product wants of one install: the output of its pure core. */
export interface Desired<HelmValues = unknown> {
  owner: Owner;
  /** Namespace of the install (spec.target.namespace or the object's). */
  installNamespace: string;
  owned: KubeObject[];
  patches: KubeObject[];
  components: ComponentPlan[];
  helmValues: HelmValues;
  /** The name of the owned ConfigMap holding the Helm values (status.helmValuesConfigMap). */
  helmValuesConfigMap: string;
  warnings: Finding[];
  problems: Finding[];
  /**
   * Deployments (by name) whose spec.replicas the operator keeps owning this reconcile although no
   * apply of it is made now: a hand-over of the field to an HPA in progress (the engine otherwise
   * gives up the ownership its earlier applies left, see replicas-ownership.ts).
   */
  keepReplicas?: readonly string[];
  /**
   * Reconcile again after this long although no watch event may come: the product waits for a change
   * no informer reports (another writer's field ownership, which changes only managedFields).
   */
  requeueAfterMs?: number;
  /** Owned objects outside the object's namespace have no ownerReference: clean them up on deletion. */
  needsFinalizer: boolean;
  driftPolicy: DriftPolicy;
  /**
   * The product's leader election, for status: whether it is on, the component (its id) whose pods
   * elect, which Lease shows the leader, what stops while nobody leads, and the Degraded reason then.
   */
  leaderElection: {
    enabled: boolean;
    component: string;
    lease: string;
    leaderless: string;
    lostReason: string;
  };
}

export type DesiredResult<HelmValues = unknown> =
  { ok: true; desired: Desired<HelmValues> } | { ok: false; errors: FieldError[] };

/** Nothing to manage (no install found yet, or names that cannot be kept apart): why, and when to look again. */
export interface NotReady {
  ok: false;
  stall: Stall;
  requeueAfterMs?: number;
}

/** The namespace of the install an object targets. */
export function installNamespaceOf(obj: {
  metadata: { namespace?: string };
  spec?: { target?: { namespace?: string } };
}): string {
  return obj.spec?.target?.namespace ?? obj.metadata.namespace ?? 'default';
}

/** A kind a product reads besides Deployments, HPAs and PDBs (and may write partial applies to). */
export interface RelatedKind extends KindInfo {
  /** Keep managedFields in the cache (a deletion hands the operator's fields over from them). */
  keepManagedFields?: boolean;
  /**
   * Fields (`spec.a.b`) whose presence in the API server's schema of the kind the product decides by
   * (a field a later release of its CRD added): Snapshot.servedFields says which it has.
   */
  servedFields?: readonly string[];
}

/**
 * What the operator's Helm chart says of a product besides its RBAC (its permissions): rendered into
 * the chart's generated part (charts/glooha-operator/templates/_products.tpl, scripts/gen-chart-parts.ts),
 * which the hand-written templates include, so that the chart names no product.
 */
export interface ChartFacts {
  /** The alert that fires when the product's leader Lease is not renewed (PrometheusRule). */
  leaderLeaseAlert: {
    /** Its name, which users route and silence by. */
    name: string;
    /** Its summary and description: Prometheus templates ({{ $labels.namespace }}, {{ $labels.name }}). */
    summary: string;
    description: string;
  };
  /** The install notes' lines on how to make an install of the product highly available. */
  notes: readonly string[];
}

/** A product: one kind of HA object and the install it keeps available. */
export interface Product {
  /** Its kind's description: names, schema and rules, from which its CRD and validator are built. */
  api: ApiKind;
  /** The kind it reconciles (in the glooha.io API group); also the owner-kind label of what it owns. */
  kind: string;
  /** That kind's resource (plural) in the glooha.io API group. */
  plural: string;
  /** Its controller's name, in metrics and logs. */
  controllerName: string;
  /** What the operator's chart says of it (alerts, install notes); undefined: the chart says nothing more. */
  chart?: ChartFacts;
  /**
   * Objects this kind owned under an earlier release may carry no owner-kind label (they predate
   * it): they are still recognised as its own, so an upgrade neither orphans nor re-creates them.
   */
  ownsUnlabelledObjects?: boolean;
  /** Whether the operator cannot start without its CRD (otherwise the kind is skipped with a warning). */
  crdRequired?: boolean;
  /** The label selector of the product's Deployments, as narrow as the product allows. */
  deploymentSelector: string;
  /** The label selector of the HPAs and PDBs that may cover them; undefined: every one in scope. */
  coverSelector?: string;
  /** Its leader's Lease, by name, in the install's namespace. */
  leaseName: string;
  /**
   * The pods that elect through that Lease and the one a holder identity names, so that the engine can
   * hand over the Lease of a holder whose process the kubelet reported ended (src/controller/
   * holder-release.ts, docs/leader-election.md). Undefined: the Lease is only watched.
   */
  leaderPods?: {
    /** Label selector of those pods in the install's namespace (only they are cached). */
    labelSelector: string;
    /** The pod a holder identity names; undefined when it names none. */
    podName(holderIdentity: string): string | undefined;
    /**
     * The container of those pods whose process holds the Lease: only a termination its kubelet
     * reports for this container proves the holder's process ended.
     */
    container: string;
    /** The product's acquire retry period: a leaderless gap above leaseDuration + this is reported. */
    retryPeriodSeconds: number;
    /** The retry period an HA object sets for its install, where the product lets it set one. */
    retryPeriodSecondsOf?(g: HAObject): number | undefined;
  };
  /**
   * Further kinds it reads in the install's namespace, watched when the API server serves them all
   * (Snapshot.related is undefined otherwise). Those it writes partial applies to must be listed.
   * They are cached without their status, which no product reads (a status update then wakes no
   * reconcile either): a product that comes to read one needs the cache to keep it first.
   */
  relatedKinds: readonly RelatedKind[];
  /**
   * Cluster-scoped kinds it reads (kgateway: PriorityClasses), watched cluster-wide when RBAC lets the
   * operator list and watch them there (Snapshot.cluster says which are); never written.
   */
  clusterKinds?: readonly KindInfo[];
  /** Its API use besides the engine's own (its kind, its related kinds), for RBAC and `glooha check`. */
  permissions: readonly Permission[];
  /** How to tell two objects of the kind apart when they target the same install. */
  rivalFix: string;
  /** How to fix a desired state that names one object twice. */
  selfConflictFix: string;
  /** Whether `obj` (a Deployment of the snapshot) belongs to the install `g` targets. */
  inTarget(g: HAObject, obj: KubernetesObject): boolean;
  /**
   * The desired state of the install, from the snapshot; `owned(kind)` lists this object's owned
   * objects of that kind in the install's namespace.
   */
  desired(g: HAObject, s: Snapshot, owned: (kind: string) => KubernetesObject[]): DesiredResult | NotReady;
}
