// Handing Gloo's objects back when a GlooHA is deleted. Pure: from the live object to one patch.
//
// Server-side apply deletes a field when its only manager stops applying it, so the operator cannot
// simply apply an empty body: `replicas` would go and the Deployment fall to 1. Keeping the fields
// under a second field manager (what earlier versions did, as "glooha-operator-handover") keeps
// their values but leaves an owner that Helm 4 then conflicts with on every upgrade ("conflict with
// glooha-operator-handover: .spec.replicas") until someone passes --force-conflicts.
//
// So the handover removes the operator's entries from metadata.managedFields instead. A field that no
// manager owns keeps its value and conflicts with no one: replicas, env, affinity and strategy stay
// exactly as they are, the next `helm upgrade` (Helm 4 or 3, no flags) takes the chart's values from
// then on, and every other manager (helm, the HPA controller on the scale subresource) keeps its
// own. Writing managedFields is how the API documents resetting ownership; the patch carries the
// resourceVersion, so it fails (409, retried) rather than clobber an entry written in between. The
// operator's annotations (its hash, and the replicas floor the admission policy enforces) go in the
// same patch: once the GlooHA is gone, nothing refuses Helm the chart's replica count.
import type { KubernetesObject, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import {
  ANNOTATION_HELM_UPGRADE,
  ANNOTATION_HELM_VALUES,
  ANNOTATION_MIN_REPLICAS,
  ANNOTATION_OWNER,
  ANNOTATION_OWNER_KIND,
  MANAGER,
} from '../api/constants.js';
import { HANDOVER_MANAGER } from './drift.js';
import { APPLIED_ANNOTATION } from './plan-types.js';

/** A metadata-only write that gives up field ownership on one of Gloo's objects, values unchanged. */
export interface OwnershipRelease {
  /** A JSON merge patch of metadata.managedFields (see managedFieldsPatch). */
  release: KubernetesObject;
  /**
   * A JSON merge patch made first, on the same resourceVersion (see safeStrategyPatch); the release
   * then goes on the resourceVersion it produced, and drops the entry it added.
   */
  prepare?: KubernetesObject;
  /** "Deployment ns/name", for logs. */
  what: string;
}

/** Field managers the operator has written under: its own and the earlier handover manager. */
const OUR_MANAGERS = [MANAGER, HANDOVER_MANAGER] as const;

/** Annotations the operator writes on Gloo's objects. */
const OUR_ANNOTATIONS = [
  APPLIED_ANNOTATION,
  ANNOTATION_MIN_REPLICAS,
  ANNOTATION_OWNER,
  ANNOTATION_OWNER_KIND,
  ANNOTATION_HELM_VALUES,
  ANNOTATION_HELM_UPGRADE,
] as const;

export function isOperatorManager(entry: V1ManagedFieldsEntry, managers: readonly string[]): boolean {
  return managers.includes(entry.manager ?? '');
}

/**
 * A JSON merge patch that releases the operator's fields on `live` without changing any value, or
 * undefined when it holds none and carries no annotation of ours.
 */
export function releaseOwnershipPatch(
  live: KubernetesObject,
  managers: readonly string[],
  annotations: readonly string[],
): KubernetesObject | undefined {
  const entries = live.metadata?.managedFields ?? [];
  const kept = entries.filter((e) => !isOperatorManager(e, managers));
  const present = annotations.filter((a) => live.metadata?.annotations?.[a] !== undefined);
  if (kept.length === entries.length && present.length === 0) return undefined;
  return managedFieldsPatch(live, kept, present);
}

/**
 * The one way the operator rewrites ownership: a JSON merge patch that sets `live`'s managedFields to
 * `entries` (and removes `dropAnnotations`), based on the resourceVersion it was computed from, so
 * it fails with 409 rather than overwrite an entry another writer added in between. No spec: no value
 * changes. (The API server records no entry for the patch itself: it changes no field.)
 */
export function managedFieldsPatch(
  live: KubernetesObject,
  entries: readonly V1ManagedFieldsEntry[],
  dropAnnotations: readonly string[] = [],
): KubernetesObject {
  return {
    apiVersion: live.apiVersion,
    kind: live.kind,
    metadata: {
      name: live.metadata?.name,
      namespace: live.metadata?.namespace,
      resourceVersion: live.metadata?.resourceVersion,
      // An empty list would be ignored (the API server keeps the old entries); [{}] resets them all.
      managedFields: entries.length > 0 ? entries : [{}],
      ...(dropAnnotations.length > 0
        ? { annotations: Object.fromEntries(dropAnnotations.map((a) => [a, null])) }
        : {}),
    } as KubernetesObject['metadata'],
  };
}

/** The handover for one of Gloo's objects, or undefined when we hold nothing on it. */
export function handoverOf(live: KubernetesObject): OwnershipRelease | undefined {
  const release = releaseOwnershipPatch(live, OUR_MANAGERS, OUR_ANNOTATIONS);
  if (!release) return undefined;
  const prepare = safeStrategyPatch(live);
  return {
    release,
    ...(prepare ? { prepare } : {}),
    what: `${live.kind} ${live.metadata?.namespace}/${live.metadata?.name}`,
  };
}

type Strategy = { rollingUpdate?: { maxSurge?: unknown } };

/**
 * Our in-place rollout strategy (maxSurge 0, rollout-strategy.ts) cannot be left behind: what follows
 * a handover is the chart's replica count (Gloo's: 1), and Gloo's chart renders no strategy, so Helm
 * would never reset it and every rollout of a single replica would go 1→0→1. Before ownership is
 * released, a Deployment gets the API's default back (25%/25%: at 1 replica one surge pod and none
 * unavailable; it may wait for a node, it never drops the pod), and a GatewayParameters loses the
 * strategy (kgateway's deployer then renders none and the Deployment defaults the same way). Only a
 * strategy we applied is touched (our managedFields entry owns it).
 */
export function safeStrategyPatch(live: KubernetesObject): KubernetesObject | undefined {
  const spec = (live as { spec?: Record<string, unknown> }).spec;
  const isDeployment = live.kind === 'Deployment';
  const path = isDeployment ? ['spec', 'strategy'] : ['spec', 'kube', 'deployment', 'strategy'];
  const strategy = (
    isDeployment
      ? spec?.strategy
      : (
          (spec?.kube as Record<string, unknown> | undefined)?.deployment as
            Record<string, unknown> | undefined
        )?.strategy
  ) as Strategy | undefined;
  const surge = strategy?.rollingUpdate?.maxSurge;
  if (surge !== 0 && surge !== '0' && surge !== '0%') return undefined;
  const ours = (live.metadata?.managedFields ?? []).some(
    (e) => isOperatorManager(e, OUR_MANAGERS) && owns(e.fieldsV1, path),
  );
  if (!ours) return undefined;
  const value = isDeployment
    ? { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } }
    : { kube: { deployment: { strategy: null } } };
  return {
    apiVersion: live.apiVersion,
    kind: live.kind,
    metadata: {
      name: live.metadata?.name,
      namespace: live.metadata?.namespace,
      resourceVersion: live.metadata?.resourceVersion,
    },
    spec: value,
  } as KubernetesObject;
}

/** Whether a managedFields entry's fieldsV1 owns the field at `path` (or something under it). */
function owns(fields: unknown, path: string[]): boolean {
  let node = fields as Record<string, unknown> | undefined;
  for (const part of path) {
    node = node?.[`f:${part}`] as Record<string, unknown> | undefined;
    if (node === undefined) return false;
  }
  return true;
}
