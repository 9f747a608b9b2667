// Renders the objects glooha writes from handlebars templates: the engine's (src/templates/*.hbs,
// named by TemplateName) and those a product defines in its folder (defineTemplate). Templates fix
// each object's kind and layout; every value goes through the `json` helper, which puts a placeholder
// in the YAML and keeps the value aside. The YAML parsed is therefore only the template's own layout:
// a user's string (a name, a label) never reaches the YAML parser, so it cannot open a new key or
// document, and a layout is the same text for every install that takes the same branches, so it is
// parsed once. Each value is then put where its placeholder is, as a JSON copy. The result's shape is
// checked, and the metadata must come out unchanged, so a template mistake fails loudly instead of
// applying junk.
//
// The template files are read once, on first use, by their path under src/ (src/ in dev, dist/src/
// after the build copies them, dist/ beside the bundle: scripts/copy-assets.mjs, scripts/bundle.mjs). That read is the core's only I/O; it is of files
// shipped with the code, so rendering stays a pure function of its inputs.

import Handlebars from 'handlebars';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

export type TemplateName =
  | 'pod-disruption-budget'
  | 'role'
  | 'role-binding'
  | 'helm-values-configmap'
  | 'replicas-floors-configmap'
  | 'deployment-patch'
  | 'horizontal-pod-autoscaler'
  | 'horizontal-pod-autoscaler-patch';

/** The kind and top-level keys a template must produce. */
export interface TemplateShape {
  apiVersion: string;
  kind: string;
  keys: string[];
}

/** A template a product defines: its file, by its path under src/, and the shape it must produce. */
export interface Template extends TemplateShape {
  /** Its name, in errors. */
  name: string;
  /** Its file's path under src/, e.g. products/<product>/<name>.yaml.hbs (the build copies every src/ .hbs). */
  path: string;
}

/** A product's template (its file in its folder); render it with renderObject. */
export function defineTemplate(t: Template): Template {
  if (!/^[a-z0-9-]+(\/[a-z0-9-]+)*\.yaml\.hbs$/.test(t.path))
    throw new TemplateError(`template ${t.name}: path ${t.path} must be a .yaml.hbs file under src/`);
  return Object.freeze({ ...t, keys: [...t.keys] });
}

/** The engine's templates: src/templates/<name>.yaml.hbs. */
const SHAPES: Record<TemplateName, TemplateShape> = {
  'pod-disruption-budget': { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', keys: ['spec'] },
  role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', keys: ['rules'] },
  'role-binding': {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    keys: ['roleRef', 'subjects'],
  },
  'helm-values-configmap': { apiVersion: 'v1', kind: 'ConfigMap', keys: ['data'] },
  'replicas-floors-configmap': { apiVersion: 'v1', kind: 'ConfigMap', keys: ['data'] },
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
};

const engineTemplate = (name: TemplateName): Template => ({
  name,
  path: `templates/${name}.yaml.hbs`,
  ...SHAPES[name],
});

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

const PLACEHOLDER = 'glooha-template-value:';

const handlebars = Handlebars.create();
handlebars.registerHelper('json', (value: unknown, options: Handlebars.HelperOptions) => {
  if (value === undefined) throw new TemplateError('json helper got undefined: pass null or omit the line');
  // renderObject's list of the values put aside, as JSON, in the order of their placeholders.
  const values = (options.data as { values?: string[] } | undefined)?.values;
  if (!values) throw new TemplateError('json helper used outside renderObject');
  values.push(JSON.stringify(value));
  return JSON.stringify(`${PLACEHOLDER}${values.length - 1}`);
});

/** src/ (dev), dist/src/ (the build) or dist/ (the bundle, whose one module is dist/src/<entry>.js). */
const srcDir = fileURLToPath(new URL('../', import.meta.url));
const compiled = new Map<string, Handlebars.TemplateDelegate>();

function compile(t: Template): Handlebars.TemplateDelegate {
  let c = compiled.get(t.path);
  if (!c) {
    const source = readFileSync(`${srcDir}${t.path}`, 'utf8');
    c = handlebars.compile(source, { noEscape: true, strict: true });
    compiled.set(t.path, c);
  }
  return c;
}

/**
 * Parsed layouts by their text. The YAML parse is the costly part of a render, in CPU and in garbage;
 * a layout holds no values, so there are only as many as each template has combinations of branches.
 * Bounded anyway.
 */
const layouts = new Map<string, unknown>();
const LAYOUT_CACHE_MAX = 256;
let layoutParses = 0;

/** How many layouts have been parsed since the process started (what the layout cache saves). */
export function layoutsParsed(): number {
  return layoutParses;
}

/**
 * Renders a template with `data` (which must hold `metadata`) and returns the checked object, a fresh
 * one each time (callers may change it).
 */
export function renderObject(
  which: TemplateName | Template,
  data: { metadata: KubeObject['metadata'] } & Record<string, unknown>,
): KubeObject {
  const t = typeof which === 'string' ? engineTemplate(which) : which;
  const name = t.name;
  const values: string[] = [];
  const text = compile(t)(data, { data: { values } });
  const filled = { count: 0 };
  const obj = fill(layout(name, text), values, filled);
  if (filled.count !== values.length) {
    throw new TemplateError(
      `template ${name} placed ${filled.count} of its ${values.length} values: a {{json}} must be a whole YAML value`,
    );
  }
  checkShape(t, obj, data.metadata);
  return obj as KubeObject;
}

function layout(name: string, text: string): unknown {
  if (layouts.has(text)) return layouts.get(text);
  layoutParses++;
  const doc = parseDocument(text, { uniqueKeys: true, strict: true });
  if (doc.errors.length > 0) {
    throw new TemplateError(
      `template ${name} produced invalid YAML: ${doc.errors.map((e) => e.message).join('; ')}`,
    );
  }
  const parsed = doc.toJS() as unknown;
  if (layouts.size >= LAYOUT_CACHE_MAX) layouts.delete(layouts.keys().next().value as string);
  layouts.set(text, parsed);
  return parsed;
}

/** A copy of `node` with each placeholder string replaced by (a copy of) its value. */
function fill(node: unknown, json: string[], filled: { count: number }): unknown {
  if (typeof node === 'string') {
    if (!node.startsWith(PLACEHOLDER)) return node;
    const text = json[Number(node.slice(PLACEHOLDER.length))];
    if (text === undefined) return node;
    filled.count++;
    return JSON.parse(text) as unknown;
  }
  if (Array.isArray(node)) return node.map((item) => fill(item, json, filled));
  if (typeof node === 'object' && node !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = fill(v, json, filled);
    return out;
  }
  return node;
}

function checkShape(shape: Template, obj: unknown, metadata: KubeObject['metadata']): void {
  const name = shape.name;
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
