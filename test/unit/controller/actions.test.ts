// Each action on its own, against a recording writer.
import { describe, expect, it } from 'vitest';
import { MANAGER } from '../../../src/api/constants.js';
import { runApplies, WriteError } from '../../../src/controller/actions/apply.js';
import { EventRecorder } from '../../../src/controller/actions/events.js';
import { runFinalizers } from '../../../src/controller/actions/finalizers.js';
import { runHandover } from '../../../src/controller/actions/handover.js';
import { runPrunes } from '../../../src/controller/actions/prune.js';
import { runReleaseReplicas } from '../../../src/controller/actions/release-replicas.js';
import { runStatus } from '../../../src/controller/actions/status.js';
import { ReconcilerMemory } from '../../../src/controller/memory.js';
import type { PlannedApply } from '../../../src/controller/plan-types.js';
import { NotLeaderError } from '../../../src/leader/leadership.js';
import { createLogger } from '../../../src/log.js';
import { apiError, FakeWriter } from './fake-writer.js';
import { finalizedGlooHA, NS } from './snapshots.js';

const signal = () => new AbortController().signal;
const g = finalizedGlooHA({ gloo: { replicas: 2 } });
const apply = (name: string, stage?: number): PlannedApply => ({
  body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: NS } },
  reason: 'create',
  what: `PodDisruptionBudget ${NS}/${name}`,
  component: 'gloo',
  ...(stage === undefined ? {} : { stage }),
});

