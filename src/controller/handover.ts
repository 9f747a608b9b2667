// What deleting a GlooHA hands over. With server-side apply, dropping a field only you own deletes it
// (a Deployment without `replicas` falls back to 1), so before releasing its fields the operator
// co-applies their current values under a second field manager, HANDOVER_MANAGER; then an empty apply
// under its own manager releases everything it owned and the values stay. Pure: from the live object
// and its managedFields to the two apply bodies.
import type { KubernetesObject } from '@kubernetes/client-node';
import { MANAGER } from '../api/constants.js';
import { APPLIED_ANNOTATION } from './plan-types.js';

type AnyObject = KubernetesObject & Record<string, unknown>;

export interface Handover {
  /** The values of the fields we hold, to apply as HANDOVER_MANAGER; undefined when we hold none. */
  held?: KubernetesObject;
  /** An apply with no fields as MANAGER: releases everything we owned on the object. */
  release: KubernetesObject;
  /** "Deployment ns/name", for logs. */
  what: string;
}

/** The handover for one of Gloo's objects, or undefined when we never applied to it. */
export function handoverOf(live: KubernetesObject): Handover | undefined {
  if (!live.metadata?.annotations?.[APPLIED_ANNOTATION]) return undefined;
  if (!(live.metadata.managedFields ?? []).some((m) => m.manager === MANAGER)) return undefined;
  return {
    held: fieldsWeHold(live),
    release: {
      apiVersion: live.apiVersion,
      kind: live.kind,
      metadata: { name: live.metadata.name, namespace: live.metadata.namespace },
    },
    what: `${live.kind} ${live.metadata.namespace}/${live.metadata.name}`,
  };
}

/**
 * The values of the fields our manager owns on `live` (replicas, the gloo container's lease env,
 * affinity, topology spread, HPA bounds), as an apply body for the handover manager.
 */
export function fieldsWeHold(live: KubernetesObject): KubernetesObject | undefined {
  const obj = live as AnyObject;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const ours = (live.metadata?.managedFields ?? []).find(
    (m) => m.manager === MANAGER && m.operation === 'Apply',
  );
  const fields = (ours?.fieldsV1 ?? {}) as Record<string, Record<string, unknown>>;
  const specFields = (fields['f:spec'] ?? {}) as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  if (live.kind === 'Deployment') {
    if ('f:replicas' in specFields) body.replicas = spec.replicas;
    const tmpl = ((specFields['f:template'] as Record<string, unknown>)?.['f:spec'] ?? {}) as Record<
      string,
      unknown
    >;
    const podSpec = ((spec.template as Record<string, unknown>)?.spec ?? {}) as Record<string, unknown>;
    const templateSpec: Record<string, unknown> = {};
    if ('f:affinity' in tmpl) templateSpec.affinity = podSpec.affinity;
    if ('f:topologySpreadConstraints' in tmpl)
      templateSpec.topologySpreadConstraints = podSpec.topologySpreadConstraints;
    const containers = (tmpl['f:containers'] ?? {}) as Record<string, Record<string, unknown>>;
    const heldContainers: Record<string, unknown>[] = [];
    for (const [k, v] of Object.entries(containers)) {
      const name = /^k:\{"name":"(.*)"\}$/.exec(k)?.[1];
      const liveC = ((podSpec.containers ?? []) as { name: string; env?: { name: string }[] }[]).find(
        (c) => c.name === name,
      );
      if (!name || !liveC) continue;
      const envKeys = Object.keys((v['f:env'] ?? {}) as Record<string, unknown>)
        .map((e) => /^k:\{"name":"(.*)"\}$/.exec(e)?.[1])
        .filter((e): e is string => !!e);
      const env = (liveC.env ?? []).filter((e) => envKeys.includes(e.name));
      if (env.length) heldContainers.push({ name, env });
    }
    if (heldContainers.length) templateSpec.containers = heldContainers;
    if (Object.keys(templateSpec).length) body.template = { spec: templateSpec };
  } else if (live.kind === 'HorizontalPodAutoscaler') {
    if ('f:minReplicas' in specFields) body.minReplicas = spec.minReplicas;
    if ('f:maxReplicas' in specFields) body.maxReplicas = spec.maxReplicas;
  }
  if (Object.keys(body).length === 0) return undefined;
  return {
    apiVersion: live.apiVersion,
    kind: live.kind,
    metadata: { name: live.metadata?.name, namespace: live.metadata?.namespace },
    spec: body,
  } as KubernetesObject;
}
