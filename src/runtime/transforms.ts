// Cache transforms, as controller-runtime's cache.Options.DefaultTransform / ByObject.Transform: an
// informer runs one on every object before storing it, so fields nothing reads never sit in memory.
// metadata.managedFields is the big one — often larger than the rest of an object — and only the
// drift and handover code read it, on the kinds they read it from. kubectl apply's
// last-applied-configuration annotation is the next: a JSON copy of the whole object as last applied,
// which nothing here reads. Then the status of kinds whose status nothing reads. A transform changes
// the object it is given (it was just parsed from the wire and nothing else holds it) and returns it.
//
// What a cached object lacks must never be written back: a PUT built from one would delete on the
// server what the transform dropped (an annotation; managedFields are kept by the server when a PUT
// omits them). The one PUT built from a cached object is the Lease hand-over's (holder-release.ts):
// Leases keep their annotations.
import type { KubernetesObject } from '@kubernetes/client-node';

/** kubectl apply's copy of the object as last applied (client-side apply). */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Drops metadata.managedFields. */
export function stripManagedFields<T extends KubernetesObject>(obj: T): T {
  if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  return obj;
}

/**
 * Drops the managedFields entries of `manager` (kept: those of every other writer, for naming who
 * changed a field), and the whole list when nothing else is left.
 */
export function stripManagedFieldsOf<T extends KubernetesObject>(manager: string): (obj: T) => T {
  return (obj) => {
    const entries = obj.metadata?.managedFields;
    if (!entries) return obj;
    const others = entries.filter((m) => m.manager !== manager);
    if (others.length === 0) delete obj.metadata!.managedFields;
    else if (others.length !== entries.length) obj.metadata!.managedFields = others;
    return obj;
  };
}

/** Drops the last-applied-configuration annotation (and the annotations, when it was the only one). */
export function stripLastApplied<T extends KubernetesObject>(obj: T): T {
  const annotations = obj.metadata?.annotations;
  if (!annotations || !(LAST_APPLIED_ANNOTATION in annotations)) return obj;
  delete annotations[LAST_APPLIED_ANNOTATION];
  if (Object.keys(annotations).length === 0) delete obj.metadata!.annotations;
  return obj;
}

/** Drops .status (kinds whose status nothing reads). */
export function stripStatus<T extends KubernetesObject>(obj: T): T {
  if ('status' in obj) delete (obj as { status?: unknown }).status;
  return obj;
}

/** The transforms in order, as one. */
export function transforms<T extends KubernetesObject>(...fns: ((obj: T) => T)[]): (obj: T) => T {
  return (obj) => fns.reduce((o, fn) => fn(o), obj);
}
