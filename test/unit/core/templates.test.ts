// Templates render data, never YAML from strings: hostile names, labels and values come out as the
// same strings in the same place, and nothing else appears.
import { describe, expect, it } from 'vitest';
import { desired } from '../../../src/products/gloo/desired.js';
import { TemplateError, defineTemplate, layoutsParsed, renderObject } from '../../../src/core/templates.js';
import { GATEWAY_PARAMETERS_TEMPLATE } from '../../../src/products/kgateway/templates.js';
import { NS, glooHA, installFor } from './fixtures.js';

const HOSTILE = [
  'x\nkind: Secret',
  'x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: pwned}',
  '"quoted": "value"',
  "it's {{json metadata}} & <b>html</b>",
  '#not-a-comment',
  '- item',
  '&anchor *alias',
  '!!binary aGVsbG8=',
  'null',
  'true',
  '0x1F',
  '1e3',
  '\u2028line\u2029separators',
  '}{][',
  'trailing space ',
  'glooha-template-value:0',
];

describe('renderObject', () => {
  it.each(HOSTILE)('keeps %j a plain string in names, labels and values', (evil) => {
    const metadata = { name: evil, namespace: evil, labels: { [evil]: evil, safe: evil } };
    const obj = renderObject('role-binding', {
      metadata,
      roleName: evil,
      serviceAccountName: evil,
      serviceAccountNamespace: evil,
    });
    expect(obj).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: evil },
      subjects: [{ kind: 'ServiceAccount', name: evil, namespace: evil }],
    });
  });

  it('renders the Helm values text as one string value, whatever it contains', () => {
    const valuesYaml = 'a: 1\n---\nkind: Secret\n"b": [\n';
    const obj = renderObject('helm-values-configmap', {
      metadata: { name: 'n', namespace: 'ns' },
      valuesYaml,
    });
    expect(obj.data).toEqual({ 'values.yaml': valuesYaml });
  });

  it('keeps a zero and a percentage apart in PDBs', () => {
    const obj = renderObject('pod-disruption-budget', {
      metadata: { name: 'n', namespace: 'ns' },
      selector: { matchLabels: { a: 'b' } },
      minAvailable: { set: true, value: 0 },
      maxUnavailable: { set: false, value: null },
    });
    expect(obj.spec).toEqual({
      selector: { matchLabels: { a: 'b' } },
      minAvailable: 0,
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    });
  });

  it('fails loudly on missing or undefined data (strict mode)', () => {
    expect(() => renderObject('role', { metadata: { name: 'n', namespace: 'ns' } })).toThrow();
    expect(() =>
      renderObject('role', { metadata: { name: 'n', namespace: 'ns' }, rules: undefined }),
    ).toThrow(TemplateError);
  });

  it('parses a layout once: other installs with the same branches parse no YAML', () => {
    const pdb = (i: number, minAvailable: number | string) => ({
      metadata: { name: `gloo-${i}`, namespace: `ns-${i}`, labels: { app: `a\n${i}: x` } },
      selector: { matchLabels: { gloo: `gloo-${i}` } },
      minAvailable: { set: true, value: minAvailable },
      maxUnavailable: { set: false, value: null },
    });
    renderObject('pod-disruption-budget', pdb(0, 1));
    const before = layoutsParsed();
    for (let i = 1; i <= 50; i++) {
      const obj = renderObject('pod-disruption-budget', pdb(i, i % 2 === 0 ? i : `${i}%`));
      expect(obj.metadata).toEqual(pdb(i, 0).metadata);
      expect(obj.spec).toMatchObject({ minAvailable: i % 2 === 0 ? i : `${i}%` });
    }
    expect(layoutsParsed() - before).toBe(0);
    // the other branch is another layout, parsed once
    const maxUnavailable = {
      ...pdb(51, 1),
      minAvailable: { set: false, value: null },
      maxUnavailable: { set: true, value: 1 },
    };
    renderObject('pod-disruption-budget', maxUnavailable);
    renderObject('pod-disruption-budget', {
      ...maxUnavailable,
      metadata: { name: 'other', namespace: 'ns' },
    });
    expect(layoutsParsed() - before).toBeLessThanOrEqual(1);
  });

  it("the same data twice: equal objects, each one the caller's own (the layout cache hands out copies)", () => {
    const data = () => ({
      metadata: { name: 'n', namespace: 'ns' },
      selector: { matchLabels: { a: 'b' } },
      minAvailable: { set: true, value: 1 },
      maxUnavailable: { set: false, value: null },
    });
    const first = renderObject('pod-disruption-budget', data());
    (first.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels.a = 'changed';
    const second = renderObject('pod-disruption-budget', data());
    expect(second).not.toBe(first);
    expect(second.spec).toMatchObject({ selector: { matchLabels: { a: 'b' } }, minAvailable: 1 });
    // other data, other object
    const other = renderObject('pod-disruption-budget', { ...data(), minAvailable: { set: true, value: 2 } });
    expect(other.spec).toMatchObject({ minAvailable: 2 });
    // a failure is not cached as a success
    expect(() => renderObject('role', { metadata: { name: 'n', namespace: 'ns' } })).toThrow();
  });
});

