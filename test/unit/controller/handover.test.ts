// releaseOwnershipPatch: the handover removes only the operator's managedFields entries (and its
// annotations), changes no value, and carries the resourceVersion for optimistic concurrency.
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { handoverOf, releaseOwnershipPatch } from '../../../src/controller/handover.js';

const MANAGERS = ['glooha-operator', 'glooha-operator-handover'];
const ANNOTATION = 'glooha.io/applied';
const ANNOTATIONS = [ANNOTATION];

function live(managers: { manager: string; subresource?: string }[], annotated = true): KubernetesObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'gloo',
      namespace: 'gloo-system',
      resourceVersion: '42',
      annotations: annotated ? { [ANNOTATION]: 'abc', 'deployment.kubernetes.io/revision': '3' } : {},
      managedFields: managers.map((m) => ({
        ...m,
        operation: 'Apply',
        fieldsType: 'FieldsV1',
        fieldsV1: {},
      })),
    },
  };
}

describe('releaseOwnershipPatch', () => {
  it("keeps helm's and the HPA controller's entries and drops the operator's", () => {
    const patch = releaseOwnershipPatch(
      live([
        { manager: 'helm' },
        { manager: 'glooha-operator' },
        { manager: 'glooha-operator-handover' },
        { manager: 'kube-controller-manager', subresource: 'scale' },
      ]),
      MANAGERS,
      ANNOTATIONS,
    );
    expect(patch?.metadata?.managedFields?.map((m) => m.manager)).toEqual([
      'helm',
      'kube-controller-manager',
    ]);
    expect(patch?.metadata?.resourceVersion).toBe('42');
    expect(patch?.metadata?.annotations).toEqual({ [ANNOTATION]: null });
    expect(Object.keys(patch ?? {})).toEqual(['apiVersion', 'kind', 'metadata']); // no spec: no value changes
  });

  it('resets with [{}] when no other manager is left (an empty list would be ignored)', () => {
    const patch = releaseOwnershipPatch(live([{ manager: 'glooha-operator' }]), MANAGERS, ANNOTATIONS);
    expect(patch?.metadata?.managedFields).toEqual([{}]);
  });

  it('does nothing when the operator holds nothing', () => {
    expect(releaseOwnershipPatch(live([{ manager: 'helm' }], false), MANAGERS, ANNOTATIONS)).toBeUndefined();
  });

  it("the GlooHA's handover also drops the replicas floor, so admission no longer refuses Helm the chart's count", () => {
    const d = live([{ manager: 'glooha-operator' }]);
    d.metadata!.annotations = {
      ...d.metadata!.annotations,
      'glooha.io/min-replicas': '3',
      'glooha.io/owner': 'gloo-system/gloo',
      'glooha.io/helm-values': 'gloo-helm-values',
    };
    expect(handoverOf(d)?.release.metadata?.annotations).toEqual({
      'glooha.io/applied': null,
      'glooha.io/min-replicas': null,
      'glooha.io/owner': null,
      'glooha.io/helm-values': null,
    });
  });
});
