// The reconciler: snapshot → plan → actions, and what it does when a write fails.
import { describe, expect, it } from 'vitest';
import { EventRecorder } from '../../../src/controller/actions/events.js';
import { ReconcilerMemory } from '../../../src/controller/memory.js';
import type { Snapshot } from '../../../src/controller/plan-types.js';
import { reconcile, type ReconcilerDeps } from '../../../src/controller/reconciler.js';
import { NotLeaderError } from '../../../src/leader/leadership.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { GLOO } from '../../../src/products/gloo/index.js';
import { apiError, FakeWriter } from './fake-writer.js';
import { finalizedGlooHA, snapshotOf } from './snapshots.js';

function setup(snap: Snapshot = snapshotOf(finalizedGlooHA({ gloo: { replicas: 2 } }))) {
  const writer = new FakeWriter();
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('debug', {}, (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  const memory = new ReconcilerMemory();
  const metrics = createMetrics({ defaultMetrics: false });
  const deps: ReconcilerDeps = {
    product: GLOO,
    snapshot: () => snap,
    writer,
    events: new EventRecorder(writer, log, () => 0),
    memory,
    metrics,
    log,
  };
  return { writer, lines, memory, metrics, deps };
}

const ctx = (signal = new AbortController().signal) => ({ signal, retries: 0 });
const stalled = (w: FakeWriter) =>
  w.calls
    .filter((c) => c.op === 'status')
    .map(
      (c) =>
        (
          c as {
            status: { conditions?: { type: string; status: string; reason: string; message: string }[] };
          }
        ).status,
    )
    .map((s) => s.conditions?.find((c) => c.type === 'Stalled'));

describe('reconcile', () => {
  it('runs the plan: applies, events, status; no timed requeue (the watch events bring it back)', async () => {
    const { writer, deps, metrics } = setup();
    const result = await reconcile('gloo-system/ha', ctx(), deps);
    expect(result).toBeUndefined();
    const ops = writer.ops();
    expect(ops.filter((o) => o.startsWith('apply')).length).toBeGreaterThan(3);
    expect(ops.at(-1)).toBe('status');
    expect(ops.indexOf('status')).toBeGreaterThan(ops.lastIndexOf(ops.find((o) => o.startsWith('apply'))!));
    const body = (await metrics.expose()).body;
    expect(body).toMatch(/controller_runtime_reconcile_total\{controller="glooha",result="success"\} 1/);
  });

  it('a new GlooHA: the finalizer first, and the status write based on the resourceVersion that patch produced (not a 409 against our own write)', async () => {
    const fresh = finalizedGlooHA({ gloo: { replicas: 2 } }, { finalizers: undefined });
    const { writer, deps } = setup(snapshotOf(fresh));
    expect(await reconcile('gloo-system/ha', ctx(), deps)).toBeUndefined();
    expect(writer.ops()[0]).toBe('finalizers');
    const status = writer.calls.filter((c) => c.op === 'status');
    expect(status).toHaveLength(1);
    expect(status[0]).toMatchObject({ basedOn: '10+finalizers' });
  });

  it('a second reconcile from a cache that has not seen our applies yet writes none of them again', async () => {
    // Every cached object at resourceVersion 1; the fake API server answers applies with 100, 101, ...
    const at1 = <T extends { metadata?: { resourceVersion?: string } }>(o: T): T => ({
      ...o,
      metadata: { ...o.metadata, resourceVersion: '1' },
    });
    const base = snapshotOf(finalizedGlooHA({ gloo: { replicas: 2 } }));
    const snap = { ...base, deployments: base.deployments.map(at1) };
    const { writer, deps } = setup(snap);
    deps.snapshot = () => ({ ...snap, ownApplies: deps.memory.ownApplies(snap.key) });
    await reconcile('gloo-system/ha', ctx(), deps);
    const firstUpdates = writer.ops().filter((o) => o.startsWith('apply') && o.includes('Deployment'));
    expect(firstUpdates.length).toBeGreaterThan(0);
    writer.calls.length = 0;
    await reconcile('gloo-system/ha', ctx(), deps);
    expect(writer.ops().filter((o) => o.startsWith('apply') && o.includes('Deployment'))).toEqual([]);
  });

  it("remembers each apply's resourceVersion: the watch event carrying it is our own write's echo", async () => {
    const { deps, memory } = setup();
    await reconcile('gloo-system/ha', ctx(), deps);
    const produced = [...memory.ownApplies('gloo-system/ha').values()].map((a) => a.resourceVersion);
    expect(produced.length).toBeGreaterThan(0);
    for (const rv of produced) expect(memory.isOwnWrite('gloo-system/ha', rv)).toBe(true);
    // Another write of the same object, another object's key, no resourceVersion: not ours.
    expect(memory.isOwnWrite('gloo-system/ha', '99999')).toBe(false);
    expect(memory.isOwnWrite('other/ha', produced[0])).toBe(false);
    expect(memory.isOwnWrite('gloo-system/ha', undefined)).toBe(false);
    memory.forget('gloo-system/ha');
    expect(memory.isOwnWrite('gloo-system/ha', produced[0])).toBe(false);
  });

  it("remembers the finalizer patch's and the status write's resourceVersions as our own writes too", async () => {
    const fresh = finalizedGlooHA({ gloo: { replicas: 2 } }, { finalizers: undefined });
    const { deps, memory } = setup(snapshotOf(fresh));
    await reconcile('gloo-system/ha', ctx(), deps);
    expect(memory.isOwnWrite('gloo-system/ha', '10+finalizers')).toBe(true);
    const wrote = memory.lastStatusWrite('gloo-system/ha')?.wrote;
    expect(wrote).toBeTruthy();
    expect(memory.isOwnWrite('gloo-system/ha', wrote)).toBe(true);
    expect(memory.isOwnWrite('gloo-system/ha', '10')).toBe(false); // the object as it was: not our write
    memory.forget('gloo-system/ha');
    expect(memory.isOwnWrite('gloo-system/ha', '10+finalizers')).toBe(false);
    expect(memory.size()).toBe(0);
  });

  it('422 from the API server: terminal — Stalled with the server message, backoff 30 s → 60 s, never thrown (no hot retry)', async () => {
    const { writer, deps, memory } = setup();
    writer.failWith = (c) =>
      c.op === 'apply' && c.body.kind === 'Deployment'
        ? apiError(
            422,
            'Deployment.apps "gloo" is invalid: spec.template.spec.topologySpreadConstraints[0].topologyKey: Required value',
          )
        : undefined;
    const first = await reconcile('gloo-system/ha', ctx(), deps);
    expect(first).toEqual({ requeueAfterMs: 30_000 });
    const [stall] = stalled(writer);
    expect(stall).toMatchObject({ status: 'True', reason: 'InvalidObject' });
    expect(stall?.message).toContain('Deployment gloo-system/gloo: Deployment.apps "gloo" is invalid');
    expect(stall?.message).toContain('topologyKey: Required value');
    expect(writer.ops()).toContain('event InvalidObject');
    expect(await reconcile('gloo-system/ha', ctx(), deps)).toEqual({ requeueAfterMs: 60_000 });
    expect(await reconcile('gloo-system/ha', ctx(), deps)).toEqual({ requeueAfterMs: 120_000 });
    // fixed: the backoff starts over
    writer.failWith = () => undefined;
    await reconcile('gloo-system/ha', ctx(), deps);
    writer.failWith = (c) => (c.op === 'apply' ? apiError(400, 'bad request') : undefined);
    expect(await reconcile('gloo-system/ha', ctx(), deps)).toEqual({ requeueAfterMs: 30_000 });
    memory.forget('gloo-system/ha');
    expect(memory.size()).toBe(0);
  });

  it('403: Stalled/Forbidden with the server words, checked again in a minute', async () => {
    const { writer, deps } = setup();
    writer.failWith = (c) =>
      c.op === 'apply'
        ? apiError(403, 'poddisruptionbudgets.policy is forbidden: User "x" cannot patch resource')
        : undefined;
    expect(await reconcile('gloo-system/ha', ctx(), deps)).toEqual({ requeueAfterMs: 60_000 });
    expect(stalled(writer)[0]).toMatchObject({ reason: 'Forbidden' });
    expect(stalled(writer)[0]?.message).toContain('cannot patch resource');
  });

  it('transient failures are retried with backoff: 500 thrown (logged as an error), 409 requeued (info only)', async () => {
    const { writer, deps, lines } = setup();
    writer.failWith = (c) => (c.op === 'apply' ? apiError(500, 'etcd timeout') : undefined);
    await expect(reconcile('gloo-system/ha', ctx(), deps)).rejects.toMatchObject({ code: 500 });
    writer.failWith = (c) => (c.op === 'apply' ? apiError(409, 'conflict') : undefined);
    expect(await reconcile('gloo-system/ha', ctx(), deps)).toEqual({ requeue: true });
    const conflict = lines.find((l) => l.msg === 'conflict with a newer version; retrying');
    expect(conflict?.level).toBe('info');
    expect(writer.calls.filter((c) => c.op === 'status')).toEqual([]);
  });

  it('the term ended (signal aborted, fence refused): stops quietly, writes no status', async () => {
    const { writer, deps, lines } = setup();
    const term = new AbortController();
    writer.failWith = (c) => {
      if (c.op === 'apply') {
        term.abort(new NotLeaderError('term over'));
        return new NotLeaderError('term over');
      }
      return undefined;
    };
    expect(await reconcile('gloo-system/ha', ctx(term.signal), deps)).toBeUndefined();
    expect(writer.calls).toEqual([]);
    expect(lines.some((l) => l.msg === 'reconcile stopped: this replica no longer leads')).toBe(true);
  });

  it('a GlooHA that is gone: its memory is forgotten', async () => {
    const { deps, memory } = setup(snapshotOf(undefined));
    memory.setCorrections('gloo-system/ha', [{ message: 'x', corrected: true }]);
    await reconcile('gloo-system/ha', ctx(), deps);
    expect(memory.size()).toBe(0);
  });
});
