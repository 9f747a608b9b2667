// Names that identify the glooha.io API (its group and version; each product names its own kind in
// its folder) and the objects glooha owns. Everything that writes or selects by them imports them
// from here, so a rename cannot leave a stale copy behind.

export const GROUP = 'glooha.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** The field manager glooha uses for server-side apply; also the `managed-by` label value. */
export const MANAGER = 'glooha-operator';

/** Labels on every object glooha owns: the reconciler lists by them to prune what is no longer desired. */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_OWNER_NAME = 'glooha.io/owner-name';
export const LABEL_OWNER_NAMESPACE = 'glooha.io/owner-namespace';
export const LABEL_COMPONENT = 'glooha.io/component';
/**
 * On every object glooha owns: its owner's kind, so objects of a GlooHA and a KgatewayHA of the same
 * name in one namespace are never mistaken for each other. Releases before it was on every kind's
 * objects labelled only a KgatewayHA's: a GlooHA still recognises its unlabelled objects as its own
 * (Product.ownsUnlabelledObjects), and its next apply labels them.
 */
export const LABEL_OWNER_KIND = 'glooha.io/owner-kind';

/**
 * Annotations on each Gloo Deployment whose replica count glooha keeps (driftPolicy enforce): the
 * floor (fixed replicas, or the HPA's minReplicas), the GlooHA that keeps it and the ConfigMap with
 * its Helm values. The chart's replicas-floor ValidatingAdmissionPolicy reads them to refuse a write
 * that lowers replicas below the floor (a plain `helm upgrade` rendering the chart's 1), naming the
 * GlooHA and what to run. They are removed with the operator's other fields when the GlooHA is deleted.
 */
export const ANNOTATION_MIN_REPLICAS = 'glooha.io/min-replicas';
export const ANNOTATION_OWNER = 'glooha.io/owner';
export const ANNOTATION_HELM_VALUES = 'glooha.io/helm-values';
/** On a Deployment whose floor glooha keeps: the owner's kind (absent, from an earlier release: a GlooHA's). */
export const ANNOTATION_OWNER_KIND = 'glooha.io/owner-kind';
/**
 * On the ConfigMap of an owner's replicas floors in the install's namespace (core/replicas-floors.ts):
 * the chart's scale-subresource policy selects its parameters by this label.
 */
export const LABEL_REPLICAS_FLOORS = 'glooha.io/replicas-floors';
/**
 * On a Deployment whose floor glooha keeps: the product's values-path command (its release, chart,
 * installed chart version and values file), which the floor's refusal prints as it is. The product
 * knows its chart; the policy in the operator's chart names none.
 */
export const ANNOTATION_HELM_UPGRADE = 'glooha.io/helm-upgrade';

/**
 * Set it to any new value (a timestamp, by convention) to have the operator reconcile the GlooHA at
 * once; status.lastHandledReconcileAt echoes the value once handled (Flux's reconcile.fluxcd.io/requestedAt).
 */
export const RECONCILE_REQUEST_ANNOTATION = 'glooha.io/reconcile-requested-at';

/** Condition types on GlooHA status (metav1.Condition); Reconciling and Stalled follow kstatus. */
export const CONDITION_TYPES = ['Ready', 'Reconciling', 'Stalled', 'Drifted', 'Degraded'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

/** Client-go's JitterFactor: renewDeadline must exceed it times retryPeriod. */
export const JITTER_FACTOR = 1.2;
