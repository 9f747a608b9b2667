// `glooha render --merge-into FILE`: the install's own manifests (e.g. `helm template` of Gloo's chart)
// with glooha's partial server-side-apply bodies merged in, so that linters (kube-score, Polaris) see
// each Deployment as the cluster will hold it, not a partial body that looks like a broken Deployment.
//
// The merge follows server-side apply as the API server's schema describes each list (kube/list-types.ts):
// maps merge key by key; list-maps (containers and env by name, topologySpreadConstraints by
// topologyKey + whenUnsatisfiable) merge item by item, and an applied item the live list lacks goes
// before the first item both lists share (as the API server places it: that is how glooha anchors the
// lease env before the chart's POD_NAMESPACE); atomic lists (affinity terms, HPA metrics) are replaced.
// `render` runs offline, so the list types come from a snapshot generated from a served OpenAPI
// (kube/served-list-types.ts, checked against the test API server). Pure: objects in, objects out.

import type { KubeObject } from '../core/templates.js';
import { kindKey, mergeApplied, type ListTypes } from '../kube/list-types.js';
import { SERVED_LIST_TYPES } from '../kube/served-list-types.js';

const kindAndName = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

/**
 * `objects` with each patch merged into the object of the same kind, namespace and name (an object
 * without a namespace, as `helm template` without -n prints some, matches any). Patches without such
 * an object are returned in `unmatched` (the caller says so: the install file lacks it).
 */
export function mergePatches(
  objects: KubeObject[],
  patches: KubeObject[],
  listTypes: ListTypes = SERVED_LIST_TYPES,
): { merged: KubeObject[]; unmatched: KubeObject[] } {
  const merged = [...objects];
  const unmatched: KubeObject[] = [];
  for (const p of patches) {
    const i = merged.findIndex(
      (o) =>
        kindAndName(o) === kindAndName(p) &&
        (o.metadata.namespace === undefined || o.metadata.namespace === p.metadata.namespace),
    );
    if (i < 0) {
      unmatched.push(p);
      continue;
    }
    merged[i] = mergeApplied(merged[i], p, listTypes[kindKey(p.apiVersion, p.kind)]) as KubeObject;
  }
  return { merged, unmatched };
}
