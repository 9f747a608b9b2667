// ObjectMeta as the API server validates it (apimachinery ValidateObjectMeta): `glooha render` used to
// accept label keys and values, annotation sizes and metadata fields the API server refuses.
import { describe, expect, it } from 'vitest';

import { validateGlooHA } from '../../../src/products/gloo/validate.js';
import { validateKgatewayHA } from '../../../src/products/kgateway/validate.js';
import { haObject } from './rule-cases.js';
import { KGATEWAY_KIND } from '../../../src/products/kgateway/api.js';

const withMeta = (meta: Record<string, unknown>, kind?: typeof KGATEWAY_KIND) => {
  const o = haObject(kind, {});
  return { ...o, metadata: { name: 'ha', ...meta } };
};
const paths = (meta: Record<string, unknown>) => {
  const r = validateGlooHA(withMeta(meta));
  return r.ok ? [] : r.errors.map((e) => e.path);
};

describe('ObjectMeta', () => {
  it('refuses what the API server refuses', () => {
    expect(paths({ labels: { 'a b': 'c' } })).toEqual(['metadata.labels[a b]']);
    expect(paths({ labels: { a: 'x'.repeat(64) } })).toEqual(['metadata.labels[a]']);
    expect(paths({ labels: { a: '-x' } })).toEqual(['metadata.labels[a]']);
    expect(paths({ annotations: { a: 'x'.repeat(256 * 1024) } })).toEqual(['metadata.annotations']);
    expect(paths({ bogus: 1 })).toEqual(['metadata.bogus']);
    const k = validateKgatewayHA(withMeta({ labels: { 'a b': 'c' } }, KGATEWAY_KIND));
    expect(k.ok).toBe(false);
  });

  it('accepts what the API server accepts', () => {
    expect(
      paths({
        labels: { 'app.kubernetes.io/name': 'gloo', team: '', 'example.com/x_y': 'a.b-c_d' },
        annotations: { 'example.com/note': 'x'.repeat(200 * 1024), 'A/b': 'upper-case prefix is lowered' },
        generateName: 'ha-',
        finalizers: ['glooha.io/handover'],
      }),
    ).toEqual([]);
  });
});

describe('ObjectMeta fields decoded by type, as the API server decodes them before validating', () => {
  it('refuses a field of the wrong type, alone (decoding fails the request before anything else)', () => {
    expect(paths({ generation: 9223372036854775808n })).toEqual(['metadata.generation']);
    expect(paths({ generation: -9223372036854775809n })).toEqual(['metadata.generation']);
    expect(paths({ generation: 1.5 })).toEqual(['metadata.generation']);
    expect(paths({ deletionGracePeriodSeconds: 'x' })).toEqual(['metadata.deletionGracePeriodSeconds']);
    expect(paths({ creationTimestamp: 'yesterday' })).toEqual(['metadata.creationTimestamp']);
    expect(paths({ labels: { a: 1 } })).toEqual(['metadata.labels']);
    expect(paths({ annotations: { a: true } })).toEqual(['metadata.annotations']);
    expect(paths({ finalizers: [1] })).toEqual(['metadata.finalizers']);
    // Beyond int64 go-yaml reads a float: -9223372036854775809 is the number -2^63, not an integer.
    expect(paths({ generation: -(2 ** 63) })).toEqual(['metadata.generation']);
    // Only the first field that fails, in the input's order, as Go's decoder reports it.
    expect(paths({ deletionGracePeriodSeconds: 'x', labels: { a: 1 } })).toEqual([
      'metadata.deletionGracePeriodSeconds',
    ]);
  });

  it('accepts every int64 exactly, nulls, and a null label value (decoded as "")', () => {
    expect(paths({ generation: 9223372036854775807n })).toEqual([]);
    expect(paths({ deletionGracePeriodSeconds: 9007199254740993n })).toEqual([]);
    expect(paths({ generation: null, creationTimestamp: '2026-12-05T16:03:48Z' })).toEqual([]);
    expect(paths({ labels: { team: null } })).toEqual([]);
  });
});
