// The manager: caches first (on every replica), controllers only while leading, the term's signal on
// every reconcile, a cache-sync deadline, a bounded stop, and one fence for every write.
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { LeaderCallbacks, LeaderTerm } from '../../../src/leader/elector.js';
import { DEFAULT_TIMINGS, RELEASE_GUARD_MS } from '../../../src/leader/config.js';
import { NotLeaderError } from '../../../src/leader/leadership.js';
import { createLogger } from '../../../src/log.js';
import { Manager, StartupError, type Elector, type ManagerOptions } from '../../../src/manager/manager.js';
import type { Clock } from '../../../src/runtime/clock.js';
import { createMetrics } from '../../../src/metrics/index.js';
import type { WorkContext } from '../../../src/runtime/workqueue.js';
import { closedPort } from '../leader/mock-apiserver.js';
import { FakeClock, FakeTransport, flush, obj } from '../runtime/helpers.js';
import type { FencingProbeResult } from '../../../src/leader/fencing-probe.js';
import type { OperatorMetrics } from '../../../src/metrics/index.js';

async function gauge(metrics: OperatorMetrics, name: string): Promise<number> {
  const line = (await metrics.expose()).body.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ').pop());
}

type Obj = KubernetesObject & Record<string, unknown>;

function kubeConfig(port: number): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

/** An elector the test drives: it leads when told to. */
class FakeElector implements Elector {
  started = false;
  leading?: { controller: AbortController; term: LeaderTerm };
  seq = 0;
  stopHangs = false;
  constructor(readonly callbacks: LeaderCallbacks) {}
  start(): void {
    this.started = true;
  }
  async stop(): Promise<void> {
    if (this.stopHangs) return new Promise(() => {});
    await this.lose();
  }
  lead(): LeaderTerm {
    const controller = new AbortController();
    const id = ++this.seq;
    const term: LeaderTerm = {
      id,
      signal: controller.signal,
      canWrite: () => !controller.signal.aborted,
      assertLeading: () => this.assertLeading(),
    };
    this.leading = { controller, term };
    void this.callbacks.onStartedLeading(controller.signal, term);
    return term;
  }
  async lose(): Promise<void> {
    if (!this.leading) return;
    this.leading.controller.abort(new NotLeaderError('lost'));
    const id = this.leading.term.id;
    this.leading = undefined;
    await this.callbacks.onStoppedLeading({ reason: 'lease-lost', message: 'lost', term: id });
  }
  isLeader(): boolean {
    return !!this.leading;
  }
  canWrite(): boolean {
    return !!this.leading;
  }
  assertLeading(): void {
    if (!this.leading) throw new NotLeaderError('not leading');
  }
  get leadingSignal(): AbortSignal {
    return this.leading?.controller.signal ?? AbortSignal.abort();
  }
}

async function setup(
  opts: {
    list?: () => Promise<{ items: Obj[]; resourceVersion: string }>;
    cacheSyncTimeoutMs?: number;
    probeFencing?: ManagerOptions['probeFencing'];
    clock?: Clock;
    namespaces?: string[];
    canWatchAllNamespaces?: ManagerOptions['canWatchAllNamespaces'];
    listPageSize?: number;
  } = {},
) {
  const port = await closedPort();
  const transport = new FakeTransport<Obj>(
    opts.list ?? (() => ({ items: [obj('a', '1'), obj('b', '1')], resourceVersion: '5' })),
  );
  let elector!: FakeElector;
  const metrics = createMetrics({ defaultMetrics: false });
  const lines: Record<string, unknown>[] = [];
  const mgr = new Manager({
    kubeConfig: kubeConfig(port),
    logger: createLogger('debug', {}, (l) => lines.push(JSON.parse(l) as Record<string, unknown>)),
    metrics,
    namespaces: opts.namespaces ?? [],
    canWatchAllNamespaces: opts.canWatchAllNamespaces,
    leaderElection: {
      ...DEFAULT_TIMINGS,
      enabled: true,
      leaseName: 'x',
      namespace: 'ns',
      identity: 'me',
      releaseOnCancel: true,
      requireFencingPolicy: opts.probeFencing !== undefined,
    },
    metricsBindAddress: '127.0.0.1:0',
    listPageSize: opts.listPageSize,
    cacheSyncTimeoutMs: opts.cacheSyncTimeoutMs,
    probeFencing: opts.probeFencing,
    clock: opts.clock,
    makeElector: (callbacks) => (elector = new FakeElector(callbacks)),
    informerTransport: () => transport,
  });
  const informer = mgr.informer<Obj>({ group: '', version: 'v1', plural: 'configmaps' });
  const reconciled: { key: string; ctx: WorkContext }[] = [];
  let hold: Promise<void> | undefined;
  mgr.add({
    name: 'test',
    concurrency: 2,
    resyncPeriodMs: 0,
    reconcile: async (key, ctx) => {
      reconciled.push({ key, ctx });
      if (hold) await Promise.race([hold, new Promise((r) => ctx.signal.addEventListener('abort', r))]);
    },
    watches: [{ informer: informer as never }],
  });
  return {
    mgr,
    metrics,
    elector: () => elector,
    transport,
    informer,
    reconciled,
    lines,
    setHold: (p: Promise<void> | undefined) => {
      hold = p;
    },
  };
}

