// The replicas floors of an owner's Deployments, as a ConfigMap in the install's namespace. The floor
// annotations on a Deployment (ANNOTATION_MIN_REPLICAS and the rest) let the chart's replicas-floor
// policy judge writes to the Deployment; a write to its scale subresource (`kubectl scale`) carries a
// Scale object, which has no annotations, so the chart's scale policy reads the same values from this
// ConfigMap through its binding's paramRef (selected by LABEL_REPLICAS_FLOORS in the request's
// namespace). One key per annotation and Deployment, `<annotation>.<deployment>`, holding exactly the
// annotation's value (the product's upgrade command among them).
import {
  ANNOTATION_HELM_UPGRADE,
  ANNOTATION_HELM_VALUES,
  ANNOTATION_MIN_REPLICAS,
  ANNOTATION_OWNER,
  ANNOTATION_OWNER_KIND,
  LABEL_REPLICAS_FLOORS,
} from '../api/constants.js';
import { ownedMetadata, type Owner } from './ownership.js';
import { renderObject, type KubeObject } from './templates.js';

/** The keys' prefixes: the scale policy's CEL reads `params.data['<prefix>.' + request.name]`. */
export const FLOOR_KEYS = {
  [ANNOTATION_MIN_REPLICAS]: 'min-replicas',
  [ANNOTATION_OWNER]: 'owner',
  [ANNOTATION_OWNER_KIND]: 'owner-kind',
  [ANNOTATION_HELM_VALUES]: 'helm-values',
  [ANNOTATION_HELM_UPGRADE]: 'helm-upgrade',
} as const;

export function replicasFloorsName(owner: Owner): string {
  return `${owner.name}-${owner.kind.toLowerCase()}-replicas-floors`;
}

/**
 * The ConfigMap holding the floors `patches` (the Deployment patches an owner applies) keep, or
 * undefined when none keeps one (driftPolicy warn or ignore: then there is nothing to refuse).
 */
export function replicasFloorsConfigMap(
  owner: Owner,
  namespace: string,
  patches: readonly KubeObject[],
): KubeObject | undefined {
  const data: Record<string, string> = {};
  for (const p of patches) {
    if (p.kind !== 'Deployment' || p.metadata.namespace !== namespace) continue;
    const annotations = (p.metadata as { annotations?: Record<string, string> }).annotations ?? {};
    if (annotations[ANNOTATION_MIN_REPLICAS] === undefined) continue;
    const name = p.metadata.name;
    for (const [annotation, prefix] of Object.entries(FLOOR_KEYS)) {
      const value = annotations[annotation];
      if (value !== undefined) data[`${prefix}.${name}`] = value;
    }
  }
  if (Object.keys(data).length === 0) return undefined;
  const metadata = ownedMetadata(owner, replicasFloorsName(owner), namespace, 'replicas-floors');
  metadata.labels = { ...metadata.labels, [LABEL_REPLICAS_FLOORS]: 'true' };
  return renderObject('replicas-floors-configmap', { metadata, data });
}
