// Validating an object of a kind (kind.ts) the way the API server would: default it, check it against
// the kind's schema, then run every rule of its rule table on the nodes of its definition. Used by
// `glooha render` (offline) and by the core as defence in depth, so an object that slipped past
// admission (an older CRD, a dry run) still never reaches the cluster as objects.

import { API_VERSION } from './constants.js';
import type { ApiKind } from './kind.js';
import { QUALIFIED_NAME } from './names.js';
import { DEF, type Schema } from './openapi.js';
import { evaluateRule, type CelCache } from './cel.js';
import type { Rule } from './rules.js';
import {
  applyDefaults,
  isInt64,
  joinPath,
  setOwn,
  showValue,
  unknownFields,
  validateStructure,
  type FieldError,
} from './structural.js';

export type { FieldError } from './structural.js';

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/**
 * Validates a whole object of the kind (apiVersion, kind, metadata, spec) as the API server would on
 * create: status is dropped, as the server drops it, once it passed decoding (no unknown fields).
 */
export function validateObject<T>(input: unknown, api: ApiKind): ValidationResult<T> {
  const { kind, schema } = api;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: [{ path: '', message: `must be a ${kind} object (a YAML mapping)` }] };
  }
  const raw = input as Record<string, unknown>;
  // In the API server's order. Decoding first: an ObjectMeta field of the wrong type (generation
  // beyond int64, a label that is a number) fails the request on its own, and with strict field
  // validation (kubectl's default) so does an unknown field anywhere, status included.
  const decoding = objectMetaDecodeErrors(raw.metadata);
  if (decoding.length > 0) return { ok: false, errors: decoding };
  const unknown = [...unknownFields(raw, schema), ...objectMetaUnknownFields(raw.metadata)];
  if (unknown.length > 0) return { ok: false, errors: unknown.map(withoutKind) };
  const errors: FieldError[] = [];
  if (raw.apiVersion !== API_VERSION) {
    errors.push({ path: 'apiVersion', message: `must be ${API_VERSION}, not ${showValue(raw.apiVersion)}` });
  }
  if (raw.kind !== kind)
    errors.push({ path: 'kind', message: `must be ${kind}, not ${showValue(raw.kind)}` });
  const meta = metadataErrors(raw.metadata, kind);
  errors.push(...meta);
  // Then status goes: the API server drops it on create (the status subresource writes it), whatever
  // it holds once it decodes, so only its unknown fields (above) can fail a request.
  const withoutStatus: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) if (key !== 'status') setOwn(withoutStatus, key, value);
  const defaulted = applyDefaults(withoutStatus, schema) as Record<string, unknown>;
  const structural = validateStructure(defaulted, schema).map((e) => withHint(e, defaulted));
  // A blocking schema error (wrong type, enum, required, too long, too many) means the CEL rules are
  // not evaluated at all; nor are they without a name (the API server refuses the object before).
  errors.push(...structural.map(withoutKind));
  const named = !meta.some((e) => e.path === 'metadata.name');
  // As the API server: a generated name is set before the object is validated.
  const metadata = defaulted.metadata as Record<string, unknown> | undefined;
  if (named && metadata && (typeof metadata.name !== 'string' || metadata.name === ''))
    setOwn(metadata, 'name', nameOf(metadata));
  if (named && !structural.some((e) => e.kind === 'blocking'))
    errors.push(...runRules(defaulted, schema, api.rules));
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: defaulted as unknown as T };
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * metadata.name and metadata.namespace as the API server checks them (a DNS subdomain; a DNS label
 * of at most 63 characters). `glooha render` writes both into YAML it prints, so anything else could
 * also smuggle text into the output (a namespace holding a newline and `---`). Without a name, the
 * name generateName makes (generatedName) is checked, as the API server checks the one it makes.
 */
