// How server-side apply treats each list of a kind, as the API server publishes it in OpenAPI v3
// (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`): a `map` list merges item by item on its
// keys (containers and env on `name`, topologySpreadConstraints on topologyKey + whenUnsatisfiable),
// a `set` merges scalar values, an `atomic` list (the default, e.g. affinity terms, HPA metrics) is
// replaced whole by whoever writes it. The comparer (controller/compare.ts) and `glooha render
// --merge-into` (cli/merge.ts) read these facts instead of guessing from the items' shape.
// Pure: an OpenAPI document in, plain data out (the I/O is in openapi-list-types.ts).

export type ListType = { type: 'map'; keys: string[] } | { type: 'set' } | { type: 'atomic' };

/**
 * One kind's merging lists: field path from the object root (list items as `[]`, e.g.
 * `spec.template.spec.containers[].env`) → type. A list of a known kind missing here is atomic
 * (server-side apply's default), so only map and set lists are recorded.
 */
export type KindListTypes = Record<string, ListType>;

export const ATOMIC: ListType = { type: 'atomic' };

/** Every known kind's lists, by kindKey ("apps/v1/Deployment"). */
export type ListTypes = Record<string, KindListTypes>;

export function kindKey(apiVersion: string | undefined, kind: string | undefined): string {
  return `${apiVersion ?? ''}/${kind ?? ''}`;
}

/** The path of a list's items under `path` (`a.b` → `a.b[]`). */
export const itemsPath = (path: string) => `${path}[]`;
/** The path of a field under `path`. */
export const fieldPath = (path: string, key: string) => (path ? `${path}.${key}` : key);

export type Schema = Record<string, unknown>;

export interface OpenAPIDocument {
  components?: { schemas?: Record<string, Schema> };
}

/** Bounds a walk through recursive schemas (a CRD's JSONSchemaProps; none in the built-in kinds we write). */
const MAX_DEPTH = 24;

/**
 * The list types of `kinds` ("apps/v1/Deployment") found in one OpenAPI v3 document (one group
 * version, as /openapi/v3/apis/<group>/<version> serves it).
 */
export function listTypesFromOpenAPI(doc: OpenAPIDocument, kinds: readonly string[]): ListTypes {
  const schemas = doc.components?.schemas ?? {};
  const out: ListTypes = {};
  for (const [, schema] of Object.entries(schemas)) {
    const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as {
      group: string;
      version: string;
      kind: string;
    }[];
    for (const gvk of gvks) {
      const key = kindKey(gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version, gvk.kind);
      if (!kinds.includes(key)) continue;
      const lists: KindListTypes = {};
      walk(schemas, schema, '', lists, []);
      out[key] = lists;
    }
  }
  return out;
}

export function resolve(schemas: Record<string, Schema>, schema: Schema, seen: string[]): [Schema, string[]] {
  let s = schema;
  let path = seen;
  // OpenAPI v3 wraps a reference with a default or description in allOf: [{ $ref }].
  for (let i = 0; i < 8; i++) {
    const ref =
      (s.$ref as string | undefined) ?? ((s.allOf as Schema[] | undefined)?.[0]?.$ref as string | undefined);
    if (!ref) break;
    const name = ref.replace(/^#\/components\/schemas\//, '');
    if (path.includes(name)) return [{}, path];
    const target = schemas[name];
    if (!target) break;
    // The referring schema's own list extensions win over the target's (they annotate the field).
    s = {
      ...target,
      ...pick(s, ['x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-patch-merge-key']),
    };
    path = [...path, name];
  }
  return [s, path];
}

function pick(s: Schema, keys: string[]): Schema {
  return Object.fromEntries(keys.filter((k) => s[k] !== undefined).map((k) => [k, s[k]]));
}

function walk(
  schemas: Record<string, Schema>,
  raw: Schema,
  path: string,
  out: KindListTypes,
  seen: string[],
): void {
  if (seen.length > MAX_DEPTH) return;
  const [schema, refs] = resolve(schemas, raw, seen);
  if (schema.type === 'array' || schema.items !== undefined) {
    const type = listTypeOf(schema);
    if (type.type !== 'atomic') out[path] = type;
    if (schema.items) walk(schemas, schema.items as Schema, itemsPath(path), out, refs);
    return;
  }
  for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    walk(schemas, prop, fieldPath(path, name), out, refs);
  }
}

