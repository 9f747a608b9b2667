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
    expect(paths({ labels: { 'a b': 'c' } })).toEqual(['metadata.labels']);
    expect(paths({ labels: { a: 'x'.repeat(64) } })).toEqual(['metadata.labels']);
    expect(paths({ labels: { a: '-x' } })).toEqual(['metadata.labels']);
    expect(paths({ labels: { [`${'p'.repeat(254)}/n`]: 'v' } })).toEqual(['metadata.labels']);
    expect(paths({ annotations: { 'a b': 'c' } })).toEqual(['metadata.annotations']);
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

describe('ObjectMeta beyond labels, as apimachinery ValidateObjectMeta checks it', () => {
  const ref = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'owner',
    uid: '7d0c0a1e-0000-4000-8000-000000000001',
  };

  it('finalizers: qualified names, not both orphan and foregroundDeletion (reported without an index)', () => {
    expect(paths({ finalizers: ['a b'] })).toEqual(['metadata.finalizers']);
    expect(paths({ finalizers: ['x'.repeat(64)] })).toEqual(['metadata.finalizers']);
    expect(paths({ finalizers: [`${'x'.repeat(254)}/y`] })).toEqual(['metadata.finalizers']);
    expect(paths({ finalizers: [null] })).toEqual(['metadata.finalizers']); // decoded as ""
    expect(paths({ finalizers: ['orphan', 'foregroundDeletion'] })).toEqual(['metadata.finalizers']);
    expect(paths({ finalizers: ['x'.repeat(63), 'example.com/cleanup', 'orphan'] })).toEqual([]);
  });

  it('ownerReferences: a version, kind, name and uid each, no Event owner, one controller', () => {
    expect(paths({ ownerReferences: [ref] })).toEqual([]);
    expect(paths({ ownerReferences: [{ ...ref, uid: undefined }] })).toEqual([
      'metadata.ownerReferences[0].uid',
    ]);
    expect(paths({ ownerReferences: [ref, { ...ref, name: '' }] })).toEqual([
      'metadata.ownerReferences[1].name',
    ]);
    expect(paths({ ownerReferences: [{ ...ref, apiVersion: 'apps/' }] })).toEqual([
      'metadata.ownerReferences[0].apiVersion',
    ]);
    expect(paths({ ownerReferences: [{ ...ref, apiVersion: 'a/b/c' }] })).toEqual([
      'metadata.ownerReferences[0].apiVersion',
    ]);
    expect(paths({ ownerReferences: [{ ...ref, kind: 'Event' }] })).toEqual(['metadata.ownerReferences[0]']);
    // The API server checks no format of the owner's name: "Bad Name!" is accepted.
    expect(paths({ ownerReferences: [{ ...ref, name: 'Bad Name!' }] })).toEqual([]);
    expect(paths({ ownerReferences: [null] })).toEqual([
      'metadata.ownerReferences[0].apiVersion',
      'metadata.ownerReferences[0].kind',
      'metadata.ownerReferences[0].name',
      'metadata.ownerReferences[0].uid',
    ]);
    const controllers = [
      { ...ref, controller: true },
      { ...ref, name: 'other', controller: true },
    ];
    expect(paths({ ownerReferences: controllers })).toEqual(['metadata.ownerReferences']);
    expect(
      paths({
        ownerReferences: [
          { ...ref, controller: true },
          { ...ref, controller: false },
        ],
      }),
    ).toEqual([]);
  });

  it('ownerReferences decode as Go decodes them: field types, and no unknown fields', () => {
    expect(paths({ ownerReferences: [{ ...ref, controller: 'yes' }] })).toEqual([
      'metadata.ownerReferences.controller',
    ]);
    expect(paths({ ownerReferences: [{ ...ref, uid: 5 }] })).toEqual(['metadata.ownerReferences.uid']);
    expect(paths({ ownerReferences: ['x'] })).toEqual(['metadata.ownerReferences']);
    expect(paths({ ownerReferences: [{ ...ref, bogus: 1 }] })).toEqual(['metadata.ownerReferences[0].bogus']);
  });

  it('generateName without a name: the name the API server makes from it is checked, and used', () => {
    const r = validateGlooHA({ ...haObject(undefined, {}), metadata: { generateName: 'gloo-' } });
    expect(r.ok && r.value.metadata.name).toBe('gloo-xxxxx');
    const long = validateGlooHA({ ...haObject(undefined, {}), metadata: { generateName: 'g'.repeat(100) } });
    expect(long.ok && long.value.metadata.name).toBe(`${'g'.repeat(58)}xxxxx`);
    const bad = validateGlooHA({ ...haObject(undefined, {}), metadata: { generateName: 'Gloo' } });
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual(['metadata.generateName', 'metadata.name']);
    const none = validateGlooHA({ ...haObject(undefined, {}), metadata: {} });
    expect(none.ok ? [] : none.errors.map((e) => e.path)).toEqual(['metadata.name']);
  });
});