function metadataErrors(metadata: unknown, kind: string): FieldError[] {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    return [{ path: 'metadata.name', message: `is required: name the ${kind} (at most 63 characters)` }];
  }
  const { name, namespace, generateName } = metadata as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (typeof generateName === 'string' && generateName !== '' && !isDnsSubdomain(generateName, true)) {
    errors.push({
      path: 'metadata.generateName',
      message:
        'must be the start of a lowercase RFC 1123 name: letters, digits, dashes and dots, starting with a letter or digit (a trailing dash is fine)',
    });
  }
  const effective = nameOf(metadata as Record<string, unknown>);
  if (effective === undefined) {
    errors.push({
      path: 'metadata.name',
      message: `is required: name the ${kind} (at most 63 characters), or give generateName`,
    });
  } else if (!isDnsSubdomain(effective, false)) {
    errors.push({
      path: 'metadata.name',
      message:
        typeof name === 'string' && name !== ''
          ? 'must be a lowercase RFC 1123 name: letters, digits, dashes and dots, starting and ending with a letter or digit'
          : `the name generateName makes (${showValue(effective)}) must be a lowercase RFC 1123 name`,
    });
  }
  if (namespace !== undefined && namespace !== null) {
    if (typeof namespace !== 'string' || namespace.length > 63 || !DNS_LABEL.test(namespace)) {
      errors.push({
        path: 'metadata.namespace',
        message:
          'must be a namespace name: at most 63 lowercase letters, digits and dashes, starting and ending with a letter or digit',
      });
    }
  }
  errors.push(...objectMetaErrors(metadata as Record<string, unknown>));
  return errors;
}

/** apimachinery's NameIsDNSSubdomain; as a prefix (generateName), a trailing dash is allowed. */
function isDnsSubdomain(name: string, prefix: boolean): boolean {
  const masked = prefix && name.endsWith('-') ? `${name.slice(0, -1)}a` : name;
  return masked.length <= 253 && DNS_SUBDOMAIN.test(masked);
}

/**
 * The name the object will have: metadata.name, or without one the name the API server makes from
 * generateName (its first 58 characters and 5 random ones; "xxxxx" stands in for them here, a suffix
 * the API server could draw), or undefined.
 */
export function nameOf(metadata: Record<string, unknown>): string | undefined {
  const { name, generateName } = metadata;
  if (typeof name === 'string' && name !== '') return name;
  if (typeof generateName === 'string' && generateName !== '') return generatedName(generateName);
  return undefined;
}

/** apiserver's names.SimpleNameGenerator, with a fixed suffix. */
export const generatedName = (generateName: string): string => `${generateName.slice(0, 58)}xxxxx`;

/**
 * ObjectMeta's fields, by the JSON type Go decodes them into; anything else under metadata fails
 * strict decoding ("unknown field"), and a value of another type fails decoding ("cannot unmarshal
 * number into Go struct field ObjectMeta.labels of type string"). null is always accepted.
 */
const OBJECT_META_FIELDS = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int64',
  creationTimestamp: 'time',
  deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'int64',
  labels: 'string map',
  annotations: 'string map',
  ownerReferences: 'owner list',
  finalizers: 'string list',
  managedFields: 'list',
} as const;
type MetaType = (typeof OBJECT_META_FIELDS)[keyof typeof OBJECT_META_FIELDS];

