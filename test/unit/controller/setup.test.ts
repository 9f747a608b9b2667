// The controllers' wiring on a standby: caches warm, nothing reconciled, and what is remembered
// about a GlooHA forgotten when it is deleted — also on a replica that does not lead; and one shared
// informer per kind for every product, watching the union of their selections.
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { foreignStatusWrite, setupControllers } from '../../../src/controller/setup.js';
import { GLOO } from '../../../src/products/gloo/index.js';
import { KGATEWAY } from '../../../src/products/kgateway/index.js';
import { ReconcilerMemory } from '../../../src/controller/memory.js';
import { DEFAULT_TIMINGS } from '../../../src/leader/config.js';
import { NotLeaderError } from '../../../src/leader/leadership.js';
import { silentLogger } from '../../../src/log.js';
import { Manager, type Elector } from '../../../src/manager/manager.js';
import { createMetrics } from '../../../src/metrics/index.js';
import type { Informer } from '../../../src/runtime/informer.js';
import { LAST_APPLIED_ANNOTATION } from '../../../src/runtime/transforms.js';
import { FakeTransport, flush } from '../runtime/helpers.js';
import { finalizedGlooHA } from './snapshots.js';

type Obj = KubernetesObject & Record<string, unknown>;

const standby: Elector = {
  start: () => {},
  stop: async () => {},
  isLeader: () => false,
  canWrite: () => false,
  assertLeading: () => {
    throw new NotLeaderError('standby');
  },
  leadingSignal: AbortSignal.abort(),
};

describe('GlooHA controller on a standby', () => {
  it('forgets a deleted GlooHA (reconciler memory) although it reconciles nothing', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const g = {
      ...finalizedGlooHA({ gloo: { replicas: 2 } }),
      metadata: { ...finalizedGlooHA({}).metadata, resourceVersion: '3' },
    };
    const transports = new Map<string, FakeTransport<Obj>>();
    const mgr = new Manager({
      kubeConfig: kc,
      logger: silentLogger,
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
      makeElector: () => standby,
      informerTransport: (ref) => {
        const t = new FakeTransport<Obj>(() => ({
          items: ref.plural === 'gloohas' ? [g] : [],
          resourceVersion: '5',
        }));
        transports.set(ref.plural, t);
        return t;
      },
    });
    const [ctl] = setupControllers(mgr, [{ product: GLOO, relatedServed: false }], {
      concurrency: 1,
      resyncPeriodMs: 0,
    });
    await mgr.start();
    expect(ctl!.objects.store.keys()).toEqual(['gloo-system/ha']);
    ctl!.memory.setCorrections('gloo-system/ha', [{ message: 'x', corrected: true }]);
    ctl!.memory.recordStatusWrite('gloo-system/ha', { json: '{}', basedOn: '3' });
    transports
      .get('gloohas')!
      .watches[0]!.send('DELETED', { ...g, metadata: { ...g.metadata, resourceVersion: '6' } });
    await flush();
    expect(ctl!.objects.store.keys()).toEqual([]);
    expect(ctl!.memory.size()).toBe(0);
    await mgr.stop('test');
  });
});

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('both products on shared informers', () => {
  it('opens one informer per kind, watching the union of the selections each product needs', async () => {
    const transports = new Map<string, FakeTransport<Obj>[]>();
    const mgr = new Manager({
      kubeConfig: kubeConfig(),
      logger: silentLogger,
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
      makeElector: () => standby,
      informerTransport: (ref) => {
        const t = new FakeTransport<Obj>(() => ({ items: [], resourceVersion: '5' }));
        transports.set(ref.plural, [...(transports.get(ref.plural) ?? []), t]);
        return t;
      },
    });
    setupControllers(
      mgr,
      [
        { product: GLOO, relatedServed: false },
        { product: KGATEWAY, relatedServed: true },
      ],
      { concurrency: 1, resyncPeriodMs: 0 },
    );
    await mgr.start();
    // One informer per kind (before: two each, one per controller).
    for (const [plural, ts] of transports) expect([plural, ts.length]).toEqual([plural, 1]);
    expect([...transports.keys()].sort()).toEqual(
      [
        'gloohas',
        'kgatewayhas',
        'deployments',
        'horizontalpodautoscalers',
        'poddisruptionbudgets',
        'roles',
        'rolebindings',
        'configmaps',
        'leases',
        'pods',
        'gateways',
        'gatewayparameters',
      ].sort(),
    );
    const selections = (plural: string) =>
      transports
        .get(plural)![0]!
        .listCalls.map((c) => [c.labelSelector ?? '', c.fieldSelector ?? ''].join('|'))
        .sort();
    // Deployments: Gloo's app=gloo and kgateway's controller and proxies, each watched once.
    expect(selections('deployments')).toEqual(['app=gloo|', 'kgateway in (kgateway,kube-gateway)|']);
    // HPAs and PDBs: kgateway's proxies' are unlabelled, so the union is every one in scope.
    expect(selections('horizontalpodautoscalers')).toEqual(['|']);
    expect(selections('poddisruptionbudgets')).toEqual(['|']);
    // Leases: only the two products' leader Leases.
    expect(selections('leases')).toEqual(['|metadata.name=gloo', '|metadata.name=kgateway-envoy']);
    // Pods: only the pods that elect through those Leases (gloo's and kgateway's controller pods).
    expect(selections('pods')).toEqual(['gloo=gloo|', 'kgateway=kgateway|']);
    // Owned objects: every product's, told apart by their owner labels.
    expect(selections('configmaps')).toEqual(['app.kubernetes.io/managed-by=glooha-operator|']);
    await mgr.stop('test');
  });
});

