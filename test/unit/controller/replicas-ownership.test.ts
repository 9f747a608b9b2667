// releaseReplicasOf: the operator gives up ownership of spec.replicas only — every other field of its
// own entry, every other manager's entry, and every value stay as they are — and the patch carries the
// resourceVersion it was computed from (a 409 rather than a clobbered entry).
import type { KubernetesObject, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { releaseReplicasOf } from '../../../src/controller/replicas-ownership.js';

const OURS: V1ManagedFieldsEntry = {
  manager: 'glooha-operator',
  operation: 'Apply',
  apiVersion: 'apps/v1',
  time: '2030-01-02T00:00:00Z' as never,
  fieldsType: 'FieldsV1',
  fieldsV1: {
    'f:metadata': { 'f:annotations': { 'f:glooha.io/applied': {}, 'f:glooha.io/min-replicas': {} } },
    'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:affinity': {} } } },
  },
};
const HELM: V1ManagedFieldsEntry = {
  manager: 'helm',
  operation: 'Apply',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:selector': {}, 'f:template': {} } },
};
const SCALE: V1ManagedFieldsEntry = {
  manager: 'kube-controller-manager',
  operation: 'Update',
  subresource: 'scale',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:replicas': {} } },
};

function deployment(managedFields: V1ManagedFieldsEntry[]): KubernetesObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'gloo', namespace: 'gloo-system', resourceVersion: '42', managedFields },
    spec: { replicas: 3 },
  } as KubernetesObject;
}

describe('releaseReplicasOf', () => {
  it("drops f:spec.f:replicas from the operator's Apply entry, keeps the rest of it and every other entry", () => {
    const r = releaseReplicasOf(deployment([HELM, OURS]));
    expect(r?.what).toBe('Deployment gloo-system/gloo');
    const patch = r!.release;
    expect(Object.keys(patch)).toEqual(['apiVersion', 'kind', 'metadata']); // no spec: no value changes
    expect(patch.metadata?.resourceVersion).toBe('42');
    expect(patch.metadata?.annotations).toBeUndefined();
    const [helm, ours] = patch.metadata!.managedFields!;
    expect(helm).toEqual(HELM);
    expect(ours).toEqual({
      ...OURS,
      fieldsV1: {
        'f:metadata': OURS.fieldsV1['f:metadata'],
        'f:spec': { 'f:template': { 'f:spec': { 'f:affinity': {} } } },
      },
    });
  });

  it('drops an emptied f:spec, and an entry left with nothing; [{}] only if no entry is left at all', () => {
    const onlyReplicas = { ...OURS, fieldsV1: { 'f:spec': { 'f:replicas': {} } } };
    const withMeta = {
      ...OURS,
      fieldsV1: { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:replicas': {} } },
    };
    expect(releaseReplicasOf(deployment([withMeta]))?.release.metadata?.managedFields).toEqual([
      { ...OURS, fieldsV1: { 'f:metadata': { 'f:labels': {} } } },
    ]);
    expect(releaseReplicasOf(deployment([HELM, onlyReplicas]))?.release.metadata?.managedFields).toEqual([
      HELM,
    ]);
    expect(releaseReplicasOf(deployment([onlyReplicas]))?.release.metadata?.managedFields).toEqual([{}]);
  });

  it('nothing to do when the operator does not own replicas (HPA-managed proxy, already released, others own it)', () => {
    const noReplicas = { ...OURS, fieldsV1: { 'f:spec': { 'f:template': {} } } };
    expect(releaseReplicasOf(deployment([HELM, noReplicas, SCALE]))).toBeUndefined();
    expect(releaseReplicasOf(deployment([]))).toBeUndefined();
    // Another operation of ours (an Update, a subresource) is not the apply entry: left alone.
    expect(releaseReplicasOf(deployment([{ ...OURS, operation: 'Update' }]))).toBeUndefined();
    expect(releaseReplicasOf(deployment([{ ...OURS, subresource: 'scale' }]))).toBeUndefined();
  });

  it('does not change the live object it was given', () => {
    const live = deployment([OURS]);
    const before = structuredClone(live);
    releaseReplicasOf(live);
    expect(live).toEqual(before);
  });
});
