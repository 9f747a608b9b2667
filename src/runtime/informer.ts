// An informer in the style of client-go's reflector + shared informer (kube-rs calls it a watcher
// feeding a reflector store): list a resource once, then watch it from the list's resourceVersion,
// keep the last state of every object in a Store, and hand add/update/delete deltas to handlers.
//
// It owns its loop rather than using client-node's informer (`makeInformer`/`ListWatch`, 2.x) because
// that one lists through one call of a list function (no continue pages: the whole kind in one
// response, parsed at once, the memory peak of a cold start), has no transform hook before objects
// are stored, gives update handlers no old object (so a resourceVersion/managedFields bump or a Lease
// renewal cannot be filtered out, see filters.ts), and serves one namespace or the cluster per
// informer. Here one store serves several
// namespaces (a watch per namespace, or one cluster-wide watch; see watchClusterWide), watches ask for
// bookmarks and a server-side timeoutSeconds, and every request goes through the operator's one
// transport (src/kube/client.ts: pooled, counted, fenced; its `watch()` is this module's stream).
//
// Lists are paginated as client-go's reflector does (its pager, 500 items a page by default,
// `--list-page-size`): `limit` on the first request, then `continue` with the token of the page
// before, so neither the API server nor this process holds one response of the whole kind. A continue
// token outlives the list's snapshot only until etcd compacts it (5 min by default): a 410 Gone on a
// continuation page falls back to one full list from the start, without limit, as client-go's pager
// does (FullListIfExpired) — a list that keeps expiring between pages would otherwise never finish.
//
// The loop: list (paginated) → watch from the list's resourceVersion with bookmarks → on a clean
// close resume from the last resourceVersion seen (no re-list, no duplicate adds) → on 410 Gone
// re-list and diff against the store (only real changes are emitted) → on any other error retry
// with capped, jittered exponential backoff, forever. It never exits the process. A stall timer
// aborts a watch silent for longer than its timeoutSeconds (a dead connection would otherwise hang
// for ever), and every handler call is wrapped and logged, so one throwing handler stops nothing.
import { setMaxListeners } from 'node:events';
import type { KubernetesObject } from '@kubernetes/client-node';
import { errorStatus, type KubeClient } from '../kube/client.js';
import { resourcePath, type ResourceRef } from '../kube/paths.js';
import { abortReason, realClock, sleep, type Clock } from './clock.js';
import type { EventFilter } from './filters.js';
import { selectionMatcher, type Selection } from './selection.js';
import { backoffDelay } from './ratelimit.js';
import { Store, type Cache, type Delta, type IndexFunc } from './store.js';
import { silentLogger, type Logger } from '../log.js';

// ---------------------------------------------------------------------------------------------------
// Transport: how a reflector lists and watches. The default talks to the API server; unit tests fake it.

export interface ListRequest {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  signal: AbortSignal;
}

export interface ListPage<T> {
  items: T[];
  resourceVersion: string;
  continue?: string;
}

export interface WatchRequest {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion: string;
  timeoutSeconds: number;
}

export interface WatchHandle {
  abort(): void;
}

export interface Transport<T> {
  list(req: ListRequest): Promise<ListPage<T>>;
  /** Starts a watch; `onDone` is called once when it ends (with the error, if any). */
  watch(
    req: WatchRequest,
    onEvent: (type: string, obj: unknown) => void,
    onDone: (err: unknown) => void,
  ): Promise<WatchHandle>;
}

interface RawList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

