// The data a reconcile works on: a Snapshot of the caches in, a Plan of writes out. plan.ts turns one
// into the other without I/O; actions/ carry a Plan out; reconciler.ts runs the two.
import type {
  KubernetesObject,
  V1Deployment,
  V1PodDisruptionBudget,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import type { HAObject, HAStatus, LeaderStatus } from '../api/types.js';
import type { ListTypes } from '../kube/list-types.js';
import type { ServedFields } from '../kube/served-fields.js';
import type { OwnershipRelease } from './handover.js';
import type { LeaderlessSpell } from './leaderless-gap.js';
import type { DriftReport, Stall } from './status.js';

export const FINALIZER = 'glooha.io/handover';
/** Hash of the body we last applied to an object; a mismatch means the spec changed, not drift. */
export const APPLIED_ANNOTATION = 'glooha.io/applied';

/** Everything one reconcile of one object reads, taken from the caches at its start. */
export interface Snapshot {
  /** namespace/name of the object. */
  key: string;
  /** The object (of the controller's kind); undefined: it is gone. */
  object: HAObject | undefined;
  /** Every other object of its kind whose install is in the same namespace (for the rival check). */
  sameNamespace: HAObject[];
  /**
   * In the install's namespace, as the product selects them (Product.deploymentSelector and
   * coverSelector): its Deployments, and the HPAs and PDBs that may cover them.
   */
  deployments: V1Deployment[];
  hpas: V2HorizontalPodAutoscaler[];
  pdbs: V1PodDisruptionBudget[];
  /**
   * The product's related kinds (Product.relatedKinds) in the install's namespace, by kind; undefined
   * when the API server does not serve them all (they are not watched then).
   */
  related?: ReadonlyMap<string, readonly KubernetesObject[]>;
  /**
   * The product's cluster-scoped kinds (Product.clusterKinds), by kind: only those the operator may
   * list and watch at cluster scope (a kind absent here cannot be read, not "there are none").
   */
  cluster?: ReadonlyMap<string, readonly KubernetesObject[]>;
  /** Objects carrying our managed-by label and this GlooHA's owner labels, by kind (plan checks the labels again). */
  owned: ReadonlyMap<string, readonly KubernetesObject[]>;
  /** Who holds the product's leader Lease in the install's namespace. */
  leader: LeaderStatus | undefined;
  /** While the product has no live leader: for how long, and the settings its failover bound comes from. */
  leaderless?: LeaderlessSpell;
  /** The drift corrections of an earlier reconcile, still worth reporting (see ReconcilerMemory). */
  lastCorrections: readonly DriftReport[];
  /** Our own earlier applies to this GlooHA's objects, by "Kind namespace/name" (see OwnApply). */
  ownApplies: ReadonlyMap<string, OwnApply>;
  /** Wall-clock time, for condition timestamps only. */
  now: Date;
  /**
   * How server-side apply merges each list of the kinds we write, from the API server's OpenAPI
   * (kube/openapi-list-types.ts); a kind missing here is compared by the fallback in compare.ts.
   */
  listTypes?: ListTypes;
  /**
   * Per kindKey, which of a related kind's RelatedKind.servedFields the API server's schema of it has
   * (kube/served-fields.ts); a kind whose schema has not been read is absent.
   */
  servedFields?: ServedFields;
}

/**
 * An apply of ours the API server accepted: the applied-hash of the body and the resourceVersion of the
 * response. A cached copy older than that resourceVersion has not seen our write yet — the informer's
 * watch event carrying it is on its way and will bring this GlooHA back — so the plan does not apply
 * the same body again from it (kube-controller-manager's "expectations", for our own writes).
 */
export interface OwnApply {
  hash: string;
  resourceVersion: string;
}

export type ApplyReason = 'create' | 'update' | 'drift';

export interface PlannedApply {
  /** The server-side apply body, with the APPLIED_ANNOTATION already set. */
  body: KubernetesObject;
  reason: ApplyReason;
  /** "Kind namespace/name". */
  what: string;
  /** For drift corrections: what changed, and who changed it. */
  drift?: string;
  /** glooha.io/component label (drift metric). */
  component: string;
  /**
   * Applies run stage by stage, in ascending order; those of one stage are independent and are sent
   * together. Default 0.
   */
  stage?: number;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export interface PlannedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface Plan {
  /** Set the GlooHA's finalizers to this list (add ours, or remove it once finalized). */
  finalizers?: string[];
  /** Owned objects first, then the partial applies to the product's objects; sent by stage (PlannedApply.stage). */
  applies: PlannedApply[];
  /** Owned objects to delete (no longer desired; or, on deletion, those GC cannot reach). */
  prunes: ObjectRef[];
  /** On deletion: the fields handed over on Gloo's objects (see handover.ts). */
  handover: OwnershipRelease[];
  /**
   * Gloo Deployments not applied in this plan whose spec.replicas the operator still owns: give the
   * ownership up, value unchanged (see replicas-ownership.ts).
   */
  releaseReplicas: OwnershipRelease[];
  /** The status to write, or undefined when it would not change. */
  status?: HAStatus;
  events: PlannedEvent[];
  /** Drift corrections to remember for later reconciles (replaces the memory when set). */
  corrections?: DriftReport[];
  /** Why the GlooHA cannot make progress, if it cannot. */
  stall?: Stall;
  requeueAfterMs?: number;
  /** The GlooHA is gone: forget everything kept for it. */
  forget?: boolean;
}

export function emptyPlan(): Plan {
  return { applies: [], prunes: [], handover: [], releaseReplicas: [], events: [] };
}

export function refOf(obj: KubernetesObject): ObjectRef {
  return {
    apiVersion: obj.apiVersion ?? '',
    kind: obj.kind ?? '',
    namespace: obj.metadata?.namespace ?? '',
    name: obj.metadata?.name ?? '',
  };
}
