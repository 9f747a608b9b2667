// What the reconciler found of an install, as plain data, in the shapes every product's core takes:
// Deployments, HPAs and PDBs. Each product's own observed install is built of them (Gloo's:
// products/gloo/install.ts).

import type { IntOrPercent, LabelSelector } from '../api/types.js';

export interface ObservedContainer {
  name: string;
  /** The container's env as the Deployment spells it (valueFrom entries may be left out). */
  env?: { name: string; value?: string }[];
  /** Its image, when set: a product may read its chart version from the tag (Gloo's chart tags so). */
  image?: string;
}

export interface ObservedDeployment {
  name: string;
  /** metadata.labels */
  labels?: Record<string, string>;
  /** spec.selector, verbatim: PDBs, anti-affinity and spread constraints reuse it exactly. */
  selector: LabelSelector;
  /** spec.template.metadata.labels, to tell which existing PDBs select these pods. */
  podLabels?: Record<string, string>;
  containers: ObservedContainer[];
  serviceAccountName?: string;
  /** spec.template.spec.priorityClassName */
  priorityClassName?: string;
  /** spec.replicas */
  replicas?: number;
  /**
   * The field managers whose server-side apply (not a subresource's) owns spec.replicas: their next
   * apply without it removes it (the Deployment then falls back to 1 replica) unless another owns it.
   */
  replicasAppliers?: string[];
  /** The Helm release that installed it (annotation meta.helm.sh/release-name), if any. */
  helmRelease?: string;
}

/** A HorizontalPodAutoscaler in the install's namespace whose scaleTargetRef is a Deployment. */
export interface ObservedHPA {
  name: string;
  /** metadata.labels */
  labels?: Record<string, string>;
  /** scaleTargetRef.name (kind Deployment) */
  targetName: string;
  minReplicas?: number;
  maxReplicas: number;
  /** True when glooha owns it (glooha.io/owner-name label of this GlooHA). */
  ours: boolean;
}

export interface ObservedPDB {
  name: string;
  /** metadata.labels */
  labels?: Record<string, string>;
  selector: LabelSelector;
  minAvailable?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
  ours: boolean;
  /** The Helm release that installed it (annotation meta.helm.sh/release-name), if any. */
  helmRelease?: string;
}
