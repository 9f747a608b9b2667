// Wires one reconciler per product into a manager: the informers they read (shared, warm on every
// replica), which events enqueue which keys, and the handlers that run whatever the leadership (the
// products' leader-Lease trackers, forgetting a deleted object's memory).
//
// One shared informer per kind serves every product's controller, as controller-runtime's cache does:
// each product names the narrowest selection it needs (Product.deploymentSelector, coverSelector,
// leaseName) and the informer watches their union; a product's snapshot keeps only its own selection.
import type {
  KubernetesObject,
  V1Deployment,
  V1Lease,
  V1Pod,
  V1PodDisruptionBudget,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import {
  GROUP,
  LABEL_MANAGED_BY,
  LABEL_OWNER_KIND,
  LABEL_OWNER_NAME,
  LABEL_OWNER_NAMESPACE,
  MANAGER,
  VERSION,
} from '../api/constants.js';
import type { HAObject } from '../api/types.js';
import type { Manager } from '../manager/manager.js';
import type { OperatorMetrics } from '../metrics/index.js';
import { podAsRead } from '../core/dead-holder.js';
import { realClock, type Clock } from '../runtime/clock.js';
import {
  anyOf,
  deepEqual,
  generationChanged,
  statusOnlyUpdate,
  type EventFilter,
  type InformerEvent,
} from '../runtime/filters.js';
import type { Informer, Selection } from '../runtime/informer.js';
import { selectionMatcher } from '../runtime/selection.js';
import {
  stripLastApplied,
  stripManagedFields,
  stripManagedFieldsOf,
  stripStatus,
  transforms,
} from '../runtime/transforms.js';
import { objectKey } from '../runtime/store.js';
import { EventRecorder } from './actions/events.js';
import type { ClusterReads } from './cluster-reads.js';
import { kubeWriter } from './actions/writer.js';
import { HolderRelease } from './holder-release.js';
import { leaderlessGapEvent, type LeaderlessSpell } from './leaderless-gap.js';
import {
  DEPLOYMENTS,
  HPAS,
  LEASES,
  LIST_TYPED_KINDS,
  OWNED_KINDS,
  PDBS,
  PODS,
  type KindInfo,
} from './kinds.js';
import { ServedListTypes } from '../kube/openapi-list-types.js';
import { LeaseTracker } from './lease-tracker.js';
import { ReconcilerMemory } from './memory.js';
import type { Snapshot } from './plan-types.js';
import { installNamespaceOf, type Product } from './product.js';
import { reconcile } from './reconciler.js';

type HAObjectK = HAObject & KubernetesObject;

const OWNER_INDEX = 'owner';

/** controller-runtime's default retry period, for a product that does not say its own. */
const DEFAULT_PRODUCT_RETRY_PERIOD_SECONDS = 2;

export interface ControllerOptions {
  concurrency: number;
  resyncPeriodMs: number;
  metrics?: OperatorMetrics;
  clock?: Clock;
  /** Hand a product's Lease over once the kubelet reports its holder's process ended (default true). */
  productLeaseHandover?: boolean;
  /**
   * The cluster-scoped kinds RBAC lets the operator read (Product.clusterKinds), watched while it
   * does (cluster-reads.ts). Without it none is read: the products report what they cannot check.
   */
  clusterReads?: ClusterReads;
}

/** A product to reconcile, and whether the API server serves every kind of its Product.relatedKinds. */
export interface ProductSetup {
  product: Product;
  relatedServed: boolean;
}

/**
 * The owner an owned object belongs to, from its owner labels: `kind/namespace/name`. An object
 * without the owner-kind label (labelled by an earlier release) belongs to `unlabelledKind`.
 */
export function ownerKey(obj: KubernetesObject, unlabelledKind = ''): string | undefined {
  const l = obj.metadata?.labels ?? {};
  const name = l[LABEL_OWNER_NAME];
  const ns = l[LABEL_OWNER_NAMESPACE];
  return name && ns ? `${l[LABEL_OWNER_KIND] ?? unlabelledKind}/${ns}/${name}` : undefined;
}

/**
 * Passes an update whose status changed in a write that was not ours: someone else's, or a late
 * write from an earlier term that arrived after this one began. It is put right at once instead of at
 * the next resync. Our own status writes are recognised by the resourceVersion they produced.
 */
export function foreignStatusWrite(memory: ReconcilerMemory): EventFilter<KubernetesObject> {
  return (ev) =>
    ev.type === 'update' &&
    !deepEqual((ev.old as HAObjectK).status, (ev.obj as HAObjectK).status) &&
    memory.lastStatusWrite(objectKey(ev.obj))?.wrote !== ev.obj.metadata?.resourceVersion;
}

export interface HAController {
  product: Product;
  /** For tests: what is remembered per object (must be forgotten with it). */
  memory: ReconcilerMemory;
  objects: Informer<HAObjectK>;
}

/**
 * The union of the products' selections of one kind: undefined (everything in scope) as soon as one
 * product needs everything, else each distinct selection once.
 */
function union(selections: readonly (Selection | undefined)[]): Selection[] | undefined {
  if (selections.some((s) => s === undefined)) return undefined;
  const seen = new Map<string, Selection>();
  for (const s of selections as Selection[]) seen.set(`${s.labelSelector ?? ''}|${s.fieldSelector ?? ''}`, s);
  return [...seen.values()];
}

/** One shared informer of `kind` watching the union of `selections` (see `union`). */
function sharedInformer<T extends KubernetesObject>(
  mgr: Manager,
  kind: KindInfo,
  selections: readonly (Selection | undefined)[],
  transform?: (obj: T) => T,
): Informer<T> {
  const u = union(selections);
  return mgr.informer<T>({
    ...kind,
    ...(u && u.length === 1 ? u[0] : {}),
    ...(u && u.length > 1 ? { selections: u } : {}),
    ...(transform ? { transform } : {}),
  });
}

/** Registers one controller per product on shared informers; see the module comment. */
export function setupControllers(
  mgr: Manager,
  setups: readonly ProductSetup[],
  opts: ControllerOptions,
): HAController[] {
  const clock = opts.clock ?? realClock;
  const shared = sharedInformers(mgr, setups, opts);
  // Cluster-scoped kinds: opts.clusterReads watches each (cluster-wide) while RBAC allows it.
  const controllers = setups.map((s) => setupController(mgr, s, opts, clock, shared));
  if (shared.pods) routePodEvents(shared.pods, controllers);
  routeLeaseEvents(shared.leases, controllers);
  return controllers.map(({ product, memory, objects }) => ({ product, memory, objects }));
}

/**
 * The informers every product's controller reads, one per kind, each watching the union of the
 * products' selections.
 *
 * Cache transforms (src/runtime/transforms.ts): managedFields are read only from the products'
 * Deployments and HPAs (drift author, handover), from owned objects (drift author: other writers
 * only) and from GatewayParameters (handover), so the rest drop them. kubectl's last-applied
 * annotation is read nowhere (no reader in src/): every kind drops it but Leases, which the Lease
 * hand-over PUTs back from the cache (holder-release.ts). Statuses are read of the HA objects,
 * Deployments, HPAs, PDBs (status.ts, rollout-status.ts) and pods (dead-holder.ts), none of the
 * related kinds' (a product reads their names and specs), so those drop theirs. Pods keep only what
 * podFacts reads (podAsRead).
 */
function sharedInformers(mgr: Manager, setups: readonly ProductSetup[], opts: ControllerOptions): Shared {
  const products = setups.map((s) => s.product);
  const deployments = sharedInformer<V1Deployment & KubernetesObject>(
    mgr,
    DEPLOYMENTS,
    products.map((p) => ({ labelSelector: p.deploymentSelector })),
    stripLastApplied,
  );
  const coverAndOwned = coverAndOwnedInformers(mgr, products);
  const leases = sharedInformer<V1Lease & KubernetesObject>(
    mgr,
    LEASES,
    products.map((p) => ({ fieldSelector: `metadata.name=${p.leaseName}` })),
    stripManagedFields,
  );
  // The pods that elect through the products' Leases (only products that name them): whether a
  // holder's process has ended (holder-release.ts).
  const electing = (opts.productLeaseHandover === false ? [] : products).flatMap((p) =>
    p.leaderPods ? [{ labelSelector: p.leaderPods.labelSelector }] : [],
  );
  const pods =
    electing.length > 0
      ? sharedInformer<V1Pod & KubernetesObject>(
          mgr,
          PODS,
          electing,
          transforms(stripManagedFields, stripLastApplied, podAsRead),
        )
      : undefined;
  return {
    deployments,
    ...coverAndOwned,
    leases,
    related: relatedInformers(mgr, setups),
    ...(pods ? { pods } : {}),
  };
}

/**
 * HPAs and PDBs: the ones that may cover the products' Deployments, and the ones the operator owns, in
 * one informer each; and the informers of the other kinds the operator owns, indexed by owner.
 */
function coverAndOwnedInformers(
  mgr: Manager,
  products: readonly Product[],
): Pick<Shared, 'hpas' | 'pdbs' | 'owned'> {
  const covers = products.map((p): Selection | undefined =>
    p.coverSelector ? { labelSelector: p.coverSelector } : undefined,
  );
  // Owned objects keep other writers' managedFields only (the drift author); the rest of the HPAs
  // keep all (the handover reads ours), the rest of the PDBs none.
  const managed: Selection = { labelSelector: `${LABEL_MANAGED_BY}=${MANAGER}` };
  const isManaged = selectionMatcher(managed);
  const stripOwn = transforms(stripManagedFieldsOf(MANAGER), stripLastApplied);
  const ownedOr =
    <T extends KubernetesObject>(other: (o: T) => T) =>
    (o: T): T =>
      isManaged(o) ? (stripOwn(o) as T) : other(stripLastApplied(o));
  const hpas = sharedInformer<V2HorizontalPodAutoscaler & KubernetesObject>(
    mgr,
    HPAS,
    [...covers, managed],
    ownedOr((o) => o),
  );
  const pdbs = sharedInformer<V1PodDisruptionBudget & KubernetesObject>(
    mgr,
    PDBS,
    [...covers, managed],
    ownedOr(stripManagedFields),
  );
  // Every product's owned objects carry the managed-by label; the owner index tells whose they are.
  const unlabelledKind = products.find((p) => p.ownsUnlabelledObjects)?.kind ?? '';
  const owned = new Map<string, Informer<KubernetesObject>>(
    OWNED_KINDS.map((k) => [
      k.kind,
      k.kind === HPAS.kind
        ? (hpas as unknown as Informer<KubernetesObject>)
        : k.kind === PDBS.kind
          ? (pdbs as unknown as Informer<KubernetesObject>)
          : mgr.informer({ ...k, ...managed, transform: stripOwn }),
    ]),
  );
  // Each reconcile reads only its own object's owned objects: without the index every snapshot walked
  // every owned object of every install (O(N²) over a cold start).
  for (const inf of owned.values()) inf.addIndex(OWNER_INDEX, (o) => [ownerKey(o, unlabelledKind) ?? '']);
  return { hpas, pdbs, owned };
}

/** The products' related kinds whose kinds are served: a kind two products read is one informer. */
function relatedInformers(
  mgr: Manager,
  setups: readonly ProductSetup[],
): Map<string, Informer<KubernetesObject>> {
  const related = new Map<string, Informer<KubernetesObject>>();
  for (const { product, relatedServed } of setups) {
    if (!relatedServed) continue;
    for (const k of product.relatedKinds) {
      if (related.has(k.kind)) continue;
      const { keepManagedFields, servedFields: _servedFields, ...ref } = k;
      related.set(
        k.kind,
        mgr.informer<KubernetesObject>({
          ...ref,
          transform: keepManagedFields
            ? transforms(stripLastApplied, stripStatus)
            : transforms(stripManagedFields, stripLastApplied, stripStatus),
        }),
      );
    }
  }
  return related;
}

/** Each pod event of a product's elected pods may settle whether its Lease holder has stopped. */
function routePodEvents(
  pods: Informer<V1Pod & KubernetesObject>,
  controllers: readonly WiredController[],
): void {
  pods.addEventHandler({
    update: (_old, p) => {
      for (const c of controllers) if (c.electedPod(p)) void c.release?.evaluate(p.metadata?.namespace ?? '');
    },
    delete: (p) => {
      for (const c of controllers)
        if (c.electedPod(p)) {
          c.release?.podDeleted(p);
          void c.release?.evaluate(p.metadata?.namespace ?? '');
        }
    },
  });
}

/** One handler on the shared Lease informer hands each Lease to the product that elects through it. */
function routeLeaseEvents(
  leases: Informer<V1Lease & KubernetesObject>,
  controllers: readonly WiredController[],
): void {
  const controllerOf = (l: V1Lease) => controllers.find((c) => c.product.leaseName === l.metadata?.name);
  const ns = (l: V1Lease) => l.metadata?.namespace ?? '';
  const enqueueNamespace = (l: V1Lease) => controllerOf(l)?.enqueueNamespace(ns(l));
  const observed = (l: V1Lease) => {
    const c = controllerOf(l);
    if (c?.tracker.observe(ns(l), l)) enqueueNamespace(l);
    void c?.release?.evaluate(ns(l));
  };
  leases.addEventHandler({
    add: observed,
    update: (_old, l) => observed(l),
    delete: (l) => controllerOf(l)?.tracker.forget(ns(l)) && enqueueNamespace(l),
  });
}

interface Shared {
  deployments: Informer<V1Deployment & KubernetesObject>;
  hpas: Informer<V2HorizontalPodAutoscaler & KubernetesObject>;
  pdbs: Informer<V1PodDisruptionBudget & KubernetesObject>;
  owned: Map<string, Informer<KubernetesObject>>;
  leases: Informer<V1Lease & KubernetesObject>;
  related: Map<string, Informer<KubernetesObject>>;
  pods?: Informer<V1Pod & KubernetesObject>;
}

/** A product's controller as setupControllers routes the shared Lease and pod events to it. */
interface WiredController extends HAController {
  tracker: LeaseTracker;
  enqueueNamespace(namespace: string): void;
  release?: HolderRelease;
  electedPod(pod: KubernetesObject): boolean;
}

/** What one product's controller is built from: its objects, its selections of the shared caches. */
interface ProductWiring {
  mgr: Manager;
  product: Product;
  name: string;
  opts: ControllerOptions;
  clock: Clock;
  shared: Shared;
  objects: Informer<HAObjectK>;
  matchesDeployment: (o: KubernetesObject) => boolean;
  matchesCover: (o: KubernetesObject) => boolean;
  keysForNamespace: (namespace: string | undefined) => string[];
  enqueueNamespace: (namespace: string) => void;
  /** Every object of the kind, reconciled again. */
  enqueueAll: () => void;
  retryPeriodSeconds: number;
}

function productWiring(
  mgr: Manager,
  product: Product,
  opts: ControllerOptions,
  clock: Clock,
  shared: Shared,
): ProductWiring {
  const name = product.controllerName;
  const objects = mgr.informer<HAObjectK>({
    group: GROUP,
    version: VERSION,
    plural: product.plural,
    transform: transforms(stripManagedFields, stripLastApplied),
  });
  objects.addIndex('installNamespace', (g) => [installNamespaceOf(g)]);
  const keysForNamespace = (namespace: string | undefined): string[] =>
    namespace ? objects.store.byIndex('installNamespace', namespace).map((g) => objectKey(g)) : [];
  return {
    mgr,
    product,
    name,
    opts,
    clock,
    shared,
    objects,
    // This product's selection of the shared caches.
    matchesDeployment: selectionMatcher({ labelSelector: product.deploymentSelector }),
    matchesCover: product.coverSelector
      ? selectionMatcher({ labelSelector: product.coverSelector })
      : () => true,
    keysForNamespace,
    enqueueNamespace: (namespace) => {
      for (const key of keysForNamespace(namespace)) mgr.enqueue(name, key);
    },
    enqueueAll: () => {
      for (const g of objects.store.list()) mgr.enqueue(name, objectKey(g));
    },
    retryPeriodSeconds: product.leaderPods?.retryPeriodSeconds ?? DEFAULT_PRODUCT_RETRY_PERIOD_SECONDS,
  };
}

function setupController(
  mgr: Manager,
  { product, relatedServed }: ProductSetup,
  opts: ControllerOptions,
  clock: Clock,
  shared: Shared,
): WiredController {
  const w = productWiring(mgr, product, opts, clock, shared);
  const { name, objects } = w;
  const memory = new ReconcilerMemory();
  const writer = kubeWriter(
    mgr.client,
    { group: GROUP, version: VERSION, plural: product.plural },
    product.relatedKinds,
  );
  // No more event writes in flight than reconciles (events are not awaited; see actions/events.ts).
  const events = new EventRecorder(writer, mgr.log, () => clock.wallNow().getTime(), undefined, {
    maxInFlight: opts.concurrency,
    onDropped: () => opts.metrics?.glooha.eventDropped(product.kind),
  });
  const tracker = productLeaseTracker(w, events);
  const { release, electedPod } = productHolderRelease(w);
  const servedListTypes = productListTypes(w, relatedServed);
  // A deleted object's memory goes on every replica, leader or not.
  objects.on('delete', (g) => {
    memory.forget(objectKey(g));
    events.forget(g.metadata.uid);
  });
  const related = relatedServed
    ? product.relatedKinds.map((k) => [k.kind, shared.related.get(k.kind)!] as const)
    : undefined;
  const snapshot = productSnapshot(w, { memory, tracker, related });
  observeProductObjects(w, tracker);
  opts.metrics?.reconcile.register(name, opts.concurrency);
  mgr.add({
    name,
    concurrency: opts.concurrency,
    resyncPeriodMs: opts.resyncPeriodMs,
    reconcile: async (key, ctx) => {
      // A term that begins after the holder's pod stopped has seen no event of it: look at each install.
      const g = objects.store.get(key);
      if (g && release) void release.evaluate(installNamespaceOf(g));
      const listTypes = await servedListTypes.get(ctx.signal);
      return reconcile(key, ctx, {
        product,
        snapshot: (k) => ({ ...snapshot(k), listTypes, servedFields: servedListTypes.servedFields() }),
        writer,
        events,
        memory,
        metrics: opts.metrics,
        log: mgr.log,
      });
    },
    watches: productWatches(w, memory, related),
  });
  return { product, memory, objects, tracker, enqueueNamespace: w.enqueueNamespace, release, electedPod };
}

/**
 * The product's leader Lease: tracked on every replica (a new leader knows who leads at once).
 * Renewals are swallowed; only a holder or freshness change enqueues (setupControllers routes them).
 * Every replica observes each leaderless gap; the leader also reports one above the expected bound.
 */
function productLeaseTracker(w: ProductWiring, events: EventRecorder): LeaseTracker {
  const { mgr, product, opts, objects } = w;
  const tracker = new LeaseTracker(w.enqueueNamespace, w.clock, (namespace, gap) => {
    const owners = objects.store.byIndex('installNamespace', namespace);
    for (const g of owners)
      opts.metrics?.glooha.leaderless(
        { kind: product.kind, namespace: g.metadata.namespace ?? '', name: g.metadata.name },
        gap.seconds,
      );
    if (!mgr.leadership.canWrite()) return;
    for (const g of owners) {
      const retry = product.leaderPods?.retryPeriodSecondsOf?.(g) ?? w.retryPeriodSeconds;
      const event = leaderlessGapEvent(gap, product.leaseName, retry);
      if (event) void events.record(g, event, mgr.leadership.leadingSignal).catch(() => undefined);
    }
  });
  mgr.onStop(() => tracker.stop());
  return tracker;
}

/** Hands over the Lease of a holder whose process ended (products that name their pods). */
function productHolderRelease(w: ProductWiring): {
  release?: HolderRelease;
  electedPod: (pod: KubernetesObject) => boolean;
} {
  const { mgr, product, shared, objects, opts } = w;
  const leaderPods = product.leaderPods;
  if (!leaderPods) return { electedPod: () => false };
  const electedPod = selectionMatcher({ labelSelector: leaderPods.labelSelector });
  const pods = shared.pods;
  if (!pods) return { electedPod };
  const release = new HolderRelease({
    client: mgr.client,
    leadership: mgr.leadership,
    log: mgr.log.child({ controller: w.name }),
    clock: w.clock,
    pod: (namespace, podName) => {
      const p = pods.store.get(`${namespace}/${podName}`);
      return p && electedPod(p) ? p : undefined;
    },
    lease: (namespace) => shared.leases.store.get(`${namespace}/${product.leaseName}`),
    holderPod: (holder) => leaderPods.podName(holder),
    electorContainer: leaderPods.container,
    managed: (namespace) => w.keysForNamespace(namespace).length > 0,
    onReleased: (namespace) => {
      for (const g of objects.store.byIndex('installNamespace', namespace))
        opts.metrics?.glooha.leaseReleased({
          kind: product.kind,
          namespace: g.metadata.namespace ?? '',
          name: g.metadata.name,
        });
    },
  });
  return { release, electedPod };
}

/**
 * How server-side apply merges the lists of what we write, from the API server's own schema: the
 * drift comparison must see a list-map as the API server merges it (compare.ts).
 */
function productListTypes(w: ProductWiring, relatedServed: boolean): ServedListTypes {
  const { mgr, product } = w;
  const servedListTypes = new ServedListTypes(
    mgr.client,
    [...LIST_TYPED_KINDS, ...(relatedServed ? product.relatedKinds.filter((k) => k.group !== '') : [])],
    mgr.log,
  );
  // A product that decides by a related kind's served fields hears of a changed schema (a CRD
  // upgraded under it) at once: every object of the kind is reconciled again.
  if (relatedServed && product.relatedKinds.some((k) => (k.servedFields?.length ?? 0) > 0))
    mgr.onStop(servedListTypes.poll(w.enqueueAll));
  return servedListTypes;
}

type RelatedInformers = readonly (readonly [string, Informer<KubernetesObject>])[] | undefined;

/** What one reconcile of `key` reads: its object and only its own selection of every cache. */
function productSnapshot(
  w: ProductWiring,
  {
    memory,
    tracker,
    related,
  }: { memory: ReconcilerMemory; tracker: LeaseTracker; related: RelatedInformers },
): (key: string) => Snapshot {
  const { product, shared, objects, clock } = w;
  const clusterOf = productClusterReads(w);
  const leaderlessOf = (g: HAObjectK | undefined, ns: string): { leaderless?: LeaderlessSpell } => {
    const spell = g ? tracker.leaderless(ns) : undefined;
    if (!g || !spell) return {};
    const retry = product.leaderPods?.retryPeriodSecondsOf?.(g) ?? w.retryPeriodSeconds;
    return { leaderless: { ...spell, retryPeriodSeconds: retry } };
  };
  return (key) => {
    const g = objects.store.get(key);
    const ns = g ? installNamespaceOf(g) : '';
    const ownerIndex = g ? `${product.kind}/${key}` : '';
    return {
      key,
      object: g,
      sameNamespace: g ? objects.store.byIndex('installNamespace', ns) : [],
      deployments: g ? shared.deployments.store.list(ns).filter(w.matchesDeployment) : [],
      hpas: g ? shared.hpas.store.list(ns).filter(w.matchesCover) : [],
      pdbs: g ? shared.pdbs.store.list(ns).filter(w.matchesCover) : [],
      ...(related
        ? { related: new Map(related.map(([kind, inf]) => [kind, g ? inf.store.list(ns) : []])) }
        : {}),
      ...(product.clusterKinds ? { cluster: clusterOf(g) } : {}),
      owned: new Map(
        [...shared.owned].map(([kind, inf]) => [kind, g ? inf.store.byIndex(OWNER_INDEX, ownerIndex) : []]),
      ),
      leader: g ? tracker.status(ns) : undefined,
      ...leaderlessOf(g, ns),
      lastCorrections: memory.lastCorrections(key),
      ownApplies: memory.ownApplies(key),
      now: clock.wallNow(),
    };
  };
}

/**
 * The product's cluster-scoped kinds, as far as RBAC lets them be read (cluster-reads.ts). A
 * cluster-scoped object may matter to any object of the kind (a PriorityClass created after the spec
 * named it), and so does the kind becoming readable or not: they are few and rarely change, so each
 * change reconciles them all.
 */
function productClusterReads(
  w: ProductWiring,
): (g: HAObjectK | undefined) => Map<string, KubernetesObject[]> {
  const reads = w.opts.clusterReads;
  const clusterKinds = reads ? (w.product.clusterKinds ?? []) : [];
  for (const k of clusterKinds) reads!.onChange(k.kind, w.enqueueAll);
  return (g) =>
    new Map(
      clusterKinds.flatMap((k) => {
        const cache = reads!.cache(k.kind);
        return cache ? [[k.kind, g ? cache.list() : []] as const] : [];
      }),
    );
}

/**
 * Per-object series, read from the cache when scraped: status-only updates (which enqueue nothing)
 * count at once, and a standby reports the same as the leader.
 */
function observeProductObjects(w: ProductWiring, tracker: LeaseTracker): void {
  const { product, objects } = w;
  w.opts.metrics?.glooha.observe(product.kind, () =>
    objects.store.list().map((g) => {
      const ready = g.status?.conditions?.find((c) => c.type === 'Ready')?.status;
      const lease = tracker.lease(installNamespaceOf(g));
      return {
        namespace: g.metadata.namespace ?? '',
        name: g.metadata.name,
        ready: ready === 'True' ? 'true' : ready === 'False' ? 'false' : 'unknown',
        ...(lease ? { leaderLease: { name: product.leaseName, ...lease } } : {}),
      };
    }),
  );
}

/** Which events of which caches enqueue which of the product's objects. */
function productWatches(w: ProductWiring, memory: ReconcilerMemory, related: RelatedInformers) {
  const { product, shared } = w;
  // Events of the shared informers map to this product's objects only when its selection holds them.
  // The echo of a reconcile's own write still enqueues (level-triggered: the next look confirms it),
  // but at low priority, behind anyone's change: in a cold start each install's writes echo back
  // while the backlog is being worked, and a user's update must not queue behind those. Nor may the
  // echo jump the backlog: the look it brings would run before the cache has the same reconcile's
  // status write, and write that status again against a resourceVersion already gone (409).
  // Likewise a status-only update of what we own or read (the disruption controller reporting on the
  // PDB we just created, a Deployment's rollout progress): an observation to fold into our status,
  // not a change to put right, and at normal it would also run that second look at once.
  const ownWrite = (o: KubernetesObject, key: string) => memory.isOwnWrite(key, o.metadata?.resourceVersion);
  const ownEcho = (o: KubernetesObject, key: string, ev: InformerEvent<KubernetesObject>) =>
    ownWrite(o, key) || statusOnlyUpdate(ev);
  const toInstall = (matches: (o: KubernetesObject) => boolean) => ({
    mapToKeys: (o: KubernetesObject) => (matches(o) ? w.keysForNamespace(o.metadata?.namespace) : []),
    lowPriority: ownEcho,
  });
  // Another product's owned objects are its own business: a cover selection that sees every PDB and
  // HPA sees theirs too, whose status changes would reconcile this product's objects for nothing.
  const othersOwned = (o: KubernetesObject) => {
    const l = o.metadata?.labels ?? {};
    if (l[LABEL_MANAGED_BY] !== MANAGER) return false;
    const kind = l[LABEL_OWNER_KIND];
    return kind === undefined ? !product.ownsUnlabelledObjects : kind !== product.kind;
  };
  const toOwner = {
    mapToKeys: (o: KubernetesObject) => {
      const key = ownerKey(o, product.ownsUnlabelledObjects ? product.kind : '');
      const prefix = `${product.kind}/`;
      return key?.startsWith(prefix) ? [key.slice(prefix.length)] : [];
    },
    lowPriority: ownEcho,
  };
  return [
    // Spec (generation), deletion, finalizers, labels and annotations, and status written by
    // anyone but us; not our own status writes.
    {
      informer: w.objects as unknown as Informer<KubernetesObject>,
      filter: anyOf(generationChanged, foreignStatusWrite(memory)),
      // Our finalizer patch passes generationChanged (finalizers changed): its echo too. Not a status
      // write of anyone else's (foreignStatusWrite): that one is put right at once.
      lowPriority: ownWrite,
    },
    { informer: shared.deployments, ...toInstall(w.matchesDeployment) },
    {
      informer: shared.hpas as unknown as Informer<KubernetesObject>,
      ...toInstall((o) => w.matchesCover(o) && !othersOwned(o)),
    },
    { informer: shared.pdbs, ...toInstall((o) => w.matchesCover(o) && !othersOwned(o)) },
    ...[...shared.owned.values()].map((informer) => ({ informer, ...toOwner })),
    ...(related ?? []).map(([, informer]) => ({ informer, ...toInstall(() => true) })),
  ];
}
