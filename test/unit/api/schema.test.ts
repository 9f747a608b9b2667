// The schema, the TypeScript structural validator and defaulting, durations, and the generated CRD.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildCrd } from '../../../src/api/crd.js';
import { renderCrdYaml } from '../../../src/api/crd-yaml.js';
import { DURATION_PATTERN, parseDuration } from '../../../src/api/duration.js';
import { scaledValue } from '../../../src/api/intstr.js';
import { walkSchema } from '../../../src/api/openapi.js';
import { PRODUCTS } from '../../../src/products/index.js';
import { GLOO_API } from '../../../src/products/gloo/api.js';
import { KGATEWAY_API } from '../../../src/products/kgateway/api.js';
import { specSchema } from '../../../src/products/gloo/schema.js';
import { defaultSpec, validateGlooHA } from '../../../src/products/gloo/validate.js';
import { glooHAObject } from './rule-cases.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');

describe('parseDuration (Go time.ParseDuration, glooha subset)', () => {
  it.each([
    ['15s', 15_000_000_000n],
    ['1m30s', 90_000_000_000n],
    ['1h', 3_600_000_000_000n],
    ['500ms', 500_000_000n],
    ['1.5s', 1_500_000_000n],
    ['0.001s', 1_000_000n],
    ['1.25ms', 1_250_000n],
    ['2h45m', 9_900_000_000_000n],
    ['0s', 0n],
    ['999999h999999h99999h', 7_559_989_200_000_000_000n],
  ])('%s is %d ns', (text, ns) => {
    expect(parseDuration(text)).toBe(ns);
  });

  it.each([
    '',
    '15',
    's',
    '-1s',
    '+1s',
    '1d',
    '1us',
    '1ns',
    '1µs',
    '.5s',
    '5.s',
    '1.2345s',
    '1234567s',
    '15 s',
    '1S',
    '1h1h1h1h1h1h1h1h1h1h1h',
  ])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('never reaches int64 overflow within maxLength (Go would fail, CEL would error)', () => {
    expect(parseDuration('999999h999999h99999h')! < 2n ** 63n - 1n).toBe(true);
  });

  it('uses a pattern RE2 accepts as is (no lookarounds or backreferences)', () => {
    expect(DURATION_PATTERN).not.toMatch(/\(\?|\\\d/);
  });
});

describe('scaledValue (PDB rounding)', () => {
  it('rounds percentages up like the disruption controller', () => {
    expect(scaledValue('50%', 3)).toBe(2);
    expect(scaledValue('60%', 2)).toBe(2);
    expect(scaledValue('1%', 1)).toBe(1);
    expect(scaledValue('0%', 10)).toBe(0);
    expect(scaledValue(2, 10)).toBe(2);
  });
});

describe('defaulting', () => {
  it('fills the documented defaults into an empty spec', () => {
    expect(defaultSpec({})).toEqual({
      gloo: {
        replicas: 2,
        antiAffinity: 'preferred',
        leaderElection: { enabled: true, leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '2s' },
      },
      driftPolicy: 'enforce',
    });
  });

  it('fills nested defaults of objects the user gave, and keeps their values', () => {
    const spec = defaultSpec({
      gloo: { leaderElection: { leaseDuration: '30s' } },
      discovery: {},
      gatewayProxies: { gatewayProxy: { replicas: 3 } },
    });
    expect(spec.gloo.leaderElection).toEqual({
      enabled: true,
      leaseDuration: '30s',
      renewDeadline: '10s',
      retryPeriod: '2s',
    });
    expect(spec.discovery).toEqual({ replicas: 1 });
    expect(spec.gatewayProxies?.gatewayProxy).toEqual({ replicas: 3, antiAffinity: 'preferred' });
  });

  it('does not default a PDB (that depends on replicas) or target', () => {
    const spec = defaultSpec({});
    expect(spec.gloo.podDisruptionBudget).toBeUndefined();
    expect(spec.target).toBeUndefined();
  });

  it('drops nulls as the API server does', () => {
    expect(defaultSpec({ gloo: { replicas: null as unknown as number } }).gloo.replicas).toBe(2);
  });

  it('does not modify its input', () => {
    const input = { gloo: { replicas: 3 } };
    defaultSpec(input);
    expect(input).toEqual({ gloo: { replicas: 3 } });
  });
});

describe('structural validation', () => {
  const errorsOf = (spec: unknown, name?: string) => {
    const r = validateGlooHA(glooHAObject(spec, name));
    return r.ok ? [] : r.errors;
  };

  it('accepts the examples', () => {
    for (const file of ['glooha.yaml', 'glooha-small.yaml']) {
      const obj = parse(readFileSync(join(repoRoot, 'examples', file), 'utf8')) as unknown;
      const r = validateGlooHA(obj);
      expect(r.ok ? [] : r.errors, file).toEqual([]);
    }
  });

  it('rejects unknown fields and suggests the field meant', () => {
    expect(errorsOf({ gloo: { replica: 3 } })).toEqual([
      {
        path: 'spec.gloo.replica',
        message: expect.stringContaining('unknown field; did you mean replicas?'),
      },
    ]);
    expect(
      errorsOf({ gatewayProxies: { gatewayProxy: { replicas: 2, antiaffinity: 'none' } } })[0]?.message,
    ).toContain('did you mean antiAffinity?');
  });

  it('checks types, enums and bounds with messages that say what is expected', () => {
    const errors = errorsOf({
      gloo: { replicas: '3', antiAffinity: 'sometimes' },
      driftPolicy: 'revert',
      target: { namespace: 'Gloo_System' },
    });
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: 'spec.gloo.replicas', message: 'must be an integer, not a string' },
        {
          path: 'spec.gloo.antiAffinity',
          message: 'must be one of "none", "preferred", "required", not "sometimes"',
        },
        { path: 'spec.driftPolicy', message: 'must be one of "enforce", "warn", "ignore", not "revert"' },
        { path: 'spec.target.namespace', message: expect.stringContaining('is not a valid value') },
      ]),
    );
  });

  it('rejects a float where an integer is required, and a bool where a duration is', () => {
    expect(errorsOf({ gloo: { replicas: 2.5 } })).toEqual([
      { path: 'spec.gloo.replicas', message: 'must be an integer, not a number' },
    ]);
    expect(errorsOf({ gloo: { leaderElection: { leaseDuration: true } } })).toEqual([
      { path: 'spec.gloo.leaderElection.leaseDuration', message: 'must be a string, not a boolean' },
    ]);
  });

  it('reports required fields and duplicate list-map keys', () => {
    expect(errorsOf({ gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 2 } } } })).toEqual([
      { path: 'spec.gatewayProxies[gatewayProxy].autoscaling.maxReplicas', message: 'is required' },
    ]);
    const tsc = {
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'ScheduleAnyway',
    };
    expect(errorsOf({ gloo: { topologySpreadConstraints: [tsc, { ...tsc, maxSkew: 2 }] } })).toEqual([
      { path: 'spec.gloo.topologySpreadConstraints[1]', message: expect.stringContaining('duplicate entry') },
    ]);
  });

  it('limits gatewayProxies to 16 and reports structure before rules on the same node', () => {
    const proxies = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`p${i}`, { replicas: 2 }]));
    expect(errorsOf({ gatewayProxies: proxies })).toEqual([
      { path: 'spec.gatewayProxies', message: 'must have at most 16 entries, not 17' },
    ]);
  });

  it('reports problems in the stages of the API server: a blocking schema error (here an enum) leaves the rules unchecked', () => {
    const errors = errorsOf({
      gloo: { replicas: 3, leaderElection: { enabled: false }, antiAffinity: 'never' },
      discovery: { replicas: 2 },
      gatewayProxies: { gatewayProxy: { replicas: 2, autoscaling: { minReplicas: 1, maxReplicas: 2 } } },
    });
    expect(errors.map((e) => e.path).sort()).toEqual(['spec.gloo.antiAffinity']);
  });

  it('reports non-blocking schema errors (pattern, minimum) and every rule at once', () => {
    const errors = errorsOf({
      gloo: { replicas: 3, leaderElection: { enabled: false } },
      discovery: { replicas: 2 },
      target: { namespace: 'Bad_NS' },
      gatewayProxies: { gatewayProxy: { replicas: 2, autoscaling: { minReplicas: 1, maxReplicas: 2 } } },
    });
    expect(errors.map((e) => e.path).sort()).toEqual([
      'spec.discovery.replicas',
      'spec.gatewayProxies[gatewayProxy]',
      'spec.gloo.leaderElection.enabled',
      'spec.target.namespace',
    ]);
  });

  it('reports only unknown fields when there are any: strict field validation fails while decoding', () => {
    expect(errorsOf({ gloo: { replicas: 0, replica: 1 }, driftPolicy: 'x' }).map((e) => e.path)).toEqual([
      'spec.gloo.replica',
    ]);
  });

  it('checks apiVersion, kind and metadata.name', () => {
    const r = validateGlooHA({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, spec: {} });
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual(['apiVersion', 'kind', 'metadata.name']);
    expect(errorsOf({}, 'Bad_Name')).toEqual([
      { path: 'metadata.name', message: expect.stringContaining('RFC 1123') },
    ]);
    expect(validateGlooHA('not an object').ok).toBe(false);
  });

  it('drops status as the API server does on create, once it decodes: an unknown field fails', () => {
    const paths = (status: unknown) => {
      const r = validateGlooHA({ ...glooHAObject({}), status });
      return r.ok ? [] : r.errors.map((e) => e.path);
    };
    expect(paths({ whatever: true })).toEqual(['status.whatever']);
    expect(paths({ bogus: null })).toEqual(['status.bogus']);
    expect(paths({ conditions: [{ type: 'Ready', bogus: 1 }] })).toEqual(['status.conditions[0].bogus']);
    expect(paths([{ bogus: 1 }])).toEqual(['status[0].bogus']);
    // Known fields, whatever their values: dropped, so accepted (as the API server accepts them).
    expect(paths({ observedGeneration: 'x', conditions: [{ type: 'Ready' }] })).toEqual([]);
    expect(paths(5)).toEqual([]);
    expect(paths(null)).toEqual([]);
  });
});

