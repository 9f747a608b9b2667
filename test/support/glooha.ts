// Creating and reading GlooHA (and KgatewayHA) resources as the admin, for integration tests.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../../src/api/constants.js';
import { KGATEWAY_PLURAL } from '../../src/products/kgateway/api.js';
import { PLURAL } from '../../src/products/gloo/api.js';
import type { GlooHA, GlooHASpec } from '../../src/products/gloo/types.js';
import type { KgatewayHA, KgatewayHASpec } from '../../src/products/kgateway/types.js';
import { adminKubeConfig, installCrds } from './cluster.js';
import { eventually, httpStatusOf } from './wait.js';

const custom = () => adminKubeConfig().makeApiClient(CustomObjectsApi);

/** Creates a GlooHA (installing the CRD first: idempotent, and a test file run alone may come first). */
export async function createGlooHA(namespace: string, name: string, spec: GlooHASpec): Promise<void> {
  await installCrds();
  await custom().createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURAL,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'GlooHA', metadata: { name, namespace }, spec },
  });
}

/** Creates a KgatewayHA (the CRDs first, as createGlooHA does). */
export async function createKgatewayHA(namespace: string, name: string, spec: KgatewayHASpec): Promise<void> {
  await installCrds();
  await custom().createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: KGATEWAY_PLURAL,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'KgatewayHA', metadata: { name, namespace }, spec },
  });
}

export async function getKgatewayHA(namespace: string, name: string): Promise<KgatewayHA> {
  return (await custom().getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: KGATEWAY_PLURAL,
    name,
  })) as KgatewayHA;
}

/** A JSON merge patch of a KgatewayHA's spec (null removes a field), as `kubectl patch --type merge`. */
export async function patchKgatewayHASpec(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<void> {
  await custom().patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, namespace, plural: KGATEWAY_PLURAL, name, body: { spec } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

export async function getGlooHA(namespace: string, name: string): Promise<GlooHA> {
  return (await custom().getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURAL,
    name,
  })) as GlooHA;
}

/** Deletes a GlooHA and waits until the API server no longer has it (its finalizer has run). */
export async function deleteGlooHA(namespace: string, name: string): Promise<void> {
  await custom().deleteNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURAL,
    name,
  });
  await eventually(
    'the GlooHA to be gone',
    () => httpStatusOf(getGlooHA(namespace, name)),
    (s) => s === 404,
  );
}