describe('what the caches keep of each kind', () => {
  // Each kind listed with one object carrying everything a transform may drop: our and kubectl's
  // managedFields, kubectl's last-applied annotation next to another annotation, and a status.
  const OWNED_PLURALS = new Set(['roles', 'rolebindings', 'configmaps']);
  const full = (plural: string): Obj => ({
    apiVersion: 'v1',
    kind: 'X',
    metadata: {
      name: `${plural}-1`,
      namespace: 'ns',
      resourceVersion: '1',
      labels: OWNED_PLURALS.has(plural) ? { 'app.kubernetes.io/managed-by': 'glooha-operator' } : {},
      annotations: { [LAST_APPLIED_ANNOTATION]: '{"a":"copy"}', keep: 'me' },
      managedFields: [
        { manager: 'glooha-operator', operation: 'Apply' },
        { manager: 'kubectl', operation: 'Update' },
      ],
    },
    spec: { x: 1 },
    status: { y: 2 },
  });

  it('drops managedFields, kubectl last-applied and unread statuses where no code reads them, and only there', async () => {
    const mgr = new Manager({
      kubeConfig: kubeConfig(),
      logger: silentLogger,
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
      makeElector: () => standby,
      informerTransport: (ref) =>
        new FakeTransport<Obj>(() => ({ items: [full(ref.plural)], resourceVersion: '5' })),
    });
    const informers: Informer<KubernetesObject>[] = [];
    const make = mgr.informer.bind(mgr);
    mgr.informer = ((opts: Parameters<typeof make>[0]) => {
      const i = make(opts);
      informers.push(i);
      return i;
    }) as typeof mgr.informer;
    setupControllers(
      mgr,
      [
        { product: GLOO, relatedServed: false },
        { product: KGATEWAY, relatedServed: true },
      ],
      { concurrency: 1, resyncPeriodMs: 0 },
    );
    await mgr.start();
    const kept = Object.fromEntries(
      informers.map((i) => {
        const o = i.store.list()[0] as Obj;
        return [
          i.ref.plural,
          {
            managedFields: (o.metadata?.managedFields ?? []).map((m) => m.manager),
            annotations: Object.keys(o.metadata?.annotations ?? {}),
            status: 'status' in o,
            spec: 'spec' in o,
          },
        ];
      }),
    );
    const ALL = ['glooha-operator', 'kubectl'];
    const noLastApplied = ['keep'];
    const withLastApplied = [LAST_APPLIED_ANNOTATION, 'keep'];
    expect(kept).toEqual({
      // the HA objects: status read (plan, status); no managedFields
      gloohas: { managedFields: [], annotations: noLastApplied, status: true, spec: true },
      kgatewayhas: { managedFields: [], annotations: noLastApplied, status: true, spec: true },
      // the products' Deployments and the HPAs not ours: every writer's managedFields (drift author, handover)
      deployments: { managedFields: ALL, annotations: noLastApplied, status: true, spec: true },
      horizontalpodautoscalers: { managedFields: ALL, annotations: noLastApplied, status: true, spec: true },
      poddisruptionbudgets: { managedFields: [], annotations: noLastApplied, status: true, spec: true },
      // owned objects: the other writers' managedFields (drift author)
      roles: { managedFields: ['kubectl'], annotations: noLastApplied, status: true, spec: true },
      rolebindings: { managedFields: ['kubectl'], annotations: noLastApplied, status: true, spec: true },
      configmaps: { managedFields: ['kubectl'], annotations: noLastApplied, status: true, spec: true },
      // Leases keep every annotation: the hand-over PUTs the cached metadata back
      leases: { managedFields: [], annotations: withLastApplied, status: true, spec: true },
      // pods: containerStatuses read (dead-holder), see below
      pods: { managedFields: [], annotations: noLastApplied, status: true, spec: true },
      // related kinds: no status read; GatewayParameters keep managedFields (handover)
      gateways: { managedFields: [], annotations: noLastApplied, status: false, spec: true },
      gatewayparameters: { managedFields: ALL, annotations: noLastApplied, status: false, spec: true },
    });
    // pods: cut down to what podFacts reads (dead-holder.ts; its test holds the projection)
    const pods = informers.find((i) => i.ref.plural === 'pods')!.store.list()[0] as Obj;
    expect([pods.spec, pods.status]).toEqual([{ containers: [] }, {}]);
    await mgr.stop('test');
  });
});

describe('foreignStatusWrite: which GlooHA status changes wake the reconciler', () => {
  const glooha = (rv: string, ready: string): KubernetesObject =>
    ({
      apiVersion: 'glooha.io/v1alpha1',
      kind: 'GlooHA',
      metadata: { name: 'ha', namespace: 'ns', resourceVersion: rv, generation: 1 },
      status: { conditions: [{ type: 'Ready', status: ready }] },
    }) as KubernetesObject;

  it('passes a status changed by a write that is not our last one, and drops our own', () => {
    const memory = new ReconcilerMemory();
    const filter = foreignStatusWrite(memory);
    memory.recordStatusWrite('ns/ha', { json: '{}', basedOn: '4', wrote: '5' });
    // our own write: the event carries the resourceVersion our write returned
    expect(filter({ type: 'update', old: glooha('4', 'False'), obj: glooha('5', 'True') })).toBe(false);
    // someone else's (or a late write of an earlier term) after it
    expect(filter({ type: 'update', old: glooha('5', 'True'), obj: glooha('6', 'False') })).toBe(true);
    // no status change at all: not this filter's business
    expect(filter({ type: 'update', old: glooha('6', 'False'), obj: glooha('7', 'False') })).toBe(false);
    // nothing remembered for the key (a new leader): any status change is someone else's
    expect(
      foreignStatusWrite(new ReconcilerMemory())({
        type: 'update',
        old: glooha('6', 'False'),
        obj: glooha('7', 'True'),
      }),
    ).toBe(true);
  });
});
