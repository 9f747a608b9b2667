import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ApiException } from '@kubernetes/client-node';
import { Controller } from '../../../src/runtime/controller.js';
import { ignoreLeaseRenewals } from '../../../src/runtime/filters.js';
import { Informer } from '../../../src/runtime/informer.js';
import { FakeClock, FakeTransport, flush, obj } from './helpers.js';

type Obj = KubernetesObject & Record<string, unknown>;

function setup(
  items: Obj[] = [],
  opts: { namespaces?: string[]; rv?: string; watchTimeoutSeconds?: number; stallTimeoutMs?: number } = {},
) {
  const clock = new FakeClock();
  const transport = new FakeTransport<Obj>((req) => ({
    items: items.filter((i) => !req.namespace || i.metadata?.namespace === req.namespace),
    resourceVersion: opts.rv ?? '100',
  }));
  const informer = new Informer<Obj>(undefined, {
    group: '',
    version: 'v1',
    plural: 'configmaps',
    namespaces: opts.namespaces,
    watchTimeoutSeconds: opts.watchTimeoutSeconds ?? 300,
    stallTimeoutMs: opts.stallTimeoutMs,
    transport,
    clock,
  });
  const events: string[] = [];
  informer.addEventHandler({
    add: (o) => events.push(`add ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
    update: (old, o) =>
      events.push(
        `update ${o.metadata?.name}@${old.metadata?.resourceVersion}->${o.metadata?.resourceVersion}`,
      ),
    delete: (o, unknown) => events.push(`delete ${o.metadata?.name}${unknown ? ' (inferred)' : ''}`),
  });
  return { clock, transport, informer, events };
}

describe('Informer', () => {
  it('lists, syncs, then watches from the list resourceVersion with bookmarks and a timeout', async () => {
    const { transport, informer, events } = setup([obj('a', '10'), obj('b', '11')]);
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    await informer.waitForSync();
    expect(events).toEqual(['add a@10', 'add b@11']);
    expect(informer.store.keys()).toEqual(['ns/a', 'ns/b']);
    await flush();
    expect(transport.watches).toHaveLength(1);
    expect(transport.lastWatch.req).toMatchObject({ resourceVersion: '100', timeoutSeconds: 300 });
    expect(transport.listCalls[0]).toMatchObject({ limit: 500 });
    await informer.stop();
    expect(transport.lastWatch.aborted).toBe(true);
  });

  it('applies watch events to the store and emits add/update/delete', async () => {
    const { transport, informer, events } = setup([obj('a', '10')]);
    informer.start();
    await informer.waitForSync();
    await flush();
    const w = transport.lastWatch;
    w.send('ADDED', obj('b', '101'));
    w.send('MODIFIED', obj('a', '102', { data: { k: 'v' } }));
    w.send('DELETED', obj('b', '103'));
    expect(events).toEqual(['add a@10', 'add b@101', 'update a@10->102', 'delete b']);
    expect(informer.store.get('ns/a')).toMatchObject({ data: { k: 'v' } });
    expect(informer.resourceVersions()).toEqual({ '': '103' });
    await informer.stop();
  });

  it('resumes a closed watch from the last resourceVersion (bookmarks included) without re-listing or re-adding', async () => {
    const { clock, transport, informer, events } = setup([obj('a', '10')]);
    informer.start();
    await informer.waitForSync();
    await flush();
    transport.lastWatch.send('MODIFIED', obj('a', '105', { data: { x: '1' } }));
    transport.lastWatch.send('BOOKMARK', {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: '150' },
    });
    transport.lastWatch.close(); // server-side timeout
    await flush();
    expect(transport.watches).toHaveLength(2);
    expect(transport.lastWatch.req.resourceVersion).toBe('150');
    await clock.advance(300_000); // a quiet watch that ran its full timeout
    transport.lastWatch.close();
    await flush();
    expect(transport.watches).toHaveLength(3);
    expect(transport.listCalls).toHaveLength(1);
    expect(events).toEqual(['add a@10', 'update a@10->105']);
    expect(informer.stats()).toMatchObject({ lists: 1, watches: 3, resumes: 2, expired: 0 });
    await informer.stop();
  });

  it('re-lists on a 410 ERROR event and emits only what changed meanwhile', async () => {
    const items = [obj('same', '10'), obj('changed', '11'), obj('gone', '12')];
    const { transport, informer, events } = setup(items);
    informer.start();
    await informer.waitForSync();
    await flush();
    items.splice(0, items.length, obj('same', '10'), obj('changed', '20'), obj('new', '21'));
    transport.lastWatch.send('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' });
    await flush();
    expect(transport.listCalls).toHaveLength(2);
    expect(events.slice(3)).toEqual(['update changed@11->20', 'add new@21', 'delete gone (inferred)']);
    expect(informer.stats()).toMatchObject({ lists: 2, expired: 1 });
    expect(transport.lastWatch.req.resourceVersion).toBe('100');
    await informer.stop();
  });

  it('re-lists when the watch request itself fails with HTTP 410', async () => {
    const { transport, informer } = setup([obj('a', '1')]);
    informer.start();
    await informer.waitForSync();
    await flush();
    transport.lastWatch.close(Object.assign(new Error('Gone'), { statusCode: 410 }));
    await flush();
    expect(transport.listCalls).toHaveLength(2);
    await informer.stop();
  });

  it('retries errors forever with capped exponential backoff, then recovers', async () => {
    const { clock, transport, informer, events } = setup([obj('a', '1')]);
    let failing = 8;
    const base = transport.listResponder;
    const callTimes: number[] = [];
    transport.listResponder = (req) => {
      callTimes.push(clock.now());
      if (failing-- > 0) throw new ApiException(500, 'boom', {}, {});
      return base(req);
    };
    const errors: unknown[] = [];
    informer.onError((e) => errors.push(e));
    informer.start();
    await flush();
    expect(transport.listCalls).toHaveLength(1);
    for (let i = 0; i < 300 && transport.listCalls.length < 9; i++) await clock.advance(1000);
    expect(transport.listCalls).toHaveLength(9);
    expect(errors).toHaveLength(8);
    // backoff 800 ms doubling (jittered down by up to 50%), capped at 30 s
    const gaps = callTimes.slice(1).map((t, i) => t - (callTimes[i] ?? 0));
    gaps.forEach((g, i) => {
      const d = Math.min(30_000, 800 * 2 ** i);
      expect(g).toBeGreaterThanOrEqual(Math.floor(d / 2));
      expect(g).toBeLessThanOrEqual(d + 1000);
    });
    expect(informer.hasSynced()).toBe(true);
    expect(events).toEqual(['add a@1']);
    await informer.stop();
  });

  it('backs off when watches keep failing (e.g. HTTP 500) and keeps the resourceVersion', async () => {
    const { clock, transport, informer } = setup([obj('a', '1')]);
    informer.start();
    await informer.waitForSync();
    await flush();
    transport.watchError = Object.assign(new Error('Internal Server Error'), { statusCode: 500 });
    transport.lastWatch.close(new Error('socket hang up'));
    await flush();
    const n = transport.watches.length;
    await clock.advance(50);
    expect(transport.watches.length).toBe(n); // waiting out the backoff, not spinning
    await clock.advance(120_000);
    expect(transport.watches.length).toBeGreaterThan(n);
    expect(transport.watches.length).toBeLessThan(n + 15);
    expect(transport.watches.every((w) => w.req.resourceVersion === '100')).toBe(true);
    expect(transport.listCalls).toHaveLength(1);
    await informer.stop();
  });

  it('a watch that closes instantly with no events is backed off, not hammered', async () => {
    const { clock, transport, informer } = setup([]);
    informer.start();
    await informer.waitForSync();
    await flush();
    for (let i = 0; i < 5; i++) {
      transport.lastWatch.close();
      await flush();
    }
    const n = transport.watches.length;
    expect(n).toBeLessThanOrEqual(3);
    await clock.advance(60_000);
    await informer.stop();
  });

  it('aborts a watch that has been silent past the stall timeout and resumes it', async () => {
    const { clock, transport, informer } = setup([obj('a', '1')], { stallTimeoutMs: 5000 });
    informer.start();
    await informer.waitForSync();
    await flush();
    await clock.advance(4000);
    transport.lastWatch.send('BOOKMARK', { metadata: { resourceVersion: '120' } });
    await clock.advance(4000);
    expect(transport.watches).toHaveLength(1);
    await clock.advance(1001);
    expect(transport.watches[0]?.aborted).toBe(true);
    expect(transport.watches).toHaveLength(2);
    expect(transport.lastWatch.req.resourceVersion).toBe('120');
    await informer.stop();
  });

  it('one watch per namespace, one store; synced only when every namespace listed', async () => {
    const { transport, informer } = setup(
      [obj('a', '1', {}, 'n1'), obj('b', '2', {}, 'n2'), obj('c', '3', {}, 'n3')],
      {
        namespaces: ['n1', 'n2'],
      },
    );
    informer.start();
    await informer.waitForSync();
    await flush();
    expect(transport.listCalls.map((c) => c.namespace).sort()).toEqual(['n1', 'n2']);
    expect(transport.watches.map((w) => w.req.namespace).sort()).toEqual(['n1', 'n2']);
    expect(informer.store.keys().sort()).toEqual(['n1/a', 'n2/b']);
    expect(informer.store.list('n2').map((o) => o.metadata?.name)).toEqual(['b']);
    await informer.stop();
  });

  it('watchClusterWide: one list and one watch for all the namespaces, storing only theirs; the rest only advance the resourceVersion', async () => {
    const { transport, informer, events } = setup(
      [obj('a', '1', {}, 'n1'), obj('b', '2', {}, 'n2'), obj('c', '3', {}, 'n3')],
      { namespaces: ['n1', 'n2'] },
    );
    expect(informer.namespaces).toEqual(['n1', 'n2']);
    informer.watchClusterWide();
    informer.start();
    await informer.waitForSync();
    await flush();
    expect(transport.listCalls.map((c) => c.namespace)).toEqual([undefined]);
    expect(transport.watches.map((w) => w.req.namespace)).toEqual([undefined]);
    expect(informer.store.keys().sort()).toEqual(['n1/a', 'n2/b']);
    const w = transport.lastWatch;
    w.send('ADDED', obj('d', '101', {}, 'n3'));
    w.send('MODIFIED', obj('c', '102', {}, 'n3'));
    w.send('DELETED', obj('c', '103', {}, 'n3'));
    w.send('MODIFIED', obj('a', '104', { data: { k: 'v' } }, 'n1'));
    expect(events).toEqual(['add a@1', 'add b@2', 'update a@1->104']);
    expect(informer.store.keys().sort()).toEqual(['n1/a', 'n2/b']);
    w.send('ADDED', obj('e', '105', {}, 'n3'));
    expect(informer.resourceVersions()).toEqual({ '': '105' });
    expect(() => informer.watchClusterWide()).toThrow(/already started/);
    await informer.stop();
  });

  it('follows list pagination', async () => {
    const clock = new FakeClock();
    const transport = new FakeTransport<Obj>((req) =>
      req.continue === 'p2'
        ? { items: [obj('b', '2')], resourceVersion: '50' }
        : { items: [obj('a', '1')], resourceVersion: '50', continue: 'p2' },
    );
    const informer = new Informer<Obj>(undefined, {
      group: '',
      version: 'v1',
      plural: 'configmaps',
      transport,
      clock,
      pageSize: 1,
    });
    informer.start();
    await informer.waitForSync();
    expect(informer.store.size).toBe(2);
    expect(transport.listCalls.map((c) => [c.limit, c.continue])).toEqual([
      [1, undefined],
      [1, 'p2'],
    ]);
    await informer.stop();
  });

  /** A kind of `n` objects served in pages of `req.limit` (all at once without one), continue = next offset. */
  function pagedServer(n: number, rv = '50') {
    const all = Array.from({ length: n }, (_, i) => obj(`o${String(i).padStart(4, '0')}`, String(i + 1)));
    const respond = (req: { limit?: number; continue?: string }) => {
      const from = req.continue ? Number(req.continue) : 0;
      const to = req.limit ? Math.min(all.length, from + req.limit) : all.length;
      return {
        items: all.slice(from, to),
        resourceVersion: rv,
        ...(to < all.length ? { continue: String(to) } : {}),
      };
    };
    return { all, respond };
  }

  function pagedInformer(transport: FakeTransport<Obj>, pageSize?: number) {
    return new Informer<Obj>(undefined, {
      group: '',
      version: 'v1',
      plural: 'configmaps',
      transport,
      clock: new FakeClock(),
      ...(pageSize === undefined ? {} : { pageSize }),
    });
  }

  it.each([
    [1200, undefined, 3, 500],
    [1200, 100, 12, 100],
    [1000, 500, 2, 500],
    [1, 500, 1, 500],
    [0, 500, 1, 500],
  ])(
    'lists %i objects at page size %s in %i requests, every one of them limited to %i, and stores them all',
    async (n, pageSize, requests, limit) => {
      const server = pagedServer(n);
      const transport = new FakeTransport<Obj>(server.respond);
      const informer = pagedInformer(transport, pageSize);
      informer.start();
      await informer.waitForSync();
      expect(informer.store.size).toBe(n);
      expect(transport.listCalls).toHaveLength(requests);
      expect(transport.listCalls.every((c) => c.limit === limit)).toBe(true);
      // each page continues from the token of the page before, the first from none
      expect(transport.listCalls.map((c) => c.continue)).toEqual(
        Array.from({ length: requests }, (_, i) => (i === 0 ? undefined : String(i * limit))),
      );
      expect(informer.stats()).toMatchObject({ lists: 1, pages: requests, expired: 0, errors: 0 });
      await flush();
      expect(transport.lastWatch.req.resourceVersion).toBe('50');
      await informer.stop();
    },
  );

  it('page size 0 lists the kind in one request without a limit', async () => {
    const server = pagedServer(1200);
    const transport = new FakeTransport<Obj>(server.respond);
    const informer = pagedInformer(transport, 0);
    informer.start();
    await informer.waitForSync();
    expect(informer.store.size).toBe(1200);
    expect(transport.listCalls.map((c) => [c.limit, c.continue])).toEqual([[undefined, undefined]]);
    await informer.stop();
  });

  it('an expired continue token (410 Gone) falls back to one full list from the start, keeping nothing of the pages before', async () => {
    // Between page 2 and page 3 the list's snapshot was compacted; meanwhile o0000 was deleted and a
    // new object added, so the pages already read are stale: the store must hold the full list only.
    const server = pagedServer(1200);
    const full = [...server.all.slice(1), obj('late', '9000')];
    const transport = new FakeTransport<Obj>((req) => {
      if (req.continue === '1000') throw Object.assign(new Error('continue expired'), { statusCode: 410 });
      if (!req.limit && !req.continue) return { items: full, resourceVersion: '9000' };
      return server.respond(req);
    });
    const informer = pagedInformer(transport);
    const added: string[] = [];
    informer.on('add', (o) => added.push(o.metadata!.name!));
    informer.start();
    await informer.waitForSync();
    expect(transport.listCalls.map((c) => [c.limit, c.continue])).toEqual([
      [500, undefined],
      [500, '500'],
      [500, '1000'],
      [undefined, undefined],
    ]);
    expect(informer.store.size).toBe(1200);
    expect(informer.store.get('ns/o0000')).toBeUndefined();
    expect(informer.store.get('ns/late')).toBeDefined();
    expect(added).toHaveLength(1200);
    expect(new Set(added).size).toBe(1200);
    expect(informer.stats()).toMatchObject({ lists: 1, pages: 4, expired: 1, errors: 0 });
    await flush();
    // the watch starts from the full list's resourceVersion, not the stale pages'
    expect(transport.lastWatch.req.resourceVersion).toBe('9000');
    await informer.stop();
  });

  it('a 410 on the first page is a re-list from the start like any expired list, not a full-list fallback', async () => {
    const server = pagedServer(700);
    let first = true;
    const transport = new FakeTransport<Obj>((req) => {
      if (first) {
        first = false;
        throw Object.assign(new Error('Gone'), { statusCode: 410 });
      }
      return server.respond(req);
    });
    const informer = pagedInformer(transport);
    informer.start();
    await informer.waitForSync();
    expect(transport.listCalls.map((c) => [c.limit, c.continue])).toEqual([
      [500, undefined],
      [500, undefined],
      [500, '500'],
    ]);
    expect(informer.store.size).toBe(700);
    expect(informer.stats()).toMatchObject({ lists: 1, expired: 1, errors: 0 });
    await informer.stop();
  });

  it('any other error on a continuation page is retried with backoff from the first page', async () => {
    const server = pagedServer(700);
    let failed = false;
    const clock = new FakeClock();
    const transport = new FakeTransport<Obj>((req) => {
      if (req.continue === '500' && !failed) {
        failed = true;
        throw Object.assign(new Error('too many requests'), { statusCode: 429 });
      }
      return server.respond(req);
    });
    const informer = new Informer<Obj>(undefined, {
      group: '',
      version: 'v1',
      plural: 'configmaps',
      transport,
      clock,
    });
    informer.start();
    await flush();
    expect(informer.hasSynced()).toBe(false);
    expect(informer.stats()).toMatchObject({ errors: 1, expired: 0 });
    await clock.advance(2000);
    await informer.waitForSync();
    expect(transport.listCalls.map((c) => [c.limit, c.continue])).toEqual([
      [500, undefined],
      [500, '500'],
      [500, undefined],
      [500, '500'],
    ]);
    expect(informer.store.size).toBe(700);
    await informer.stop();
  });

  it('replays the cache to late handlers, applies filters per handler, survives throwing handlers', async () => {
    const { transport, informer } = setup([obj('a', '1')]);
    informer.start();
    await informer.waitForSync();
    await flush();
    informer.on('add', () => {
      throw new Error('bad handler');
    });
    const late: string[] = [];
    informer.on('add', (o) => late.push(`add ${o.metadata?.name}`));
    informer.on(
      'update',
      (_old, o) => late.push(`update ${o.metadata?.resourceVersion}`),
      ignoreLeaseRenewals,
    );
    const l = (rv: string, renew: string, holder = 'h1') =>
      obj('a', rv, { spec: { holderIdentity: holder, renewTime: renew } });
    transport.lastWatch.send('MODIFIED', l('2', 't1'));
    transport.lastWatch.send('MODIFIED', l('3', 't2'));
    transport.lastWatch.send('MODIFIED', l('4', 't3', 'h2'));
    expect(late).toEqual(['add a', 'update 2', 'update 4']);
    await informer.stop();
  });

  it('waitForSync rejects on abort and when stopped before syncing', async () => {
    const { transport, informer } = setup();
    transport.listResponder = () => new Promise(() => {});
    informer.start();
    const ac = new AbortController();
    const w1 = informer.waitForSync(ac.signal);
    ac.abort(new Error('gave up'));
    await expect(w1).rejects.toThrow('gave up');
    const w2 = informer.waitForSync().then(
      () => 'synced',
      (e: Error) => e.message,
    );
    await informer.stop();
    expect(await w2).toMatch(/stopped before it synced/);
  });
});

describe('Controller', () => {
  it('waits for sync, maps events to keys, filters no-op updates, coalesces, resyncs', async () => {
    const clock = new FakeClock();
    const primary = setup([obj('x', '1'), obj('y', '1')]);
    const secondary = setup([obj('dep', '1', { metadata: { name: 'dep', labels: { owner: 'x' } } })]);
    const reconciled: string[] = [];
    const c = new Controller({
      name: 'test',
      reconcile: async (key) => {
        reconciled.push(key);
      },
      resyncPeriodMs: 60_000,
      clock,
    });
    c.watch(primary.informer);
    c.watch(secondary.informer, { mapToKeys: (o) => `ns/${o.metadata?.labels?.owner}` });
    const started = c.start();
    await flush();
    await started;
    await c.queue.whenIdle();
    expect(reconciled.sort()).toEqual(['ns/x', 'ns/y']); // dep → ns/x coalesced with x's own add
    reconciled.length = 0;

    // secondary: a no-op update is filtered, a real one enqueues the owner once
    const dep = (rv: string, replicas: number) =>
      obj('dep', rv, { metadata: { name: 'dep', labels: { owner: 'y' } }, spec: { replicas } });
    secondary.transport.lastWatch.send('MODIFIED', dep('2', 1));
    await c.queue.whenIdle();
    expect(reconciled).toEqual(['ns/x', 'ns/y']); // label moved x → y: both owners
    reconciled.length = 0;
    secondary.transport.lastWatch.send('MODIFIED', dep('3', 1));
    await c.queue.whenIdle();
    expect(reconciled).toEqual([]);

    // primary: an update maps old and new to the same key, reconciled once (not once per side)
    primary.transport.lastWatch.send('MODIFIED', obj('x', '2', { data: { v: '1' } }));
    await c.queue.whenIdle();
    expect(reconciled).toEqual(['ns/x']);
    reconciled.length = 0;

    await clock.advance(70_000); // resync: primary keys only
    await c.queue.whenIdle();
    expect(reconciled.sort()).toEqual(['ns/x', 'ns/y']);
    await c.stop();
    expect(primary.informer.isRunning()).toBe(false);
  });

  it('stop before the caches sync rejects start', async () => {
    const p = setup();
    p.transport.listResponder = () => new Promise(() => {});
    const c = new Controller({ name: 't', reconcile: async () => {} });
    c.watch(p.informer);
    const started = c.start().then(
      () => 'started',
      (e: Error) => e.message,
    );
    await flush();
    await c.stop();
    expect(await started).toMatch(/stopped/);
  });
});

describe('Informer: no leaked waiters', () => {
  it('an aborted waitForSync leaves neither a sync waiter nor an abort listener behind', async () => {
    const clock = new FakeClock();
    // the list never answers: the informer never syncs
    const transport = new FakeTransport<Obj>(() => new Promise(() => {}));
    const informer = new Informer<Obj>(undefined, {
      group: '',
      version: 'v1',
      plural: 'configmaps',
      transport,
      clock,
    });
    informer.start();
    const deadline = new AbortController();
    const waits = [0, 1, 2].map(() => informer.waitForSync(deadline.signal));
    expect(informer.syncWaiterCount).toBe(3);
    deadline.abort(new Error('deadline'));
    for (const w of waits) await expect(w).rejects.toThrow('deadline');
    expect(informer.syncWaiterCount).toBe(0);
    // a wait that finishes removes its listener from a longer-lived signal
    const { informer: synced } = setup([obj('a', '1')]);
    const long = new AbortController();
    const pending = synced.waitForSync(long.signal);
    synced.start();
    await pending;
    expect(getEventListeners(long.signal, 'abort')).toHaveLength(0);
    await synced.stop();
    await informer.stop();
  });
});

describe('Informer: repeated 410 Gone backs off like client-go reflector', () => {
  /**
   * A watch that fails with 410 straight after every list (a fresh list's resourceVersion the watch
   * cache does not have yet). After `limit` lists the transport behaves, so that code without a
   * backoff ends its tight loop instead of hanging the test.
   */
  function goneAfterEveryList(how: 'http' | 'event', limit = 1000) {
    const s = setup([obj('a', '1')]);
    s.transport.watch = async (req, onEvent, onDone) => {
      const handle = await FakeTransport.prototype.watch.call(s.transport, req, onEvent, onDone);
      if (s.transport.listCalls.length < limit) {
        const w = s.transport.lastWatch;
        queueMicrotask(() =>
          how === 'http'
            ? w.close(Object.assign(new Error('Gone'), { statusCode: 410 }))
            : w.send('ERROR', {
                kind: 'Status',
                code: 410,
                reason: 'Expired',
                message: 'too old resource version',
              }),
        );
      }
      return handle;
    };
    return s;
  }

  for (const how of ['http', 'event'] as const) {
    it(`a watch that gets 410 (${how}) after every fresh list re-lists at once only the first time, then backs off`, async () => {
      const { clock, transport, informer } = goneAfterEveryList(how);
      informer.start();
      await informer.waitForSync();
      await flush();
      // 800 ms doubling (jitter ≤ 50 %) to 30 s: at most ~6 re-lists in 10 s, not thousands
      for (let t = 0; t < 10_000; t += 100) await clock.advance(100);
      expect(transport.listCalls.length).toBeGreaterThan(2);
      expect(transport.listCalls.length).toBeLessThanOrEqual(8);
      expect(informer.stats().errors).toBeGreaterThan(0);
      await informer.stop();
    });
  }

  it('a watch that worked resets the backoff: a later single 410 re-lists at once', async () => {
    const { clock, transport, informer } = setup([obj('a', '1')]);
    informer.start();
    await informer.waitForSync();
    await flush();
    for (let round = 0; round < 3; round++) {
      transport.lastWatch.send('MODIFIED', obj('a', String(200 + round)));
      await clock.advance(5_000);
      transport.lastWatch.send('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' });
      await flush();
      expect(transport.listCalls).toHaveLength(2 + round);
    }
    expect(informer.stats().errors).toBe(0);
    await informer.stop();
  });
});

describe('Informer.waitForSync after stop()', () => {
  it('settles (rejects, naming the informer) instead of waiting for ever without a signal', async () => {
    const { transport, informer } = setup();
    transport.listResponder = () => new Promise(() => {}); // the first list never answers
    informer.start();
    await informer.stop();
    const outcome = await Promise.race([
      informer.waitForSync().then(
        () => 'resolved',
        (err: Error) => err.message,
      ),
      flush().then(() => 'still pending'),
    ]);
    expect(outcome).toBe('informer configmaps stopped before it synced');
    expect(informer.syncWaiterCount).toBe(0);
  });
});
