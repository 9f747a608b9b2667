// A small builder for the OpenAPI v3 subset that CRD structural schemas use, so the GlooHA schema
// reads like a type definition. Nodes may carry a definition name (the DEF symbol, never emitted):
// the rule table attaches CEL rules to definitions, and both the CRD generator and the TypeScript
// validator find a rule's node through that name.

export const DEF = Symbol('glooha.schema.def');
/** Marks an object node whose unknown fields are the API server's business (metadata); never emitted. */
export const OPEN = Symbol('glooha.schema.open');

export interface CelRule {
  rule: string;
  message: string;
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'boolean' | 'number';
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema;
  items?: Schema;
  enum?: (string | number)[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  anyOf?: Schema[];
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-validations'?: CelRule[];
  [DEF]?: string;
  [OPEN]?: true;
}

type Extra = Omit<Schema, 'type' | 'properties' | 'items' | 'additionalProperties'>;

export function def<S extends Schema>(name: string, schema: S): S {
  return { ...schema, [DEF]: name };
}

export function object(properties: Record<string, Schema>, extra: Extra = {}): Schema {
  return { type: 'object', ...extra, properties };
}

/** A map with string keys (additionalProperties), e.g. gatewayProxies or matchLabels. */
export function map(values: Schema, extra: Extra = {}): Schema {
  return { type: 'object', ...extra, additionalProperties: values };
}

export function array(items: Schema, extra: Extra = {}): Schema {
  return { type: 'array', ...extra, items };
}

export function string(extra: Extra = {}): Schema {
  return { type: 'string', ...extra };
}

export function integer(extra: Extra = {}): Schema {
  return { type: 'integer', format: 'int32', ...extra };
}

export function boolean(extra: Extra = {}): Schema {
  return { type: 'boolean', ...extra };
}

export function intOrString(extra: Extra = {}): Schema {
  return { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], ...extra };
}

/** Visits every node with its definition name, depth first (properties, items, additionalProperties). */
export function walkSchema(schema: Schema, visit: (node: Schema, path: string) => void, path = ''): void {
  visit(schema, path);
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    walkSchema(child, visit, `${path}.${key}`);
  if (schema.items) walkSchema(schema.items, visit, `${path}[*]`);
  if (schema.additionalProperties) walkSchema(schema.additionalProperties, visit, `${path}[*]`);
}

/** A copy ready for YAML/JSON: definition markers dropped, rules attached from `rulesFor`. */
export function emitSchema(
  schema: Schema,
  rulesFor: (defName: string) => CelRule[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, emitSchema(v, rulesFor)]),
      );
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = emitSchema(value as Schema, rulesFor);
    } else if (key === 'anyOf') {
      out.anyOf = (value as Schema[]).map((s) => emitSchema(s, rulesFor));
    } else {
      out[key] = value;
    }
  }
  const name = schema[DEF];
  const rules = name ? rulesFor(name) : [];
  if (rules.length > 0) out['x-kubernetes-validations'] = rules;
  return out;
}
