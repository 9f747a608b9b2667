import { describe, expect, it } from 'vitest';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  allOf,
  deepEqual,
  equalIgnoring,
  generationChanged,
  ignoreLeaseRenewals,
  ignoreNoopUpdates,
  ignoreUpdatesOnlyTo,
  statusOnlyUpdate,
} from '../../../src/runtime/filters.js';
import { Store, objectKey, splitKey } from '../../../src/runtime/store.js';
import {
  LAST_APPLIED_ANNOTATION,
  stripLastApplied,
  stripManagedFields,
  stripManagedFieldsOf,
  stripStatus,
  transforms,
} from '../../../src/runtime/transforms.js';
import { obj } from './helpers.js';

describe('Store', () => {
  it('keys objects namespace/name (name alone when cluster-scoped)', () => {
    expect(objectKey(obj('a', '1'))).toBe('ns/a');
    expect(objectKey({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(splitKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(splitKey('node-1')).toEqual({ name: 'node-1' });
  });

  it('upsert emits add, then update with the old object, and nothing for the same resourceVersion', () => {
    const s = new Store();
    const a1 = obj('a', '1');
    const a2 = obj('a', '2', { data: { x: 'y' } });
    expect(s.upsert(a1)).toEqual({ type: 'add', obj: a1 });
    expect(s.upsert(obj('a', '1'))).toBeUndefined();
    expect(s.upsert(a2)).toEqual({ type: 'update', old: a1, obj: a2 });
    expect(s.get('ns/a')).toBe(a2);
    expect(s.getByName('a', 'ns')).toBe(a2);
  });

  it('remove emits a delete only for known objects', () => {
    const s = new Store();
    s.upsert(obj('a', '1'));
    const gone = obj('a', '3');
    expect(s.remove(obj('b', '1'))).toBeUndefined();
    expect(s.remove(gone)).toEqual({ type: 'delete', obj: gone });
    expect(s.size).toBe(0);
  });

  it('replace diffs a re-list against the cache: unchanged objects emit nothing', () => {
    const s = new Store();
    s.replace([obj('keep', '1'), obj('change', '1'), obj('gone', '1')]);
    const deltas = s.replace([obj('keep', '1'), obj('change', '5'), obj('new', '6')]);
    expect(deltas.map((d) => [d.type, d.obj.metadata?.name])).toEqual([
      ['update', 'change'],
      ['add', 'new'],
      ['delete', 'gone'],
    ]);
    const del = deltas.find((d) => d.type === 'delete');
    expect(del).toMatchObject({ finalStateUnknown: true });
    expect(s.keys().sort()).toEqual(['ns/change', 'ns/keep', 'ns/new']);
  });

  it('replace scoped to a namespace leaves other namespaces alone (one store, one watch per namespace)', () => {
    const s = new Store();
    s.replace([obj('a', '1', {}, 'ns1')], 'ns1');
    s.replace([obj('b', '1', {}, 'ns2')], 'ns2');
    expect(s.replace([], 'ns1').map((d) => d.type)).toEqual(['delete']);
    expect(s.keys()).toEqual(['ns2/b']);
    expect(s.list('ns2')).toHaveLength(1);
    expect(s.list('ns1')).toHaveLength(0);
  });

  it('indexes objects and keeps the index current on update and delete', () => {
    const s = new Store();
    s.upsert(obj('a', '1', { metadata: { name: 'a', labels: { app: 'gloo' } } }));
    s.addIndex('app', (o) => (o.metadata?.labels?.app ? [o.metadata.labels.app] : []));
    s.upsert(obj('b', '1', { metadata: { name: 'b', labels: { app: 'gloo' } } }));
    expect(s.byIndex('app', 'gloo').map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    s.upsert(obj('a', '2', { metadata: { name: 'a', labels: { app: 'other' } } }));
    expect(s.byIndex('app', 'gloo').map((o) => o.metadata?.name)).toEqual(['b']);
    expect(s.byIndex('app', 'other').map((o) => o.metadata?.name)).toEqual(['a']);
    s.remove(obj('b', '3'));
    expect(s.byIndex('app', 'gloo')).toEqual([]);
    expect(() => s.byIndex('nope', 'x')).toThrow();
  });
});

function lease(
  rv: string,
  renewTime: string,
  holder = 'gloo-1',
): KubernetesObject & { spec: Record<string, unknown> } {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: 'gloo',
      namespace: 'gloo-system',
      resourceVersion: rv,
      managedFields: [{ manager: holder, time: renewTime } as never],
    },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime, leaseTransitions: 0 },
  };
}

describe('Store: namespace index', () => {
  const inNs = (name: string, namespace: string | undefined, rv = '1'): KubernetesObject => ({
    metadata: { name, ...(namespace === undefined ? {} : { namespace }), resourceVersion: rv },
  });
  it('list(namespace) holds exactly that namespace through adds, moves, deletes and re-lists', () => {
    const s = new Store();
    s.upsert(inNs('a', 'n1'));
    s.upsert(inNs('b', 'n1'));
    s.upsert(inNs('c', 'n2'));
    s.upsert(inNs('node', undefined));
    const names = (ns?: string) =>
      s
        .list(ns)
        .map((o) => o.metadata?.name)
        .sort();
    expect(names('n1')).toEqual(['a', 'b']);
    expect(names('n2')).toEqual(['c']);
    expect(names('')).toEqual([]);
    expect(names('none')).toEqual([]);
    expect(names()).toEqual(['a', 'b', 'c', 'node']);
    s.remove(inNs('a', 'n1'));
    expect(names('n1')).toEqual(['b']);
    // a namespaced re-list touches only its namespace
    const deltas = s.replace([inNs('d', 'n2')], 'n2');
    expect(deltas.map((d) => `${d.type} ${d.obj.metadata?.name}`).sort()).toEqual(['add d', 'delete c']);
    expect(names('n1')).toEqual(['b']);
    expect(names('n2')).toEqual(['d']);
    // the returned array is the caller's: changing it does not change the cache
    s.list('n1').pop();
    expect(names('n1')).toEqual(['b']);
  });
});

describe('cache transforms', () => {
  const withFields = (): KubernetesObject => ({
    metadata: {
      name: 'x',
      managedFields: [
        { manager: 'glooha-operator', operation: 'Apply' },
        { manager: 'kubectl-scale', operation: 'Update', subresource: 'scale' },
      ],
    },
  });
  it('stripManagedFields drops them all; stripManagedFieldsOf keeps the other writers', () => {
    expect(stripManagedFields(withFields()).metadata).toEqual({ name: 'x' });
    expect(stripManagedFieldsOf('glooha-operator')(withFields()).metadata?.managedFields).toEqual([
      { manager: 'kubectl-scale', operation: 'Update', subresource: 'scale' },
    ]);
    const onlyOurs: KubernetesObject = {
      metadata: { name: 'y', managedFields: [{ manager: 'glooha-operator', operation: 'Apply' }] },
    };
    expect(stripManagedFieldsOf('glooha-operator')(onlyOurs).metadata).toEqual({ name: 'y' });
  });
});

describe('transforms', () => {
  it("stripLastApplied drops kubectl's annotation only, and the annotations when nothing else is left", () => {
    const o = (annotations?: Record<string, string>): KubernetesObject => ({
      metadata: { name: 'x', ...(annotations ? { annotations } : {}) },
    });
    expect(stripLastApplied(o({ [LAST_APPLIED_ANNOTATION]: '{}', a: '1' })).metadata).toEqual({
      name: 'x',
      annotations: { a: '1' },
    });
    expect(stripLastApplied(o({ [LAST_APPLIED_ANNOTATION]: '{}' })).metadata).toEqual({ name: 'x' });
    // a look-alike key of another tool stays; no annotations, or none of kubectl's: unchanged
    const lookalike = { 'kubectl.kubernetes.io/restartedAt': 't', 'last-applied-configuration': 'y' };
    expect(stripLastApplied(o({ ...lookalike })).metadata?.annotations).toEqual(lookalike);
    expect(stripLastApplied(o()).metadata).toEqual({ name: 'x' });
    expect(stripLastApplied(o({})).metadata).toEqual({ name: 'x', annotations: {} });
    expect(stripLastApplied({})).toEqual({});
  });

  it('stripStatus drops the status only; transforms applies each in order to the same object', () => {
    const o = { metadata: { name: 'x' }, spec: { a: 1 }, status: { b: 2 } };
    expect(stripStatus(o)).toEqual({ metadata: { name: 'x' }, spec: { a: 1 } });
    expect(stripStatus({ metadata: { name: 'y' } })).toEqual({ metadata: { name: 'y' } });
    const seen: string[] = [];
    const t = transforms<KubernetesObject>(
      (x) => (seen.push('first'), x),
      stripStatus,
      (x) => (seen.push(`then status ${'status' in x}`), x),
    );
    const input = { metadata: { name: 'z' }, status: {} };
    expect(t(input)).toBe(input);
    expect(seen).toEqual(['first', 'then status false']);
  });
});

describe('event filters', () => {
  it('equalIgnoring compares in place: skipped paths, nested differences, undefined keys, arrays, dates', () => {
    const a = {
      metadata: { resourceVersion: '1', managedFields: [1], labels: { x: 'y' } },
      spec: { n: [1, 2] },
    };
    const b = {
      metadata: { resourceVersion: '2', managedFields: [2], labels: { x: 'y' } },
      spec: { n: [1, 2] },
    };
    expect(equalIgnoring(a, b)).toBe(true);
    expect(equalIgnoring(a, { ...b, spec: { n: [2, 1] } })).toBe(false);
    expect(equalIgnoring(a, { ...b, metadata: { ...b.metadata, labels: { x: 'z' } } })).toBe(false);
    expect(equalIgnoring(a, { ...b, extra: undefined })).toBe(true);
    expect(equalIgnoring(a, { ...b, extra: 1 })).toBe(false);
    expect(
      equalIgnoring({ spec: { renewTime: 1, holder: 'a' } }, { spec: { renewTime: 2, holder: 'a' } }, [
        'spec.renewTime',
      ]),
    ).toBe(true);
    expect(
      equalIgnoring({ spec: { renewTime: 1, holder: 'a' } }, { spec: { renewTime: 2, holder: 'b' } }, [
        'spec.renewTime',
      ]),
    ).toBe(false);
    expect(equalIgnoring({ t: new Date(1) }, { t: new Date(2) })).toBe(false);
    expect(equalIgnoring({ t: new Date(1) }, { t: new Date(1) })).toBe(true);
    // a path into a non-object is no skip
    expect(equalIgnoring({ spec: 1 }, { spec: 2 }, ['spec.renewTime'])).toBe(false);
    // the compared objects are not changed
    expect(a.metadata.managedFields).toEqual([1]);
  });

  it('deepEqual compares JSON structurally (key order free, undefined keys ignored)', () => {
    expect(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(deepEqual({ a: 1, x: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual({ a: null }, { a: {} })).toBe(false);
    expect(deepEqual({ a: [] }, { a: {} })).toBe(false);
  });

  it('ignoreNoopUpdates drops updates that only bump resourceVersion/managedFields', () => {
    const a = obj('a', '1', {
      metadata: { name: 'a', managedFields: [{ manager: 'x', time: 't1' } as never] },
    });
    const bumped = obj('a', '2', {
      metadata: { name: 'a', managedFields: [{ manager: 'x', time: 't2' } as never] },
    });
    const changed = obj('a', '3', { data: { k: 'v' } });
    expect(ignoreNoopUpdates({ type: 'update', old: a, obj: bumped })).toBe(false);
    expect(ignoreNoopUpdates({ type: 'update', old: a, obj: changed })).toBe(true);
    expect(ignoreNoopUpdates({ type: 'add', obj: a })).toBe(true);
    expect(ignoreNoopUpdates({ type: 'delete', obj: a })).toBe(true);
    // the inputs are not modified
    expect(a.metadata?.resourceVersion).toBe('1');
  });

  it('ignoreLeaseRenewals drops renewals but passes a change of holder', () => {
    const l1 = lease('1', '2024-01-01T00:00:00.000000Z');
    const renewed = lease('2', '2024-01-01T00:00:02.000000Z');
    const newHolder = lease('3', '2024-01-01T00:00:04.000000Z', 'gloo-2');
    expect(ignoreLeaseRenewals({ type: 'update', old: l1, obj: renewed })).toBe(false);
    expect(ignoreLeaseRenewals({ type: 'update', old: renewed, obj: newHolder })).toBe(true);
    expect(ignoreNoopUpdates({ type: 'update', old: l1, obj: renewed })).toBe(true);
  });

  it('ignoreUpdatesOnlyTo takes dotted paths or segment arrays (for keys containing dots)', () => {
    const a = obj('a', '1', { metadata: { name: 'a', annotations: { 'x.io/ts': '1', keep: 'k' } } });
    const b = obj('a', '2', { metadata: { name: 'a', annotations: { 'x.io/ts': '2', keep: 'k' } } });
    expect(
      ignoreUpdatesOnlyTo([['metadata', 'annotations', 'x.io/ts']])({ type: 'update', old: a, obj: b }),
    ).toBe(false);
    expect(ignoreUpdatesOnlyTo(['metadata.annotations.x.io/ts'])({ type: 'update', old: a, obj: b })).toBe(
      true,
    );
    expect(equalIgnoring({ spec: { a: 1 } }, { spec: { a: 2 } }, ['spec.a'])).toBe(true);
    expect(equalIgnoring({ spec: 1 }, { spec: 2 }, ['spec.a'])).toBe(false);
  });

  it('generationChanged passes spec edits, deletion and label changes, drops status-only updates', () => {
    const base = obj('a', '1', { metadata: { name: 'a', generation: 1 }, status: { x: 1 } });
    const statusOnly = obj('a', '2', { metadata: { name: 'a', generation: 1 }, status: { x: 2 } });
    const spec = obj('a', '3', { metadata: { name: 'a', generation: 2 } });
    const deleting = obj('a', '4', { metadata: { name: 'a', generation: 1, deletionTimestamp: new Date() } });
    const labelled = obj('a', '5', { metadata: { name: 'a', generation: 1, labels: { a: 'b' } } });
    expect(generationChanged({ type: 'update', old: base, obj: statusOnly })).toBe(false);
    expect(generationChanged({ type: 'update', old: base, obj: spec })).toBe(true);
    expect(generationChanged({ type: 'update', old: base, obj: deleting })).toBe(true);
    expect(generationChanged({ type: 'update', old: base, obj: labelled })).toBe(true);
    expect(allOf(generationChanged, ignoreNoopUpdates)({ type: 'update', old: base, obj: statusOnly })).toBe(
      false,
    );
  });

  it('statusOnlyUpdate: an update of the status alone (resourceVersion and managedFields aside), nothing else', () => {
    const base = obj('a', '1', { spec: { replicas: 1 }, status: { x: 1 } });
    const status = obj('a', '2', {
      metadata: { name: 'a', managedFields: [{ manager: 'kcm' }] },
      spec: { replicas: 1 },
      status: { x: 2 },
    });
    const specToo = obj('a', '3', { spec: { replicas: 2 }, status: { x: 2 } });
    const labelToo = obj('a', '4', {
      metadata: { name: 'a', labels: { a: 'b' } },
      spec: { replicas: 1 },
      status: { x: 2 },
    });
    const firstStatus = obj('a', '5', { spec: { replicas: 1 } });
    expect(statusOnlyUpdate({ type: 'update', old: base, obj: status })).toBe(true);
    expect(statusOnlyUpdate({ type: 'update', old: firstStatus, obj: base })).toBe(true); // status appears
    expect(statusOnlyUpdate({ type: 'update', old: base, obj: specToo })).toBe(false);
    expect(statusOnlyUpdate({ type: 'update', old: base, obj: labelToo })).toBe(false);
    expect(statusOnlyUpdate({ type: 'add', obj: base })).toBe(false);
    expect(statusOnlyUpdate({ type: 'delete', obj: base })).toBe(false);
  });
});
