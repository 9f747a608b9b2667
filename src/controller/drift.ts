// Drift in words: which managed fields of an object differ from what we applied, and who changed them
// (from managedFields). Pure: it reads the object, nothing else.
import type { KubernetesObject } from '@kubernetes/client-node';
import { MANAGER } from '../api/constants.js';
import type { KubeObject } from '../core/templates.js';
import type { KindListTypes } from '../kube/list-types.js';
import { isSubset } from './compare.js';

/** The manager that keeps our fields on Gloo's objects after a GlooHA is deleted (see handover.ts). */
export const HANDOVER_MANAGER = 'glooha-operator-handover';

type AnyObject = KubernetesObject & Record<string, unknown>;

/** Who changed spec.replicas when no managedFields entry owns it (see driftAuthor). */
export const SCALE_SUBRESOURCE_WRITER =
  'a write through the scale subresource (kubectl scale, an autoscaler), which the API server records under no field manager while no one owns spec.replicas';

/**
 * Who changed a drifted field, from managedFields: the other managers that now own one of the drifted
 * fields (server-side apply moves a field to whoever last wrote it), e.g. "kubectl-scale (Update)".
 * Falls back to the most recent other writer when no entry names the field, except for spec.replicas
 * (see SCALE_SUBRESOURCE_WRITER).
 */
export function driftAuthor(live: KubernetesObject, fieldPaths: string[]): string {
  const others = (live.metadata?.managedFields ?? []).filter(
    (m) => m.manager !== MANAGER && m.manager !== HANDOVER_MANAGER && m.subresource !== 'status',
  );
  const owns = (fields: unknown, path: string[]): boolean => {
    let node = fields as Record<string, unknown> | undefined;
    for (const part of path) {
      node = node?.[`f:${part}`] as Record<string, unknown> | undefined;
      if (node === undefined) return false;
    }
    return true;
  };
  const owners = others.filter((m) => fieldPaths.some((p) => owns(m.fieldsV1, p.split('.'))));
  // The operator owns no Deployment's spec.replicas (replicas-ownership.ts), and a write through the
  // scale subresource to a field that no manager owns is recorded under no manager at all: the most
  // recent other writer would be a wrong name, so say what it was.
  if (owners.length === 0 && fieldPaths.includes('spec.replicas')) return SCALE_SUBRESOURCE_WRITER;
  const pick = (owners.length ? owners : others).sort((a, b) =>
    String(b.time ?? '').localeCompare(String(a.time ?? '')),
  );
  return pick.length
    ? pick
        .map((m) => `${m.manager} (${m.operation}${m.subresource ? ` on ${m.subresource}` : ''})`)
        .join(', ')
    : 'an unknown writer';
}

/** Which managed fields differ, in words, for conditions and events. */
export function describeDrift(body: KubeObject, live: KubernetesObject, lists?: KindListTypes): string {
  const fields: string[] = [];
  const spec = (body.spec ?? {}) as Record<string, unknown>;
  const liveSpec = ((live as AnyObject).spec ?? {}) as Record<string, unknown>;
  const differs = (path: string, value: unknown, liveValue: unknown) =>
    !isSubset(value, liveValue, lists, path);
  for (const [k, v] of Object.entries(spec))
    if (differs(`spec.${k}`, v, liveSpec[k])) fields.push(`spec.${k}`);
  if (body.data !== undefined && differs('data', body.data, (live as AnyObject).data)) fields.push('data');
  if (body.rules !== undefined && differs('rules', body.rules, (live as AnyObject).rules))
    fields.push('rules');
  if (body.subjects !== undefined && differs('subjects', body.subjects, (live as AnyObject).subjects))
    fields.push('subjects');
  if (!isSubset(body.metadata.labels ?? {}, live.metadata?.labels ?? {})) fields.push('metadata.labels');
  const what = fields.length ? fields.join(', ') : 'managed fields';
  const detail =
    body.kind === 'Deployment' && fields.includes('spec.replicas')
      ? ` (replicas ${String(liveSpec.replicas)}, want ${String(spec.replicas)})`
      : '';
  return `${body.kind} ${body.metadata.name}: ${what}${detail} changed by ${driftAuthor(live, fields)}`;
}
