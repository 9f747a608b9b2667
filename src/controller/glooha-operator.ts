// The GlooHA reconciler: level-triggered and idempotent, in the controller-runtime mould. Informer
// events only enqueue GlooHA keys (src/runtime coalesces them); a reconcile reads the caches, asks the
// pure core what the install should look like, and writes only the difference:
//  - owned objects (PDBs, Role, RoleBinding, the Helm-values ConfigMap, HPAs it creates) are
//    server-side applied whole under the field manager `glooha-operator`;
//  - Gloo's own Deployments and HPAs get a partial apply of just the fields we manage, so Helm keeps
//    the rest;
//  - every write is preceded by a comparison with the cache, so a steady state writes nothing;
//  - every write passes the leader fence (the API clients check it right before sending).
import {
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
  type V1Deployment,
  type V1Lease,
  type V1PodDisruptionBudget,
  type V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import {
  GROUP,
  LABEL_MANAGED_BY,
  LABEL_OWNER_NAME,
  LABEL_OWNER_NAMESPACE,
  MANAGER,
  PLURAL,
  VERSION,
} from '../api/constants.js';
import type { GlooHA, GlooHAStatus } from '../api/types.js';
import { desired, installNamespaceOf, type Desired } from '../core/desired.js';
import type { Owner } from '../core/ownership.js';
import type { KubeObject } from '../core/templates.js';
import { makeApiClient } from '../kube/instrumented.js';
import type { Leadership } from '../leader/leadership.js';
import { NotLeaderError } from '../leader/leadership.js';
import type { OperatorMetrics } from '../metrics/index.js';
import { OperatorBase, type OperatorBaseOptions } from '../operator/base.js';
import { allOf, ignoreNoopUpdates, type EventFilter } from '../runtime/filters.js';
import type { Informer } from '../runtime/informer.js';
import { objectKey } from '../runtime/store.js';
import type { WorkContext, WorkResult } from '../runtime/workqueue.js';
import { canonicalJson, isSubset, stableHash } from './compare.js';
import { EventRecorder } from './events.js';
import { GlooLeaderTracker } from './gloo-leader.js';
import { releaseOwnershipPatch } from './handover.js';
import { inTarget, isOwnedBy, observeInstall } from './observe.js';
import { computeStatus, type DriftReport, type Stall } from './status.js';

export const FINALIZER = 'glooha.io/handover';
/** Hash of the body we last applied to an object; a mismatch means the spec changed, not drift. */
export const APPLIED_ANNOTATION = 'glooha.io/applied';
/** The manager that keeps our fields on Gloo's objects after a GlooHA is deleted (see finalize). */
export const HANDOVER_MANAGER = 'glooha-operator-handover';
const CONTROLLER_NAME = 'glooha';

export interface GlooHAOperatorOptions extends Omit<OperatorBaseOptions, 'name' | 'metrics'> {
  leadership: Leadership;
  metrics?: OperatorMetrics;
}

type AnyObject = KubernetesObject & Record<string, unknown>;

/** GlooHA updates that need a reconcile: spec (generation), deletion, finalizers, labels, annotations. */
const glooHAChanged: EventFilter<GlooHA & KubernetesObject> = (ev) => {
  if (ev.type !== 'update') return true;
  const [a, b] = [ev.old.metadata, ev.obj.metadata];
  return (
    a?.generation !== b?.generation ||
    a?.deletionTimestamp !== b?.deletionTimestamp ||
    canonicalJson(a?.finalizers) !== canonicalJson(b?.finalizers) ||
    canonicalJson(a?.labels) !== canonicalJson(b?.labels) ||
    canonicalJson(a?.annotations) !== canonicalJson(b?.annotations)
  );
};

function ownerOf(g: GlooHA): Owner {
  return { name: g.metadata.name, namespace: g.metadata.namespace ?? 'default', uid: g.metadata.uid };
}

function byAge(a: GlooHA, b: GlooHA): number {
  const ta = String(a.metadata.creationTimestamp ?? '');
  const tb = String(b.metadata.creationTimestamp ?? '');
  if (ta !== tb) return ta < tb ? -1 : 1;
  return objectKey(a as KubernetesObject) < objectKey(b as KubernetesObject) ? -1 : 1;
}

/** Two GlooHAs manage the same install when namespace, selector and Helm release all agree. */
function sameTarget(a: GlooHA, b: GlooHA): boolean {
  return (
    installNamespaceOf(a) === installNamespaceOf(b) &&
    canonicalJson(a.spec?.target?.selector ?? null) === canonicalJson(b.spec?.target?.selector ?? null) &&
    (a.spec?.target?.helmRelease ?? '') === (b.spec?.target?.helmRelease ?? '')
  );
}

/**
 * Who changed a drifted field, from managedFields: the other managers that now own one of the drifted
 * fields (server-side apply moves a field to whoever last wrote it), e.g. "kubectl-scale (Update)".
 * Falls back to the most recent other writer when no entry names the field.
 */
function driftAuthor(live: KubernetesObject, fieldPaths: string[]): string {
  const others = (live.metadata?.managedFields ?? []).filter(
    (m) => m.manager !== MANAGER && m.manager !== HANDOVER_MANAGER && m.subresource !== 'status',
  );
  const owns = (fields: unknown, path: string[]): boolean => {
    let node = fields as Record<string, unknown> | undefined;
    for (const part of path) {
      node = node?.[`f:${part}`] as Record<string, unknown> | undefined;
      if (node === undefined) return false;
    }
    return true;
  };
  const owners = others.filter((m) => fieldPaths.some((p) => owns(m.fieldsV1, p.split('.'))));
  const pick = (owners.length ? owners : others).sort((a, b) =>
    String(b.time ?? '').localeCompare(String(a.time ?? '')),
  );
  return pick.length
    ? pick
        .map((m) => `${m.manager} (${m.operation}${m.subresource ? ` on ${m.subresource}` : ''})`)
        .join(', ')
    : 'an unknown writer';
}

/** Which managed fields differ, in words, for conditions and events. */
function describeDrift(body: KubeObject, live: KubernetesObject): string {
  const fields: string[] = [];
  const spec = (body.spec ?? {}) as Record<string, unknown>;
  const liveSpec = ((live as AnyObject).spec ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(spec)) if (!isSubset(v, liveSpec[k])) fields.push(`spec.${k}`);
  if (body.data !== undefined && !isSubset(body.data, (live as AnyObject).data)) fields.push('data');
  if (body.rules !== undefined && !isSubset(body.rules, (live as AnyObject).rules)) fields.push('rules');
  if (body.subjects !== undefined && !isSubset(body.subjects, (live as AnyObject).subjects))
    fields.push('subjects');
  if (!isSubset(body.metadata.labels ?? {}, live.metadata?.labels ?? {})) fields.push('metadata.labels');
  const what = fields.length ? fields.join(', ') : 'managed fields';
  const detail =
    body.kind === 'Deployment' && fields.includes('spec.replicas')
      ? ` (replicas ${String(liveSpec.replicas)}, want ${String(spec.replicas)})`
      : '';
  return `${body.kind} ${body.metadata.name}: ${what}${detail} changed by ${driftAuthor(live, fields)}`;
}

export class GlooHAOperator extends OperatorBase {
  private readonly leadership: Leadership;
  private readonly metrics?: OperatorMetrics;
  private readonly objects: KubernetesObjectApi;
  private readonly custom: CustomObjectsApi;
  private readonly events: EventRecorder;
  private tracker?: GlooLeaderTracker;
  private gloohas!: Informer<GlooHA & KubernetesObject>;
  private deployments!: Informer<V1Deployment & KubernetesObject>;
  private glooHpas!: Informer<V2HorizontalPodAutoscaler & KubernetesObject>;
  private glooPdbs!: Informer<V1PodDisruptionBudget & KubernetesObject>;
  private leases!: Informer<V1Lease & KubernetesObject>;
  /**
   * The last drift corrections per GlooHA. Kept here, not only in status: the status in the cache may
   * be a step behind our own write, and a reconcile computing status from it would erase the record.
   */
  private readonly lastCorrections = new Map<string, DriftReport[]>();
  /** The status last written per GlooHA and the resourceVersion it was computed from. */
  private readonly lastStatusWrite = new Map<string, { json: string; basedOn: string | undefined }>();
  /** Owned objects by kind, from informers on our managed-by label. */
  private owned = new Map<string, Informer<KubernetesObject>>();

  constructor(opts: GlooHAOperatorOptions) {
    super({ ...opts, name: CONTROLLER_NAME, metrics: opts.metrics?.workqueue(CONTROLLER_NAME) });
    this.leadership = opts.leadership;
    this.metrics = opts.metrics;
    const clientOpts = {
      metrics: opts.metrics?.restClient,
      // The fence: checked right before every write request leaves the process.
      beforeWrite: () => this.leadership.assertLeading(),
      writeSignal: () => this.leadership.leadingSignal,
      timeoutMs: 30_000,
    };
    this.objects = makeApiClient(
      opts.kubeConfig,
      KubernetesObjectApi as never,
      clientOpts,
    ) as KubernetesObjectApi;
    this.custom = makeApiClient(opts.kubeConfig, CustomObjectsApi, clientOpts);
    this.events = new EventRecorder(makeApiClient(opts.kubeConfig, CoreV1Api, clientOpts), this.log);
    this.metrics?.reconcile.register(CONTROLLER_NAME);
  }

  /** All GlooHA keys that target an install in `namespace`. */
  private keysForNamespace(namespace: string | undefined): string[] {
    if (!namespace) return [];
    return this.gloohas.store.byIndex('installNamespace', namespace).map((g) => objectKey(g));
  }

  /** The GlooHA an owned object belongs to, from its owner labels. */
  private static ownerKey(obj: KubernetesObject): string | undefined {
    const l = obj.metadata?.labels ?? {};
    const name = l[LABEL_OWNER_NAME];
    const ns = l[LABEL_OWNER_NAMESPACE];
    return name && ns ? `${ns}/${name}` : undefined;
  }

  protected override async init(): Promise<void> {
    this.tracker = new GlooLeaderTracker((ns) => {
      for (const key of this.keysForNamespace(ns)) this.queue.add(key);
    });
    this.gloohas = await this.watch<GlooHA & KubernetesObject>({
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      filter: glooHAChanged,
    });
    this.gloohas.addIndex('installNamespace', (g) => [installNamespaceOf(g)]);
    const toInstall = { mapToKeys: (o: KubernetesObject) => this.keysForNamespace(o.metadata?.namespace) };
    // Gloo's chart labels everything it creates app=gloo: watch that, not every Deployment.
    this.deployments = await this.watch<V1Deployment & KubernetesObject>({
      group: 'apps',
      version: 'v1',
      plural: 'deployments',
      labelSelector: 'app=gloo',
      ...toInstall,
    });
    this.glooHpas = await this.watch({
      group: 'autoscaling',
      version: 'v2',
      plural: 'horizontalpodautoscalers',
      labelSelector: 'app=gloo',
      ...toInstall,
    });
    this.glooPdbs = await this.watch({
      group: 'policy',
      version: 'v1',
      plural: 'poddisruptionbudgets',
      labelSelector: 'app=gloo',
      ...toInstall,
    });
    const managed = `${LABEL_MANAGED_BY}=${MANAGER}`;
    const toOwner = {
      mapToKeys: (o: KubernetesObject) => GlooHAOperator.ownerKey(o),
      labelSelector: managed,
    };
    const ownedKinds: [string, string, string, string][] = [
      ['PodDisruptionBudget', 'policy', 'v1', 'poddisruptionbudgets'],
      ['HorizontalPodAutoscaler', 'autoscaling', 'v2', 'horizontalpodautoscalers'],
      ['Role', 'rbac.authorization.k8s.io', 'v1', 'roles'],
      ['RoleBinding', 'rbac.authorization.k8s.io', 'v1', 'rolebindings'],
      ['ConfigMap', '', 'v1', 'configmaps'],
    ];
    for (const [kind, group, version, plural] of ownedKinds) {
      this.owned.set(kind, await this.watch({ group, version, plural, ...toOwner }));
    }
    // Gloo's Lease: renewals are swallowed by the tracker; only holder/freshness changes enqueue.
    const tracker = this.tracker;
    const leaseMatters: EventFilter<V1Lease & KubernetesObject> = (ev) => {
      const ns = ev.obj.metadata?.namespace ?? '';
      if (ev.type === 'delete') return tracker.forget(ns);
      return tracker.observe(ns, ev.obj);
    };
    this.leases = await this.watch<V1Lease & KubernetesObject>({
      group: 'coordination.k8s.io',
      version: 'v1',
      plural: 'leases',
      fieldSelector: 'metadata.name=gloo',
      filter: allOf(ignoreNoopUpdates as EventFilter<V1Lease & KubernetesObject>, leaseMatters),
      ...toInstall,
    });
  }

  override async stop(opts: Parameters<OperatorBase['stop']>[0] = {}): Promise<void> {
    this.tracker?.stop();
    await super.stop(opts);
  }

  /** Re-queues every GlooHA: a new leader catches up at once from its warm caches. */
  enqueueAll(): void {
    if (!this.gloohas) return;
    for (const key of this.gloohas.store.keys()) this.queue.add(key);
  }

  /** Waits (bounded) for reconciles in flight to finish, e.g. after losing leadership. */
  async waitForInFlight(timeoutMs: number): Promise<void> {
    let q;
    try {
      q = this.queue;
    } catch {
      return; // not started
    }
    await Promise.race([q.whenIdle(), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  /** True once every cache has synced (for /readyz: a follower with warm caches is ready). */
  cachesSynced(): boolean {
    return (
      !!this.gloohas &&
      [
        this.gloohas,
        this.deployments,
        this.glooHpas,
        this.glooPdbs,
        this.leases,
        ...this.owned.values(),
      ].every((i) => i.hasSynced())
    );
  }

  protected override async reconcile(key: string, ctx: WorkContext): Promise<WorkResult | void> {
    // Followers keep their caches warm but do no work; the new leader re-queues everything.
    if (!this.leadership.isLeader()) return;
    const started = performance.now();
    const log = this.log.child({ key });
    try {
      const result = await this.reconcileOne(key, ctx, log);
      this.metrics?.reconcile.observe(
        CONTROLLER_NAME,
        result?.requeueAfterMs ? 'requeue_after' : 'success',
        (performance.now() - started) / 1000,
      );
      return result;
    } catch (err) {
      if (err instanceof NotLeaderError || ctx.signal.aborted || !this.leadership.canWrite()) {
        log.info('reconcile stopped: no longer the leader');
        return;
      }
      this.metrics?.reconcile.observe(CONTROLLER_NAME, 'error', (performance.now() - started) / 1000);
      const code = (err as { code?: number }).code;
      if (code === 403) return this.forbidden(key, err, log);
      if (code === 409) {
        // Optimistic concurrency: our cache was a step behind. The retry reads the newer object.
        log.info('conflict with a newer version; retrying', { err: (err as Error).message.split('\n')[0] });
      } else {
        log.error('reconcile failed; retrying with backoff', { err });
      }
      throw err;
    } finally {
      this.updateReadyGauge();
    }
  }

  /**
   * A write the API server refused (403) will not succeed on retry until someone grants the
   * permission: say so in status (Stalled/Forbidden, with the API server's own words naming verb,
   * resource and namespace) and check again in a minute instead of retrying hot.
   */
  private async forbidden(key: string, err: unknown, log: typeof this.log): Promise<WorkResult> {
    const body = (err as { body?: unknown }).body;
    let detail = (err as Error).message.split('\n')[0] ?? 'forbidden';
    try {
      const parsed = JSON.parse(typeof body === 'string' ? body : JSON.stringify(body)) as {
        message?: string;
      };
      if (parsed.message) detail = parsed.message;
    } catch {
      /* keep the first line of the error */
    }
    const message = `${detail}. Grant the operator's ServiceAccount this permission (the Helm chart's RBAC does; in namespaced mode the install's namespace must be in watchNamespaces)`;
    log.error('forbidden: the operator lacks a permission', { detail });
    const g = this.gloohas.store.get(key);
    if (g) {
      await this.stalled(g, log, { reason: 'Forbidden', message }).catch((e: unknown) =>
        log.error('could not report the missing permission in status either', {
          err: (e as Error).message.split('\n')[0],
        }),
      );
    }
    return { requeueAfterMs: 60_000 };
  }

  private updateReadyGauge(): void {
    if (!this.metrics) return;
    const counts = { true: 0, false: 0, unknown: 0 };
    for (const g of this.gloohas.store.list()) {
      const ready = g.status?.conditions?.find((c) => c.type === 'Ready')?.status;
      if (ready === 'True') counts.true++;
      else if (ready === 'False') counts.false++;
      else counts.unknown++;
    }
    this.metrics.glooha.setResources(counts);
  }

  private async reconcileOne(
    key: string,
    ctx: WorkContext,
    log: typeof this.log,
  ): Promise<WorkResult | void> {
    const g = this.gloohas.store.get(key);
    if (!g) {
      // Deleted: owned objects go by ownerReference GC, Gloo's objects were handed over.
      this.lastCorrections.delete(key);
      this.lastStatusWrite.delete(key);
      return;
    }
    if (g.metadata.deletionTimestamp) {
      await this.finalize(g, log);
      return;
    }
    if (!(g.metadata.finalizers as string[] | undefined)?.includes(FINALIZER)) {
      await this.setFinalizers(g, [...((g.metadata.finalizers as string[] | undefined) ?? []), FINALIZER]);
      // The update event brings us back with the finalizer in the cache.
      return;
    }

    const ns = installNamespaceOf(g);
    const owner = ownerOf(g);
    const rivals = this.gloohas.store
      .byIndex('installNamespace', ns)
      .filter((o) => !o.metadata.deletionTimestamp && sameTarget(o, g));
    const first = [...rivals].sort(byAge)[0];
    if (first && first !== g && objectKey(first) !== key) {
      return this.stalled(g, log, {
        reason: 'ConflictingGlooHA',
        message: `the install in namespace ${ns} is already managed by GlooHA ${objectKey(first)} (created earlier); delete one of the two, or give them different spec.target selectors`,
      });
    }

    const target = g.spec?.target;
    const objs = {
      namespace: ns,
      deployments: this.deployments.store.list(ns).filter((d) => inTarget(d, target)),
      hpas: [
        ...this.glooHpas.store.list(ns),
        ...(this.owned.get('HorizontalPodAutoscaler')!.store.list(ns) as V2HorizontalPodAutoscaler[]).filter(
          (h) => isOwnedBy(h as KubernetesObject, owner),
        ),
      ],
      pdbs: [
        ...this.glooPdbs.store.list(ns),
        ...(this.owned.get('PodDisruptionBudget')!.store.list(ns) as V1PodDisruptionBudget[]).filter((p) =>
          isOwnedBy(p as KubernetesObject, owner),
        ),
      ],
    };
    const observed = observeInstall(objs, owner, target);
    if (!observed.gloo) {
      await this.stalled(g, log, {
        reason: 'TargetNotFound',
        message: `no Gloo install found in namespace ${ns}: no Deployment labelled app=gloo,gloo=gloo${target?.selector || target?.helmRelease ? ' matching spec.target' : ''}. Install Gloo there or fix spec.target; the operator waits for it`,
      });
      return { requeueAfterMs: 60_000 };
    }
    const result = desired(g, observed);
    if (!result.ok) {
      return this.stalled(g, log, {
        reason: 'InvalidSpec',
        message: result.errors.map((e) => `${e.path}: ${e.message}`).join('; '),
      });
    }
    const d = result.desired;

    let applied = 0;
    const drift: DriftReport[] = [];
    for (const body of d.owned) {
      const outcome = await this.applyIfNeeded(
        g,
        d,
        body,
        this.owned.get(body.kind)?.store.get(objectKey(body as KubernetesObject)),
        log,
      );
      if (outcome.applied) applied++;
      if (outcome.drift) drift.push(outcome.drift);
    }
    applied += await this.prune(g, d, log);
    for (const body of d.patches) {
      const cache = body.kind === 'Deployment' ? this.deployments : this.glooHpas;
      const live = cache.store.get(objectKey(body as KubernetesObject));
      if (!live) continue; // the core reported it as a problem
      const outcome = await this.applyIfNeeded(g, d, body, live, log);
      if (outcome.applied) applied++;
      if (outcome.drift) drift.push(outcome.drift);
    }
    if (drift.some((r) => r.corrected))
      this.lastCorrections.set(
        key,
        drift.filter((r) => r.corrected),
      );
    else if (drift.length === 0) drift.push(...(this.lastCorrections.get(key) ?? []));
    for (const w of d.warnings) await this.events.warn(g, 'HAWarning', w.message);
    for (const p of d.problems) await this.events.warn(g, p.code, p.message);

    const status = computeStatus({
      generation: g.metadata.generation,
      previous: g.status,
      now: new Date(),
      desired: d,
      deployments: new Map(this.deployments.store.list(ns).map((x) => [x.metadata?.name ?? '', x])),
      pdbs: new Map(objs.pdbs.map((x) => [x.metadata?.name ?? '', x])),
      hpas: new Map(objs.hpas.map((x) => [x.metadata?.name ?? '', x])),
      leader: this.tracker?.status(ns),
      applied,
      drift,
    });
    await this.writeStatus(g, status);
    if (ctx.signal.aborted) return;
    return applied > 0 ? { requeueAfterMs: 2_000 } : undefined;
  }

  /**
   * Applies `body` when the cache shows it is missing, changed by a new spec (hash annotation), or
   * drifted. Drift is handled per driftPolicy; everything else is always applied.
   */
  private async applyIfNeeded(
    g: GlooHA,
    d: Desired,
    body: KubeObject,
    live: KubernetesObject | undefined,
    log: typeof this.log,
  ): Promise<{ applied: boolean; drift?: DriftReport }> {
    const hash = stableHash(body);
    const what = `${body.kind} ${body.metadata.namespace}/${body.metadata.name}`;
    const lastApplied = live?.metadata?.annotations?.[APPLIED_ANNOTATION];
    if (live && lastApplied === hash) {
      if (isSubset(body, live)) return { applied: false };
      const message = describeDrift(body, live);
      if (d.driftPolicy === 'off') return { applied: false };
      if (d.driftPolicy === 'warn') {
        await this.events.warn(g, 'DriftDetected', message);
        return { applied: false, drift: { message, corrected: false } };
      }
      await this.apply(body, hash);
      this.metrics?.glooha.driftCorrected(
        body.metadata.labels?.['glooha.io/component'] ?? body.metadata.name,
      );
      log.info('drift corrected', { object: what, drift: message });
      await this.events.warn(g, 'DriftCorrected', `restored ${message}`);
      return { applied: true, drift: { message: `restored ${message}`, corrected: true } };
    }
    await this.apply(body, hash);
    log.info(live ? 'updated' : 'created', { object: what });
    await this.events.normal(g, live ? 'Updated' : 'Created', `${live ? 'updated' : 'created'} ${what}`);
    return { applied: true };
  }

  private async apply(body: KubeObject, hash: string): Promise<void> {
    const annotated = {
      ...body,
      metadata: {
        ...body.metadata,
        annotations: {
          ...((body.metadata as { annotations?: Record<string, string> }).annotations ?? {}),
          [APPLIED_ANNOTATION]: hash,
        },
      },
    };
    // force: a controller owns its fields outright (controller-runtime's ForceOwnership); without it an
    // apply conflicts with Helm's or kubectl's earlier writes of the same field.
    await this.objects.patch(
      annotated as KubernetesObject,
      undefined,
      undefined,
      MANAGER,
      true,
      PatchStrategy.ServerSideApply,
    );
  }

  /** Deletes owned objects of this GlooHA that the spec no longer asks for. Never touches others'. */
  private async prune(g: GlooHA, d: Desired, log: typeof this.log): Promise<number> {
    const owner = ownerOf(g);
    const wanted = new Set(d.owned.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`));
    let deleted = 0;
    for (const [kind, informer] of this.owned) {
      for (const obj of informer.store.list()) {
        if (!isOwnedBy(obj, owner)) continue;
        if (wanted.has(`${kind}/${obj.metadata?.namespace}/${obj.metadata?.name}`)) continue;
        await this.objects.delete({
          apiVersion: obj.apiVersion,
          kind,
          metadata: { name: obj.metadata?.name, namespace: obj.metadata?.namespace },
        });
        log.info('deleted an owned object the spec no longer asks for', {
          object: `${kind} ${obj.metadata?.namespace}/${obj.metadata?.name}`,
        });
        await this.events.normal(
          g,
          'Deleted',
          `deleted ${kind} ${obj.metadata?.namespace}/${obj.metadata?.name}`,
        );
        deleted++;
      }
    }
    return deleted;
  }

  private async stalled(g: GlooHA, log: typeof this.log, stall: Stall): Promise<void> {
    log.warn('stalled', { reason: stall.reason, message: stall.message });
    await this.events.warn(g, stall.reason, stall.message);
    const status = computeStatus({
      generation: g.metadata.generation,
      previous: g.status,
      now: new Date(),
      stall,
      leader: this.tracker?.status(installNamespaceOf(g)),
      applied: 0,
      drift: [],
    });
    await this.writeStatus(g, status);
  }

  /**
   * Replaces status only when it differs from what the cache holds (no write in a steady state), and
   * not again when the cache simply has not caught up with the status we just wrote.
   */
  private async writeStatus(g: GlooHA, status: GlooHAStatus): Promise<void> {
    const json = canonicalJson(status);
    if (json === canonicalJson(g.status ?? {})) return;
    const key = `${g.metadata.namespace}/${g.metadata.name}`;
    const last = this.lastStatusWrite.get(key);
    if (last && last.json === json && last.basedOn === g.metadata.resourceVersion) return;
    await this.custom.patchNamespacedCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace: g.metadata.namespace ?? 'default',
        name: g.metadata.name,
        body: [{ op: 'add', path: '/status', value: status }],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    this.lastStatusWrite.set(key, { json, basedOn: g.metadata.resourceVersion });
  }

  private async setFinalizers(g: GlooHA, finalizers: string[]): Promise<void> {
    // The resourceVersion makes this fail with 409 rather than drop a finalizer someone added since.
    await this.custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace: g.metadata.namespace ?? 'default',
        name: g.metadata.name,
        body: { metadata: { finalizers, resourceVersion: g.metadata.resourceVersion } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  /**
   * Deletion. Owned objects in the GlooHA's namespace go by ownerReference garbage collection; those in
   * another namespace (no cross-namespace ownerReferences) are deleted here. Gloo's Deployments and
   * HPAs keep their values: the operator's managedFields entries are removed, so the fields it set stay
   * as they are, owned by no one, and the next `helm upgrade` takes them over without a conflict.
   */
  private async finalize(g: GlooHA, log: typeof this.log): Promise<void> {
    const finalizers = (g.metadata.finalizers as string[] | undefined) ?? [];
    if (!finalizers.includes(FINALIZER)) return;
    const owner = ownerOf(g);
    const ns = installNamespaceOf(g);
    for (const cache of [this.deployments, this.glooHpas] as Informer<KubernetesObject>[]) {
      for (const live of cache.store.list(ns)) {
        if (!live.metadata?.annotations?.[APPLIED_ANNOTATION]) continue;
        if (!(live.metadata.managedFields ?? []).some((m) => m.manager === MANAGER)) continue;
        // Hook: release our field ownership, values unchanged (see handover.ts).
        const release = releaseOwnershipPatch(live, [MANAGER, HANDOVER_MANAGER], APPLIED_ANNOTATION);
        if (release)
          await this.objects.patch(
            release,
            undefined,
            undefined,
            MANAGER,
            undefined,
            PatchStrategy.MergePatch,
          );
        log.info('handed over managed fields', { object: `${live.kind} ${ns}/${live.metadata.name}` });
      }
    }
    if (ns !== owner.namespace) {
      for (const [kind, informer] of this.owned) {
        for (const obj of informer.store.list(ns)) {
          if (!isOwnedBy(obj, owner)) continue;
          await this.objects
            .delete({
              apiVersion: obj.apiVersion,
              kind,
              metadata: { name: obj.metadata?.name, namespace: obj.metadata?.namespace },
            })
            .catch((err: { code?: number }) => {
              if (err.code !== 404) throw err;
            });
        }
      }
    }
    await this.setFinalizers(
      g,
      finalizers.filter((f) => f !== FINALIZER),
    );
    log.info('finalized: owned objects released, replicas left as they are');
  }
}

export type { KubeConfig };
