// `glooha suspend|resume|reconcile NAME`: Flux's verbs, for a GlooHA or a KgatewayHA.
// - suspend: spec.suspend true (the operator then writes nothing to the install, and still reports);
// - resume: spec.suspend false, plus a reconcile request;
// - reconcile: the glooha.io/reconcile-requested-at annotation set to now (Flux's
//   reconcile.fluxcd.io/requestedAt); the operator echoes the value in status.lastHandledReconcileAt.
// resume and reconcile then wait (kstatus' way) until the request is handled and the object is Ready
// or Stalled. Every write is a JSON merge patch of just those fields, as the user (not fenced: the
// CLI is not a leader).
import { RECONCILE_REQUEST_ANNOTATION } from '../api/constants.js';
import type { Condition, HAObject } from '../api/types.js';
import { EXIT, type LifecycleArgs } from './args.js';
import { explain, type Cluster } from './cluster.js';
import { escapeControl } from './escape.js';
import { findObject, pathOf } from './kinds.js';
import type { CliIO } from './io.js';

export interface LifecycleDeps {
  now: () => Date;
  /** Resolves after ms (the wait's poll interval). */
  sleep: (ms: number) => Promise<void>;
}

const realDeps: LifecycleDeps = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

const POLL_MS = 500;

export async function lifecycle(
  args: LifecycleArgs,
  io: CliIO,
  cluster: Cluster,
  deps: LifecycleDeps = realDeps,
): Promise<number> {
  const ns = args.namespace ?? cluster.namespace;
  const { kind, object } = await findObject(cluster, args.name, ns, args.kind);
  const id = `${kind} ${ns}/${args.name}`;
  const path = pathOf(kind, ns, args.name);
  const patch = async (body: object): Promise<HAObject> => {
    try {
      return await cluster.client.request<HAObject>('PATCH', path, {
        body,
        contentType: 'application/merge-patch+json',
        fenced: false,
      });
    } catch (err) {
      explain(err, `patch ${id}`, cluster.client);
    }
  };

  if (args.command === 'suspend') {
    if (object.spec?.suspend === true) {
      await io.stdout(`${id} is already suspended\n`);
      return EXIT.OK;
    }
    await patch({ spec: { suspend: true } });
    await io.stdout(
      `${id} suspended: the operator writes nothing to its install until glooha resume ${args.name} -n ${ns}\n`,
    );
    return EXIT.OK;
  }

  const requestedAt = deps.now().toISOString();
  const updated = await patch({
    ...(args.command === 'resume' ? { spec: { suspend: false } } : {}),
    metadata: { annotations: { [RECONCILE_REQUEST_ANNOTATION]: requestedAt } },
  });
  const verb = args.command === 'resume' ? 'resumed' : 'reconcile requested';
  if (!args.wait) {
    await io.stdout(`${id} ${verb} (${RECONCILE_REQUEST_ANNOTATION}=${requestedAt})\n`);
    return EXIT.OK;
  }
  io.stderr(`${id} ${verb}; waiting for the operator to handle it (up to ${args.timeoutMs / 1000}s)\n`);
  const generation = updated.metadata.generation;
  const deadline = deps.now().getTime() + args.timeoutMs;
  let last: HAObject = updated;
  for (;;) {
    const verdict = judge(last, requestedAt, generation);
    if (verdict.done) {
      const ready = condition(last, 'Ready');
      const line = `${id} ${verdict.handled}: Ready=${ready?.status ?? 'Unknown'}${ready?.reason ? ` (${ready.reason})` : ''}${ready?.message ? `: ${ready.message}` : ''}`;
      if (verdict.ok) await io.stdout(`${escapeControl(line)}\n`);
      else io.stderr(`${escapeControl(line)}\n`);
      return verdict.ok ? EXIT.OK : EXIT.UNHEALTHY;
    }
    if (deps.now().getTime() >= deadline) {
      io.stderr(`${escapeControl(`${id}: ${verdict.waiting} after ${args.timeoutMs / 1000}s`)}\n`);
      return EXIT.UNHEALTHY;
    }
    await deps.sleep(POLL_MS);
    try {
      last = await cluster.client.request<HAObject>('GET', path);
    } catch (err) {
      explain(err, `get ${id}`, cluster.client);
    }
  }
}

function condition(g: HAObject, type: string): Condition | undefined {
  return g.status?.conditions?.find((c) => c.type === type);
}

type Verdict = { done: true; ok: boolean; handled: string } | { done: false; waiting: string };

/**
 * Whether the operator has handled the request and the object has settled, as kstatus judges it:
 * Ready=True is done; Stalled=True is done and failed; a suspended object is done once handled.
 */
export function judge(g: HAObject, requestedAt: string, generation: number | undefined): Verdict {
  const handled =
    g.status?.lastHandledReconcileAt === requestedAt &&
    (generation === undefined || (g.status?.observedGeneration ?? 0) >= generation);
  if (!handled)
    return { done: false, waiting: `the operator has not handled the request (is it running? glooha check)` };
  if (g.spec?.suspend === true)
    return { done: true, ok: true, handled: 'handled (suspended: nothing written)' };
  if (condition(g, 'Stalled')?.status === 'True')
    return { done: true, ok: false, handled: 'handled, Stalled' };
  if (condition(g, 'Ready')?.status === 'True') return { done: true, ok: true, handled: 'reconciled' };
  const ready = condition(g, 'Ready');
  return {
    done: false,
    waiting: `handled, not Ready yet${ready?.message ? `: ${ready.message}` : ''}`,
  };
}
