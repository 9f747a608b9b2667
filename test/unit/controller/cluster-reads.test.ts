// ClusterReads on a real Manager (fake list/watch transport, fake access reviews, a manual clock): a
// kind granted after start is watched in place — same manager, same elector, no restart — and its
// readers are told once its cache synced; a revoked one is stopped and dropped; a failed review changes
// nothing; a 403 from a list or watch asks again before the period is over.
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ClusterReads, type ClusterKind } from '../../../src/controller/cluster-reads.js';
import { DEFAULT_TIMINGS } from '../../../src/leader/config.js';
import { NotLeaderError } from '../../../src/leader/leadership.js';
import { createLogger } from '../../../src/log.js';
import { Manager, type Elector } from '../../../src/manager/manager.js';
import { createMetrics } from '../../../src/metrics/index.js';
import type { KindInfo } from '../../../src/controller/kinds.js';
import { FakeClock, FakeTransport, flush } from '../runtime/helpers.js';

type Obj = KubernetesObject & Record<string, unknown>;

const PRIORITY_CLASSES: ClusterKind = {
  kind: 'PriorityClass',
  group: 'scheduling.k8s.io',
  version: 'v1',
  plural: 'priorityclasses',
  readers: ['KgatewayHA'],
  grantHint: 'grant it',
};
const RECHECK_MS = 10_000;

const pc = (name: string, rv: string): Obj => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name, resourceVersion: rv },
});

async function setup(initial: { allowed: boolean | Error }) {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const clock = new FakeClock();
  /** What RBAC answers now; a list of the kind waits for listGate, when set. */
  const state: {
    allowed: boolean | Error;
    listGate?: Promise<void>;
    answerGate?: Promise<void>;
    electorStop?: Promise<void>;
  } = { allowed: initial.allowed };
  const transports: FakeTransport<Obj>[] = [];
  const lines: { msg: string; kind?: string; reason?: string }[] = [];
  let electorStarts = 0;
  const elector: Elector = {
    start: () => void electorStarts++,
    stop: async () => {
      await state.electorStop;
    },
    isLeader: () => false,
    canWrite: () => false,
    assertLeading: () => {
      throw new NotLeaderError('standby');
    },
    leadingSignal: AbortSignal.abort(),
  };
  const mgr = new Manager({
    kubeConfig: kc,
    logger: createLogger('debug', {}, (l) => lines.push(JSON.parse(l) as (typeof lines)[number])),
    metrics: createMetrics({ defaultMetrics: false }),
    namespaces: [],
    leaderElection: {
      ...DEFAULT_TIMINGS,
      enabled: true,
      leaseName: 'x',
      namespace: 'ns',
      identity: 'me',
      releaseOnCancel: true,
      requireFencingPolicy: false,
    },
    metricsBindAddress: '127.0.0.1:0',
    clock,
    makeElector: () => elector,
    informerTransport: () => {
      const t = new FakeTransport<Obj>(async () => {
        await state.listGate;
        return { items: [pc('high', '1')], resourceVersion: '5' };
      });
      transports.push(t);
      return t;
    },
  });
  const asked: string[] = [];
  const ask = async (k: KindInfo, verb: string) => {
    asked.push(`${verb} ${k.plural}`);
    await state.answerGate;
    if (state.allowed instanceof Error) throw state.allowed;
    return state.allowed;
  };
  const reads = new ClusterReads({
    manager: mgr,
    kinds: [PRIORITY_CLASSES],
    recheckMs: RECHECK_MS,
    ask,
    clock,
  });
  const changes: string[] = [];
  reads.onChange('PriorityClass', () =>
    changes.push(reads.cache('PriorityClass') ? 'readable' : 'unreadable'),
  );
  await reads.check('start-up');
  await mgr.start();
  reads.start();
  return { mgr, reads, clock, transports, lines, state, asked, changes, electorStarts: () => electorStarts };
}

