// Specs the TypeScript validator used to accept and the API server rejects (or that reached the
// output unvalidated): each case here failed before the fixes of issue 11.
import { describe, expect, it } from 'vitest';
import { validateGlooHA } from '../../../src/products/gloo/validate.js';
import { glooHAObject } from './rule-cases.js';

const errorsOf = (input: unknown) => {
  const r = validateGlooHA(input);
  return r.ok ? [] : r.errors.map((e) => e.path);
};
const specErrors = (spec: unknown) => errorsOf(glooHAObject(spec));

describe('integers are int32, as format: int32 says', () => {
  it('rejects replicas 2147483648 and maxSkew 4294967296, accepts 2147483647', () => {
    expect(specErrors({ gloo: { replicas: 2147483648 } })).toEqual(['spec.gloo.replicas']);
    expect(
      specErrors({
        gloo: {
          topologySpreadConstraints: [
            { maxSkew: 4294967296, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
          ],
        },
      }),
    ).toEqual(['spec.gloo.topologySpreadConstraints[0].maxSkew']);
    expect(
      specErrors({
        gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 2, maxReplicas: 2147483647 } } },
      }),
    ).toEqual([]);
    expect(specErrors({ gloo: { replicas: -2147483649 } })).toContain('spec.gloo.replicas');
  });
});

describe('unknown fields', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'])(
    'named like Object.prototype.%s are unknown, not members',
    (name) => {
      expect(specErrors({ gloo: { [name]: 1 } })).toEqual([`spec.gloo.${name}`]);
      expect(specErrors(JSON.parse(`{"${name}": {"replicas": 1}}`))).toEqual([`spec.${name}`]);
    },
  );

  it('with a null value are still unknown (the server rejects them under strict field validation)', () => {
    expect(specErrors({ gloo: { replica: null } })).toEqual(['spec.gloo.replica']);
    expect(specErrors({ nope: null })).toEqual(['spec.nope']);
    // A known field set to null is dropped, as the API server prunes it.
    expect(specErrors({ gloo: { replicas: null }, discovery: null })).toEqual([]);
  });
});

describe('__proto__ cannot smuggle an unvalidated subtree in', () => {
  // What yaml's toJS (and JSON.parse) produce for `spec: {__proto__: {gloo: ...}}`: an own property.
  const smuggled = JSON.parse(
    '{"__proto__": {"gloo": {"replicas": 3, "topologySpreadConstraints": [{"maxSkew": -5, "topologyKey": "zone", "whenUnsatisfiable": "Whatever"}]}}}',
  ) as Record<string, unknown>;

  it('is an unknown field, and its contents are neither validated as nor become spec.gloo', () => {
    const result = validateGlooHA(glooHAObject(smuggled));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.path)).toEqual(['spec.__proto__']);
  });

  it('the defaulted spec has no inherited fields', () => {
    const withGood = { ...{ gloo: { replicas: 2 } } };
    Object.defineProperty(withGood, '__proto__', {
      value: { gloo: { replicas: 99 } },
      enumerable: true,
    });
    const r = validateGlooHA(glooHAObject(withGood));
    expect(r.ok).toBe(false);
    const plain = validateGlooHA(glooHAObject({ gloo: { replicas: 2 } }));
    expect(plain.ok && Object.getPrototypeOf(plain.value.spec)).toBe(Object.prototype);
  });
});

describe('maxLength counts code points, as the API server does', () => {
  it('a 4-character percentage made of astral characters is 4 characters, not 8', () => {
    // minAvailable is int-or-string with maxLength 4: "😀😀😀😀" is 4 code points (8 UTF-16 units).
    const errors = validateGlooHA(
      glooHAObject({ gloo: { podDisruptionBudget: { minAvailable: '😀😀😀😀' } } }),
    );
    expect(errors.ok).toBe(false);
    if (errors.ok) return;
    // Rejected by the percentage rule, not by maxLength.
    expect(errors.errors.map((e) => e.ruleId ?? e.message)).toEqual(['pdb-min-available-format']);
  });

  it('a 63-code-point name passes the label-length limit, 64 does not', () => {
    const key = (n: number) => `a${'😀'.repeat(n - 1)}`;
    const tsc = (k: string) => ({
      gloo: {
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }],
      },
      target: { selector: { matchLabels: { app: k } } },
    });
    expect(specErrors(tsc(key(63)))).toEqual([]);
    expect(specErrors(tsc(key(64)))).toEqual(['spec.target.selector.matchLabels[app]']);
  });
});

