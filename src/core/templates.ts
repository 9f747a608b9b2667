// Renders the objects glooha writes from handlebars templates (src/templates/*.hbs). Templates fix
// each object's kind and layout; every value is inserted as JSON by the `json` helper, and JSON is
// valid YAML flow syntax, so a user string (a name, a label) is always one scalar: it cannot open a
// new key or document. The result is parsed back with `yaml` and its shape checked, and the metadata
// must survive the round trip unchanged, so a template mistake fails loudly instead of applying junk.
//
// The template files are read once, on first use, from next to this module (src/templates in dev,
// dist/src/templates after the build copies them). That read is the core's only I/O; it is of files
// shipped with the code, so rendering stays a pure function of its inputs.

import Handlebars from 'handlebars';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

export type TemplateName =
  | 'pod-disruption-budget'
  | 'role'
  | 'role-binding'
  | 'helm-values-configmap'
  | 'deployment-patch'
  | 'horizontal-pod-autoscaler'
  | 'horizontal-pod-autoscaler-patch'
  | 'gateway-parameters';

/** The kind and top-level keys each template must produce. */
const SHAPES: Record<TemplateName, { apiVersion: string; kind: string; keys: string[] }> = {
  'pod-disruption-budget': { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', keys: ['spec'] },
  role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', keys: ['rules'] },
  'role-binding': {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    keys: ['roleRef', 'subjects'],
  },
  'helm-values-configmap': { apiVersion: 'v1', kind: 'ConfigMap', keys: ['data'] },
  'deployment-patch': { apiVersion: 'apps/v1', kind: 'Deployment', keys: ['spec'] },
  'horizontal-pod-autoscaler': {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    keys: ['spec'],
  },
  'horizontal-pod-autoscaler-patch': {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    keys: ['spec'],
  },
  'gateway-parameters': {
    apiVersion: 'gateway.kgateway.dev/v1alpha1',
    kind: 'GatewayParameters',
    keys: ['spec'],
  },
};

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    ownerReferences?: Record<string, unknown>[];
  };
  [key: string]: unknown;
}

export class TemplateError extends Error {
  override name = 'TemplateError';
}

const handlebars = Handlebars.create();
handlebars.registerHelper('json', (value: unknown) => {
  if (value === undefined) throw new TemplateError('json helper got undefined: pass null or omit the line');
  return JSON.stringify(value);
});

const templateDir = fileURLToPath(new URL('../templates/', import.meta.url));
const compiled = new Map<TemplateName, Handlebars.TemplateDelegate>();

function template(name: TemplateName): Handlebars.TemplateDelegate {
  let t = compiled.get(name);
  if (!t) {
    const source = readFileSync(`${templateDir}${name}.yaml.hbs`, 'utf8');
    t = handlebars.compile(source, { noEscape: true, strict: true });
    compiled.set(name, t);
  }
  return t;
}

/**
 * Rendered objects by template and data, as JSON text under a digest of the data. Every reconcile
 * renders the same few objects from the same spec again and the YAML parse dominated its CPU; text
 * under a digest keeps the cache small (a few KB per install). Bounded: the oldest entries go first.
 */
const rendered = new Map<string, string>();
const RENDER_CACHE_MAX = 4096;

/**
 * Renders a template with `data` (which must hold `metadata`) and returns the checked object: a fresh
 * object each time (callers may change it), from the cache when this template saw this data before.
 */
export function renderObject(
  name: TemplateName,
  data: { metadata: KubeObject['metadata'] } & Record<string, unknown>,
): KubeObject {
  const key = createHash('sha256').update(name).update('\n').update(JSON.stringify(data)).digest('base64');
  let text = rendered.get(key);
  if (text === undefined) {
    text = JSON.stringify(renderUncached(name, data));
    if (rendered.size >= RENDER_CACHE_MAX) rendered.delete(rendered.keys().next().value as string);
    rendered.set(key, text);
  }
  return JSON.parse(text) as KubeObject;
}

function renderUncached(
  name: TemplateName,
  data: { metadata: KubeObject['metadata'] } & Record<string, unknown>,
): KubeObject {
  const text = template(name)(data);
  const doc = parseDocument(text, { uniqueKeys: true, strict: true });
  if (doc.errors.length > 0) {
    throw new TemplateError(
      `template ${name} produced invalid YAML: ${doc.errors.map((e) => e.message).join('; ')}`,
    );
  }
  const obj = doc.toJS() as unknown;
  checkShape(name, obj, data.metadata);
  return obj as KubeObject;
}

function checkShape(name: TemplateName, obj: unknown, metadata: KubeObject['metadata']): void {
  const shape = SHAPES[name];
  const fail = (why: string) => {
    throw new TemplateError(`template ${name} rendered an unexpected object: ${why}`);
  };
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return fail('not a mapping');
  const o = obj as Record<string, unknown>;
  if (o.apiVersion !== shape.apiVersion || o.kind !== shape.kind)
    fail(`${String(o.apiVersion)}/${String(o.kind)}`);
  const extra = Object.keys(o).filter((k) => !['apiVersion', 'kind', 'metadata', ...shape.keys].includes(k));
  if (extra.length > 0) fail(`unexpected top-level keys ${extra.join(', ')}`);
  if (JSON.stringify(o.metadata) !== JSON.stringify(metadata)) fail('metadata changed in the round trip');
  const m = o.metadata as Record<string, unknown>;
  if (typeof m.name !== 'string' || typeof m.namespace !== 'string')
    fail('metadata.name/namespace must be strings');
  for (const [k, v] of Object.entries((m.labels as Record<string, unknown> | undefined) ?? {})) {
    if (typeof v !== 'string') fail(`label ${k} is not a string`);
  }
}
