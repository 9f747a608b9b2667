// From cached API objects to the plain observed shapes the products' pure cores take. Only this
// module (and each product's own observe.ts) knows the Kubernetes object shapes the caches hold.
import type {
  KubernetesObject,
  V1Deployment,
  V1ManagedFieldsEntry,
  V1PodDisruptionBudget,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { LABEL_OWNER_KIND, LABEL_OWNER_NAME, LABEL_OWNER_NAMESPACE } from '../api/constants.js';
import type { LabelSelector } from '../api/types.js';
import type { ObservedDeployment, ObservedHPA, ObservedPDB } from '../core/observed.js';
import type { Owner } from '../core/ownership.js';

/**
 * Whether `obj` is owned by `owner`: its owner labels name it, kind included. With
 * `acceptUnlabelled`, an object without the owner-kind label counts too: one labelled by an earlier
 * release, which set that label on some kinds' objects only.
 */
export function isOwnedBy(obj: KubernetesObject, owner: Owner, acceptUnlabelled = false): boolean {
  const labels = obj.metadata?.labels ?? {};
  const kind = labels[LABEL_OWNER_KIND];
  const sameKind = kind === owner.kind || (acceptUnlabelled && kind === undefined);
  return (
    sameKind && labels[LABEL_OWNER_NAME] === owner.name && labels[LABEL_OWNER_NAMESPACE] === owner.namespace
  );
}

const HELM_RELEASE_ANNOTATION = 'meta.helm.sh/release-name';

export function observedDeployment(d: V1Deployment): ObservedDeployment {
  const spec = d.spec;
  return {
    name: d.metadata?.name ?? '',
    labels: d.metadata?.labels,
    selector: (spec?.selector ?? {}) as LabelSelector,
    podLabels: spec?.template?.metadata?.labels,
    containers: (spec?.template?.spec?.containers ?? []).map((c) => ({
      name: c.name,
      env: (c.env ?? []).map((e) => ({ name: e.name, ...(e.value === undefined ? {} : { value: e.value }) })),
      ...(c.image ? { image: c.image } : {}),
    })),
    serviceAccountName: spec?.template?.spec?.serviceAccountName,
    ...(spec?.template?.spec?.priorityClassName
      ? { priorityClassName: spec.template.spec.priorityClassName }
      : {}),
    replicas: spec?.replicas,
    ...(d.metadata?.managedFields ? { replicasAppliers: replicasAppliers(d.metadata.managedFields) } : {}),
    ...(d.metadata?.annotations?.[HELM_RELEASE_ANNOTATION]
      ? { helmRelease: d.metadata.annotations[HELM_RELEASE_ANNOTATION] }
      : {}),
  };
}

/** The managers whose apply entry (not a subresource's) holds f:spec.f:replicas. */
function replicasAppliers(entries: V1ManagedFieldsEntry[]): string[] {
  return entries
    .filter((e) => e.operation === 'Apply' && !e.subresource)
    .filter((e) => {
      const spec = (e.fieldsV1 as Record<string, unknown> | undefined)?.['f:spec'];
      return typeof spec === 'object' && spec !== null && 'f:replicas' in spec;
    })
    .map((e) => e.manager ?? '');
}

export interface InstallObjects {
  namespace: string;
  deployments: V1Deployment[];
  hpas: V2HorizontalPodAutoscaler[];
  pdbs: V1PodDisruptionBudget[];
}

/** The HPAs that scale a Deployment, each marked `ours` when `owns` says it is. */
export function observedHpas(
  hpas: readonly V2HorizontalPodAutoscaler[],
  owns: (obj: KubernetesObject) => boolean,
): ObservedHPA[] {
  return hpas
    .filter((h) => h.spec?.scaleTargetRef?.kind === 'Deployment')
    .map((h): ObservedHPA => ({
      name: h.metadata?.name ?? '',
      ...(h.metadata?.labels ? { labels: h.metadata.labels } : {}),
      targetName: h.spec?.scaleTargetRef?.name ?? '',
      minReplicas: h.spec?.minReplicas,
      maxReplicas: h.spec?.maxReplicas ?? 0,
      ours: owns(h),
    }));
}

/** The PDBs, each marked `ours` when `owns` says it is. */
export function observedPdbs(
  pdbs: readonly V1PodDisruptionBudget[],
  owns: (obj: KubernetesObject) => boolean,
): ObservedPDB[] {
  return pdbs.map((p): ObservedPDB => ({
    name: p.metadata?.name ?? '',
    ...(p.metadata?.labels ? { labels: p.metadata.labels } : {}),
    selector: (p.spec?.selector ?? {}) as LabelSelector,
    ...(p.spec?.minAvailable === undefined ? {} : { minAvailable: p.spec.minAvailable }),
    ...(p.spec?.maxUnavailable === undefined ? {} : { maxUnavailable: p.spec.maxUnavailable }),
    ours: owns(p),
    ...(p.metadata?.annotations?.[HELM_RELEASE_ANNOTATION]
      ? { helmRelease: p.metadata.annotations[HELM_RELEASE_ANNOTATION] }
      : {}),
  }));
}