const isString = (v: unknown) => v === null || typeof v === 'string';
/** metav1.Time: an RFC 3339 time (what Go's time.Parse reads with time.RFC3339). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DECODES: Record<MetaType, [(v: unknown) => boolean, string]> = {
  string: [(v) => typeof v === 'string', 'a string'],
  int64: [(v) => isInt64(v), 'an integer from -9223372036854775808 to 9223372036854775807 (int64)'],
  // A Date is what a typed client hands the operator for a time it decoded.
  time: [
    (v) => (typeof v === 'string' && RFC3339.test(v)) || v instanceof Date,
    'an RFC 3339 time such as 2026-01-02T15:04:05Z',
  ],
  'string map': [
    (v) => typeof v === 'object' && !Array.isArray(v) && Object.values(v as object).every(isString),
    'a map of strings (quote values such as "true" or "1")',
  ],
  list: [(v) => Array.isArray(v), 'a list'],
  'owner list': [
    (v) => Array.isArray(v) && v.every((ref) => ref === null || ownerReferenceDecodeError(ref) === undefined),
    'a list of owner references ({apiVersion, kind, name, uid} strings, controller and blockOwnerDeletion booleans)',
  ],
  'string list': [(v) => Array.isArray(v) && v.every(isString), 'a list of strings'],
};

/**
 * The first decoding error of ObjectMeta's fields, in the input's order: Go's encoding/json goes on
 * after a field of the wrong type but reports only the first, and the API server fails the request
 * with it.
 */
function objectMetaDecodeErrors(metadata: unknown): FieldError[] {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return [];
  for (const [key, value] of Object.entries(metadata)) {
    if (!Object.hasOwn(OBJECT_META_FIELDS, key) || value === null || value === undefined) continue;
    const [decodes, what] = DECODES[OBJECT_META_FIELDS[key as keyof typeof OBJECT_META_FIELDS]];
    if (decodes(value)) continue;
    // Go names the field of an owner reference that fails (OwnerReference.metadata.ownerReferences.uid).
    const field = Array.isArray(value)
      ? value.map((ref) => (ref === null ? undefined : ownerReferenceDecodeError(ref))).find((f) => f)
      : undefined;
    const path = field ? `metadata.${key}.${field}` : `metadata.${key}`;
    return [{ path, message: `must be ${what}, not ${showValue(value)}` }];
  }
  return [];
}

/** OwnerReference's fields and the JSON types Go decodes them into. */
const OWNER_REFERENCE_FIELDS: Record<string, 'string' | 'boolean'> = {
  apiVersion: 'string',
  kind: 'string',
  name: 'string',
  uid: 'string',
  controller: 'boolean',
  blockOwnerDeletion: 'boolean',
};

/** The field of an owner reference that does not decode, or undefined. */
function ownerReferenceDecodeError(ref: unknown): string | undefined {
  if (typeof ref !== 'object' || ref === null || Array.isArray(ref)) return '';
  for (const [key, value] of Object.entries(ref)) {
    const type = OWNER_REFERENCE_FIELDS[key];
    if (type && value !== null && value !== undefined && typeof value !== type) return key;
  }
  return undefined;
}

/** ObjectMeta has no such field: strict decoding fails on it. */
function objectMetaUnknownFields(metadata: unknown): FieldError[] {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return [];
  const errors = Object.entries(metadata)
    .filter(([key, value]) => value !== undefined && !Object.hasOwn(OBJECT_META_FIELDS, key))
    .map(([key]) => key)
    .map((key) => ({ path: `metadata.${key}`, message: 'unknown field: ObjectMeta has no such field' }));
  const refs = (metadata as Record<string, unknown>).ownerReferences;
  if (Array.isArray(refs))
    refs.forEach((ref: unknown, i) => {
      if (typeof ref !== 'object' || ref === null) return;
      for (const key of Object.keys(ref))
        if (!Object.hasOwn(OWNER_REFERENCE_FIELDS, key))
          errors.push({
            path: `metadata.ownerReferences[${i}].${key}`,
            message:
              'unknown field: an owner reference has apiVersion, kind, name, uid, controller and blockOwnerDeletion',
          });
    });
  return errors;
}
const QUALIFIED = new RegExp(QUALIFIED_NAME);
/** apimachinery's IsValidLabelValue: at most 63 characters, alphanumeric at both ends. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
/** apimachinery's TotalAnnotationSizeLimitB: keys and values together. */
const ANNOTATIONS_MAX_BYTES = 256 * 1024;

