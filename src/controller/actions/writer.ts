// The writes a reconcile can make, as one small interface: the actions depend on it, the unit tests
// fake it, and kubeWriter() sends them through the operator's one transport (fenced there), each with
// the reconcile's AbortSignal — its leader term's — so a term that ends cuts its writes off.
import { PatchStrategy, type CoreV1Event, type KubernetesObject } from '@kubernetes/client-node';
import { MANAGER } from '../../api/constants.js';
import type { HAObject, HAStatus } from '../../api/types.js';
import { errorStatus, type KubeClient } from '../../kube/client.js';
import { resourcePath, type ResourceRef } from '../../kube/paths.js';
import { kindInfo, type KindInfo } from '../kinds.js';
import type { ObjectRef } from '../plan-types.js';

export interface ObjectWriter {
  /**
   * Server-side apply, forcing ownership of the fields in `body` for `fieldManager`. Returns the
   * resourceVersion of the object the API server returned.
   */
  apply(body: KubernetesObject, fieldManager: string, signal: AbortSignal): Promise<string | undefined>;
  /**
   * A JSON merge patch (metadata-only changes such as releasing field ownership). Returns the
   * resourceVersion of the object the API server returned.
   */
  mergePatch(body: KubernetesObject, signal: AbortSignal): Promise<string | undefined>;
  /** Deletes; an object already gone is not an error. */
  delete(ref: ObjectRef, signal: AbortSignal): Promise<void>;
  /**
   * Replaces the finalizer list, based on the object's resourceVersion (409 if it moved since), and
   * returns the resourceVersion the write produced. An object already gone (404: our cache still showed
   * it) needs no finalizer change: not an error (undefined).
   */
  setFinalizers(g: HAObject, finalizers: string[], signal: AbortSignal): Promise<string | undefined>;
  /**
   * Replaces the status subresource, based on the object's resourceVersion (409 if it moved since), and
   * returns the resourceVersion the write produced. An object already gone (404) has nobody to report
   * to: not an error (undefined).
   */
  writeStatus(g: HAObject, status: HAStatus, signal: AbortSignal): Promise<string | undefined>;
  createEvent(event: CoreV1Event, signal: AbortSignal): Promise<void>;
}

/**
 * A writer for one controller: `resource` is its kind's (finalizers, status), `kinds` the kinds its
 * product writes besides those every product does (see kinds.ts).
 */
export function kubeWriter(
  client: KubeClient,
  resource: ResourceRef,
  kinds: readonly KindInfo[] = [],
): ObjectWriter {
  return {
    async apply(body, fieldManager, signal) {
      const info = kindInfo(body.kind ?? '', kinds);
      // force: a controller owns its fields outright (controller-runtime's ForceOwnership); without it
      // an apply conflicts with Helm's or kubectl's earlier writes of the same field.
      const applied = await client.request<KubernetesObject>(
        'PATCH',
        resourcePath(info, body.metadata?.namespace, body.metadata?.name),
        {
          query: { fieldManager, force: true },
          body,
          contentType: PatchStrategy.ServerSideApply,
          signal,
        },
      );
      return applied?.metadata?.resourceVersion;
    },
    async mergePatch(body, signal) {
      const info = kindInfo(body.kind ?? '', kinds);
      const patched = await client.request<KubernetesObject>(
        'PATCH',
        resourcePath(info, body.metadata?.namespace, body.metadata?.name),
        {
          query: { fieldManager: MANAGER },
          body,
          contentType: PatchStrategy.MergePatch,
          signal,
        },
      );
      return patched?.metadata?.resourceVersion;
    },
    async delete(ref, signal) {
      await orUndefinedIfNotFound(
        client.request('DELETE', resourcePath(kindInfo(ref.kind, kinds), ref.namespace, ref.name), {
          signal,
        }),
      );
    },
    async setFinalizers(g, finalizers, signal) {
      // The resourceVersion makes this fail with 409 rather than drop a finalizer someone added since.
      const updated = await orUndefinedIfNotFound(
        client.request<HAObject>('PATCH', resourcePath(resource, g.metadata.namespace, g.metadata.name), {
          body: { metadata: { finalizers, resourceVersion: g.metadata.resourceVersion } },
          contentType: PatchStrategy.MergePatch,
          signal,
        }),
      );
      return updated?.metadata?.resourceVersion;
    },
    async writeStatus(g, status, signal) {
      // The status is computed from the object at this resourceVersion. Setting it in the patch makes
      // the API server apply the patch only to that version (409 otherwise), so a write that arrives
      // late — delayed on the network, or from a replica whose term has ended — cannot replace a newer
      // status with an older one. ('test' would fail with 422, a conflict is what it is.)
      const updated = await orUndefinedIfNotFound(
        client.request<HAObject>(
          'PATCH',
          resourcePath(resource, g.metadata.namespace, g.metadata.name, 'status'),
          {
            body: [
              { op: 'replace', path: '/metadata/resourceVersion', value: g.metadata.resourceVersion },
              { op: 'add', path: '/status', value: status },
            ],
            contentType: PatchStrategy.JsonPatch,
            signal,
          },
        ),
      );
      return updated?.metadata?.resourceVersion;
    },
    async createEvent(event, signal) {
      await client.request(
        'POST',
        resourcePath({ group: '', version: 'v1', plural: 'events' }, event.metadata.namespace),
        {
          body: event,
          signal,
        },
      );
    },
  };
}

/** Awaits `request`; a 404 (the object is already gone) is not an error. */
async function orUndefinedIfNotFound<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (err) {
    if (errorStatus(err) !== 404) throw err;
    return undefined;
  }
}
