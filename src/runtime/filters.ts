// Event filters (controller-runtime calls them predicates): decide per informer event whether it
// should reach a handler, so changes that cannot matter never enqueue a key. The one every watch
// wants is `ignoreNoopUpdates`: the API server bumps `metadata.resourceVersion` and rewrites
// `managedFields` timestamps on writes that change nothing else (no-op applies, and our own
// identical status patches), and those would otherwise wake the reconciler in a loop. Lease renewals
// are the other big source: Gloo's leader renews every ~2 s and the operator its own lease —
// `ignoreLeaseRenewals` drops updates whose only change is `spec.renewTime`.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Delta } from './store.js';

export type InformerEvent<T> = Delta<T>;
export type EventFilter<T = KubernetesObject> = (event: InformerEvent<T>) => boolean;

/** A path into an object: 'spec.renewTime' or, for keys containing dots, ['metadata', 'annotations', 'a.b/c']. */
export type FieldPath = string | readonly string[];

/** Fields every write touches without meaning anything. */
export const NOISE_PATHS: readonly FieldPath[] = ['metadata.resourceVersion', 'metadata.managedFields'];

function segments(path: FieldPath): readonly string[] {
  return typeof path === 'string' ? path.split('.') : path;
}

/** A deep copy of `obj` without the given paths (only plain objects are descended into). */
export function withoutPaths(obj: unknown, paths: readonly FieldPath[]): unknown {
  const copy: unknown = structuredClone(obj);
  for (const p of paths) {
    const segs = segments(p);
    let cur: unknown = copy;
    for (let i = 0; i < segs.length - 1; i++) {
      if (!isPlainObject(cur)) break;
      cur = cur[segs[i] as string];
    }
    if (isPlainObject(cur)) delete cur[segs[segs.length - 1] as string];
  }
  return copy;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural equality of JSON-like values (key order does not matter; arrays are ordered). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

/** Paths as a tree: segment → its sub-paths, or `true` where a path ends (that key is skipped). */
type PathTree = Map<string, PathTree | true>;

function pathTree(paths: readonly FieldPath[]): PathTree {
  const root: PathTree = new Map();
  for (const p of paths) {
    const segs = segments(p);
    let node = root;
    segs.forEach((seg, i) => {
      if (i === segs.length - 1) {
        node.set(seg, true);
        return;
      }
      let next = node.get(seg);
      if (next === true) return; // a shorter path already skips the whole subtree
      if (!next) node.set(seg, (next = new Map()));
      node = next;
    });
  }
  return root;
}

/**
 * deepEqual with the keys at `skip` left out, compared in place: every Deployment status change and
 * every Lease renewal goes through this, so it must not copy the objects (withoutPaths did).
 */
function equalExcept(a: unknown, b: unknown, skip: PathTree | undefined): boolean {
  if (!skip || !isPlainObject(a) || !isPlainObject(b) || a instanceof Date || b instanceof Date)
    return deepEqual(a, b);
  const keys = (o: Record<string, unknown>) =>
    Object.keys(o).filter((k) => o[k] !== undefined && skip.get(k) !== true);
  const ak = keys(a);
  const bk = keys(b);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => {
    if (!Object.hasOwn(b, k) || b[k] === undefined) return false;
    const sub = skip.get(k);
    return equalExcept(a[k], b[k], sub instanceof Map ? sub : undefined);
  });
}

/** True when `a` and `b` differ only at `paths` (plus resourceVersion and managedFields). */
export function equalIgnoring(a: unknown, b: unknown, paths: readonly FieldPath[] = []): boolean {
  return equalExcept(a, b, pathTree([...NOISE_PATHS, ...paths]));
}

/** Drops updates whose only changes are at `paths` (and resourceVersion/managedFields); passes the rest. */
export function ignoreUpdatesOnlyTo<T = KubernetesObject>(paths: readonly FieldPath[]): EventFilter<T> {
  const skip = pathTree([...NOISE_PATHS, ...paths]);
  return (ev) => ev.type !== 'update' || !equalExcept(ev.old, ev.obj, skip);
}

/**
 * An update that changed the object's status and nothing else (resourceVersion and managedFields
 * aside): what a controller observed and reported, not anyone's change to what is wanted.
 */
export function statusOnlyUpdate<T = KubernetesObject>(ev: InformerEvent<T>): boolean {
  return ev.type === 'update' && equalExcept(ev.old, ev.obj, STATUS_AND_NOISE);
}

const STATUS_AND_NOISE = pathTree([...NOISE_PATHS, 'status']);

/** Drops updates that change nothing but resourceVersion/managedFields. */
export const ignoreNoopUpdates: EventFilter<KubernetesObject> = ignoreUpdatesOnlyTo([]);

/** Drops Lease updates that only renew it (holder, durations and transitions unchanged). */
export const ignoreLeaseRenewals: EventFilter<KubernetesObject> = ignoreUpdatesOnlyTo(['spec.renewTime']);

/**
 * Passes updates only when `metadata.generation` changed (spec edits on objects with a status
 * subresource), or the object started deleting, or its labels/annotations/finalizers changed.
 * Adds and deletes always pass.
 */
export const generationChanged: EventFilter<KubernetesObject> = (ev) => {
  if (ev.type !== 'update') return true;
  const o = ev.old.metadata ?? {};
  const n = ev.obj.metadata ?? {};
  return (
    o.generation !== n.generation ||
    Boolean(o.deletionTimestamp) !== Boolean(n.deletionTimestamp) ||
    !deepEqual(o.labels ?? {}, n.labels ?? {}) ||
    !deepEqual(o.annotations ?? {}, n.annotations ?? {}) ||
    !deepEqual(o.finalizers ?? [], n.finalizers ?? [])
  );
};

/** Passes an event when every filter passes it. */
export function allOf<T>(...filters: EventFilter<T>[]): EventFilter<T> {
  return (ev) => filters.every((f) => f(ev));
}

/** Passes an event when any filter passes it. */
export function anyOf<T>(...filters: EventFilter<T>[]): EventFilter<T> {
  return (ev) => filters.some((f) => f(ev));
}