const isKey = (k: string) => QUALIFIED.test(k) && (!k.includes('/') || k.indexOf('/') <= 253);

/**
 * What the API server checks of ObjectMeta beyond name and namespace (ValidateObjectMeta): finalizers,
 * owner references, labels and annotations (reported at metadata.labels and metadata.annotations, the
 * key in the message, as the API server reports them).
 */
function objectMetaErrors(meta: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [
    ...finalizerErrors(meta.finalizers),
    ...ownerReferenceErrors(meta.ownerReferences),
  ];
  const { labels, annotations } = meta;
  if (labels !== undefined && labels !== null) {
    if (typeof labels !== 'object' || Array.isArray(labels))
      errors.push({ path: 'metadata.labels', message: 'must be a map of strings' });
    else
      // Decoding has checked the values are strings; Go decodes a null one as "".
      for (const [k, value] of Object.entries(labels as Record<string, unknown>)) {
        const v = value ?? '';
        if (!isKey(k))
          errors.push({
            path: 'metadata.labels',
            message: `${showValue(k)} is not a valid label key: an optional DNS-subdomain prefix and /, then at most 63 letters, digits, -, _ and ., alphanumeric at both ends`,
          });
        if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v))
          errors.push({
            path: 'metadata.labels',
            message: `the value of ${showValue(k)} must be a label value: a string of at most 63 letters, digits, -, _ and ., alphanumeric at both ends (or empty)`,
          });
      }
  }
  if (annotations !== undefined && annotations !== null) {
    if (typeof annotations !== 'object' || Array.isArray(annotations))
      errors.push({ path: 'metadata.annotations', message: 'must be a map of strings' });
    else {
      let bytes = 0;
      for (const [k, value] of Object.entries(annotations)) {
        const v = (value ?? '') as string;
        if (!isKey(k.toLowerCase()))
          errors.push({
            path: 'metadata.annotations',
            message: `${showValue(k)} is not a valid annotation key (a qualified name)`,
          });
        bytes += Buffer.byteLength(k) + Buffer.byteLength(v);
      }
      if (bytes > ANNOTATIONS_MAX_BYTES)
        errors.push({
          path: 'metadata.annotations',
          message: `annotations may hold at most ${ANNOTATIONS_MAX_BYTES} bytes (256 KiB) together, not ${bytes}`,
        });
    }
  }
  return errors;
}

/**
 * apimachinery's ValidateFinalizers: each a qualified name (`example.com/name`, the name at most 63
 * characters), and not both orphan and foregroundDeletion. The API server reports them at
 * metadata.finalizers, without an index.
 */
function finalizerErrors(finalizers: unknown): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  const errors: FieldError[] = [];
  for (const f of finalizers) {
    const finalizer = typeof f === 'string' ? f : ''; // Go decodes a null one as ""
    if (!isKey(finalizer))
      errors.push({
        path: 'metadata.finalizers',
        message: `${showValue(finalizer)} is not a valid finalizer: a qualified name (an optional DNS-subdomain prefix and /, then at most 63 letters, digits, -, _ and ., alphanumeric at both ends), such as example.com/cleanup`,
      });
  }
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion'))
    errors.push({
      path: 'metadata.finalizers',
      message: 'finalizers orphan and foregroundDeletion cannot both be set',
    });
  return errors;
}

/**
 * apimachinery's ValidateOwnerReferences: each with a version in apiVersion, a kind, a name and a
 * uid, no Event as owner, and at most one with controller: true (reported at metadata.ownerReferences,
 * the others at the reference, as the API server reports them).
 */
