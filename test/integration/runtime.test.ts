// The controller runtime against a real API server: informer list/watch/resume/re-list, work queue
// coalescing, event filtering, re-list after 410 Gone — all through the operator's one transport.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiextensionsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Lease,
} from '@kubernetes/client-node';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { KubeClient } from '../../src/kube/client.js';
import { Controller } from '../../src/runtime/controller.js';
import { ignoreLeaseRenewals, ignoreNoopUpdates } from '../../src/runtime/filters.js';
import { Informer, kubeTransport, type ListRequest, type Transport } from '../../src/runtime/informer.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

async function eventually(check: () => void | Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function configMapInformer(kc: KubeConfig, ns: string, extra: { watchTimeoutSeconds?: number } = {}) {
  return new Informer<V1ConfigMap & KubernetesObject>(new KubeClient(kc), {
    group: '',
    version: 'v1',
    plural: 'configmaps',
    namespaces: [ns],
    labelSelector: 'runtime-test=yes',
    ...extra,
  });
}

function recordEvents<T extends KubernetesObject>(informer: Informer<T>) {
  const events: string[] = [];
  informer.addEventHandler({
    add: (o) => events.push(`add ${o.metadata?.name}`),
    update: (_old, o) => events.push(`update ${o.metadata?.name}`),
    delete: (o) => events.push(`delete ${o.metadata?.name}`),
  });
  return events;
}

describe('runtime against a real API server', () => {
  let kc: KubeConfig;
  let core: CoreV1Api;
  let ns: string;
  const cleanup: Array<() => Promise<unknown>> = [];

  const makeCm = (name: string, data: Record<string, string> = { v: '0' }) =>
    core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name, labels: { 'runtime-test': 'yes' } }, data },
    });

  beforeAll(async () => {
    kc = adminKubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    ns = await createNamespace('runtime');
  });

  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
  });

  it('lists existing objects, syncs, then delivers add/update/delete', async () => {
    for (const n of ['a', 'b', 'c']) await makeCm(`sync-${n}`);
    await makeCm('sync-unlabelled').then(() =>
      core.patchNamespacedConfigMap(
        { name: 'sync-unlabelled', namespace: ns, body: { metadata: { labels: { 'runtime-test': 'no' } } } },
        merge,
      ),
    );
    const informer = configMapInformer(kc, ns);
    const events = recordEvents(informer);
    informer.start();
    await informer.waitForSync();
    try {
      expect(informer.hasSynced()).toBe(true);
      expect(informer.store.keys().sort()).toEqual([`${ns}/sync-a`, `${ns}/sync-b`, `${ns}/sync-c`]);
      // list items get apiVersion/kind like watch events do
      expect(informer.store.get(`${ns}/sync-a`)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
      expect(events.sort()).toEqual(['add sync-a', 'add sync-b', 'add sync-c']);
      events.length = 0;

      await makeCm('sync-d');
      await core.patchNamespacedConfigMap(
        { name: 'sync-a', namespace: ns, body: { data: { v: '1' } } },
        merge,
      );
      await core.deleteNamespacedConfigMap({ name: 'sync-b', namespace: ns });
      await eventually(() => expect(events).toEqual(['add sync-d', 'update sync-a', 'delete sync-b']));
      expect(informer.store.get(`${ns}/sync-a`)?.data).toEqual({ v: '1' });
      expect(informer.store.get(`${ns}/sync-b`)).toBeUndefined();
    } finally {
      await informer.stop();
    }
  });

  it('coalesces a burst of 50 updates to one object into far fewer reconciles', async () => {
    await makeCm('burst');
    const informer = configMapInformer(kc, ns);
    const seen: string[] = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    const controller = new Controller({
      name: 'burst',
      concurrency: 4,
      reconcile: async (key) => {
        if (key !== `${ns}/burst`) return; // other labelled ConfigMaps of this namespace
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        seen.push(informer.store.get(key)?.data?.v ?? '?');
        await sleep(250); // a reconcile takes a while: events pile up meanwhile
        concurrent--;
      },
    });
    controller.watch(informer);
    await controller.start();
    try {
      await eventually(() => expect(seen).toEqual(['0']));
      const t0 = Date.now();
      for (let i = 1; i <= 50; i++) {
        await core.patchNamespacedConfigMap(
          { name: 'burst', namespace: ns, body: { data: { v: String(i) } } },
          merge,
        );
      }
      const patchMs = Date.now() - t0;
      await eventually(() => expect(seen[seen.length - 1]).toBe('50'));
      await controller.queue.whenIdle();
      // 50 updates: each reconcile saw the latest state, and most updates were absorbed while one ran
      expect(seen.length - 1).toBeGreaterThanOrEqual(1);
      // every reconcile absorbs whatever arrived while the previous one ran: at most one per 250 ms
      // of patching (+2 for the edges), and far fewer than 50 even on a slow machine
      expect(seen.length - 1).toBeLessThanOrEqual(Math.ceil(patchMs / 250) + 2);
      expect(seen.length - 1).toBeLessThanOrEqual(25);
      expect(maxConcurrent).toBe(1); // one key never runs concurrently with itself
      console.log(
        `[runtime] 50 updates in ${patchMs} ms → ${seen.length - 1} reconciles (${seen.slice(1).join(',')})`,
      );
    } finally {
      await controller.stop();
    }
  });

  it('resumes watches the server closes, without re-listing or re-emitting adds', async () => {
    for (let i = 0; i < 5; i++) await makeCm(`resume-${i}`);
    // The server ends each watch after 2 s; the informer must pick up from its resourceVersion.
    const informer = configMapInformer(kc, ns, { watchTimeoutSeconds: 2 });
    const events = recordEvents(informer);
    informer.start();
    await informer.waitForSync();
    try {
      const initialAdds = events.filter((e) => e.startsWith('add')).length;
      await sleep(3000);
      await makeCm('resume-late'); // created between watch restarts
      await sleep(4500);
      await eventually(() => expect(events).toContain('add resume-late'));
      const stats = informer.stats();
      expect(stats.lists).toBe(1);
      expect(stats.watches).toBeGreaterThanOrEqual(3);
      expect(stats.resumes).toBeGreaterThanOrEqual(2);
      // every object added exactly once, nothing else emitted
      const adds = events.filter((e) => e.startsWith('add'));
      expect(adds.length).toBe(initialAdds + 1);
      expect(new Set(adds).size).toBe(adds.length);
      expect(events.filter((e) => !e.startsWith('add'))).toEqual([]);
      console.log(`[runtime] resume: ${JSON.stringify(stats)}`);
    } finally {
      await informer.stop();
    }
  });

  it('filters Lease renewals: only a change of holder gets through', async () => {
    const coord = kc.makeApiClient(CoordinationV1Api);
    const now = () => new Date().toISOString().replace('Z', '000Z');
    await coord.createNamespacedLease({
      namespace: ns,
      body: {
        metadata: { name: 'gloo' },
        spec: { holderIdentity: 'gloo-1', leaseDurationSeconds: 15, renewTime: now() as unknown as Date },
      },
    });
    const informer = new Informer<V1Lease & KubernetesObject>(new KubeClient(kc), {
      group: 'coordination.k8s.io',
      version: 'v1',
      plural: 'leases',
      namespaces: [ns],
    });
    const all: string[] = [];
    const filtered: string[] = [];
    informer.on('update', (_o, n) => all.push(n.spec?.holderIdentity ?? ''));
    informer.on('update', (_o, n) => filtered.push(n.spec?.holderIdentity ?? ''), ignoreLeaseRenewals);
    informer.start();
    await informer.waitForSync();
    try {
      const renew = (holder: string) =>
        coord.patchNamespacedLease(
          { name: 'gloo', namespace: ns, body: { spec: { holderIdentity: holder, renewTime: now() } } },
          merge,
        );
      for (let i = 0; i < 5; i++) {
        await sleep(20);
        await renew('gloo-1');
      }
      await eventually(() => expect(all).toHaveLength(5));
      expect(filtered).toEqual([]);
      await renew('gloo-2');
      await eventually(() => expect(filtered).toEqual(['gloo-2']));
      expect(all).toHaveLength(6);
    } finally {
      await informer.stop();
    }
  });

  it('drops no-op updates (resourceVersion/managedFields only) before the queue', async () => {
    await makeCm('noop');
    const informer = configMapInformer(kc, ns);
    const raw: string[] = [];
    const kept: string[] = [];
    informer.on(
      'update',
      (_o, n) => n.metadata?.name === 'noop' && raw.push(n.metadata.resourceVersion ?? ''),
    );
    informer.on(
      'update',
      (_o, n) => n.metadata?.name === 'noop' && kept.push(n.metadata.resourceVersion ?? ''),
      ignoreNoopUpdates,
    );
    informer.start();
    await informer.waitForSync();
    try {
      // A server-side apply by a second field manager with the same value: the object's content is
      // unchanged but managedFields (and so resourceVersion) change.
      await core.patchNamespacedConfigMap(
        {
          name: 'noop',
          namespace: ns,
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'noop' }, data: { v: '0' } },
          fieldManager: 'someone-else',
          force: true,
        },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
      await eventually(() => expect(raw).toHaveLength(1));
      await core.patchNamespacedConfigMap({ name: 'noop', namespace: ns, body: { data: { v: '1' } } }, merge);
      await eventually(() => expect(raw).toHaveLength(2));
      expect(kept).toEqual([raw[1]]);
    } finally {
      await informer.stop();
    }
  });

  // A CRD created during this run: its watch cache starts at a recent resourceVersion.
  const group = 'runtime-test.glooha.io';
  const plural = 'widgets';
  const crdName = `${plural}.${group}`;
  async function createWidgetCrd(): Promise<void> {
    const ext = adminKubeConfig().makeApiClient(ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crdName },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
                },
              },
            },
          ],
        },
      },
    });
    cleanup.push(() => ext.deleteCustomResourceDefinition({ name: crdName }));
    await eventually(async () => {
      const crd = await ext.readCustomResourceDefinition({ name: crdName });
      expect(crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')).toBe(true);
    });
  }

  it('re-lists after a real 410 Gone without re-emitting unchanged objects', async () => {
    // The CRD was created during this run, so its watch cache starts at a recent resourceVersion: a
    // watch from resourceVersion 1 is answered with an ERROR event, code 410 ("too old resource version").
    await createWidgetCrd();
    const custom = kc.makeApiClient(CustomObjectsApi);
    for (const name of ['gone-a', 'gone-b']) {
      await custom.createNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: ns,
        plural,
        body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 0 } },
      });
    }
    const informer = new Informer(new KubeClient(kc), {
      group,
      version: 'v1',
      plural,
      namespaces: [ns],
    });
    const events = recordEvents(informer);
    informer.start();
    await informer.waitForSync();
    try {
      expect(events.filter((e) => e.includes('gone-')).sort()).toEqual(['add gone-a', 'add gone-b']);
      const before = events.length;
      informer.rewatchFromForTest('1'); // restart the watch from an expired resourceVersion
      await eventually(() => expect(informer.stats().expired).toBe(1), 10_000);
      await eventually(() => expect(informer.stats().lists).toBe(2));
      await sleep(300);
      // the re-list found gone-a and gone-b unchanged: nothing emitted
      expect(events.slice(before)).toEqual([]);
      // and the new watch (from the re-list's resourceVersion) delivers changes
      await custom.patchNamespacedCustomObject(
        { group, version: 'v1', namespace: ns, plural, name: 'gone-a', body: { spec: { size: 7 } } },
        merge,
      );
      await eventually(() => expect(events.slice(before)).toEqual(['update gone-a']));
      expect((informer.store.get(`${ns}/gone-a`) as { spec?: { size?: number } }).spec?.size).toBe(7);
      expect(informer.stats().errors).toBe(0);
    } finally {
      await informer.stop();
    }
  });

  it('lists 1,200 objects in pages of 100 (limit + continue) and caches every one of them', async () => {
    const pagingNs = await createNamespace('paging');
    const client = new KubeClient(kc);
    const total = 1200;
    const names = Array.from({ length: total }, (_, i) => `page-${String(i).padStart(4, '0')}`);
    // 16 creates at a time: a loaded API server answers them without the test taking minutes.
    for (let i = 0; i < names.length; i += 16) {
      await Promise.all(
        names.slice(i, i + 16).map((name) =>
          client.request('POST', `/api/v1/namespaces/${pagingNs}/configmaps`, {
            body: { metadata: { name, labels: { 'paging-test': 'yes' } }, data: { n: name } },
          }),
        ),
      );
    }
    // One unlabelled object the selector must leave out of every page.
    await client.request('POST', `/api/v1/namespaces/${pagingNs}/configmaps`, {
      body: { metadata: { name: 'not-selected' } },
    });
    // The real transport, counting what it asks and what the API server answers per page.
    const real = kubeTransport<V1ConfigMap & KubernetesObject>(client, {
      group: '',
      version: 'v1',
      plural: 'configmaps',
    });
    const pages: { req: Omit<ListRequest, 'signal'>; items: number; continued: boolean }[] = [];
    const counting: Transport<V1ConfigMap & KubernetesObject> = {
      async list(req) {
        const page = await real.list(req);
        const { signal: _signal, ...rest } = req;
        pages.push({ req: rest, items: page.items.length, continued: Boolean(page.continue) });
        return page;
      },
      watch: (req, onEvent, onDone) => real.watch(req, onEvent, onDone),
    };
    const informer = new Informer<V1ConfigMap & KubernetesObject>(undefined, {
      group: '',
      version: 'v1',
      plural: 'configmaps',
      namespaces: [pagingNs],
      labelSelector: 'paging-test=yes',
      pageSize: 100,
      transport: counting,
    });
    const added = new Set<string>();
    informer.on('add', (o) => added.add(o.metadata!.name!));
    informer.start();
    try {
      await informer.waitForSync();
      expect(informer.store.size).toBe(total);
      expect(informer.store.keys().sort()).toEqual(names.map((n) => `${pagingNs}/${n}`));
      expect(added.size).toBe(total);
      // 1,200 objects at 100 a page: at least 12 requests, each limited to 100 and answered with at most
      // 100, every one after the first continuing from the token of the one before.
      expect(pages.length).toBeGreaterThanOrEqual(12);
      expect(pages.every((p) => p.req.limit === 100 && p.items <= 100)).toBe(true);
      expect(pages[0]!.req.continue).toBeUndefined();
      expect(
        pages.slice(1).every((p) => typeof p.req.continue === 'string' && p.req.continue.length > 0),
      ).toBe(true);
      expect(pages.slice(0, -1).every((p) => p.continued)).toBe(true);
      expect(pages.at(-1)!.continued).toBe(false);
      expect(pages.reduce((n, p) => n + p.items, 0)).toBe(total);
      expect(informer.stats()).toMatchObject({ lists: 1, pages: pages.length, expired: 0, errors: 0 });
      // and the watch started from the paged list's resourceVersion delivers what changes next
      await client.request('POST', `/api/v1/namespaces/${pagingNs}/configmaps`, {
        body: { metadata: { name: 'page-late', labels: { 'paging-test': 'yes' } } },
      });
      await eventually(() => expect(informer.store.get(`${pagingNs}/page-late`)).toBeDefined());
      expect(informer.store.size).toBe(total + 1);
    } finally {
      await informer.stop();
      client.close();
    }
  }, 180_000);
});