/** Lists and watches `ref` through the operator's one transport. */
export function kubeTransport<T extends KubernetesObject>(
  client: KubeClient,
  ref: ResourceRef,
): Transport<T> {
  return {
    async list(req) {
      const list = await client.request<RawList<T>>('GET', resourcePath(ref, req.namespace), {
        query: {
          labelSelector: req.labelSelector,
          fieldSelector: req.fieldSelector,
          limit: req.limit,
          continue: req.continue,
        },
        signal: req.signal,
      });
      // Items of a list carry no apiVersion/kind (built-in kinds); watch events do. Fill them in so
      // the cache holds one shape whichever way an object arrived.
      const apiVersion = list.apiVersion;
      const kind = list.kind?.endsWith('List') ? list.kind.slice(0, -'List'.length) : undefined;
      const items = (list.items ?? []).map((item) => ({
        ...item,
        apiVersion: item.apiVersion ?? apiVersion,
        kind: item.kind ?? kind,
      }));
      return {
        items,
        resourceVersion: list.metadata?.resourceVersion ?? '',
        continue: list.metadata?.continue || undefined,
      };
    },
    async watch(req, onEvent, onDone) {
      return client.watch(
        resourcePath(ref, req.namespace),
        {
          allowWatchBookmarks: true,
          resourceVersion: req.resourceVersion,
          timeoutSeconds: req.timeoutSeconds,
          labelSelector: req.labelSelector,
          fieldSelector: req.fieldSelector,
        },
        (type: string, obj: unknown) => onEvent(type, obj),
        (err: unknown) => onDone(err),
      );
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Reflector: one list+watch loop (one namespace, or the whole cluster) writing into a shared store.

export interface ReflectorStats {
  /** Full lists done (the first one plus every re-list after 410 Gone). */
  lists: number;
  /** List requests made (pages: a list of N items at page size P is ceil(N / P) of them). */
  pages: number;
  /** Watch requests started. */
  watches: number;
  /** Of those, resumed from a resourceVersion seen on a previous watch (not straight after a list). */
  resumes: number;
  /** 410 Gone seen (watch, list, or a list's continue token): each leads to a re-list. */
  expired: number;
  /** Errors retried with backoff. */
  errors: number;
  /** Watch events received (bookmarks included). */
  events: number;
}

/** Items per list page unless configured: client-go's reflector's (its pager's) default. */
export const DEFAULT_LIST_PAGE_SIZE = 500;

/** A watch that ends within this without an object is not a working watch (it resets no backoff). */
const HEALTHY_WATCH_MS = 1000;

/** 410 Gone again before any watch worked since the last re-list: backed off like any error. */
class RepeatedGoneError extends Error {
  readonly code = 410;
}

class WatchError extends Error {
  constructor(
    message: string,
    readonly code: number | undefined,
  ) {
    super(message);
  }
}

type WatchOutcome = 'closed' | 'expired' | 'stalled' | 'restart' | 'stopped';

interface ReflectorConfig<T extends KubernetesObject> {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  pageSize: number;
  watchTimeoutSeconds: () => number;
  stallTimeoutMs?: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  transform?: (obj: T) => T;
  /** Stores only the objects this accepts (a cluster-wide watch serving a set of namespaces). */
  keep?: (obj: T) => boolean;
  /**
   * One selection of a union: the objects another selection also holds are that one's to remove (a
   * re-list does not drop them, a delete event leaving them selected there does not remove them).
   */
  heldElsewhere?: (obj: T) => boolean;
  clock: Clock;
  log: Logger;
  transport: Transport<T>;
  store: Store<T>;
  emit: (delta: Delta<T>) => void;
  onError: (err: unknown) => void;
}

/** Every counter at zero. */
function noStats(): ReflectorStats {
  return { lists: 0, pages: 0, watches: 0, resumes: 0, expired: 0, errors: 0, events: 0 };
}

class Reflector<T extends KubernetesObject> {
  resourceVersion = '';
  synced = false;
  /** Test hook: the next watch starts from this resourceVersion instead. */
  watchFromOverride?: string;
  /** Ends the current watch so the loop starts the next one right away (set while a watch runs). */
  restartWatch?: () => void;
  readonly stats: ReflectorStats = noStats();
  /** Watch events other than ERROR: what tells a working watch from one that fails at once. */
  private objectEvents = 0;
  private readonly cfg: ReflectorConfig<T>;

  constructor(cfg: ReflectorConfig<T>) {
    this.cfg = cfg;
  }

  get namespace(): string | undefined {
    return this.cfg.namespace;
  }

  async run(signal: AbortSignal, onSynced: () => void): Promise<void> {
    // `failures` and `gone` are reset only by a watch that worked (it delivered an object or stayed
    // open a while), never by a list: a list succeeds whenever the API server is up, so resetting on
    // it let a watch that fails right after every list (410 from a fresh resourceVersion, a watch
    // forbidden while the list is allowed) loop with no delay (3,398 lists in 500 ms). client-go's
    // reflector likewise resets its backoff only after it has run without error for a while.
    let failures = 0;
    let gone = 0;
    let listedJustNow = false;
    while (!signal.aborted) {
      try {
        if (!this.resourceVersion) {
          await this.listAndReplace(signal);
          listedJustNow = true;
          if (!this.synced) {
            this.synced = true;
            onSynced();
          }
        }
        if (!listedJustNow) this.stats.resumes++;
        listedJustNow = false;
        const started = this.cfg.clock.now();
        const objectsBefore = this.objectEvents;
        const outcome = await this.watchOnce(signal);
        if (outcome === 'stopped') break;
        const worked =
          this.objectEvents > objectsBefore || this.cfg.clock.now() - started >= HEALTHY_WATCH_MS;
        if (worked) {
          failures = 0;
          gone = 0;
        }
        if (outcome === 'expired') {
          // The resourceVersion we hold is older than the server's watch window: start over from a list.
          this.stats.expired++;
          this.resourceVersion = '';
          if (++gone > 1) throw new RepeatedGoneError('watch expired (410 Gone) again after a re-list');
          this.cfg.log.info('watch expired (410 Gone), re-listing');
          continue;
        }
        if (outcome === 'stalled') {
          this.cfg.log.warn('watch silent for too long, reconnecting', {
            resourceVersion: this.resourceVersion,
          });
          continue;
        }
        if (outcome === 'restart') continue;
        // A clean close (server-side timeout, apiserver restart): resume right away from the last
        // resourceVersion, unless the watch ended immediately with nothing — then back off like an error.
        if (!worked) throw new Error('watch closed immediately without events');
      } catch (err) {
        if (signal.aborted) break;
        if (errorStatus(err) === 410 && !(err instanceof RepeatedGoneError)) {
          // HTTP 410 on the watch request (or on a list's first page): re-list right away,
          // unless it happened again since the last watch that worked (then back off like any error).
          this.stats.expired++;
          this.resourceVersion = '';
          if (++gone === 1) {
            this.cfg.log.info('resourceVersion expired (410 Gone), re-listing');
            continue;
          }
        }
        this.stats.errors++;
        const delay = backoffDelay(failures, this.cfg.backoffBaseMs, this.cfg.backoffMaxMs, 0.5);
        failures++;
        this.cfg.log.warn('list/watch failed, retrying', {
          err: err instanceof Error ? err.message : String(err),
          code: errorStatus(err),
          retryInMs: Math.round(delay),
          failures,
        });
        this.cfg.onError(err);
        try {
          await sleep(delay, signal, this.cfg.clock);
        } catch {
          break; // stopped
        }
      }
    }
  }

  private async listAndReplace(signal: AbortSignal): Promise<void> {
    let items: T[] = [];
    let cont: string | undefined;
    let rv: string;
    // 0 = no paging: one request for the whole kind.
    let limit: number | undefined = this.cfg.pageSize > 0 ? this.cfg.pageSize : undefined;
    do {
      let page: ListPage<T>;
      try {
        page = await this.listPage(limit, cont, signal);
      } catch (err) {
        if (!cont || errorStatus(err) !== 410 || signal.aborted) throw err;
        // The continue token expired (etcd compacted the list's snapshot): the pages so far are of a
        // revision the server no longer serves. Start over with one full list, as client-go's pager.
        this.stats.expired++;
        this.cfg.log.info('list continue token expired (410 Gone), listing again in full', {
          listedSoFar: items.length,
        });
        items = [];
        limit = undefined;
        page = await this.listPage(undefined, undefined, signal);
      }
      for (const item of page.items) {
        if (this.cfg.keep && !this.cfg.keep(item)) continue;
        items.push(this.cfg.transform ? this.cfg.transform(item) : item);
      }
      cont = limit === undefined ? undefined : page.continue;
      rv = page.resourceVersion;
    } while (cont && !signal.aborted);
    if (signal.aborted) throw signal.reason;
    this.stats.lists++;
    const elsewhere = this.cfg.heldElsewhere;
    const scope = elsewhere ? (o: T) => !elsewhere(o) : undefined;
    for (const d of this.cfg.store.replace(items, this.cfg.namespace, scope)) this.cfg.emit(d);
    this.resourceVersion = rv;
    this.cfg.log.debug('listed', { count: items.length, resourceVersion: rv });
  }

  private listPage(
    limit: number | undefined,
    cont: string | undefined,
    signal: AbortSignal,
  ): Promise<ListPage<T>> {
    this.stats.pages++;
    return abortable(
      this.cfg.transport.list({
        namespace: this.cfg.namespace,
        labelSelector: this.cfg.labelSelector,
        fieldSelector: this.cfg.fieldSelector,
        limit,
        continue: cont,
        signal,
      }),
      signal,
    );
  }

  private watchOnce(signal: AbortSignal): Promise<WatchOutcome> {
    this.stats.watches++;
    const timeoutSeconds = Math.max(1, Math.round(this.cfg.watchTimeoutSeconds()));
    const stallMs = this.cfg.stallTimeoutMs ?? (timeoutSeconds + 60) * 1000;
    const clock = this.cfg.clock;
    return new Promise<WatchOutcome>((resolve, reject) => {
      let finished = false;
      let handle: WatchHandle | undefined;
      let stallTimer: unknown;
      const finish = (outcome: WatchOutcome | Error) => {
        if (finished) return;
        finished = true;
        this.restartWatch = undefined;
        clock.clearTimeout(stallTimer);
        signal.removeEventListener('abort', onAbort);
        handle?.abort();
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const armStall = () => {
        clock.clearTimeout(stallTimer);
        stallTimer = clock.setTimeout(() => finish('stalled'), stallMs);
      };
      const onAbort = () => finish('stopped');
      this.restartWatch = () => finish('restart');
      if (signal.aborted) {
        finished = true;
        resolve('stopped');
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      armStall();

      const onEvent = (type: string, raw: unknown) => {
        if (finished) return;
        this.stats.events++;
        if (type !== 'ERROR') this.objectEvents++;
        armStall();
        try {
          const outcome = this.applyEvent(type, raw);
          if (outcome) finish(outcome);
        } catch (err) {
          this.cfg.log.error('failed to apply watch event', { type, err });
        }
      };
      const onDone = (err: unknown) => {
        if (finished) return;
        if (signal.aborted) finish('stopped');
        else if (err) finish(err instanceof Error ? err : new Error(JSON.stringify(err) ?? typeof err));
        else finish('closed');
      };
      this.cfg.transport
        .watch(
          {
            namespace: this.cfg.namespace,
            labelSelector: this.cfg.labelSelector,
            fieldSelector: this.cfg.fieldSelector,
            resourceVersion: this.takeWatchFrom(),
            timeoutSeconds,
          },
          onEvent,
          onDone,
        )
        .then(
          (h) => {
            handle = h;
            if (finished) h.abort();
          },
          (err: unknown) => onDone(err ?? new Error('watch failed to start')),
        );
    });
  }

  private takeWatchFrom(): string {
    const rv = this.watchFromOverride ?? this.resourceVersion;
    this.watchFromOverride = undefined;
    return rv;
  }

  /** Applies one watch event; returns how the watch should end, if it should. */
  private applyEvent(type: string, raw: unknown): WatchOutcome | Error | undefined {
    if (type === 'ERROR') {
      const status = (raw ?? {}) as { code?: number; reason?: string; message?: string };
      if (status.code === 410) return 'expired';
      return new WatchError(
        `watch error event: ${status.code ?? '?'} ${status.reason ?? ''} ${status.message ?? ''}`.trim(),
        status.code,
      );
    }
    const obj = raw as T;
    const rv = obj?.metadata?.resourceVersion;
    if (type !== 'BOOKMARK' && this.cfg.keep && !this.cfg.keep(obj)) {
      if (rv) this.resourceVersion = rv; // not ours to store, but the watch has seen it
      return undefined;
    }
    switch (type) {
      case 'ADDED':
      case 'MODIFIED': {
        const d = this.cfg.store.upsert(this.cfg.transform ? this.cfg.transform(obj) : obj);
        if (rv) this.resourceVersion = rv;
        if (d) this.cfg.emit(d);
        break;
      }
      case 'DELETED': {
        if (this.cfg.heldElsewhere?.(obj)) {
          if (rv) this.resourceVersion = rv; // still selected by another selection: its watch tells
          break;
        }
        const d = this.cfg.store.remove(this.cfg.transform ? this.cfg.transform(obj) : obj);
        if (rv) this.resourceVersion = rv;
        if (d) this.cfg.emit(d);
        break;
      }
      case 'BOOKMARK':
        if (rv) this.resourceVersion = rv;
        break;
      default:
        this.cfg.log.debug('ignoring unknown watch event type', { type });
    }
    return undefined;
  }
}

/** `promise`, or a rejection as soon as `signal` aborts (for transports that ignore the signal). */
function abortable<R>(promise: Promise<R>, signal: AbortSignal): Promise<R> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<R>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// Informer: one or more reflectors (one per namespace, or one cluster-wide) behind one store and one
// set of handlers.

export type { Selection };

export interface EventHandler<T> {
  /** Events the filter rejects are not delivered to this handler (e.g. `ignoreNoopUpdates`). */
  filter?: EventFilter<T>;
  add?(obj: T): void;
  update?(old: T, obj: T): void;
  /** `finalStateUnknown`: the delete was inferred from a re-list, `obj` is the last state seen. */
  delete?(obj: T, finalStateUnknown: boolean): void;
}

export interface InformerOptions<T> extends ResourceRef {
  /** Watch these namespaces, one watch each (or one cluster-wide: watchClusterWide); omit or leave empty for all namespaces (or cluster-scoped). */
  namespaces?: readonly string[];
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Watch the union of these selections instead (one list+watch per selection and namespace, one
   * store): for readers that each need a selection no single selector expresses. Replaces
   * labelSelector and fieldSelector.
   */
  selections?: readonly Selection[];
  /** Items per list page (default 500, client-go's; 0 = one list request without a limit). */
  pageSize?: number;
  /**
   * Server-side timeout of each watch request; default random in [300, 600) s like client-go. The
   * watch is then resumed from the last resourceVersion, so a short value only costs requests.
   */
  watchTimeoutSeconds?: number;
  /** Abort and resume a watch that sent nothing (not even a bookmark) for this long; default timeout + 60 s. */
  stallTimeoutMs?: number;
  /** Retry backoff after errors: 800 ms doubling to 30 s by default (client-go's reflector), jittered. */
  backoff?: { baseDelayMs?: number; maxDelayMs?: number };
  /** Applied to every object before it is stored (e.g. drop fields you never read, to save memory). */
  transform?: (obj: T) => T;
  /** For log lines; default `plural.group`. */
  name?: string;
  logger?: Logger;
  clock?: Clock;
  /** Replaces the API server (unit tests). */
  transport?: Transport<T>;
}

export type InformerStats = ReflectorStats;

type HandlerFn<T> = {
  add: (obj: T) => void;
  update: (old: T, obj: T) => void;
  delete: (obj: T, finalStateUnknown: boolean) => void;
};

export class Informer<T extends KubernetesObject = KubernetesObject> {
  readonly name: string;
  readonly ref: ResourceRef;
  private readonly _store = new Store<T>();
  private readonly reflectors: Reflector<T>[] = [];
  private readonly opts: InformerOptions<T>;
  private readonly transport: Transport<T>;
  private readonly watched: readonly string[];
  private readonly handlers = new Set<EventHandler<T>>();
  private readonly errorListeners = new Set<(err: unknown) => void>();
  private readonly log: Logger;
  private abort?: AbortController;
  private runs: Promise<void>[] = [];
  private readonly syncWaiters = new Set<() => void>();
  private stopped = false;

  constructor(client: KubeClient | undefined, opts: InformerOptions<T>) {
    this.ref = { group: opts.group, version: opts.version, plural: opts.plural };
    this.name = opts.name ?? (opts.group ? `${opts.plural}.${opts.group}` : opts.plural);
    this.log = (opts.logger ?? silentLogger).child({ informer: this.name });
    const transport = opts.transport ?? (client ? kubeTransport<T>(client, this.ref) : undefined);
    if (!transport) throw new Error('Informer needs a KubeClient or a transport');
    this.opts = opts;
    this.transport = transport;
    this.watched = opts.namespaces && opts.namespaces.length > 0 ? [...new Set(opts.namespaces)] : [];
    this.selections =
      opts.selections && opts.selections.length > 0
        ? opts.selections
        : [{ labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector }];
    const matchers = this.selections.length > 1 ? this.selections.map((s) => selectionMatcher(s)) : [];
    this.heldElsewhere = this.selections.map((_, i) =>
      matchers.length > 0 ? (o: T) => matchers.some((m, j) => j !== i && m(o)) : undefined,
    );
    this.addReflectors(this.watched.length === 0 ? [undefined] : this.watched);
  }

  private readonly selections: readonly Selection[];
  private readonly heldElsewhere: readonly (((obj: T) => boolean) | undefined)[];

  /** A reflector per namespace and selection. */
  private addReflectors(namespaces: readonly (string | undefined)[], keep?: (obj: T) => boolean): void {
    for (const namespace of namespaces)
      this.selections.forEach((selection, i) =>
        this.reflectors.push(this.reflectorFor(namespace, selection, this.heldElsewhere[i], keep)),
      );
  }

  private reflectorFor(
    namespace: string | undefined,
    selection: Selection,
    heldElsewhere: ((obj: T) => boolean) | undefined,
    keep?: (obj: T) => boolean,
  ): Reflector<T> {
    const opts = this.opts;
    return new Reflector<T>({
      namespace,
      labelSelector: selection.labelSelector,
      fieldSelector: selection.fieldSelector,
      heldElsewhere,
      pageSize: opts.pageSize ?? DEFAULT_LIST_PAGE_SIZE,
      watchTimeoutSeconds: () => opts.watchTimeoutSeconds ?? 300 + Math.random() * 300,
      stallTimeoutMs: opts.stallTimeoutMs,
      backoffBaseMs: opts.backoff?.baseDelayMs ?? 800,
      backoffMaxMs: opts.backoff?.maxDelayMs ?? 30_000,
      transform: opts.transform,
      keep,
      clock: opts.clock ?? realClock,
      log: namespace ? this.log.child({ namespace }) : this.log,
      transport: this.transport,
      store: this._store,
      emit: (d) => this.dispatch(d),
      onError: (err) => this.emitError(err),
    });
  }

  /** The namespaces this informer serves ([] = all namespaces, or a cluster-scoped kind). */
  get namespaces(): readonly string[] {
    return this.watched;
  }

  /**
   * Serves the watched namespaces from ONE cluster-wide list+watch instead of one per namespace, and
   * stores only their objects. Call before start(). For namespaced mode when RBAC also lets the client
   * list and watch the kind at cluster scope (the manager asks the API server): the requests and
   * connections at start then no longer grow with the number of namespaces. The price: the API server
   * sends this kind's events from every namespace the label/field selectors let through, and they are
   * parsed and dropped here. controller-runtime's multi-namespace cache always opens one watch per
   * namespace; this is the "one multi-namespace watch where RBAC allows" of docs/scale.md.
   */
  watchClusterWide(): void {
    if (this.abort) throw new Error(`informer ${this.name} already started`);
    if (this.watched.length === 0) return;
    const keep = new Set(this.watched);
    this.reflectors.splice(0, this.reflectors.length);
    this.addReflectors([undefined], (o) => keep.has(o.metadata?.namespace ?? ''));
  }

  /** The cache (read-only view). */
  get store(): Cache<T> {
    return this._store;
  }

  /** Adds a secondary index to the cache (see `Cache.byIndex`). */
  addIndex(name: string, fn: IndexFunc<T>): void {
    this._store.addIndex(name, fn);
  }

  /**
   * Registers a handler. Objects already in the cache are replayed to it as adds (through its filter),
   * like client-go's shared informers do for late handlers. Returns a function that unregisters it.
   */
  addEventHandler(handler: EventHandler<T>): () => void {
    this.handlers.add(handler);
    for (const obj of this._store.list()) this.deliver(handler, { type: 'add', obj });
    return () => {
      this.handlers.delete(handler);
    };
  }

  on<E extends keyof HandlerFn<T>>(event: E, fn: HandlerFn<T>[E], filter?: EventFilter<T>): () => void {
    return this.addEventHandler({ filter, [event]: fn });
  }

  /** Called for every list/watch error (they are retried regardless). */
  onError(fn: (err: unknown) => void): () => void {
    this.errorListeners.add(fn);
    return () => {
      this.errorListeners.delete(fn);
    };
  }

  /** Starts listing and watching. Idempotent; an informer cannot be restarted after `stop`. */
  start(): void {
    if (this.stopped) throw new Error(`informer ${this.name} was stopped; create a new one`);
    if (this.abort) return;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    // One signal serves every namespace's reflector, each adding (and removing) a few abort listeners
    // per list/watch: with ten namespaces Node's default limit of 10 would warn of a leak that is not.
    setMaxListeners(0, signal);
    this.runs = this.reflectors.map((r) =>
      r
        .run(signal, () => this.checkSynced())
        .catch((err: unknown) => {
          // run() handles its own errors; this is a bug guard so a rejection is never unhandled.
          this.log.error('reflector loop crashed', { err });
        }),
    );
  }

  /** Aborts the watches and waits for the loops to end. Handlers get no more events. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort?.abort(new Error(`informer ${this.name} stopped`));
    await Promise.all(this.runs);
    this.handlers.clear();
    for (const w of [...this.syncWaiters]) w();
  }

  isRunning(): boolean {
    return Boolean(this.abort) && !this.stopped;
  }

  /** True once every namespace's first list is in the cache. */
  hasSynced(): boolean {
    return this.reflectors.every((r) => r.synced);
  }

  /** Resolves once synced; rejects when `signal` aborts or the informer is stopped before that. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.hasSynced()) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    // stop() has already woken its waiters: a later one would wait for ever.
    if (this.stopped) return Promise.reject(new Error(`informer ${this.name} stopped before it synced`));
    return new Promise((resolve, reject) => {
      // Either way out unregisters the other: an aborted wait leaves no waiter behind, a finished one
      // no abort listener on a signal that may live much longer (a start-up deadline, a term).
      const onAbort = () => {
        this.syncWaiters.delete(waiter);
        reject(signal ? abortReason(signal) : new Error('aborted'));
      };
      const waiter = () => {
        this.syncWaiters.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
        if (this.hasSynced()) resolve();
        else reject(new Error(`informer ${this.name} stopped before it synced`));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.add(waiter);
    });
  }

  /** Callers waiting in waitForSync (for leak tests). */
  get syncWaiterCount(): number {
    return this.syncWaiters.size;
  }

  /**
   * The resourceVersion each watch would resume from (namespace '' = cluster-wide; with several
   * selections, `namespace#n` for the n-th after the first).
   */
  resourceVersions(): Record<string, string> {
    const n = this.selections.length;
    return Object.fromEntries(
      this.reflectors.map((r, i) => [`${r.namespace ?? ''}${i % n ? `#${i % n}` : ''}`, r.resourceVersion]),
    );
  }

  /** Counters summed over all namespaces (tests use them to prove a watch resumed instead of re-listing). */
  stats(): InformerStats {
    const sum = noStats();
    for (const r of this.reflectors) {
      for (const k of Object.keys(sum) as (keyof InformerStats)[]) sum[k] += r.stats[k];
    }
    return sum;
  }

  /**
   * Test hook: end the current watches and start the next ones from `rv` (e.g. an expired one, to
   * provoke 410 Gone).
   */
  rewatchFromForTest(rv: string): void {
    for (const r of this.reflectors) {
      r.watchFromOverride = rv;
      r.restartWatch?.();
    }
  }

  private checkSynced(): void {
    if (!this.hasSynced()) return;
    this.log.debug('synced', { objects: this._store.size });
    for (const w of [...this.syncWaiters]) w();
  }

  private dispatch(delta: Delta<T>): void {
    for (const h of this.handlers) this.deliver(h, delta);
  }

  private deliver(h: EventHandler<T>, delta: Delta<T>): void {
    try {
      if (h.filter && !h.filter(delta)) return;
      switch (delta.type) {
        case 'add':
          h.add?.(delta.obj);
          break;
        case 'update':
          h.update?.(delta.old, delta.obj);
          break;
        case 'delete':
          h.delete?.(delta.obj, Boolean(delta.finalStateUnknown));
          break;
      }
    } catch (err) {
      this.log.error('event handler threw', { event: delta.type, err });
    }
  }

  private emitError(err: unknown): void {
    for (const fn of this.errorListeners) {
      try {
        fn(err);
      } catch {
        // listeners must not break the loop
      }
    }
  }
}
