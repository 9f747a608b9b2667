// Schema-driven checks that mirror what the API server does before CEL: types, enums, bounds,
// required fields, list-map key uniqueness, and defaulting. It reads the same Schema object the CRD
// is generated from. Two deliberate differences from the API server, both for `glooha render`:
// unknown fields are errors here (the server prunes them, with only a kubectl warning), and messages
// say how to fix the value rather than quoting the schema.

import { OPEN, type Schema } from './openapi.js';

export interface FieldError {
  /** Kubernetes-style field path: spec.gatewayProxies[publicGw].replicas, ...topologySpreadConstraints[0] */
  path: string;
  message: string;
  /** The rule (rules.ts) that failed, for CEL-backed checks. */
  ruleId?: string;
  /**
   * How the API server treats it: `unknown` fails decoding (strict field validation) before any
   * validation; `blocking` (wrong type, enum, required, too long, too many) stops the CEL rules.
   */
  kind?: 'unknown' | 'blocking';
}

export function joinPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The schema of a field, looked up as an own property: `constructor`, `toString` or `__proto__` are
 * unknown fields, not members of Object.prototype.
 */
export function fieldSchema(schema: Schema, key: string): Schema | undefined {
  if (schema.properties && Object.hasOwn(schema.properties, key)) return schema.properties[key];
  return schema.additionalProperties;
}

/**
 * Sets an own, enumerable property. Plain assignment of `__proto__` would replace the object's
 * prototype instead, and smuggle a whole unvalidated subtree in through inheritance.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A deep copy made only of own properties (no prototype tricks), for values outside the schema. */
function copyPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyPlain);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) setOwn(out, key, copyPlain(v));
  return out;
}

/**
 * Returns a deep copy with schema defaults filled in and null dropped from the fields the schema
 * declares, as the API server does (it prunes nulls of non-nullable fields before defaulting). An
 * unknown field keeps its null: the server rejects it as unknown, null or not (kubectl's default
 * --validate=strict), so the validator must still see it.
 */
export function applyDefaults(value: unknown, schema: Schema): unknown {
  if (Array.isArray(value))
    return schema.items ? value.map((v) => applyDefaults(v, schema.items as Schema)) : copyPlain(value);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const child = fieldSchema(schema, key);
    if (v === null && child) continue;
    setOwn(out, key, child ? applyDefaults(v, child) : copyPlain(v));
  }
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (!Object.hasOwn(out, key) && child.default !== undefined) {
      setOwn(out, key, applyDefaults(structuredClone(child.default), child));
    }
  }
  return out;
}

/** Structural errors of `value` against `schema`; `value` should already be defaulted. */
export function validateStructure(value: unknown, schema: Schema, path = ''): FieldError[] {
  const errors: FieldError[] = [];
  check(value, schema, path, errors);
  return errors;
}

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'bigint')
    return isInt64(v) ? 'an integer' : 'an integer beyond int64 (a float to Kubernetes)';
  if (typeof v === 'number')
    return isInt64(v)
      ? 'an integer'
      : Number.isInteger(v)
        ? 'a float (beyond 2^53, not an exact integer)'
        : 'a number';
  return `a ${typeof v}`;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An integer the API server decodes as one: JSON numbers are int64 when they fit, float64 otherwise
 * (apimachinery's json), and a float64 fails an `integer` schema. Beyond 2^53 the YAML reader gives a
 * bigint (kube-yaml.ts), so the test is exact; a number that large came from a float literal (or an
 * integer beyond int64, which go-yaml reads as a float: -9223372036854775809 is -9.223372036854776e18).
 */
export function isInt64(v: unknown): v is number | bigint {
  if (typeof v === 'bigint') return v >= INT64_MIN && v <= INT64_MAX;
  return typeof v === 'number' && Number.isSafeInteger(v);
}

/** The most characters of a value an error message quotes. */
export const SHOWN_VALUE_CHARS = 80;

/**
 * A value for an error message: JSON, with a bigint's exact digits, at most SHOWN_VALUE_CHARS of it
 * (a 3 MB string is quoted by its start and its length, not whole).
 */
export function showValue(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string' && v.length > SHOWN_VALUE_CHARS)
    return `${JSON.stringify(v.slice(0, SHOWN_VALUE_CHARS))}... (${v.length} characters)`;
  const json =
    JSON.stringify(v, (_key, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
  return json.length > SHOWN_VALUE_CHARS ? `${json.slice(0, SHOWN_VALUE_CHARS)}...` : json;
}

/** Characters as the API server counts them for maxLength/minLength: Unicode code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The range of an integer `format` (the API server enforces int32 and int64 on integer fields). */
const INTEGER_FORMATS: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [INT64_MIN, INT64_MAX],
};

function check(value: unknown, schema: Schema, path: string, errors: FieldError[]): void {
  // Schema errors that make the API server skip every CEL rule (apiextensions' hasBlockingErr):
  // TypeInvalid, NotSupported (enum), Required, TooLong and TooMany. Pattern, minimum and format
  // errors are not blocking: the rules still run.
  const fail = (message: string, blocking = true): void => {
    errors.push({ path, message, ...(blocking ? { kind: 'blocking' as const } : {}) });
  };

  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value === 'string') {
      if (schema.maxLength !== undefined && codePoints(value) > schema.maxLength)
        fail(`must be at most ${schema.maxLength} characters`);
    } else if (!isInt64(value)) {
      fail(`must be an integer or a string such as "50%", not ${typeName(value)}`);
    }
    return;
  }

  switch (schema.type) {
    case 'object':
      if (!isObject(value)) return fail(`must be an object (a YAML mapping), not ${typeName(value)}`);
      return checkObject(value, schema, path, errors);
    case 'array':
      if (!Array.isArray(value)) return fail(`must be a list, not ${typeName(value)}`);
      return checkArray(value, schema, path, errors);
    case 'string':
      if (typeof value !== 'string') return fail(`must be a string, not ${typeName(value)}`);
      if (schema.enum && !schema.enum.includes(value)) {
        return fail(
          `must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}, not ${showValue(value)}`,
        );
      }
      if (schema.minLength !== undefined && codePoints(value) < schema.minLength)
        fail(`must be at least ${schema.minLength} characters`, false);
      if (schema.maxLength !== undefined && codePoints(value) > schema.maxLength)
        fail(`must be at most ${schema.maxLength} characters`);
      if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) {
        fail(`${showValue(value)} is not a valid value: it must match ${schema.pattern}`, false);
      }
      return;
    case 'integer': {
      if (!isInt64(value)) return fail(`must be an integer, not ${typeName(value)}`);
      const range = schema.format ? INTEGER_FORMATS[schema.format] : undefined;
      // bigint and number compare exactly in JavaScript.
      if (range && (value < range[0] || value > range[1])) {
        return fail(`must be a ${schema.format} integer, from ${range[0]} to ${range[1]}`, false);
      }
      if (schema.minimum !== undefined && value < schema.minimum)
        fail(`must be at least ${schema.minimum}`, false);
      if (schema.maximum !== undefined && value > schema.maximum)
        fail(`must be at most ${schema.maximum}`, false);
      return;
    }
    case 'number':
      if (typeof value !== 'number') fail(`must be a number, not ${typeName(value)}`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail(`must be true or false, not ${typeName(value)}`);
      return;
    default:
      return;
  }
}

