// The operator base: `@dot-i/k8s-operator`'s Operator (the project's chosen base) with every part
// that falls short replaced by src/runtime (informer → work queue → reconcile). What is kept: the
// class shape and lifecycle (`start()` runs `init()`, which registers watches; `stop()` ends them),
// `watchResource`'s signature and ResourceEvent/ResourceMeta types, and the helper names. What is
// overridden, and why, is noted on each member. The base package is 1.3.9, built for client-node
// 0.20; npm `overrides` puts it on the project's client-node 1.4, whose API changed underneath it.
import dotI, {
  ResourceEventType,
  ResourceMetaImpl,
  type ResourceEvent,
  type ResourceMeta,
} from '@dot-i/k8s-operator';
import {
  ApiextensionsV1Api,
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  loadYaml,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
  type V1CustomResourceDefinition,
  type V1CustomResourceDefinitionVersion,
} from '@kubernetes/client-node';
import { readFile } from 'node:fs/promises';
import { silentLogger, type Logger } from '../log.js';
import type { Clock } from '../runtime/clock.js';
import { Controller, type KeyMapper } from '../runtime/controller.js';
import type { EventFilter } from '../runtime/filters.js';
import { Informer, type InformerOptions } from '../runtime/informer.js';
import type { RateLimiter } from '../runtime/ratelimit.js';
import { apiVersionOf, kubeRequest, resourcePath, type ResourceRef } from '../runtime/rest.js';
import { objectKey } from '../runtime/store.js';
import type { ShutDownOptions, WorkContext, WorkResult } from '../runtime/workqueue.js';
import type { WorkqueueMetrics } from '../runtime/workqueue-metrics.js';

// The package is CommonJS with `exports.default = Operator` (and `__esModule`). Node's ESM loader makes
// the default import the whole `module.exports`, so the class is `dotI.default` (checked on Node 20).
// Bundler-style loaders that honour `__esModule` (vitest's default `interopDefault`) hand over the
// class itself, whose `.default` is undefined: accept both instead of breaking under the test runner.
const Operator: typeof dotI.default =
  (dotI as { default?: typeof dotI.default }).default ?? (dotI as unknown as typeof dotI.default);

export { ResourceEventType, type ResourceEvent, type ResourceMeta };

export interface OperatorBaseOptions {
  /** Used for everything (the base class would load the default kubeconfig). */
  kubeConfig: KubeConfig;
  logger?: Logger;
  /** Name of the primary controller (logs, metrics). Default 'operator'. */
  name?: string;
  /** Namespaces `watch()` watches by default (namespaced mode); empty or omitted = all namespaces. */
  namespaces?: readonly string[];
  /** Keys reconciled concurrently by the primary controller (default 4). */
  concurrency?: number;
  /** Re-queue every primary key this often (default 10 min; 0 = never). */
  resyncPeriodMs?: number;
  /** A fresh limiter per start (queues are rebuilt on restart); default controller-runtime's. */
  rateLimiter?: () => RateLimiter;
  metrics?: WorkqueueMetrics;
  clock?: Clock;
}

export interface WatchSpec<T extends KubernetesObject> extends Omit<
  InformerOptions<T>,
  'transport' | 'logger' | 'clock'
> {
  /** Keys to reconcile for an object's events; default its own key (the primary resource). */
  mapToKeys?: KeyMapper<T>;
  /** Default `ignoreNoopUpdates`. Compose with `allOf` (e.g. with `ignoreLeaseRenewals`). */
  filter?: EventFilter<T>;
  /** Include in the periodic resync (default: when `mapToKeys` is not set). */
  resync?: boolean;
}

export abstract class OperatorBase extends Operator {
  protected readonly log: Logger;
  protected customObjects: CustomObjectsApi;
  private readonly opts: OperatorBaseOptions;
  private primary?: Controller;
  private readonly extraControllers: Controller[] = [];
  private starting = false;