describe('leader-election bounds', () => {
  it('3ms/2ms/1ms is rejected on both short fields, and the message says why', () => {
    const r = validateGlooHA(
      glooHAObject({
        gloo: { leaderElection: { leaseDuration: '3ms', renewDeadline: '2ms', retryPeriod: '1ms' } },
      }),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.ruleId)).toEqual(['renew-deadline-min', 'retry-period-min']);
    expect(r.errors[0]?.message).toContain('at least 1s');
  });

  it('the largest syntax-valid durations are reported by rule, never crash the arithmetic', () => {
    const r = validateGlooHA(
      glooHAObject({
        gloo: {
          leaderElection: {
            leaseDuration: '999999h999999h99999h',
            renewDeadline: '999999h999999h9999h',
            retryPeriod: '999999h',
          },
        },
      }),
    );
    expect(r.ok ? [] : r.errors.map((e) => e.ruleId)).toEqual(['lease-duration-max', 'retry-period-max']);
  });
});

describe('Kubernetes validation of topology spread fields', () => {
  const spread = (t: Record<string, unknown>) => ({
    gloo: { topologySpreadConstraints: [{ maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', ...t }] },
  });
  it.each([
    ['empty topologyKey', { topologyKey: '' }, 'spec.gloo.topologySpreadConstraints[0].topologyKey'],
    [
      'topologyKey with a space',
      { topologyKey: 'a b' },
      'spec.gloo.topologySpreadConstraints[0].topologyKey',
    ],
    [
      'topologyKey ending in a dash',
      { topologyKey: 'zone-' },
      'spec.gloo.topologySpreadConstraints[0].topologyKey',
    ],
    [
      'a 64-character name',
      { topologyKey: `x/${'a'.repeat(64)}` },
      'spec.gloo.topologySpreadConstraints[0].topologyKey',
    ],
    [
      'matchLabelKeys with a space',
      { topologyKey: 'zone', matchLabelKeys: ['a b'] },
      'spec.gloo.topologySpreadConstraints[0].matchLabelKeys[0]',
    ],
    [
      'an empty matchLabelKey',
      { topologyKey: 'zone', matchLabelKeys: ['pod-template-hash', ''] },
      'spec.gloo.topologySpreadConstraints[0].matchLabelKeys[1]',
    ],
  ])('rejects %s', (_name, t, path) => {
    expect(specErrors(spread(t))).toEqual([path]);
  });
  it('accepts qualified names', () => {
    expect(
      specErrors(
        spread({ topologyKey: 'topology.kubernetes.io/zone', matchLabelKeys: ['pod-template-hash'] }),
      ),
    ).toEqual([]);
  });
});

describe('metadata', () => {
  it('rejects a namespace that is not a DNS label (it would be written into the output)', () => {
    const g = { ...glooHAObject({}), metadata: { name: 'x', namespace: 'x\n---\nkind: Secret' } };
    expect(errorsOf(g)).toEqual(['metadata.namespace']);
    expect(errorsOf({ ...g, metadata: { name: 'x', namespace: 'Gloo' } })).toEqual(['metadata.namespace']);
    expect(errorsOf({ ...g, metadata: { name: 'x', namespace: 'gloo-system' } })).toEqual([]);
  });

  it('rejects a name with a newline', () => {
    expect(errorsOf({ ...glooHAObject({}), metadata: { name: 'x\nkind: Secret' } })).toContain(
      'metadata.name',
    );
  });
});

describe('driftPolicy', () => {
  it('accepts ignore, and explains what to write for off or an unquoted off (false)', () => {
    expect(specErrors({ driftPolicy: 'ignore' })).toEqual([]);
    for (const off of ['off', false]) {
      const r = validateGlooHA(glooHAObject({ driftPolicy: off }));
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.errors[0]?.path).toBe('spec.driftPolicy');
      expect(r.errors[0]?.message).toContain('write driftPolicy: ignore');
    }
  });
});