describe('the schema stays within CEL cost limits', () => {
  it('bounds every list, map and string that a rule reads', () => {
    walkSchema(specSchema, (node, path) => {
      if (node.type === 'array') expect(node.maxItems, `${path} maxItems`).toBeDefined();
      if (node.type === 'object' && node.additionalProperties)
        expect(node.maxProperties, `${path} maxProperties`).toBeDefined();
      if (node.type === 'string' && !node.enum) expect(node.maxLength, `${path} maxLength`).toBeDefined();
      if (node['x-kubernetes-int-or-string']) expect(node.maxLength, `${path} maxLength`).toBeDefined();
    });
  });
});

describe('the generated CRD', () => {
  it('is what crds/ holds (npm run gen:crd -- --check)', () => {
    expect(readFileSync(join(repoRoot, 'crds', 'glooha.io_gloohas.yaml'), 'utf8')).toBe(
      renderCrdYaml(GLOO_API),
    );
  });

  it('carries every rule of the table, verbatim, in the CRD of its kind', () => {
    for (const { api } of PRODUCTS) {
      const crdText = JSON.stringify(buildCrd(api));
      for (const rule of api.rules) {
        expect(crdText, `${api.kind} ${rule.id}`).toContain(JSON.stringify(rule.rule));
        expect(crdText, `${api.kind} ${rule.id}`).toContain(JSON.stringify(rule.message));
      }
    }
  });

  it('is, for KgatewayHA, what crds/ holds too', () => {
    expect(readFileSync(join(repoRoot, 'crds', 'glooha.io_kgatewayhas.yaml'), 'utf8')).toBe(
      renderCrdYaml(KGATEWAY_API),
    );
  });

  it('documents every default in the field description', () => {
    walkSchema(specSchema, (node, path) => {
      if (node.default !== undefined && typeof node.default !== 'object') {
        expect(node.description, path).toContain(
          `Default ${typeof node.default === 'string' ? node.default : JSON.stringify(node.default)}`,
        );
      }
    });
  });

  it('has no leftover definition markers or anchors', () => {
    expect(renderCrdYaml(GLOO_API)).not.toMatch(/[&*]a\d|Symbol/);
  });
});

