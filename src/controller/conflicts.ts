// Two ways the operator could fight over one object, and how they are caught before anything is
// written:
// - rivals: two GlooHAs for the same install. The older one wins; the younger is Stalled.
// - self-conflict: one HAObject whose desired state names the same object twice with different bodies
//   (e.g. gateway proxies `publicGw` and `public-gw` that both resolve to Deployment public-gw, or two
//   equal deploymentNames). Applying both would alternate the object between them for ever; instead
//   the HAObject is Stalled with the colliding object and its sources named.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { HAObject } from '../api/types.js';
import { installNamespaceOf } from './product.js';
import type { KubeObject } from '../core/templates.js';
import { canonicalJson } from './compare.js';

function keyOf(g: HAObject): string {
  return `${g.metadata.namespace ?? ''}/${g.metadata.name}`;
}

/** RFC 3339 as the API server sends it (a string), or as client-node's types declare it (a Date). */
function createdAt(g: HAObject): string {
  const t = g.metadata.creationTimestamp;
  return typeof t === 'string' ? t : t instanceof Date ? t.toISOString() : '';
}

function byAge(a: HAObject, b: HAObject): number {
  const ta = createdAt(a);
  const tb = createdAt(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return keyOf(a) < keyOf(b) ? -1 : 1;
}

/** Two GlooHAs manage the same install when namespace, selector and Helm release all agree. */
export function sameTarget(a: HAObject, b: HAObject): boolean {
  return (
    installNamespaceOf(a) === installNamespaceOf(b) &&
    canonicalJson(a.spec?.target?.selector ?? null) === canonicalJson(b.spec?.target?.selector ?? null) &&
    (a.spec?.target?.helmRelease ?? '') === (b.spec?.target?.helmRelease ?? '')
  );
}

/**
 * The older live HAObject that manages the same install as `g`, if any (then `g` must stand back, and
 * has never written to the install: even while `g` itself is being deleted).
 */
export function olderRival(g: HAObject, others: readonly HAObject[]): HAObject | undefined {
  const contenders = [
    g,
    ...others.filter((o) => keyOf(o) !== keyOf(g) && !o.metadata.deletionTimestamp && sameTarget(o, g)),
  ];
  const first = contenders.sort(byAge)[0];
  return first && keyOf(first) !== keyOf(g) ? first : undefined;
}

export interface SelfConflict {
  /** "Kind namespace/name" of the object named twice. */
  target: string;
  /** The glooha.io/component labels (or names) of the bodies that collide. */
  sources: string[];
}

function identity(o: KubeObject | KubernetesObject): string {
  const group = (o.apiVersion ?? '').includes('/') ? (o.apiVersion ?? '').split('/')[0] : '';
  return `${o.kind}.${group} ${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

/**
 * Objects the desired state names more than once with different bodies. Identical duplicates are
 * harmless (the second apply is a no-op) and not reported.
 */
export function selfConflicts(bodies: readonly KubeObject[]): SelfConflict[] {
  const byTarget = new Map<string, KubeObject[]>();
  for (const b of bodies) {
    const k = identity(b);
    byTarget.set(k, [...(byTarget.get(k) ?? []), b]);
  }
  const out: SelfConflict[] = [];
  for (const [, group] of byTarget) {
    if (group.length < 2) continue;
    if (new Set(group.map((b) => canonicalJson(b))).size < 2) continue;
    const first = group[0]!;
    out.push({
      target: `${first.kind} ${first.metadata.namespace}/${first.metadata.name}`,
      sources: group.map((b) => b.metadata.labels?.['glooha.io/component'] ?? b.metadata.name),
    });
  }
  return out;
}