describe('Manager', () => {
  it("its informers list in pages of --list-page-size (client-go's 500 when unset; 0: no limit)", async () => {
    for (const [listPageSize, limit] of [
      [undefined, 500],
      [7, 7],
      [0, undefined],
    ] as const) {
      const m = await setup({ listPageSize });
      await m.mgr.start();
      expect(m.transport.listCalls.map((c) => c.limit)).toEqual([limit]);
      await m.mgr.stop('test');
    }
  });

  it('namespaced mode: one cluster-wide watch per kind when RBAC allows listing and watching it everywhere, else one per namespace', async () => {
    const asked: string[] = [];
    const allowed = await setup({
      namespaces: ['n1', 'n2'],
      canWatchAllNamespaces: async (ref) => {
        asked.push(ref.plural);
        return true;
      },
    });
    await allowed.mgr.start();
    expect(asked).toEqual(['configmaps']);
    expect(allowed.transport.listCalls.map((c) => c.namespace)).toEqual([undefined]);
    expect(allowed.lines.some((l) => String(l.msg).startsWith('one cluster-wide watch per kind'))).toBe(true);
    await allowed.mgr.stop('test');

    const denied = await setup({ namespaces: ['n1', 'n2'], canWatchAllNamespaces: async () => false });
    await denied.mgr.start();
    expect(denied.transport.listCalls.map((c) => c.namespace).sort()).toEqual(['n1', 'n2']);
    expect(denied.lines.some((l) => String(l.msg).startsWith('one watch per watched namespace'))).toBe(true);
    await denied.mgr.stop('test');

    // The real question (two access reviews) to an API server that is not there: per namespace, with a warning.
    const unreachable = await setup({ namespaces: ['n1', 'n2'] });
    await unreachable.mgr.start();
    expect(unreachable.transport.listCalls.map((c) => c.namespace).sort()).toEqual(['n1', 'n2']);
    expect(
      unreachable.lines.some(
        (l) => l.level === 'warn' && String(l.msg).includes('whether RBAC allows a cluster-wide watch'),
      ),
    ).toBe(true);
    await unreachable.mgr.stop('test');
  });

  it('syncs the caches before joining the election; reconciles nothing until it leads', async () => {
    const t = await setup();
    await t.mgr.start();
    expect(t.informer.hasSynced()).toBe(true);
    expect(t.elector().started).toBe(true);
    const ready = await fetch(`${t.mgr.metricsUrl}/readyz`);
    expect(ready.status).toBe(200); // a hot standby is ready
    t.transport.watches[0]?.send('MODIFIED', obj('a', '6', { data: { x: '1' } }));
    await flush();
    expect(t.reconciled).toEqual([]);
    await t.mgr.stop('test');
  });

  it('leading: every cached key is reconciled with the term signal; losing aborts in-flight work and stops the workers', async () => {
    const t = await setup();
    await t.mgr.start();
    t.setHold(new Promise(() => {}));
    const term = t.elector().lead();
    await flush();
    expect(t.reconciled.map((r) => r.key).sort()).toEqual([...t.informer.store.keys()].sort());
    expect(t.reconciled).toHaveLength(2);
    expect(t.reconciled.every((r) => !r.ctx.signal.aborted)).toBe(true);
    await t.elector().lose();
    expect(term.signal.aborted).toBe(true);
    expect(t.reconciled.every((r) => r.ctx.signal.aborted)).toBe(true);
    const before = t.reconciled.length;
    t.transport.watches[0]?.send('MODIFIED', obj('a', '7', { data: { x: '2' } }));
    await flush();
    expect(t.reconciled.length).toBe(before); // no workers while not leading
    // a new term starts fresh workers and reconciles everything again
    t.setHold(undefined);
    t.elector().lead();
    await flush();
    expect(t.reconciled.length).toBe(before + 2);
    await t.mgr.stop('test');
  });

  it('a cache that cannot sync fails start-up at the deadline, naming it, before joining the election', async () => {
    const t = await setup({ list: () => new Promise(() => {}), cacheSyncTimeoutMs: 200 });
    const err = await t.mgr.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(
      /caches did not sync within 0\.2s: caches not synced yet: configmaps/,
    );
    expect(t.elector().started).toBe(false);
    await t.mgr.stop('start-up failed');
  });

  it('fails closed without the fencing policy: a leader reconciles nothing until the probe is refused, retrying with backoff', async () => {
    const clock = new FakeClock();
    const answers: FencingProbeResult[] = [
      { enforced: false, missing: true, reason: 'accepted' },
      { enforced: false, missing: true, reason: 'accepted' },
      { enforced: true },
    ];
    const probes: number[] = [];
    const t = await setup({
      clock,
      probeFencing: async () => {
        probes.push(clock.now());
        return answers.shift() ?? { enforced: true };
      },
    });
    await t.mgr.start();
    t.elector().lead();
    await flush();
    expect(probes).toEqual([0]);
    expect(t.reconciled).toEqual([]);
    expect(await gauge(t.metrics, 'glooha_fencing_policy_missing')).toBe(1);
    const refusal = t.lines.find(
      (l) => l.msg === 'not reconciling: the API server does not enforce the fencing policy',
    );
    expect(refusal).toMatchObject({ reason: 'accepted', retryInMs: 1000 });
    expect(String(refusal?.fix)).toContain('leaderElection.fencingPolicy.enabled=true');
    await clock.advance(1_000);
    expect(probes).toEqual([0, 1_000]);
    expect(t.reconciled).toEqual([]);
    await clock.advance(2_000); // backoff doubled
    expect(probes).toEqual([0, 1_000, 3_000]);
    expect(t.reconciled).toHaveLength(2);
    expect(await gauge(t.metrics, 'glooha_fencing_policy_missing')).toBe(0);
    await t.mgr.stop('test');
  });

  it('a policy deleted during the term stops the controllers at the next re-check; they start again once it is back', async () => {
    const clock = new FakeClock();
    let answer: FencingProbeResult = { enforced: true };
    let probes = 0;
    const t = await setup({
      clock,
      probeFencing: async () => {
        probes++;
        return answer;
      },
    });
    await t.mgr.start();
    t.elector().lead();
    await flush();
    expect(t.reconciled).toHaveLength(2);
    // An error proves nothing: the controllers keep running.
    answer = { enforced: false, missing: false, reason: 'the probe failed (503)' };
    await clock.advance(60_000);
    expect(probes).toBe(2);
    t.transport.watches[0]?.send('MODIFIED', obj('a', '6', { data: { x: '1' } }));
    await flush();
    expect(t.reconciled).toHaveLength(3);
    // The API server accepts the probe: the policy is gone.
    answer = { enforced: false, missing: true, reason: 'accepted' };
    await clock.advance(60_000);
    expect(await gauge(t.metrics, 'glooha_fencing_policy_missing')).toBe(1);
    expect(t.lines.some((l) => String(l.msg).startsWith('the fencing policy is no longer enforced'))).toBe(
      true,
    );
    t.transport.watches[0]?.send('MODIFIED', obj('a', '7', { data: { x: '2' } }));
    await flush();
    expect(t.reconciled).toHaveLength(3); // no controller runs
    answer = { enforced: true };
    await clock.advance(1_000);
    expect(t.reconciled).toHaveLength(5); // started again: every cached key replayed
    expect(await gauge(t.metrics, 'glooha_fencing_policy_missing')).toBe(0);
    await t.mgr.stop('test');
  });

  it('the release guard: none while the controllers run under an enforced fencing policy, RELEASE_GUARD_MS otherwise', async () => {
    const clock = new FakeClock();
    let answer: FencingProbeResult = { enforced: false, missing: true, reason: 'accepted' };
    const t = await setup({ clock, probeFencing: async () => answer });
    await t.mgr.start();
    expect(t.mgr.releaseGuardMs()).toBe(RELEASE_GUARD_MS); // not leading: nothing seen
    t.elector().lead();
    await flush();
    expect(t.mgr.releaseGuardMs()).toBe(RELEASE_GUARD_MS); // waiting for the policy
    answer = { enforced: true };
    await clock.advance(1_000);
    expect(t.reconciled).toHaveLength(2);
    expect(t.mgr.releaseGuardMs()).toBe(0); // a late write would be refused by admission
    answer = { enforced: false, missing: true, reason: 'accepted' };
    await clock.advance(60_000); // the re-check finds the policy gone
    expect(t.mgr.releaseGuardMs()).toBe(RELEASE_GUARD_MS);
    answer = { enforced: true };
    await clock.advance(1_000);
    expect(t.mgr.releaseGuardMs()).toBe(0);
    await t.elector().lose();
    t.elector().lead(); // a new term: nothing known until its own probe
    expect(t.mgr.releaseGuardMs()).toBe(RELEASE_GUARD_MS);
    await flush();
    expect(t.mgr.releaseGuardMs()).toBe(0);
    await t.mgr.stop('test');
    // Without the policy required, the guard always applies.
    const plain = await setup();
    await plain.mgr.start();
    plain.elector().lead();
    await flush();
    expect(plain.reconciled).toHaveLength(2);
    expect(plain.mgr.releaseGuardMs()).toBe(RELEASE_GUARD_MS);
    await plain.mgr.stop('test');
  });

  it('a term that ends while the fencing policy is missing starts no controller and stops probing', async () => {
    const clock = new FakeClock();
    let probes = 0;
    const t = await setup({
      clock,
      probeFencing: async () => {
        probes++;
        return { enforced: false, missing: true, reason: 'accepted' };
      },
    });
    await t.mgr.start();
    t.elector().lead();
    await flush();
    await t.elector().lose();
    await clock.advance(60_000);
    expect(probes).toBe(1);
    expect(t.reconciled).toEqual([]);
    expect(await gauge(t.metrics, 'glooha_fencing_policy_missing')).toBe(0);
    await t.mgr.stop('test');
  });

  it('one fence: writes through the manager transport are refused unless leading, before any connection', async () => {
    const t = await setup();
    await t.mgr.start();
    await expect(
      t.mgr.client.request('POST', '/api/v1/namespaces/x/configmaps', { body: {} }),
    ).rejects.toBeInstanceOf(NotLeaderError);
    t.elector().lead();
    // leading: the write passes the fence and fails only because nothing listens on the port
    await expect(
      t.mgr.client.request('POST', '/api/v1/namespaces/x/configmaps', { body: {} }),
    ).rejects.not.toBeInstanceOf(NotLeaderError);
    await t.mgr.stop('test');
  });

  it('stop() meets its budget even when leaving the election hangs', async () => {
    const t = await setup();
    await t.mgr.start();
    t.elector().stopHangs = true;
    const started = performance.now();
    await t.mgr.stop('test', 300);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(t.lines.some((l) => String(l.msg).includes('leaving the leader election took too long'))).toBe(
      true,
    );
  });
});
