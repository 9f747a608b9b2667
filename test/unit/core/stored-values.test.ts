// What the core does with objects the API server stored but the current rules would not admit as
// new input, or that only the observed install shows to be wrong.
import { describe, expect, it } from 'vitest';
import type { GlooHASpec } from '../../../src/products/gloo/types.js';
import { desired } from '../../../src/products/gloo/desired.js';
import { get, glooHA, installFor, run } from './fixtures.js';

describe('a stored driftPolicy "off" (admitted by the old CRD through a YAML 1.2 client)', () => {
  it('is read as ignore, with a DeprecatedValue warning that says what to write', () => {
    const g = glooHA({ driftPolicy: 'off' } as unknown as GlooHASpec);
    const d = run(g);
    expect(d.driftPolicy).toBe('ignore');
    expect(d.warnings).toContainEqual(
      expect.objectContaining({ code: 'DeprecatedValue', path: 'spec.driftPolicy' }),
    );
    expect(d.warnings.find((w) => w.code === 'DeprecatedValue')?.message).toContain('driftPolicy: ignore');
  });

  it('other invalid values are still errors', () => {
    const r = desired(glooHA({ driftPolicy: 'revert' } as unknown as GlooHASpec), installFor(glooHA({})));
    expect(r.ok).toBe(false);
  });
});

describe('matchLabelKeys naming a key of the observed Deployment selector', () => {
  const spec: GlooHASpec = {
    gloo: {
      replicas: 3,
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', matchLabelKeys: ['app'] },
      ],
    },
  };

  it('is a MatchLabelKeyInSelector problem, and the constraints are not applied', () => {
    const g = glooHA(spec);
    const d = run(
      g,
      installFor(g, (i) => {
        if (i.gloo) i.gloo.selector = { matchLabels: { app: 'gloo', gloo: 'gloo' } };
      }),
    );
    expect(d.problems).toContainEqual(
      expect.objectContaining({
        code: 'MatchLabelKeyInSelector',
        path: 'spec.gloo.topologySpreadConstraints[0].matchLabelKeys',
      }),
    );
    const patch = get(d.patches, 'Deployment', 'gloo') as unknown as {
      spec: { template: { spec: Record<string, unknown> } };
    };
    expect(patch.spec.template.spec.topologySpreadConstraints).toBeUndefined();
  });

  it('with a selector that does not use the key, the constraints are applied', () => {
    const d = run(glooHA(spec));
    expect(d.problems).toEqual([]);
    const patch = get(d.patches, 'Deployment', 'gloo') as unknown as {
      spec: { template: { spec: Record<string, unknown> } };
    };
    expect(patch.spec.template.spec.topologySpreadConstraints).toHaveLength(1);
  });
});
