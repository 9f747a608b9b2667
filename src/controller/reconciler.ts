// The reconciler (one per product's kind): take a snapshot of the caches, plan, run the plan's actions. Level-triggered
// and idempotent, in the Flux/controller-runtime mould: a steady state plans no write, and every write
// carries the reconcile's AbortSignal — its leader term's — and passes the transport's fence.
import { splitKey } from '../runtime/store.js';
import { errorStatus } from '../kube/client.js';
import { NotLeaderError } from '../leader/leadership.js';
import type { Logger } from '../log.js';
import type { OperatorMetrics } from '../metrics/index.js';
import type { WorkContext, WorkResult } from '../runtime/workqueue.js';
import { runApplies } from './actions/apply.js';
import type { EventRecorder } from './actions/events.js';
import { runFinalizers } from './actions/finalizers.js';
import { runHandover } from './actions/handover.js';
import { runPrunes } from './actions/prune.js';
import { runReleaseReplicas } from './actions/release-replicas.js';
import { runStatus } from './actions/status.js';
import type { ObjectWriter } from './actions/writer.js';
import { FORBIDDEN_REQUEUE_MS, invalidRequeueMs, terminalFailure } from './failures.js';
import type { ReconcilerMemory } from './memory.js';
import { plan, stalledPlan } from './plan.js';
import { APPLIED_ANNOTATION, type Plan, type Snapshot } from './plan-types.js';
import type { Product } from './product.js';

export interface ReconcilerDeps {
  /** What the controller manages; its controllerName names it in metrics and logs. */
  product: Product;
  snapshot(key: string): Snapshot;
  writer: ObjectWriter;
  events: EventRecorder;
  memory: ReconcilerMemory;
  metrics?: OperatorMetrics;
  log: Logger;
}

/** Carries out a plan. Returns the work queue's follow-up. */
export async function execute(
  p: Plan,
  s: Snapshot,
  signal: AbortSignal,
  deps: ReconcilerDeps,
): Promise<WorkResult | void> {
  const { writer, events, memory, log } = deps;
  let g = s.object;
  if (p.forget || !g) {
    memory.forget(s.key);
    return;
  }
  // Adding our finalizer comes before any other write, so a deletion from now on waits for the
  // handover; removing it comes last, once everything else is done.
  const deleting = Boolean(g.metadata.deletionTimestamp);
  // The finalizer patch is ours and changes nothing the status is computed from: the status write
  // below is based on the resourceVersion it produced.
  if (p.finalizers && !deleting) {
    g = await runFinalizers(g, p.finalizers, writer, signal);
    memory.recordFinalizerWrite(s.key, g.metadata.resourceVersion);
  }
  await runHandover(p.handover, writer, signal, (h) =>
    log.info('handed over managed fields', { object: h.what }),
  );
  await runApplies(p.applies, writer, signal, (a, resourceVersion) => {
    const hash = a.body.metadata?.annotations?.[APPLIED_ANNOTATION];
    if (hash && resourceVersion) memory.recordApply(s.key, a.what, { hash, resourceVersion });
    log.info(a.reason === 'create' ? 'created' : a.reason === 'update' ? 'updated' : 'drift corrected', {
      object: a.what,
      ...(a.drift ? { drift: a.drift } : {}),
    });
    if (a.reason === 'drift')
      deps.metrics?.glooha.driftCorrected(
        { kind: deps.product.kind, namespace: splitKey(s.key).namespace ?? '', name: splitKey(s.key).name },
        a.component,
      );
  });
  await runReleaseReplicas(p.releaseReplicas, writer, signal, (r) =>
    log.info('released ownership of spec.replicas, value kept', { object: r.what }),
  );
  await runPrunes(p.prunes, writer, signal, (r) =>
    log.info('deleted an owned object', { object: `${r.kind} ${r.namespace}/${r.name}` }),
  );
  if (p.finalizers && deleting) {
    await runFinalizers(g, p.finalizers, writer, signal);
    log.info('finalized: owned objects released, replicas left as they are');
  }
  if (p.corrections) memory.setCorrections(s.key, p.corrections);
  // Events are best effort and not awaited: they were 43% of a cold start's writes, each one a
  // round trip in this install's chain. The recorder logs its own failures; a refused one (the term
  // ended) has nothing left to stop.
  for (const e of p.events) events.record(g, e, signal).catch(() => {});
  if (p.stall) log.warn('stalled', { reason: p.stall.reason, message: p.stall.message });
  if (p.status) await runStatus(s.key, g, p.status, memory, writer, signal);
  return p.requeueAfterMs ? { requeueAfterMs: p.requeueAfterMs } : undefined;
}

/**
 * A failure of the reconciler's own code (what a Go controller would panic on), not of the API server
 * or the network: JavaScript's built-in programming-error types, with no HTTP status.
 */
function isBug(err: unknown): boolean {
  return (
    (err instanceof TypeError ||
      err instanceof RangeError ||
      err instanceof ReferenceError ||
      err instanceof SyntaxError) &&
    errorStatus(err) === undefined
  );
}

/** One reconcile of one object's key: the work queue's handler. */
export async function reconcile(
  key: string,
  ctx: WorkContext,
  deps: ReconcilerDeps,
): Promise<WorkResult | void> {
  const started = performance.now();
  const name = deps.product.controllerName;
  const log = deps.log.child({ key });
  const observe = (result: 'success' | 'error' | 'requeue' | 'requeue_after') =>
    deps.metrics?.reconcile.observe(name, result, (performance.now() - started) / 1000);
  const s = deps.snapshot(key);
  try {
    const result = await execute(plan(s, deps.product), s, ctx.signal, { ...deps, log });
    deps.memory.clearTerminalFailures(key);
    observe(result?.requeueAfterMs ? 'requeue_after' : 'success');
    return result;
  } catch (err) {
    if (
      ctx.signal.aborted ||
      err instanceof NotLeaderError ||
      (err as { cause?: unknown }).cause instanceof NotLeaderError
    ) {
      log.info('reconcile stopped: this replica no longer leads');
      return;
    }
    const terminal = terminalFailure(err, deps.product.kind);
    if (!terminal && errorStatus(err) === 409) {
      // Optimistic concurrency: our cache was a step behind. Not a warning: retry (with the queue's
      // backoff) once the cache has the newer object.
      observe('requeue');
      log.info('conflict with a newer version; retrying', { err });
      return { requeue: true };
    }
    observe('error');
    if (!terminal) {
      if (isBug(err)) deps.metrics?.reconcile.panicked(name);
      log.error('reconcile failed; retrying with backoff', { err });
      throw err;
    }
    deps.metrics?.reconcile.terminalError(name);
    const requeueAfterMs =
      terminal.kind === 'forbidden'
        ? FORBIDDEN_REQUEUE_MS
        : invalidRequeueMs(deps.memory.terminalFailure(key));
    log.error(
      terminal.kind === 'forbidden'
        ? 'forbidden: the operator lacks a permission'
        : 'the API server rejected a write as invalid',
      {
        err,
        retryInMs: requeueAfterMs,
      },
    );
    try {
      await execute(stalledPlan(s, terminal.stall), s, ctx.signal, { ...deps, log });
    } catch (statusErr) {
      if (ctx.signal.aborted) return;
      log.error('could not report the failure in status either', { err: statusErr });
    }
    return { requeueAfterMs };
  }
}