  constructor(opts: OperatorBaseOptions) {
    const log = opts.logger ?? silentLogger;
    // The base constructor calls `new KubeConfig().loadFromDefault()` and builds `k8sApi` from it; it
    // cannot be skipped, so both are replaced right after with the explicit KubeConfig we were given.
    super(log);
    this.opts = opts;
    this.log = log;
    this.kubeConfig = opts.kubeConfig;
    this.k8sApi = this.kubeConfig.makeApiClient(CoreV1Api);
    this.customObjects = this.kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /** The primary controller's queue (e.g. to enqueue a key from outside an informer). Set while started. */
  protected get queue() {
    if (!this.primary) throw new Error('operator not started');
    return this.primary.queue;
  }

  /**
   * Reconciles one key of the primary controller (what `watch()` enqueues). Read state from the
   * informers' caches, apply the difference, return `{ requeueAfterMs }` for time-based follow-ups;
   * throw to retry with backoff. `ctx.signal` fires when the operator stops with `abort` (lost lease).
   */
  protected reconcile(key: string, _ctx: WorkContext): Promise<WorkResult | void> {
    return Promise.reject(
      new Error(`${this.constructor.name} enqueued ${key} but does not override reconcile()`),
    );
  }

  /**
   * Watches a resource and feeds the keys of its events into the primary controller's queue. Starts
   * listing immediately; `start()` waits for every cache before the first reconcile. Call from init().
   * Returns the informer: its `store` is the cache reconcile reads from.
   */
  protected async watch<T extends KubernetesObject>(spec: WatchSpec<T>): Promise<Informer<T>> {
    const controller = this.primary;
    if (!controller) throw new Error('watch() is for init(): the operator is not starting');
    const { mapToKeys, filter, resync, ...informerOpts } = spec;
    const informer = new Informer<T>(this.kubeConfig, {
      ...informerOpts,
      namespaces: informerOpts.namespaces ?? this.opts.namespaces,
      logger: this.log,
      clock: this.opts.clock,
    });
    controller.watch(informer, { mapToKeys, filter, resync });
    informer.start();
    return informer;
  }

  /**
   * Overridden: the base runs `init()` and returns. Here a fresh primary controller is built first (so
   * the operator can be started again after `stop()`, e.g. when it regains leadership), then, after
   * `init()` registered the watches, every cache is synced before the workers start.
   */
  override async start(): Promise<void> {
    if (this.primary || this.starting) throw new Error('operator already started');
    this.starting = true;
    try {
      this.primary = new Controller({
        name: this.opts.name ?? 'operator',
        reconcile: (key, ctx) => this.reconcile(key, ctx),
        concurrency: this.opts.concurrency ?? 4,
        resyncPeriodMs: this.opts.resyncPeriodMs ?? 10 * 60_000,
        rateLimiter: this.opts.rateLimiter?.(),
        metrics: this.opts.metrics,
        logger: this.log,
        clock: this.opts.clock,
      });
      await super.start(); // calls init()
      const pending = this.extraControllers.filter((c) => !c.isStarted());
      await Promise.all([this.primary.start(), ...pending.map((c) => c.start())]);
    } finally {
      this.starting = false;
    }
  }

  /**
   * Overridden: the base aborts its watch requests (synchronously, and nothing else). Here the
   * informers' watches are aborted, the queues stop taking keys and in-flight reconciles are awaited —
   * with `abort: true` they are cancelled through their AbortSignal first (a leader that lost its lease
   * must not keep writing). Resolves when nothing is running any more.
   */
  override async stop(opts: ShutDownOptions = {}): Promise<void> {
    super.stop(); // no-op for us (its watchRequests stay empty), kept for the lifecycle contract
    const controllers = [...(this.primary ? [this.primary] : []), ...this.extraControllers];
    this.primary = undefined;
    this.extraControllers.length = 0;
    await Promise.all(controllers.map((c) => c.stop(opts)));
  }

  /**
   * Overridden: the base restarts a closed watch without a resourceVersion (every restart re-delivers
   * every object as ADDED), calls `process.exit(1)` on any watch error, and pushes every event through
   * an unbounded async queue one at a time, without coalescing. Here the resource gets an informer
   * (resumes from its resourceVersion, re-lists on 410, retries errors with backoff forever) feeding
   * keys into a work queue of its own: `onEvent` runs at most once at a time per object, bursts
   * collapse into one call, and the event it gets describes the object's state when it runs (ADDED the
   * first time a key is handled, then MODIFIED, DELETED with the last known state once it is gone).
   * Updates that change only resourceVersion/managedFields are dropped. A throwing `onEvent` is retried
   * with backoff (the base's queue just logged it).
   */
  protected override async watchResource(
    group: string,
    version: string,
    plural: string,
    onEvent: (event: ResourceEvent) => Promise<void>,
    namespace?: string,
  ): Promise<void> {
    const ref: ResourceRef = { group, version, plural };
    const id = `${plural}.${apiVersionOf(ref)}`;
    const informer = new Informer<KubernetesObject>(this.kubeConfig, {
      ...ref,
      namespaces: namespace ? [namespace] : undefined,
      logger: this.log,
      clock: this.opts.clock,
    });
    const delivered = new Set<string>();
    const tombstones = new Map<string, KubernetesObject>();
    informer.on('delete', (obj) => tombstones.set(objectKey(obj), obj));
    const controller = new Controller({
      name: id,
      concurrency: this.opts.concurrency ?? 4,
      rateLimiter: this.opts.rateLimiter?.(),
      metrics: this.opts.metrics,
      logger: this.log,
      clock: this.opts.clock,
      reconcile: async (key) => {
        const obj = informer.store.get(key);
        if (obj) {
          tombstones.delete(key);
          const type = delivered.has(key) ? ResourceEventType.Modified : ResourceEventType.Added;
          await onEvent({ meta: ResourceMetaImpl.createWithPlural(plural, obj), object: obj, type });
          delivered.add(key);
          return;
        }
        const last = tombstones.get(key);
        if (!last || !delivered.has(key)) {
          tombstones.delete(key);
          return;
        }
        await onEvent({
          meta: ResourceMetaImpl.createWithPlural(plural, last),
          object: last,
          type: ResourceEventType.Deleted,
        });
        tombstones.delete(key);
        delivered.delete(key);
      },
    });
    controller.watch(informer);
    informer.start();
    this.extraControllers.push(controller); // stop() ends it
    if (!this.primary) await controller.start(); // called outside start()/init(): run it right away
    this.log.info('watching resource', { resource: id, namespace });
  }

  /**
   * Overridden: the base returns `k8sApi.basePath + path`; client-node 1.x API clients have no
   * `basePath`, so it produced "undefined/apis/...". The server comes from the current cluster.
   */
  protected override getCustomResourceApiUri(
    group: string,
    version: string,
    plural: string,
    namespace?: string,
  ): string {
    const server = this.kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new Error('kubeconfig has no current cluster');
    return server.replace(/\/+$/, '') + resourcePath({ group, version, plural }, namespace);
  }

  /**
   * Overridden: 1.x API calls take one object parameter (`{ body }`) and fail with `ApiException`
   * (`.code`), where the base passed the CRD positionally and looked for `err.response.statusCode`, so
   * "already exists" (409) was thrown as an error. Also waits (up to 30 s) for the CRD to be
   * Established, so watches and creates right after registering do not race it.
   */
  protected override async registerCustomResourceDefinition(
    crdFile: string,
  ): Promise<{ group: string; versions: V1CustomResourceDefinitionVersion[]; plural: string }> {
    const crd = loadYaml<V1CustomResourceDefinition>(await readFile(crdFile, 'utf8'));
    if (!crd?.apiVersion?.startsWith('apiextensions.k8s.io/')) {
      throw new Error(
        `${crdFile}: not a CustomResourceDefinition (expected apiVersion apiextensions.k8s.io/*)`,
      );
    }
    const api = this.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const name = crd.metadata?.name ?? '';
    try {
      await api.createCustomResourceDefinition({ body: crd });
      this.log.info('registered custom resource definition', { crd: name });
    } catch (err) {
      if (!(err instanceof ApiException && err.code === 409)) throw err;
      this.log.debug('custom resource definition already exists', { crd: name });
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      const got = await api.readCustomResourceDefinition({ name });
      if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) {
        this.log.warn('custom resource definition not Established after 30s', { crd: name });
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    return { group: crd.spec.group, versions: crd.spec.versions, plural: crd.spec.names.plural };
  }

  /**
   * Overridden: the base PUTs through gaxios with its own TLS setup (which failed against a server
   * with insecure-skip-tls-verify) and on any error logs and returns null — a failed status write
   * looked like success to callers that ignore null. Here it goes through client-node and throws
   * (ApiException with `.code`: 404, 403, 409 on a stale resourceVersion, ...). Same body as the base:
   * apiVersion, kind, name/namespace/resourceVersion (optimistic concurrency) and `status`.
   */
  protected override async setResourceStatus(meta: ResourceMeta, status: unknown): Promise<ResourceMeta> {
    const updated = await this.objectRequest('replaceStatus', meta, this.statusBody(meta, status));
    return ResourceMetaImpl.createWithId(meta.id, updated);
  }

  /**
   * Overridden for the same reasons as `setResourceStatus`: a JSON merge patch of the status
   * subresource through client-node that throws on failure. Same body as the base (which includes
   * `metadata.resourceVersion`, so a patch based on a stale read fails with 409 instead of
   * overwriting a newer status).
   */
  protected override async patchResourceStatus(meta: ResourceMeta, status: unknown): Promise<ResourceMeta> {
    const updated = await this.objectRequest('patchStatus', meta, this.statusBody(meta, status));
    return ResourceMetaImpl.createWithId(meta.id, updated);
  }

  /**
   * Overridden: the base's gaxios PATCH logged and swallowed every error, so a finalizer that was
   * never added (or never removed) went unnoticed. Here a merge patch through client-node that
   * throws. It carries `metadata.resourceVersion` when known: finalizers are a list replaced whole by a
   * merge patch, so writing from a stale read could drop someone else's finalizer — with the
   * resourceVersion that fails with 409 and is retried on the fresh object instead.
   */
  protected override async setResourceFinalizers(meta: ResourceMeta, finalizers: string[]): Promise<void> {
    const metadata: Record<string, unknown> = { finalizers };
    if (meta.resourceVersion) metadata.resourceVersion = meta.resourceVersion;
    await this.objectRequest('patch', meta, { metadata });
  }

  /**
   * Overridden: same decisions as the base (add the finalizer if missing; when deleting, run
   * `deleteAction` then remove it; returns true when the caller needs to do nothing more), but the
   * base pushed the finalizer into `event.object.metadata.finalizers` — with an informer that object
   * is the cache's copy and must not be mutated — and relied on writes that swallowed errors. Errors
   * from `deleteAction` or the patch now propagate (the work queue retries them).
   */
  protected override async handleResourceFinalizer(
    event: ResourceEvent,
    finalizer: string,
    deleteAction: (event: ResourceEvent) => Promise<void>,
  ): Promise<boolean> {
    const metadata = event.object.metadata;
    if (!metadata || (event.type !== ResourceEventType.Added && event.type !== ResourceEventType.Modified)) {
      return false;
    }
    const current = metadata.finalizers ?? [];
    if (!metadata.deletionTimestamp) {
      if (current.includes(finalizer)) return false;
      await this.setResourceFinalizers(event.meta, [...current, finalizer]);
      return true;
    }
    if (current.includes(finalizer)) {
      await deleteAction(event);
      await this.setResourceFinalizers(
        event.meta,
        current.filter((f) => f !== finalizer),
      );
    }
    return true;
  }

  private statusBody(meta: ResourceMeta, status: unknown): KubernetesObject & { status: unknown } {
    return {
      apiVersion: meta.apiVersion,
      kind: meta.kind,
      metadata: {
        name: meta.name,
        ...(meta.namespace ? { namespace: meta.namespace } : {}),
        resourceVersion: meta.resourceVersion,
      },
      status,
    };
  }

  /** Status/finalizer writes: CustomObjectsApi for API groups; the core group has no CustomObjects path. */
  private async objectRequest(
    op: 'replaceStatus' | 'patchStatus' | 'patch',
    meta: ResourceMeta,
    body: unknown,
  ): Promise<KubernetesObject> {
    const ref = refFromMeta(meta);
    const { group, version, plural } = ref;
    const { name, namespace } = meta;
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    if (!group) {
      const path = resourcePath(ref, namespace, name, op === 'patch' ? undefined : 'status');
      return kubeRequest<KubernetesObject>(this.kubeConfig, op === 'replaceStatus' ? 'PUT' : 'PATCH', path, {
        body,
        contentType: op === 'replaceStatus' ? 'application/json' : PatchStrategy.MergePatch,
      });
    }
    const api = this.customObjects;
    let result: unknown;
    if (namespace) {
      const p = { group, version, namespace, plural, name, body };
      if (op === 'replaceStatus') result = await api.replaceNamespacedCustomObjectStatus(p);
      else if (op === 'patchStatus') result = await api.patchNamespacedCustomObjectStatus(p, merge);
      else result = await api.patchNamespacedCustomObject(p, merge);
    } else {
      const p = { group, version, plural, name, body };
      if (op === 'replaceStatus') result = await api.replaceClusterCustomObjectStatus(p);
      else if (op === 'patchStatus') result = await api.patchClusterCustomObjectStatus(p, merge);
      else result = await api.patchClusterCustomObject(p, merge);
    }
    return result as KubernetesObject;
  }
}

/** `meta.id` is `plural.apiVersion` (ResourceMetaImpl.createWithPlural); plurals contain no dots. */
export function refFromMeta(meta: Pick<ResourceMeta, 'id'>): ResourceRef {
  const dot = meta.id.indexOf('.');
  if (dot <= 0) throw new Error(`cannot tell the resource from meta id '${meta.id}'`);
  const plural = meta.id.slice(0, dot);
  const apiVersion = meta.id.slice(dot + 1);
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion, plural }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), plural };
}