describe('actions', () => {
  it('apply: applies in order as the operator, passes the signal, stops at the first failure naming its object', async () => {
    const w = new FakeWriter();
    const s = signal();
    const done: string[] = [];
    await runApplies([apply('a'), apply('b')], w, s, (a) => done.push(a.what));
    expect(w.ops()).toEqual([
      `apply ${MANAGER} PodDisruptionBudget a`,
      `apply ${MANAGER} PodDisruptionBudget b`,
    ]);
    expect(w.signals.every((x) => x === s)).toBe(true);
    expect(done).toHaveLength(2);

    // A failed stage: its other requests still complete, later stages are not sent.
    const failing = new FakeWriter();
    failing.failWith = (c) =>
      c.op === 'apply' && c.body.metadata?.name === 'a' ? apiError(422, 'bad') : undefined;
    const err = await runApplies([apply('c', 1), apply('a'), apply('b')], failing, s).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WriteError);
    expect((err as WriteError).what).toBe(`PodDisruptionBudget ${NS}/a`);
    expect((err as WriteError).code).toBe(422);
    expect(failing.ops()).toEqual([`apply ${MANAGER} PodDisruptionBudget b`]);
  });

  it('apply: stage by stage in ascending order, a stage sent together before the next starts', async () => {
    const order: string[] = [];
    const inFlight = new Set<string>();
    let maxInFlight = 0;
    // Only apply() is called by runApplies.
    const slow = {
      apply: async (body: PlannedApply['body']) => {
        const name = body.metadata?.name ?? '';
        inFlight.add(name);
        maxInFlight = Math.max(maxInFlight, inFlight.size);
        await new Promise((r) => setTimeout(r, 5));
        inFlight.delete(name);
        order.push(name);
      },
    } as unknown as FakeWriter;
    await runApplies([apply('late', 2), apply('x'), apply('y'), apply('mid', 1)], slow, signal());
    expect(order.slice(0, 2).sort()).toEqual(['x', 'y']);
    expect(order.slice(2)).toEqual(['mid', 'late']);
    expect(maxInFlight).toBe(2);
  });

  it('prune: deletes each planned object', async () => {
    const w = new FakeWriter();
    await runPrunes([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'x' }], w, signal());
    expect(w.ops()).toEqual(['delete ConfigMap x']);
  });

  it('handover: one merge patch per object, releasing our field ownership', async () => {
    const w = new FakeWriter();
    const release = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gloo', namespace: NS, resourceVersion: '7', managedFields: [{}] },
    };
    await runHandover([{ release, what: 'Deployment gloo' }], w, signal());
    expect(w.ops()).toEqual(['mergePatch Deployment gloo']);
    expect(w.calls[0]).toMatchObject({ op: 'mergePatch', body: release });
  });

  it('handover with a strategy to make safe: that patch first, then the release on the resourceVersion it produced', async () => {
    const w = new FakeWriter();
    w.nextResourceVersion = 8;
    const release = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gloo', namespace: NS, resourceVersion: '7', managedFields: [{}] },
    };
    const prepare = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gloo', namespace: NS, resourceVersion: '7' },
      spec: {
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      },
    };
    await runHandover([{ release, prepare, what: 'Deployment gloo' }], w, signal());
    expect(w.ops()).toEqual(['mergePatch Deployment gloo', 'mergePatch Deployment gloo']);
    expect(w.calls[0]).toMatchObject({ op: 'mergePatch', body: prepare });
    expect(w.calls[1]).toMatchObject({
      op: 'mergePatch',
      body: { metadata: { resourceVersion: '8', managedFields: [{}] } },
    });
  });

  it('release replicas: one merge patch per Deployment, all sent; a refusal (409) names its object', async () => {
    const patch = (name: string) => ({
      release: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: NS, resourceVersion: '7', managedFields: [{}] },
      },
      what: `Deployment ${NS}/${name}`,
    });
    const w = new FakeWriter();
    const done: string[] = [];
    await runReleaseReplicas([patch('gloo'), patch('gateway-proxy')], w, signal(), (r) => done.push(r.what));
    expect(w.ops()).toEqual(['mergePatch Deployment gloo', 'mergePatch Deployment gateway-proxy']);
    expect(done).toEqual([`Deployment ${NS}/gloo`, `Deployment ${NS}/gateway-proxy`]);

    const failing = new FakeWriter();
    failing.failWith = (c) =>
      c.op === 'mergePatch' && c.body.metadata?.name === 'gloo'
        ? apiError(409, 'the object has been modified')
        : undefined;
    const err = await runReleaseReplicas([patch('gloo'), patch('gateway-proxy')], failing, signal()).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WriteError);
    expect((err as WriteError).what).toBe(`Deployment ${NS}/gloo`);
    expect((err as WriteError).code).toBe(409);
    expect(failing.ops()).toEqual(['mergePatch Deployment gateway-proxy']); // the other one still went
  });

  it('finalizers: sets the list', async () => {
    const w = new FakeWriter();
    await runFinalizers(g, ['a'], w, signal());
    expect(w.calls).toEqual([{ op: 'finalizers', finalizers: ['a'] }]);
  });

  it('finalizers and status: a refused write names the object by its own kind (GlooHA or KgatewayHA)', async () => {
    const w = new FakeWriter();
    w.failWith = () => apiError(422, 'invalid');
    const k = { ...g, kind: 'KgatewayHA' };
    for (const [obj, kind] of [
      [g, 'GlooHA'],
      [k, 'KgatewayHA'],
    ] as const) {
      const fin = await runFinalizers(obj, ['a'], w, signal()).catch((e: unknown) => e);
      expect((fin as WriteError).what).toBe(`${kind} ${NS}/ha`);
      const st = await runStatus(`${NS}/ha`, obj, {}, new ReconcilerMemory(), w, signal()).catch(
        (e: unknown) => e,
      );
      expect((st as WriteError).what).toBe(`${kind} ${NS}/ha status`);
    }
  });

  it('status: writes once per (status, resourceVersion); again when either changes', async () => {
    const w = new FakeWriter();
    const memory = new ReconcilerMemory();
    const status = { observedGeneration: 1 };
    expect(await runStatus('k', g, status, memory, w, signal())).toBe(true);
    expect(await runStatus('k', g, status, memory, w, signal())).toBe(false);
    expect(
      await runStatus(
        'k',
        { ...g, metadata: { ...g.metadata, resourceVersion: '11' } },
        status,
        memory,
        w,
        signal(),
      ),
    ).toBe(true);
    expect(await runStatus('k', g, { observedGeneration: 2 }, memory, w, signal())).toBe(true);
    expect(w.calls.filter((c) => c.op === 'status')).toHaveLength(3);
    memory.forget('k');
    expect(memory.size()).toBe(0);
  });

  it('events: deduped within the window; a failed one is logged, not thrown — unless the term ended', async () => {
    const w = new FakeWriter();
    let now = 1_000_000;
    const lines: string[] = [];
    const rec = new EventRecorder(
      w,
      createLogger('debug', {}, (l) => lines.push(l)),
      () => now,
      'pod-a',
    );
    const e = { type: 'Warning' as const, reason: 'DriftDetected', message: 'x' };
    await rec.record(g, e, signal());
    await rec.record(g, e, signal());
    expect(w.ops()).toEqual(['event DriftDetected']);
    const sent = w.calls[0] as {
      event: { involvedObject: { name: string }; reportingInstance: string; firstTimestamp: unknown };
    };
    expect(sent.event.involvedObject.name).toBe('ha');
    expect(sent.event.reportingInstance).toBe('pod-a');
    expect(sent.event.firstTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    now += 11 * 60_000;
    await rec.record(g, e, signal());
    expect(w.ops()).toHaveLength(2);

    w.failWith = () => apiError(500, 'boom');
    await rec.record(g, { ...e, message: 'y' }, signal());
    expect(lines.some((l) => l.includes('could not record event'))).toBe(true);
    w.failWith = () => undefined;
    await rec.record(g, { ...e, message: 'y' }, signal()); // not remembered after the failure: retried
    expect(w.ops()).toHaveLength(3);

    w.failWith = () => new NotLeaderError('term over');
    await expect(rec.record(g, { ...e, message: 'z' }, signal())).rejects.toBeInstanceOf(NotLeaderError);
    const ended = new AbortController();
    ended.abort(new Error('term over'));
    w.failWith = () => new Error('aborted');
    await expect(rec.record(g, { ...e, message: 'w' }, ended.signal)).rejects.toThrow('aborted');
    w.failWith = () => undefined;
    rec.forget(g.metadata.uid);
    await rec.record(g, e, signal()); // forgotten: sent again
    expect(w.ops()).toHaveLength(4);
  });

  it('a write held up by a slow API server is cut off by the term signal', async () => {
    const w = new FakeWriter();
    w.hold = new Promise(() => {});
    const term = new AbortController();
    const p = runApplies([apply('a')], w, term.signal);
    term.abort(new NotLeaderError('term over'));
    await expect(p).rejects.toBeInstanceOf(WriteError);
  });
});