describe("a product's own template (defineTemplate)", () => {
  const data = (name: string) => ({
    metadata: { name, namespace: 'ns' },
    deployment: { set: true, value: { replicas: 2 } },
    podTemplate: { set: false, value: {} },
    podDisruptionBudget: { set: false, value: null },
    horizontalPodAutoscaler: { set: false, value: null },
  });

  it('renders from its file in the product folder, values as data, checked against its own shape', () => {
    const obj = renderObject(GATEWAY_PARAMETERS_TEMPLATE, data('x\nkind: Secret'));
    expect(obj.kind).toBe('GatewayParameters');
    expect(obj.metadata.name).toBe('x\nkind: Secret');
    expect(obj.spec).toEqual({ kube: { deployment: { replicas: 2 } } });
  });

  it('fails loudly when the file renders another kind than the definition says', () => {
    const wrong = defineTemplate({ ...GATEWAY_PARAMETERS_TEMPLATE, name: 'wrong', kind: 'Deployment' });
    expect(() => renderObject(wrong, data('a'))).toThrow(
      /template wrong rendered an unexpected object: gateway\.kgateway\.dev\/v1alpha1\/GatewayParameters/,
    );
    const extraKey = defineTemplate({ ...GATEWAY_PARAMETERS_TEMPLATE, name: 'nospec', keys: [] });
    expect(() => renderObject(extraKey, data('a'))).toThrow(/unexpected top-level keys spec/);
  });

  it('takes only a .yaml.hbs path under src/, and names a missing file', () => {
    for (const path of [
      '../etc/passwd.yaml.hbs',
      '/abs/x.yaml.hbs',
      'products/x/t.yaml',
      'products/X/t.yaml.hbs',
    ])
      expect(() => defineTemplate({ ...GATEWAY_PARAMETERS_TEMPLATE, path }), path).toThrow(TemplateError);
    const missing = defineTemplate({
      ...GATEWAY_PARAMETERS_TEMPLATE,
      name: 'm',
      path: 'products/none/m.yaml.hbs',
    });
    expect(() => renderObject(missing, data('a'))).toThrow(/products\/none\/m\.yaml\.hbs/);
  });
});

describe('desired() with hostile values from the cluster', () => {
  it('copies selectors, ServiceAccount and names verbatim and produces only the expected kinds', () => {
    const g = glooHA({ gatewayProxies: { gatewayProxy: { replicas: 2 } } });
    const install = installFor(g, (i) => {
      if (!i.gloo) return;
      i.gloo.selector = { matchLabels: { gloo: HOSTILE[1] as string, [HOSTILE[0] as string]: 'v' } };
      i.gloo.podLabels = { ...i.gloo.selector.matchLabels };
      i.gloo.serviceAccountName = HOSTILE[1];
    });
    const r = desired(g, install);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const kinds = new Set([...r.desired.owned, ...r.desired.patches].map((o) => o.kind));
    expect([...kinds].sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
    ]);
    const pdb = r.desired.owned.find((o) => o.metadata.name === 'gloo-glooha');
    expect((pdb?.spec as { selector: unknown }).selector).toEqual(install.gloo?.selector);
    const binding = r.desired.owned.find((o) => o.kind === 'RoleBinding');
    expect(binding?.subjects).toEqual([{ kind: 'ServiceAccount', name: HOSTILE[1], namespace: NS }]);
  });

  it('never gets hostile names from the spec: validation rejects them first', () => {
    const errorPaths = (spec: object) => {
      const r = desired(glooHA(spec), installFor(glooHA({})));
      return r.ok ? [] : r.errors.map((e) => e.path).sort();
    };
    expect(errorPaths({ target: { namespace: 'a\nkind: Secret' } })).toEqual(['spec.target.namespace']);
    expect(errorPaths({ gatewayProxies: { 'p\n---': { replicas: 2 } } })).toEqual(['spec.gatewayProxies']);
    expect(errorPaths({ gatewayProxies: { p: { replicas: 2, deploymentName: 'x: y' } } })).toEqual([
      'spec.gatewayProxies[p].deploymentName',
    ]);
  });
});
