// The GitOps examples in examples/gitops (docs/helm.md#gitops) point at what the operator writes: the
// ConfigMap <GlooHA name>-helm-values with key values.yaml, for the GlooHA of examples/glooha.yaml;
// the exported values come last (Argo CD) or from valuesFrom without spec.values overriding what the
// operator manages (Flux merges spec.values over valuesFrom).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KIND } from '../../../src/products/gloo/api.js';
import { helmValuesConfigMapName } from '../../../src/products/gloo/desired.js';
import { helmValues } from '../../../src/products/gloo/helm-values.js';
import type { GlooHA } from '../../../src/products/gloo/types.js';

const root = join(import.meta.dirname, '..', '..', '..');
const load = (p: string) => parse(readFileSync(join(root, p), 'utf8'));
const example = load('examples/glooha.yaml') as GlooHA;

/** Dotted paths of every leaf (null included) of a values tree. */
function leaves(v: unknown, prefix = ''): string[] {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return [prefix];
  return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) =>
    leaves(x, prefix ? `${prefix}.${k}` : k),
  );
}

describe('examples/gitops', () => {
  const exported = new Set(leaves(helmValues(example)));
  const cm = helmValuesConfigMapName({ name: example.metadata.name, namespace: 'gloo-system', kind: KIND });

  it('Flux reads the ConfigMap the operator writes, and spec.values sets nothing the operator exports', () => {
    const hr = load('examples/gitops/flux-helmrelease.yaml');
    expect(hr.metadata.namespace).toBe(example.metadata.namespace);
    expect(hr.spec.valuesFrom).toEqual([{ kind: 'ConfigMap', name: cm, valuesKey: 'values.yaml' }]);
    // Allowed overlap: replicas: null on the autoscaled proxy is not set by the operator's values.
    const clash = leaves(hr.spec.values).filter((p) => exported.has(p));
    expect(clash).toEqual(['gatewayProxies.publicGw.kind.deployment.replicas']);
  });

  it("Argo CD lists the exported values last and ignores the autoscaled proxy's replicas", () => {
    const app = load('examples/gitops/argocd-application.yaml');
    const chart = app.spec.sources.find((s: { chart?: string }) => s.chart === 'gloo');
    expect(chart.helm.valueFiles.at(-1)).toMatch(/values-glooha\.yaml$/);
    expect(app.spec.ignoreDifferences).toEqual([
      { group: 'apps', kind: 'Deployment', name: 'public-gw', jsonPointers: ['/spec/replicas'] },
    ]);
    expect(app.spec.syncPolicy.syncOptions).toContain('RespectIgnoreDifferences=true');
  });
});
