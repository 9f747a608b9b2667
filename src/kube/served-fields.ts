// Which of a kind's fields the API server serves, read from its OpenAPI v3 document: a product asks
// about the fields that tell one release of the thing it manages from another (a CRD that gained a
// field in a later release), and decides from the answer what it may write. Pure: an OpenAPI document
// in, plain data out (the I/O is in openapi-list-types.ts, which fetches the same documents).
import { kindKey, resolve, type OpenAPIDocument, type Schema } from './list-types.js';

/** Per kindKey ("group/version/Kind"), the asked field paths (`spec.a.b`) its schema has. */
export type ServedFields = Record<string, readonly string[]>;

/** Whether `path` (dot-separated, from the object root) is a field of `root`'s schema. */
function hasField(schemas: Record<string, Schema>, root: Schema, path: string): boolean {
  let [schema, seen] = resolve(schemas, root, []);
  for (const name of path.split('.')) {
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const next = props[name];
    if (next === undefined) return false;
    [schema, seen] = resolve(schemas, next, seen);
  }
  return true;
}

/**
 * The asked fields (`fields`: kindKey → paths) that the document's schemas have. A kind the document
 * does not describe is left out; a kind it describes maps to the subset of its paths it has.
 */
export function servedFieldsFromOpenAPI(
  doc: OpenAPIDocument,
  fields: Readonly<Record<string, readonly string[]>>,
): ServedFields {
  const schemas = doc.components?.schemas ?? {};
  const out: ServedFields = {};
  for (const schema of Object.values(schemas)) {
    const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as {
      group: string;
      version: string;
      kind: string;
    }[];
    for (const gvk of gvks) {
      const key = kindKey(gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version, gvk.kind);
      const asked = fields[key];
      if (asked) out[key] = asked.filter((p) => hasField(schemas, schema, p));
    }
  }
  return out;
}
