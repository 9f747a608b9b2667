// Cache transforms, as controller-runtime's cache.Options.DefaultTransform / ByObject.Transform: an
// informer runs one on every object before storing it, so fields nothing reads never sit in memory.
// metadata.managedFields is the big one — often larger than the rest of an object — and only the
// drift and handover code read it, on the kinds they read it from. A transform changes the object it
// is given (it was just parsed from the wire and nothing else holds it) and returns it.
import type { KubernetesObject } from '@kubernetes/client-node';

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