function ownerReferenceErrors(refs: unknown): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errors: FieldError[] = [];
  let controller: string | undefined;
  refs.forEach((value, i) => {
    const ref = (value ?? {}) as Record<string, unknown>;
    const text = (k: string) => (typeof ref[k] === 'string' ? ref[k] : '');
    const { group, version } = groupVersion(text('apiVersion'));
    const missing = (field: string, what: string) =>
      errors.push({ path: `metadata.ownerReferences[${i}].${field}`, message: what });
    if (version === '') missing('apiVersion', 'apiVersion needs a version (v1, or group/version)');
    if (text('kind') === '') missing('kind', 'kind must not be empty');
    if (text('name') === '') missing('name', 'name must not be empty');
    if (text('uid') === '') missing('uid', "uid must not be empty: give the owner's metadata.uid");
    if (group === '' && version === 'v1' && text('kind') === 'Event')
      errors.push({ path: `metadata.ownerReferences[${i}]`, message: 'an Event cannot be an owner' });
    if (ref.controller === true) {
      const owner = `${text('kind')}/${text('name')}`;
      if (controller !== undefined)
        errors.push({
          path: 'metadata.ownerReferences',
          message: `only one owner reference may have controller: true; ${controller} and ${owner} both do`,
        });
      else controller = owner;
    }
  });
  return errors;
}

/** apimachinery's ParseGroupVersion as FromAPIVersionAndKind uses it: an invalid one is empty. */
function groupVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion === '/' ? [''] : apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] ?? '' };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return { group: '', version: '' };
}

const withoutKind = ({ kind: _kind, ...e }: FieldError): FieldError => e;

/** driftPolicy: off was renamed; say so instead of only listing the values. */
function withHint(error: FieldError, value: Record<string, unknown>): FieldError {
  if (error.path !== 'spec.driftPolicy') return error;
  const given = (value.spec as Record<string, unknown> | undefined)?.driftPolicy;
  if (given !== false && given !== 'off') return error;
  return {
    ...error,
    message: `${error.message}: write driftPolicy: ignore (what "off" was called before; YAML 1.1, which kubectl and Helm read, turns an unquoted off into false)`,
  };
}

/**
 * Runs a rule table over `value` (which has passed the schema's blocking checks): each rule's CEL,
 * the text the CRD carries, evaluated on the nodes of its definition.
 */
export function runRules(value: unknown, schema: Schema, rules: readonly Rule[], path = ''): FieldError[] {
  const errors: FieldError[] = [];
  const cache: CelCache = new WeakMap();
  visit(value, schema, path, (node, nodeSchema, nodePath) => {
    const defName = nodeSchema[DEF];
    if (!defName) return;
    for (const rule of rules.filter((r) => r.on === defName)) {
      const outcome = evaluateRule(rule.rule, node, nodeSchema, cache);
      if (outcome.ok) continue;
      if (outcome.evaluationError === undefined) {
        errors.push({ path: errorPath(nodePath, rule), message: rule.message, ruleId: rule.id });
      } else {
        // As the API server: a rule that cannot be evaluated fails at the node itself.
        errors.push({
          path: nodePath,
          message: `${rule.message} (the rule could not be evaluated on this value: ${outcome.evaluationError})`,
          ruleId: rule.id,
        });
      }
    }
  });
  return errors;
}

/** Where the API server reports a CEL failure: the node's path plus the rule's fieldPath. */
function errorPath(nodePath: string, rule: Rule): string {
  if (!rule.fieldPath) return nodePath;
  return joinPath(nodePath, rule.fieldPath.replace(/^\./, ''));
}

function visit(
  value: unknown,
  schema: Schema,
  path: string,
  fn: (node: unknown, schema: Schema, path: string) => void,
): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'object' && !Array.isArray(value)) fn(value, schema, path);
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => visit(item, schema.items as Schema, `${path}[${i}]`, fn));
    return;
  }
  if (typeof value !== 'object' || Array.isArray(value)) return;
  const record = value as Record<string, unknown>;
  if (schema.additionalProperties) {
    for (const [key, v] of Object.entries(record))
      visit(v, schema.additionalProperties, `${path}[${key}]`, fn);
  }
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    visit(record[key], child, joinPath(path, key), fn);
  }
}