function listTypeOf(schema: Schema): ListType {
  const declared = schema['x-kubernetes-list-type'] as string | undefined;
  const keys = schema['x-kubernetes-list-map-keys'] as string[] | undefined;
  if (declared === 'map' && keys?.length) return { type: 'map', keys: [...keys] };
  if (declared === 'set') return { type: 'set' };
  if (declared === 'atomic') return { type: 'atomic' };
  // No list type: an older schema's strategic-merge key is what server-side apply merges by.
  const mergeKey = schema['x-kubernetes-patch-merge-key'] as string | undefined;
  if (mergeKey && schema['x-kubernetes-patch-strategy'] !== undefined)
    return { type: 'map', keys: [mergeKey] };
  return { type: 'atomic' };
}

/** The key of a map-list item (its values of the list's keys), or undefined when it lacks one. */
export function itemKey(item: unknown, keys: readonly string[]): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const values = keys.map((k) => (item as Record<string, unknown>)[k]);
  // A missing key with a default (e.g. a port's protocol) is left out by the applier: compare on the rest.
  return JSON.stringify(values.map((v) => (v === undefined ? null : v)));
}

type Json = unknown;
type JsonMap = Record<string, Json>;
const isMap = (v: Json): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The type of the list at `path`: from the kind's facts (a list they do not name is atomic), or,
 * without facts for the kind, guessed: lists of named objects by name (containers, env), else atomic.
 */
export function listTypeAt(lists: KindListTypes | undefined, path: string, ...values: Json[][]): ListType {
  if (lists) return lists[path] ?? ATOMIC;
  const named = (v: Json) => isMap(v) && typeof v.name === 'string';
  return values.every((xs) => xs.length > 0 && xs.every(named)) ? { type: 'map', keys: ['name'] } : ATOMIC;
}

/**
 * `live` with `applied` merged in as server-side apply merges an applier's fields: maps key by key,
 * map lists item by item on their keys (an applied item the live list lacks goes before the first
 * item both share, where the API server places it), sets as a union, atomic lists replaced whole.
 * It models the merge of values only: fields the applier stopped applying are not removed.
 */
export function mergeApplied(live: Json, applied: Json, lists: KindListTypes | undefined, path = ''): Json {
  if (isMap(live) && isMap(applied)) {
    const out: JsonMap = { ...live };
    for (const [k, v] of Object.entries(applied)) {
      out[k] = k in live ? mergeApplied(live[k], v, lists, fieldPath(path, k)) : structuredClone(v);
    }
    return out;
  }
  if (!Array.isArray(live) || !Array.isArray(applied)) return structuredClone(applied);
  return mergeList(live as Json[], applied as Json[], lists, path);
}

/** mergeApplied of two lists, by the list type the schema gives `path` (a set, atomic, or a map by keys). */
function mergeList(live: Json[], applied: Json[], lists: KindListTypes | undefined, path: string): Json {
  const type = listTypeAt(lists, path, live, applied);
  if (type.type === 'set') {
    const seen = new Set(live.map((x) => JSON.stringify(x)));
    return [...live, ...applied.filter((x) => !seen.has(JSON.stringify(x)))];
  }
  if (type.type === 'atomic') return structuredClone(applied);
  const keyOf = (x: Json) => itemKey(x, type.keys);
  const appliedByKey = new Map(applied.map((x) => [keyOf(x), x]));
  const liveKeys = new Set(live.map(keyOf));
  const items = itemsPath(path);
  const merged = live.map((x) => {
    const a = appliedByKey.get(keyOf(x));
    return a === undefined ? x : mergeApplied(x, a, lists, items);
  });
  const added = applied.filter((x) => !liveKeys.has(keyOf(x))).map((x) => structuredClone(x));
  if (added.length === 0) return merged;
  const firstShared = applied.map(keyOf).find((k) => liveKeys.has(k));
  const at = firstShared === undefined ? merged.length : merged.findIndex((x) => keyOf(x) === firstShared);
  return [...merged.slice(0, at), ...added, ...merged.slice(at)];
}
