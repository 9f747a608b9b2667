// The operator writes a Gloo Deployment's spec.replicas but does not keep owning it. Pure: from the
// live Deployment to one patch.
//
// Server-side apply makes whoever applies a field its owner, and a later apply of a different value by
// another manager is refused before admission: Helm 4's plain `helm upgrade` (server-side apply, no
// --force-conflicts) stopped with `conflict with "glooha-operator": .spec.replicas`, an error the API
// server words and that cannot say what to run. A field that no manager owns keeps its value and
// conflicts with nobody (the handover relies on the same rule, see handover.ts). So once an apply has
// left `f:spec.f:replicas` in the operator's Apply entry, the operator removes just that path from its
// entry, value unchanged: Helm 4's write then reaches admission, where the chart's replicas-floor
// policy refuses a lower count with a message naming the GlooHA and the command to run — the same
// refusal Helm 3 gets. Drift correction is unchanged: it compares values (compare.ts), not ownership,
// and applies with force. The strip changes only managedFields (and resourceVersion), which the
// informers' default filter drops, so it wakes no reconcile: no write loop.
import type { KubernetesObject, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { MANAGER } from '../api/constants.js';
import { managedFieldsPatch, type OwnershipRelease } from './handover.js';

type FieldSet = Record<string, unknown>;

/** The operator's own server-side apply entry (not a subresource's, not an Update). */
function isOurApply(e: V1ManagedFieldsEntry): boolean {
  return e.manager === MANAGER && e.operation === 'Apply' && !e.subresource;
}

function ownsReplicas(e: V1ManagedFieldsEntry): boolean {
  const spec = (e.fieldsV1 as FieldSet | undefined)?.['f:spec'] as FieldSet | undefined;
  return spec !== undefined && 'f:replicas' in spec;
}

/** The entry without `f:spec.f:replicas` (and without `f:spec` once nothing is left under it). */
function withoutReplicas(e: V1ManagedFieldsEntry): V1ManagedFieldsEntry {
  const fields = { ...(e.fieldsV1 as FieldSet) };
  const spec = { ...(fields['f:spec'] as FieldSet) };
  delete spec['f:replicas'];
  if (Object.keys(spec).length > 0) fields['f:spec'] = spec;
  else delete fields['f:spec'];
  return { ...e, fieldsV1: fields };
}

/**
 * The patch that gives up the operator's ownership of `live`'s spec.replicas, every other entry and
 * field as they are; undefined when the operator does not own it.
 */
export function releaseReplicasOf(live: KubernetesObject): OwnershipRelease | undefined {
  const entries = live.metadata?.managedFields ?? [];
  if (!entries.some((e) => isOurApply(e) && ownsReplicas(e))) return undefined;
  const kept = entries.flatMap((e) => {
    if (!isOurApply(e) || !ownsReplicas(e)) return [e];
    const rest = withoutReplicas(e);
    return Object.keys(rest.fieldsV1 as FieldSet).length > 0 ? [rest] : [];
  });
  return {
    release: managedFieldsPatch(live, kept),
    what: `${live.kind} ${live.metadata?.namespace}/${live.metadata?.name}`,
  };
}
