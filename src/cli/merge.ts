// `glooha render --merge-into FILE`: the install's own manifests (e.g. `helm template` of Gloo's chart)
// with glooha's partial server-side-apply bodies merged in, so that linters (kube-score, Polaris) see
// each Deployment as the cluster will hold it, not a partial body that looks like a broken Deployment.
//
// The merge follows server-side apply for the fields glooha applies: maps merge key by key; the
// Deployment's associative lists (containers, a container's env: keyed by name) merge item by item,
// and an applied item the live list lacks goes before the first item both lists share (as the API
// server places it: that is how glooha anchors the lease env before the chart's POD_NAMESPACE); every
// other list (affinity terms, topologySpreadConstraints) is replaced, as glooha's apply owns it whole.
// Pure: objects in, objects out.

import type { KubeObject } from '../core/templates.js';

type Json = unknown;
type JsonMap = Record<string, Json>;

/** Paths (from the object root, list items as []) of the lists merged by their items' `name`. */
const KEYED_BY_NAME = new Set([
  'spec.template.spec.containers',
  'spec.template.spec.containers[].env',
  'spec.template.spec.initContainers',
  'spec.template.spec.initContainers[].env',
]);

const isMap = (v: Json): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);

function mergeValue(live: Json, applied: Json, path: string): Json {
  if (isMap(live) && isMap(applied)) {
    const out: JsonMap = { ...live };
    for (const [k, v] of Object.entries(applied)) {
      const p = path ? `${path}.${k}` : k;
      out[k] = k in live ? mergeValue(live[k], v, p) : v;
    }
    return out;
  }
  if (Array.isArray(live) && Array.isArray(applied) && KEYED_BY_NAME.has(path))
    return mergeKeyedList(live, applied, `${path}[]`);
  return applied;
}

function mergeKeyedList(live: Json[], applied: Json[], itemPath: string): Json[] {
  const nameOf = (x: Json) => (isMap(x) ? x.name : undefined);
  const appliedByName = new Map(applied.map((x) => [nameOf(x), x]));
  const liveNames = new Set(live.map(nameOf));
  const merged = live.map((x) => {
    const a = appliedByName.get(nameOf(x));
    return a === undefined ? x : mergeValue(x, a, itemPath);
  });
  const added = applied.filter((x) => !liveNames.has(nameOf(x)));
  if (added.length === 0) return merged;
  const firstShared = applied.map(nameOf).find((n) => liveNames.has(n));
  const at = firstShared === undefined ? merged.length : merged.findIndex((x) => nameOf(x) === firstShared);
  return [...merged.slice(0, at), ...added, ...merged.slice(at)];
}

const kindAndName = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

/**
 * `objects` with each patch merged into the object of the same kind, namespace and name (an object
 * without a namespace, as `helm template` without -n prints some, matches any). Patches without such
 * an object are returned in `unmatched` (the caller says so: the install file lacks it).
 */
export function mergePatches(
  objects: KubeObject[],
  patches: KubeObject[],
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
    merged[i] = mergeValue(merged[i], p, '') as KubeObject;
  }
  return { merged, unmatched };
}