function checkObject(
  value: Record<string, unknown>,
  schema: Schema,
  path: string,
  errors: FieldError[],
): void {
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(value, key) || value[key] === undefined)
      errors.push({ path: joinPath(path, key), message: 'is required', kind: 'blocking' });
  }
  if (schema.additionalProperties) {
    const keys = Object.keys(value);
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
      errors.push({
        path,
        message: `must have at most ${schema.maxProperties} entries, not ${keys.length}`,
        kind: 'blocking',
      });
    }
    for (const key of keys) check(value[key], schema.additionalProperties, `${path}[${key}]`, errors);
    return;
  }
  if (!schema.properties) return;
  for (const [key, v] of Object.entries(value)) {
    // Unknown fields are unknownFields()'s: the API server finds them while decoding, before this.
    const child = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (child && v !== undefined) check(v, child, joinPath(path, key), errors);
  }
}

/**
 * The fields the API server prunes from `value`, each an error under strict field validation
 * (kubectl's default, `unknown field "spec.x"` before anything is validated). Walks as
 * apiextensions-apiserver's pruning does, whatever the value's type: a key of a mapping the schema
 * has no property for; every key of a mapping where the schema has no object (a mapping in a list
 * that should hold strings, `replicas: {a: 1}`); every key of the mappings in a list where the schema
 * wants an object (`gloo: [{replicas: 1}]`). Status counts too: the API server drops status on
 * create, but decodes it first. metadata (OPEN) is ObjectMeta's, checked on its own.
 */
export function unknownFields(value: unknown, schema: Schema | undefined, path = ''): FieldError[] {
  const errors: FieldError[] = [];
  const unknown = (key: string, known: string[]) => {
    const near = closest(key, known);
    errors.push({
      path: joinPath(path, key),
      message:
        known.length > 0
          ? `unknown field${near ? `; did you mean ${near}?` : ''} (known fields: ${known.join(', ')})`
          : 'unknown field: this value is not a mapping, so it has no fields',
      kind: 'unknown',
    });
  };
  if (schema?.[OPEN] || schema?.['x-kubernetes-preserve-unknown-fields']) return errors;
  if (Array.isArray(value)) {
    value.forEach((item, i) => errors.push(...unknownFields(item, schema?.items, `${path}[${i}]`)));
    return errors;
  }
  if (!isObject(value)) return errors;
  const known = Object.keys(schema?.properties ?? {});
  for (const [key, v] of Object.entries(value)) {
    // undefined is absent (JSON has none; an in-process object may spread one in).
    if (v === undefined) continue;
    const property =
      schema?.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (property) errors.push(...unknownFields(v, property, joinPath(path, key)));
    else if (schema?.additionalProperties)
      errors.push(...unknownFields(v, schema.additionalProperties, `${path}[${key}]`));
    else unknown(key, known);
  }
  return errors;
}

function checkArray(value: unknown[], schema: Schema, path: string, errors: FieldError[]): void {
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    errors.push({
      path,
      message: `must have at most ${schema.maxItems} items, not ${value.length}`,
      kind: 'blocking',
    });
  }
  value.forEach((item, i) => schema.items && check(item, schema.items, `${path}[${i}]`, errors));
  const keys = schema['x-kubernetes-list-map-keys'];
  if (schema['x-kubernetes-list-type'] === 'map' && keys) {
    const seen = new Set<string>();
    value.forEach((item, i) => {
      if (!isObject(item)) return;
      const id = JSON.stringify(
        keys.map((k) => (typeof item[k] === 'bigint' ? { bigint: `${item[k]}` } : item[k])),
      );
      if (seen.has(id)) {
        errors.push({
          path: `${path}[${i}]`,
          message: `duplicate entry: another item has the same ${keys.join(' and ')}; merge them or remove one`,
        });
      }
      seen.add(id);
    });
  }
}

/** The known field closest to a misspelt one (case-insensitive edit distance ≤ 2). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { name: c, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}