describe('kubectl explain (the generated CRD)', () => {
  interface Node {
    description?: string;
    properties?: Record<string, Node>;
    items?: Node;
    additionalProperties?: Node | boolean;
  }
  const root = (
    parse(readFileSync(join(repoRoot, 'crds', 'glooha.io_gloohas.yaml'), 'utf8')) as {
      spec: { versions: { schema: { openAPIV3Schema: Node } }[] };
    }
  ).spec.versions[0]!.schema.openAPIV3Schema;
  /** Every field kubectl explain can show: each property, through list items and map values. */
  function fields(node: Node, path: string, out: { path: string; node: Node }[] = []) {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      // metadata may only declare name (no description): explain shows ObjectMeta's documentation.
      if (path === 'GlooHA' && key === 'metadata') continue;
      out.push({ path: `${path}.${key}`, node: child });
      fields(child, `${path}.${key}`, out);
    }
    if (node.items) fields(node.items, `${path}[]`, out);
    if (typeof node.additionalProperties === 'object') fields(node.additionalProperties, `${path}{}`, out);
    return out;
  }

  it('describes every field, so `kubectl explain gloohas --recursive` leaves none blank', () => {
    const all = fields(root, 'GlooHA');
    // The walk reaches deep: a shallow walk would pass with most of the schema undocumented.
    expect(all.length).toBeGreaterThan(130);
    expect(all.map((f) => f.path)).toContain('GlooHA.status.components.gatewayProxies{}.autoscaling.hpaName');
    expect(all.filter((f) => !f.node.description?.trim()).map((f) => f.path)).toEqual([]);
  });

  it('the walk finds a field without a description', () => {
    const broken: Node = { properties: { spec: { description: 'x', properties: { a: {} } } } };
    expect(
      fields(broken, 'X')
        .filter((f) => !f.node.description)
        .map((f) => f.path),
    ).toEqual(['X.spec.a']);
  });

  it('is not in the `all` category (Kubernetes reserves it for workloads)', () => {
    const names = (buildCrd(GLOO_API) as { spec: { names: { categories: string[] } } }).spec.names;
    expect(names.categories).not.toContain('all');
    expect(names.categories).toContain('gloo');
  });
});

describe('docs/api.md', () => {
  it('documents every spec field (down to the list items glooha passes through)', () => {
    const docs = readFileSync(join(repoRoot, 'docs', 'api.md'), 'utf8');
    walkSchema(specSchema, (node, path) => {
      if (node.properties || node.additionalProperties) return; // objects: their fields are checked
      if (path.includes('selector.') || /topologySpreadConstraints\[/.test(path)) return;
      if (path.endsWith('[*]')) return;
      const field = `spec${path.replace('gatewayProxies[*]', 'gatewayProxies.<name>')}`;
      const documented =
        docs.includes(`\`${field}\``) ||
        docs.includes(`\`${field.replace(/\.(minAvailable|maxUnavailable)$/, '')}\``);
      expect(documented, field).toBe(true);
    });
  });
});
