// Who owns what, read from an object's metadata.managedFields (server-side apply's field ownership).
import type { KubernetesObject } from '@kubernetes/client-node';

/** Whether `manager` (any manager, when omitted) owns `spec.replicas` of `obj`. */
export function ownsReplicas(obj: KubernetesObject | undefined, manager?: string): boolean {
  return (obj?.metadata?.managedFields ?? []).some((e) => {
    if (manager !== undefined && e.manager !== manager) return false;
    const spec = (e.fieldsV1 as Record<string, unknown> | undefined)?.['f:spec'];
    return typeof spec === 'object' && spec !== null && 'f:replicas' in spec;
  });
}
