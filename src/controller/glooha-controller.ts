// Wires the GlooHA reconciler into a manager: the informers it reads (shared, warm on every replica),
// which events enqueue which GlooHA keys, and the handlers that run whatever the leadership (Gloo's
// Lease tracker, forgetting a deleted GlooHA's memory).
import type {
  KubernetesObject,
  V1Deployment,
  V1Lease,
  V1PodDisruptionBudget,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import {
  GLOO_LEASE_NAME,
  GROUP,
  KGATEWAY_KIND,
  KGATEWAY_PLURAL,
  LABEL_MANAGED_BY,
  LABEL_OWNER_KIND,
  LABEL_OWNER_NAME,
  LABEL_OWNER_NAMESPACE,
  MANAGER,
  PLURAL,
  VERSION,
} from '../api/constants.js';
import type { HAObject } from '../api/types.js';
import { CONTROLLER_LEASE_NAME, INSTALL_LABEL_SELECTOR } from '../kgateway/facts.js';
import { installNamespaceOf } from '../core/desired.js';
import type { Manager } from '../manager/manager.js';
import type { OperatorMetrics } from '../metrics/index.js';
import { realClock, type Clock } from '../runtime/clock.js';
import { anyOf, deepEqual, generationChanged, type EventFilter } from '../runtime/filters.js';
import type { Informer } from '../runtime/informer.js';
import { ServedListTypes } from '../kube/openapi-list-types.js';
import { stripManagedFields, stripManagedFieldsOf } from '../runtime/transforms.js';
import { objectKey } from '../runtime/store.js';
import { EventRecorder } from './actions/events.js';
import { kubeWriter } from './actions/writer.js';
import { GlooLeaderTracker } from './gloo-leader.js';
import {
  DEPLOYMENTS,
  GATEWAYS,
  GATEWAY_PARAMETERS,
  GLOO_HPAS,
  GLOO_PDBS,
  LEASES,
  LIST_TYPED_KINDS,
  OWNED_KINDS,
} from './kinds.js';
import { ReconcilerMemory } from './memory.js';
import type { Snapshot } from './plan-types.js';
import { GLOO, KGATEWAY, type Product } from './plan.js';
import { CONTROLLER_NAME, KGATEWAY_CONTROLLER_NAME, reconcile } from './reconciler.js';

type GlooHAObject = HAObject & KubernetesObject;

/**
 * What tells the two controllers apart: the kind they reconcile, the labels of the product's own
 * Deployments, HPAs and PDBs, its leader's Lease, and the owner-kind label of what they own (the
 * GlooHA controller's objects carry none; it must not select the KgatewayHA's).
 */
interface Profile {
  name: string;
  plural: string;
  /** Selects the product's Deployments. */
  productSelector: string;
  leaseName: string;
  ownedSelector: string;
  /** The owner-kind label value of what it owns (none for a GlooHA's). */
  ownerKind?: string;
  product: Product;
  /** Per-object metrics series (the GlooHA gauges; none for KgatewayHA yet). */
  gauges: boolean;
}

const managed = `${LABEL_MANAGED_BY}=${MANAGER}`;

const GLOO_PROFILE: Profile = {
  name: CONTROLLER_NAME,
  plural: PLURAL,
  // Gloo's chart labels everything it creates app=gloo: watch that, not every Deployment.
  productSelector: 'app=gloo',
  leaseName: GLOO_LEASE_NAME,
  ownedSelector: `${managed},!${LABEL_OWNER_KIND}`,
  product: GLOO,
  gauges: true,
};

const KGATEWAY_PROFILE: Profile = {
  name: KGATEWAY_CONTROLLER_NAME,
  plural: KGATEWAY_PLURAL,
  productSelector: INSTALL_LABEL_SELECTOR,
  leaseName: CONTROLLER_LEASE_NAME,
  ownedSelector: `${managed},${LABEL_OWNER_KIND}=${KGATEWAY_KIND}`,
  ownerKind: KGATEWAY_KIND,
  product: KGATEWAY,
  gauges: false,
};

const OWNER_INDEX = 'owner';

export interface GlooHAControllerOptions {
  concurrency: number;
  resyncPeriodMs: number;
  metrics?: OperatorMetrics;
  clock?: Clock;
}

/** The GlooHA an owned object belongs to, from its owner labels. */
export function ownerKey(obj: KubernetesObject): string | undefined {
  const l = obj.metadata?.labels ?? {};
  const name = l[LABEL_OWNER_NAME];
  const ns = l[LABEL_OWNER_NAMESPACE];
  return name && ns ? `${ns}/${name}` : undefined;
}

/**
 * Passes a GlooHA update whose status changed in a write that was not ours: someone else's, or a late
 * write from an earlier term that arrived after this one began. It is put right at once instead of at
 * the next resync. Our own status writes are recognised by the resourceVersion they produced.
 */
export function foreignStatusWrite(memory: ReconcilerMemory): EventFilter<KubernetesObject> {
  return (ev) =>
    ev.type === 'update' &&
    !deepEqual((ev.old as GlooHAObject).status, (ev.obj as GlooHAObject).status) &&
    memory.lastStatusWrite(objectKey(ev.obj))?.wrote !== ev.obj.metadata?.resourceVersion;
}

export interface GlooHAController {
  /** For tests: what is remembered per GlooHA (must be forgotten with it). */
  memory: ReconcilerMemory;
  gloohas: Informer<GlooHAObject>;
}

export function setupGlooHAController(mgr: Manager, opts: GlooHAControllerOptions): GlooHAController {
  return setupController(mgr, opts, GLOO_PROFILE);
}

/**
 * The KgatewayHA controller: the same reconciler, plan and actions, against kgateway's controller
 * Deployment and its Lease kgateway-envoy (src/kgateway/).
 */
export function setupKgatewayHAController(
  mgr: Manager,
  opts: GlooHAControllerOptions & {
    /** The API server serves Gateways and GatewayParameters: watch them (spec.gateways needs them). */
    gatewayApi: boolean;
  },
): GlooHAController {
  return setupController(mgr, opts, KGATEWAY_PROFILE, opts.gatewayApi);
}

function setupController(
  mgr: Manager,
  opts: GlooHAControllerOptions,
  profile: Profile,
  gatewayApi = false,
): GlooHAController {
  const clock = opts.clock ?? realClock;
  // Cache transforms: managedFields are read only from Gloo's Deployments and HPAs (drift author,
  // handover) and from owned objects (drift author: other writers only), so the rest drop them.
  const gloohas = mgr.informer<GlooHAObject>({
    group: GROUP,
    version: VERSION,
    plural: profile.plural,
    transform: stripManagedFields,
  });
  gloohas.addIndex('installNamespace', (g) => [installNamespaceOf(g)]);
  const deployments = mgr.informer<V1Deployment & KubernetesObject>({
    ...DEPLOYMENTS,
    labelSelector: profile.productSelector,
  });
  // Every HPA and PDB, not only those labelled like the product's: what covers a Deployment is what
  // targets it (scaleTargetRef) or selects its pods, and a user's `kubectl autoscale` or `kubectl
  // create pdb` carries no label of the chart's (observe.ts matches them). One informer per kind,
  // shared by both controllers.
  const glooHpas = mgr.informer<V2HorizontalPodAutoscaler & KubernetesObject>({ ...GLOO_HPAS });
  const glooPdbs = mgr.informer<V1PodDisruptionBudget & KubernetesObject>({
    ...GLOO_PDBS,
    transform: stripManagedFields,
  });
  const owned = new Map(
    OWNED_KINDS.map((k) => [
      k.kind,
      mgr.informer({ ...k, labelSelector: profile.ownedSelector, transform: stripManagedFieldsOf(MANAGER) }),
    ]),
  );
  // Each reconcile reads only its own GlooHA's objects: without the index every snapshot walked every
  // owned object of every install (O(N²) over a cold start).
  for (const inf of owned.values()) inf.addIndex(OWNER_INDEX, (o) => [ownerKey(o) ?? '']);
  const leases = mgr.informer<V1Lease & KubernetesObject>({
    ...LEASES,
    fieldSelector: `metadata.name=${profile.leaseName}`,
    transform: stripManagedFields,
  });

  const keysForNamespace = (namespace: string | undefined): string[] =>
    namespace ? gloohas.store.byIndex('installNamespace', namespace).map((g) => objectKey(g)) : [];
  const enqueueNamespace = (namespace: string) => {
    for (const key of keysForNamespace(namespace)) mgr.enqueue(profile.name, key);
  };

  // Gloo's Lease: tracked on every replica (a new leader knows who leads Gloo at once). Renewals are
  // swallowed; only a holder or freshness change enqueues.
  const tracker = new GlooLeaderTracker(enqueueNamespace, clock);
  leases.addEventHandler({
    add: (l) =>
      tracker.observe(l.metadata?.namespace ?? '', l) && enqueueNamespace(l.metadata?.namespace ?? ''),
    update: (_old, l) =>
      tracker.observe(l.metadata?.namespace ?? '', l) && enqueueNamespace(l.metadata?.namespace ?? ''),
    delete: (l) =>
      tracker.forget(l.metadata?.namespace ?? '') && enqueueNamespace(l.metadata?.namespace ?? ''),
  });
  mgr.onStop(() => tracker.stop());

  // How server-side apply merges the lists of what we write, from the API server's own schema: the
  // drift comparison must see a list-map as the API server merges it (compare.ts).
  const servedListTypes = new ServedListTypes(
    mgr.client,
    [...LIST_TYPED_KINDS, ...(gatewayApi ? [GATEWAY_PARAMETERS] : [])],
    mgr.log,
  );
  const memory = new ReconcilerMemory();
  const writer = kubeWriter(mgr.client);
  const events = new EventRecorder(writer, mgr.log, () => clock.wallNow().getTime());
  // A deleted GlooHA's memory goes on every replica, leader or not.
  gloohas.on('delete', (g) => {
    memory.forget(objectKey(g));
    events.forget(g.metadata.uid);
  });

  // kgateway's Gateways and the GatewayParameters glooha writes proxies' fields into (not stripped:
  // the handover on deletion reads glooha's managedFields entry).
  const gatewayInformers = gatewayApi
    ? {
        gateways: mgr.informer<KubernetesObject>({ ...GATEWAYS, transform: stripManagedFields }),
        parameters: mgr.informer<KubernetesObject>({ ...GATEWAY_PARAMETERS }),
      }
    : undefined;

  const snapshot = (key: string): Snapshot => {
    const g = gloohas.store.get(key);
    const ns = g ? installNamespaceOf(g) : '';
    return {
      gatewayApi,
      gateways: g && gatewayInformers ? gatewayInformers.gateways.store.list(ns) : [],
      gatewayParameters: g && gatewayInformers ? gatewayInformers.parameters.store.list(ns) : [],
      key,
      glooHA: g,
      sameNamespace: g ? gloohas.store.byIndex('installNamespace', ns) : [],
      deployments: g ? deployments.store.list(ns) : [],
      glooHpas: g ? glooHpas.store.list(ns) : [],
      glooPdbs: g ? glooPdbs.store.list(ns) : [],
      owned: new Map([...owned].map(([kind, inf]) => [kind, g ? inf.store.byIndex(OWNER_INDEX, key) : []])),
      leader: g ? tracker.status(ns) : undefined,
      lastCorrections: memory.lastCorrections(key),
      ownApplies: memory.ownApplies(key),
      now: clock.wallNow(),
    };
  };

  // Per-GlooHA series, read from the cache when scraped: status-only updates (which enqueue nothing)
  // count at once, and a standby reports the same as the leader.
  if (profile.gauges)
    opts.metrics?.glooha.observe(() =>
      gloohas.store.list().map((g) => {
        const ready = g.status?.conditions?.find((c) => c.type === 'Ready')?.status;
        const lease = tracker.lease(installNamespaceOf(g));
        return {
          namespace: g.metadata.namespace ?? '',
          name: g.metadata.name,
          ready: ready === 'True' ? 'true' : ready === 'False' ? 'false' : 'unknown',
          ...(lease ? { glooLeaderLease: lease } : {}),
        };
      }),
    );
  opts.metrics?.reconcile.register(profile.name, opts.concurrency);
  const toInstall = { mapToKeys: (o: KubernetesObject) => keysForNamespace(o.metadata?.namespace) };
  // The other kind's objects are its own business: kgateway's cover informers see every PDB and HPA,
  // a GlooHA's included, whose status changes would reconcile the KgatewayHA for nothing.
  const otherKind = (o: KubernetesObject) => {
    const l = o.metadata?.labels ?? {};
    return l[LABEL_MANAGED_BY] === MANAGER && l[LABEL_OWNER_KIND] !== profile.ownerKind;
  };
  const toInstallCover = {
    mapToKeys: (o: KubernetesObject) => (otherKind(o) ? [] : keysForNamespace(o.metadata?.namespace)),
  };
  const toOwner = { mapToKeys: (o: KubernetesObject) => ownerKey(o) };
  mgr.add({
    name: profile.name,
    concurrency: opts.concurrency,
    resyncPeriodMs: opts.resyncPeriodMs,
    reconcile: async (key, ctx) => {
      const listTypes = await servedListTypes.get(ctx.signal);
      return reconcile(key, ctx, {
        controllerName: profile.name,
        product: profile.product,
        snapshot: (k) => ({ ...snapshot(k), listTypes }),
        writer,
        events,
        memory,
        metrics: opts.metrics,
        log: mgr.log,
      });
    },
    watches: [
      // Spec (generation), deletion, finalizers, labels and annotations, and status written by
      // anyone but us; not our own status writes.
      {
        informer: gloohas as unknown as Informer<KubernetesObject>,
        filter: anyOf(generationChanged, foreignStatusWrite(memory)),
      },
      { informer: deployments as unknown as Informer<KubernetesObject>, ...toInstall },
      { informer: glooHpas as unknown as Informer<KubernetesObject>, ...toInstallCover },
      { informer: glooPdbs as unknown as Informer<KubernetesObject>, ...toInstallCover },
      ...[...owned.values()].map((informer) => ({ informer, ...toOwner })),
      ...(gatewayInformers
        ? [
            { informer: gatewayInformers.gateways, ...toInstall },
            { informer: gatewayInformers.parameters, ...toInstall },
          ]
        : []),
    ],
  });
  return { memory, gloohas };
}