describe('ClusterReads: RBAC re-asked while the manager runs', () => {
  it('denied at start: not watched, and a warning names the kind and the fix', async () => {
    const t = await setup({ allowed: false });
    expect(t.reads.watched()).toEqual([]);
    expect(t.reads.cache('PriorityClass')).toBeUndefined();
    expect(t.transports).toEqual([]);
    const warn = t.lines.find((l) => l.msg.startsWith('RBAC does not let the operator list and watch'));
    expect(warn?.msg).toContain('priorityclasses.scheduling.k8s.io');
    expect(warn?.msg).toContain('KgatewayHAs that need them report it (grant it)');
    await t.mgr.stop('test');
  });

  it('granted later: watched in place within one period, readers told once synced; the manager keeps running', async () => {
    const t = await setup({ allowed: false });
    t.state.allowed = true;
    await t.clock.advance(RECHECK_MS - 1);
    expect(t.reads.watched()).toEqual([]); // not before the period
    await t.clock.advance(1);
    expect(t.reads.watched()).toEqual(['PriorityClass']);
    expect(t.transports).toHaveLength(1);
    expect(t.transports[0]!.listCalls).toHaveLength(1); // started at once, not at a next manager start
    expect(t.reads.cache('PriorityClass')?.keys()).toEqual(['high']);
    expect(t.changes.at(-1)).toBe('readable');
    // The same manager and elector: nothing restarted, the elector started once.
    expect(t.electorStarts()).toBe(1);
    expect(t.lines.some((l) => l.msg.includes('now lets the operator list and watch'))).toBe(true);
    // An object event of the kind tells the readers too.
    const before = t.changes.length;
    t.transports[0]!.lastWatch.send('ADDED', pc('low', '6'));
    await flush();
    expect(t.changes.length).toBe(before + 1);
    expect(t.reads.cache('PriorityClass')?.keys().sort()).toEqual(['high', 'low']);
    await t.mgr.stop('test');
  });

  it('a late informer is left out of /readyz while it fills, and is not readable before it synced', async () => {
    const t = await setup({ allowed: false });
    let release!: () => void;
    t.state.listGate = new Promise<void>((r) => (release = r));
    t.state.allowed = true;
    await t.clock.advance(RECHECK_MS);
    expect(t.reads.watched()).toEqual(['PriorityClass']);
    expect(t.reads.cache('PriorityClass')).toBeUndefined();
    expect(t.mgr.cachesSynced()).toEqual({ ok: true });
    release();
    await flush();
    expect(t.reads.cache('PriorityClass')?.keys()).toEqual(['high']);
    expect(t.changes.at(-1)).toBe('readable');
    await t.mgr.stop('test');
  });

  it('revoked: the watch stops, the cache is dropped, readers told, a warning logged', async () => {
    const t = await setup({ allowed: true });
    expect(t.reads.cache('PriorityClass')?.keys()).toEqual(['high']);
    const watch = t.transports[0]!.lastWatch;
    t.state.allowed = false;
    await t.clock.advance(RECHECK_MS);
    expect(t.reads.watched()).toEqual([]);
    expect(t.reads.cache('PriorityClass')).toBeUndefined();
    expect(watch.aborted).toBe(true);
    expect(t.changes.at(-1)).toBe('unreadable');
    const warn = t.lines.find((l) => l.msg.includes('stopped watching it and dropped its cache'));
    expect(warn?.kind).toBe('PriorityClass');
    // Granted again: a new informer (a stopped one cannot restart), readable again.
    t.state.allowed = true;
    await t.clock.advance(RECHECK_MS);
    expect(t.transports).toHaveLength(2);
    expect(t.reads.cache('PriorityClass')?.keys()).toEqual(['high']);
    expect(t.changes.at(-1)).toBe('readable');
    expect(t.electorStarts()).toBe(1);
    await t.mgr.stop('test');
  });

  it('a failed review keeps a watched kind watched and an unwatched one unwatched, and says so', async () => {
    const watched = await setup({ allowed: true });
    watched.state.allowed = new Error('503 Service Unavailable');
    const changes = watched.changes.length;
    await watched.clock.advance(RECHECK_MS * 3);
    expect(watched.reads.watched()).toEqual(['PriorityClass']);
    expect(watched.reads.cache('PriorityClass')?.keys()).toEqual(['high']);
    expect(watched.transports[0]!.lastWatch.aborted).toBe(false);
    expect(watched.changes.length).toBe(changes);
    const kept = watched.lines.filter((l) => l.msg.includes('still watching it'));
    expect(kept).toHaveLength(3);
    expect(kept[0]?.reason).toBe('503 Service Unavailable');
    await watched.mgr.stop('test');

    const unwatched = await setup({ allowed: new Error('selfsubjectaccessreviews is forbidden') });
    expect(unwatched.reads.watched()).toEqual([]);
    expect(unwatched.lines.some((l) => l.msg.includes('still not watching it'))).toBe(true);
    // Picked up at the next period once the review works.
    unwatched.state.allowed = true;
    await unwatched.clock.advance(RECHECK_MS);
    expect(unwatched.reads.cache('PriorityClass')?.keys()).toEqual(['high']);
    await unwatched.mgr.stop('test');
  });

  it('a 403 on the watch asks again at once, well before the period', async () => {
    const t = await setup({ allowed: true });
    const askedBefore = t.asked.length;
    t.state.allowed = false;
    t.transports[0]!.lastWatch.close(Object.assign(new Error('forbidden'), { code: 403 }));
    await flush();
    expect(t.asked.length).toBe(askedBefore + 2); // list and watch, asked again
    expect(t.reads.watched()).toEqual([]);
    expect(t.changes.at(-1)).toBe('unreadable');
    await t.mgr.stop('test');
  });

  it('another error on the watch (500) does not ask again', async () => {
    const t = await setup({ allowed: true });
    const askedBefore = t.asked.length;
    t.transports[0]!.lastWatch.close(Object.assign(new Error('internal'), { code: 500 }));
    await flush();
    expect(t.asked.length).toBe(askedBefore);
    expect(t.reads.watched()).toEqual(['PriorityClass']);
    await t.mgr.stop('test');
  });

  it('the manager stopping while a re-check waits for its answer: no informer, no error, nothing thrown', async () => {
    const t = await setup({ allowed: false });
    let answer!: () => void;
    t.state.answerGate = new Promise<void>((r) => (answer = r));
    t.state.allowed = true;
    let leave!: () => void;
    t.state.electorStop = new Promise<void>((r) => (leave = r));
    await t.clock.advance(RECHECK_MS); // the re-check is asking
    const stopped = t.mgr.stop('test'); // leaving the election: the manager takes no new informer
    answer(); // RBAC now says yes, before the manager's stop hooks ran
    await flush();
    leave();
    await stopped;
    await flush();
    expect(t.reads.watched()).toEqual([]);
    expect(t.transports).toEqual([]);
    expect(t.lines.filter((l) => (l as { level?: string }).level === 'error')).toEqual([]);
  });

  it('stops asking when the manager stops', async () => {
    const t = await setup({ allowed: false });
    await t.mgr.stop('test');
    const asked = t.asked.length;
    t.state.allowed = true;
    await t.clock.advance(RECHECK_MS * 3);
    expect(t.asked.length).toBe(asked);
    expect(t.reads.watched()).toEqual([]);
  });
});
