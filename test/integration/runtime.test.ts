// The controller runtime against a real API server: informer list/watch/resume/re-list, work queue
// coalescing, event filtering, and the OperatorBase overrides of @dot-i/k8s-operator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiException,
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
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminKubeConfig, createNamespace, kubeConfigFor } from '../support/cluster.js';
import {
  OperatorBase,
  ResourceEventType,
  type ResourceEvent,
  type ResourceMeta,
} from '../../src/operator/base.js';
import { Controller } from '../../src/runtime/controller.js';
import { ignoreLeaseRenewals, ignoreNoopUpdates } from '../../src/runtime/filters.js';
import { Informer } from '../../src/runtime/informer.js';

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
  return new Informer<V1ConfigMap & KubernetesObject>(kc, {
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
    const informer = new Informer<V1Lease & KubernetesObject>(kc, {
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

  describe('OperatorBase over @dot-i/k8s-operator', () => {
    const group = 'runtime-test.glooha.io';
    const plural = 'widgets';
    const crdName = `${plural}.${group}`;
    let crdFile: string;

    class TestOperator extends OperatorBase {
      events: ResourceEvent[] = [];
      watchNs?: string;
      protected async init(): Promise<void> {
        if (this.watchNs) {
          await this.watchResource(
            group,
            'v1',
            plural,
            async (e) => {
              this.events.push(e);
              await sleep(50);
            },
            this.watchNs,
          );
        }
      }
      register(file: string) {
        return this.registerCustomResourceDefinition(file);
      }
      uri(namespace?: string) {
        return this.getCustomResourceApiUri(group, 'v1', plural, namespace);
      }
      patchStatus(meta: ResourceMeta, status: unknown) {
        return this.patchResourceStatus(meta, status);
      }
      setStatus(meta: ResourceMeta, status: unknown) {
        return this.setResourceStatus(meta, status);
      }
      finalize(event: ResourceEvent, finalizer: string, action: (e: ResourceEvent) => Promise<void>) {
        return this.handleResourceFinalizer(event, finalizer, action);
      }
      get kc() {
        return this.kubeConfig;
      }
    }

    const meta = (name: string, rv = ''): ResourceMeta => ({
      id: `${plural}.${group}/v1`,
      name,
      namespace: ns,
      resourceVersion: rv,
      apiVersion: `${group}/v1`,
      kind: 'Widget',
    });

    beforeAll(() => {
      const dir = mkdtempSync(join(tmpdir(), 'glooha-runtime-'));
      crdFile = join(dir, 'crd.yaml');
      writeFileSync(
        crdFile,
        `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${crdName}
spec:
  group: ${group}
  scope: Namespaced
  names: { plural: ${plural}, singular: widget, kind: Widget, listKind: WidgetList }
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
`,
      );
      cleanup.push(() =>
        adminKubeConfig().makeApiClient(ApiextensionsV1Api).deleteCustomResourceDefinition({ name: crdName }),
      );
    });

    it('uses the given KubeConfig; registering the CRD twice is fine; the API URI uses the cluster server', async () => {
      const op = new TestOperator({ kubeConfig: kc });
      expect(op.kc).toBe(kc);
      const first = await op.register(crdFile);
      const second = await op.register(crdFile);
      expect(first).toMatchObject({ group, plural });
      expect(second).toEqual(first);
      const server = kc.getCurrentCluster()?.server ?? '';
      expect(op.uri(ns)).toBe(`${server.replace(/\/$/, '')}/apis/${group}/v1/namespaces/${ns}/${plural}`);
    });

    it('status and finalizer writes throw (404, 403) instead of returning null; they work when allowed', async () => {
      const op = new TestOperator({ kubeConfig: kc });
      await op.register(crdFile);
      const missing = op.patchStatus(meta('does-not-exist'), { phase: 'x' });
      await expect(missing).rejects.toBeInstanceOf(ApiException);
      await expect(missing).rejects.toMatchObject({ code: 404 });

      const custom = kc.makeApiClient(CustomObjectsApi);
      const created = (await custom.createNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: ns,
        plural,
        body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } },
      })) as KubernetesObject;
      const rv = created.metadata?.resourceVersion ?? '';

      // a ServiceAccount without RBAC: 403, surfaced
      const nobody = new TestOperator({ kubeConfig: await kubeConfigFor(ns, 'nobody') });
      await expect(nobody.patchStatus(meta('w1', rv), { phase: 'x' })).rejects.toMatchObject({ code: 403 });
      const event: ResourceEvent = { type: ResourceEventType.Added, meta: meta('w1', rv), object: created };
      await expect(nobody.finalize(event, 'runtime-test/fin', async () => {})).rejects.toMatchObject({
        code: 403,
      });
      expect(created.metadata?.finalizers).toBeUndefined(); // the event's object was not mutated

      // allowed: status written, returns the new meta
      const patched = await op.patchStatus(meta('w1', rv), { phase: 'Ready' });
      expect(patched.resourceVersion).not.toBe(rv);
      const stale = op.setStatus(meta('w1', rv), { phase: 'Stale' });
      await expect(stale).rejects.toMatchObject({ code: 409 }); // optimistic concurrency, loudly
      const put = await op.setStatus(patched, { phase: 'Put' });
      const got = (await custom.getNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: ns,
        plural,
        name: 'w1',
      })) as {
        status?: { phase?: string };
        metadata: { resourceVersion: string };
      };
      expect(got.status?.phase).toBe('Put');
      expect(got.metadata.resourceVersion).toBe(put.resourceVersion);

      // finalizer added for real
      const fresh = (await custom.getNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: ns,
        plural,
        name: 'w1',
      })) as KubernetesObject;
      const done = await op.finalize(
        {
          type: ResourceEventType.Modified,
          meta: meta('w1', fresh.metadata?.resourceVersion),
          object: fresh,
        },
        'runtime-test/fin',
        async () => {},
      );
      expect(done).toBe(true);
      const withFin = (await custom.getNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: ns,
        plural,
        name: 'w1',
      })) as KubernetesObject;
      expect(withFin.metadata?.finalizers).toEqual(['runtime-test/fin']);
      await custom.patchNamespacedCustomObject(
        { group, version: 'v1', namespace: ns, plural, name: 'w1', body: { metadata: { finalizers: null } } },
        merge,
      );
    });

    it('re-lists after a real 410 Gone without re-emitting unchanged objects', async () => {
      // The CRD was created during this run, so its watch cache starts at a recent resourceVersion: a
      // watch from resourceVersion 1 is answered with an ERROR event, code 410 ("too old resource version").
      const op = new TestOperator({ kubeConfig: kc });
      await op.register(crdFile);
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
      const informer = new Informer(kc, {
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

    it('watchResource: informer + queue, coalesced events, ADDED/MODIFIED/DELETED, clean start/stop', async () => {
      const op = new TestOperator({ kubeConfig: kc, concurrency: 2 });
      await op.register(crdFile);
      op.watchNs = ns;
      const custom = kc.makeApiClient(CustomObjectsApi);
      const create = (name: string) =>
        custom.createNamespacedCustomObject({
          group,
          version: 'v1',
          namespace: ns,
          plural,
          body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 0 } },
        });
      await create('pre');
      await op.start();
      try {
        await eventually(() =>
          expect(op.events.map((e) => `${e.type} ${e.meta.name}`)).toContain('ADDED pre'),
        );
        await create('w2');
        await eventually(() =>
          expect(op.events.map((e) => `${e.type} ${e.meta.name}`)).toContain('ADDED w2'),
        );
        const before = op.events.length;
        for (let i = 1; i <= 20; i++) {
          await custom.patchNamespacedCustomObject(
            { group, version: 'v1', namespace: ns, plural, name: 'w2', body: { spec: { size: i } } },
            merge,
          );
        }
        await eventually(() => {
          const last = op.events[op.events.length - 1];
          expect((last?.object as { spec?: { size?: number } }).spec?.size).toBe(20);
        });
        const modified = op.events.slice(before).filter((e) => e.meta.name === 'w2');
        expect(modified.every((e) => e.type === ResourceEventType.Modified)).toBe(true);
        expect(modified.length).toBeLessThan(20);
        await custom.deleteNamespacedCustomObject({
          group,
          version: 'v1',
          namespace: ns,
          plural,
          name: 'w2',
        });
        await eventually(() =>
          expect(op.events.map((e) => `${e.type} ${e.meta.name}`)).toContain('DELETED w2'),
        );
      } finally {
        await op.stop();
      }
      const count = op.events.length;
      await create('after-stop');
      await sleep(500);
      expect(op.events.length).toBe(count);
    });
  });
});
