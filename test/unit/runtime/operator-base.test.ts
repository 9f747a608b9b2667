import { describe, expect, it } from 'vitest';
import dotI from '@dot-i/k8s-operator';
import { KubeConfig } from '@kubernetes/client-node';
import {
  OperatorBase,
  ResourceEventType,
  refFromMeta,
  type ResourceMeta,
} from '../../../src/operator/base.js';
import { resourcePath } from '../../../src/runtime/rest.js';

function kubeConfig(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: false }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

class Probe extends OperatorBase {
  protected async init(): Promise<void> {}
  get kc() {
    return this.kubeConfig;
  }
  uri(group: string, version: string, plural: string, ns?: string) {
    return this.getCustomResourceApiUri(group, version, plural, ns);
  }
  patchStatus(meta: ResourceMeta, status: unknown) {
    return this.patchResourceStatus(meta, status);
  }
  setFinalizers(meta: ResourceMeta, f: string[]) {
    return this.setResourceFinalizers(meta, f);
  }
}

const meta: ResourceMeta = {
  id: 'gloohas.glooha.solo.io/v1alpha1',
  name: 'x',
  namespace: 'ns',
  resourceVersion: '1',
  apiVersion: 'glooha.solo.io/v1alpha1',
  kind: 'GlooHA',
};

describe('OperatorBase', () => {
  it('extends the dot-i Operator class (ESM default import of a CJS module is its module object)', () => {
    const op = new Probe({ kubeConfig: kubeConfig('https://127.0.0.1:6443') });
    const Operator =
      (dotI as { default?: typeof dotI.default }).default ?? (dotI as unknown as typeof dotI.default);
    expect(typeof Operator).toBe('function');
    expect(op).toBeInstanceOf(Operator);
    expect(ResourceEventType.Added).toBe('ADDED');
  });

  it('uses the KubeConfig it is given, not the default one', () => {
    const kc = kubeConfig('https://10.1.2.3:6443');
    expect(new Probe({ kubeConfig: kc }).kc).toBe(kc);
  });

  it('builds custom resource URIs from the current cluster server', () => {
    const op = new Probe({ kubeConfig: kubeConfig('https://k8s.example:6443/') });
    expect(op.uri('glooha.solo.io', 'v1alpha1', 'gloohas', 'ns')).toBe(
      'https://k8s.example:6443/apis/glooha.solo.io/v1alpha1/namespaces/ns/gloohas',
    );
    expect(op.uri('', 'v1', 'configmaps')).toBe('https://k8s.example:6443/api/v1/configmaps');
  });

  it('status and finalizer writes reject when the request fails (the base returned null)', async () => {
    const op = new Probe({ kubeConfig: kubeConfig('http://127.0.0.1:1') });
    await expect(op.patchStatus(meta, { a: 1 })).rejects.toThrow();
    await expect(op.setFinalizers(meta, [])).rejects.toThrow();
    await expect(op.patchStatus({ ...meta, id: 'configmaps.v1', apiVersion: 'v1' }, {})).rejects.toThrow();
  });

  it('parses the resource out of a ResourceMeta id', () => {
    expect(refFromMeta(meta)).toEqual({ group: 'glooha.solo.io', version: 'v1alpha1', plural: 'gloohas' });
    expect(refFromMeta({ id: 'configmaps.v1' })).toEqual({ group: '', version: 'v1', plural: 'configmaps' });
    expect(() => refFromMeta({ id: 'nodots' })).toThrow();
  });

  it('resource paths', () => {
    const ref = { group: 'apps', version: 'v1', plural: 'deployments' };
    expect(resourcePath(ref)).toBe('/apis/apps/v1/deployments');
    expect(resourcePath(ref, 'gloo-system', 'gloo', 'scale')).toBe(
      '/apis/apps/v1/namespaces/gloo-system/deployments/gloo/scale',
    );
    expect(resourcePath({ group: '', version: 'v1', plural: 'configmaps' }, 'a b')).toBe(
      '/api/v1/namespaces/a%20b/configmaps',
    );
  });
});
