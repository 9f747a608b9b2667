// The manager, in controller-runtime's mould: ONE object owns the kubeconfig, the one transport
// (src/kube/client.ts), the informers and their caches, the controllers, the leader elector, the
// HTTP server (health and metrics) and the metrics registry.
//
// Life cycle
//   start():  HTTP server → (namespaced mode) one cluster-wide watch per kind where RBAC allows it →
//             informers (caches warm on EVERY replica: a standby is a hot standby) →
//             wait for every cache to sync, within cacheSyncTimeout → join the leader election.
//             A replica that cannot list (missing RBAC, API server down) fails here, before it ever
//             competes for the Lease: the caller exits non-zero and the pod restarts.
//   leading:  with --leader-elect-require-fencing-policy, first wait until the API server is seen to
//             enforce the fencing admission policy (src/leader/fencing-probe.ts), probing with backoff
//             for as long as the term lasts. Then each controller gets a fresh work queue whose
//             handlers' AbortSignal is the term's; its informers replay their caches into it, so every
//             key is reconciled at once.
//   stopped leading: the term's signal is already aborted (in-flight reconciles and their API calls
//             are cut off) and the fence refuses writes; the queues are shut down and awaited, bounded.
//   stop():   leave the election (which ends the term and releases the Lease), stop the informers,
//             close the HTTP server and the transport's connection pool — each step bounded so the
//             whole always fits in the shutdown budget.
// Whether a write may go out is decided in one place: the transport's fence, which asks the
// leadership (the elector, or AlwaysLeader with --leader-elect=false).
import { setMaxListeners } from 'node:events';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { startHttpServer, type HttpServerHandle } from '../http/server.js';
import { accessAllowed } from '../kube/access.js';
import { KubeClient } from '../kube/client.js';
import { RELEASE_GUARD_MS, type LeaderElectionConfig } from '../leader/config.js';
import { createLeaderElector } from '../leader/create.js';
import { probeFencingPolicy, type FencingProbeResult } from '../leader/fencing-probe.js';
import type { LeaderCallbacks, LeaderTerm } from '../leader/elector.js';
import { AlwaysLeader, type Leadership } from '../leader/leadership.js';
import type { Logger } from '../log.js';
import type { OperatorMetrics } from '../metrics/index.js';
import { realClock, sleep, type Clock } from '../runtime/clock.js';
import { Controller, type ControllerWatchOptions } from '../runtime/controller.js';
import { Informer, type InformerOptions, type Transport } from '../runtime/informer.js';
import type { ResourceRef } from '../kube/paths.js';
import type { WorkHandler } from '../runtime/workqueue.js';

export interface ManagerOptions {
  kubeConfig: KubeConfig;
  logger: Logger;
  metrics: OperatorMetrics;
  /** Namespaces informers watch (namespaced mode); empty = all. */
  namespaces: readonly string[];
  leaderElection: LeaderElectionConfig;
  metricsBindAddress: string;
  /** Objects per list request of every informer (default DEFAULT_LIST_PAGE_SIZE; 0 = no paging). */
  listPageSize?: number;
  /** Start-up fails if a cache has not synced by then. Default 2 min (controller-runtime's). */
  cacheSyncTimeoutMs?: number;
  /** How long a term's end waits for in-flight reconciles. Default 3 s (plus the Lease release, it fits the shutdown budget). */
  drainTimeoutMs?: number;
  clock?: Clock;
  /** Test seam: build the elector (default: a real one on the Lease). */
  makeElector?: (callbacks: LeaderCallbacks) => Elector;
  /** Test seam: where informers list and watch (default: the API server, through `client`). */
  informerTransport?: (ref: ResourceRef) => Transport<KubernetesObject>;
  /**
   * Test seam: may this client list and watch `ref` in every namespace? (default: two access reviews).
   * Asked in namespaced mode only, to serve the watched namespaces from one watch per kind.
   */
  canWatchAllNamespaces?: (ref: ResourceRef) => Promise<boolean>;
  /** Test seam: the fencing-policy probe (default: a dry-run create through `client`). */
  probeFencing?: (signal: AbortSignal) => Promise<FencingProbeResult>;
  /** How often a leader re-checks the fencing policy while its controllers run. Default 1 min. */
  fencingRecheckMs?: number;
}

/**
 * While the controllers run, the fencing policy is re-checked this often: a policy or binding deleted
 * during a term stops the controllers within a minute, for one dry run a minute.
 */
export const FENCING_RECHECK_MS = 60_000;

/**
 * While the fencing policy is not enforced, the probe is repeated after 1 s, 2 s, 4 s ... up to this:
 * a restored policy is noticed within 10 s, and a missing one costs one dry run per 10 s.
 */
export const FENCING_PROBE_MAX_BACKOFF_MS = 10_000;

/** What the manager needs of an elector. */
export interface Elector extends Leadership {
  start(): void;
  stop(): Promise<void>;
}

export interface ControllerSpec {
  name: string;
  concurrency: number;
  resyncPeriodMs: number;
  reconcile: WorkHandler;
  watches: Array<{ informer: Informer<KubernetesObject> } & ControllerWatchOptions<KubernetesObject>>;
}

/** Start-up did not complete: what failed, for the log line before exiting non-zero. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

export class Manager {
  readonly client: KubeClient;
  readonly leadership: Leadership;
  readonly log: Logger;
  private readonly opts: ManagerOptions;
  private readonly clock: Clock;
  private readonly informers: Informer<KubernetesObject>[] = [];
  /** Informers created after start() (a kind RBAC allowed later): started at once, not in /readyz. */
  private readonly late = new Set<Informer<KubernetesObject>>();
  private started = false;
  private readonly specs: ControllerSpec[] = [];
  private readonly running = new Map<string, Controller>();
  private readonly elector?: Elector;
  private http?: HttpServerHandle;
  private stopping?: Promise<void>;
  private fatalHandler: (err: unknown) => void = () => {};
  private readonly stopHooks: Array<() => void> = [];
  /** The current term's controllers run under the fencing policy, last seen enforced. */
  private fenced = false;

  constructor(opts: ManagerOptions) {
    this.opts = opts;
    this.log = opts.logger;
    this.clock = opts.clock ?? realClock;
    // The fence: asked right before every write leaves the process (see src/kube/client.ts).
    this.client = new KubeClient(opts.kubeConfig, {
      metrics: opts.metrics.restClient,
      fence: () => this.leadership.assertLeading(),
      fenceMetrics: opts.metrics.fencing,
    });
    const le = opts.leaderElection;
    const callbacks: LeaderCallbacks = {
      onStartedLeading: (_signal: AbortSignal, term: LeaderTerm) => this.startControllers(term),
      onStoppedLeading: () =>
        this.stopControllers('stopped leading: in-flight reconciles are cancelled, writes are fenced'),
      onNewLeader: (identity: string) => this.log.info('leader observed', { leader: identity }),
    };
    if (le.enabled) {
      this.elector =
        opts.makeElector?.(callbacks) ??
        createLeaderElector(le, {
          client: this.client,
          callbacks,
          logger: this.log.child({ component: 'leader-election' }),
          metrics: opts.metrics.leaderElection,
          releaseGuardMs: () => {
            const guardMs = this.releaseGuardMs();
            this.log.info('releasing the Lease after the term', {
              guardMs,
              why: guardMs === 0 ? 'the fencing policy is enforced' : 'no fencing policy seen enforced',
            });
            return guardMs;
          },
        });
      this.leadership = this.elector;
    } else {
      this.leadership = new AlwaysLeader();
    }
  }

  /**
   * How long after the term ended the Lease may be released on shutdown (docs/leader-election.md,
   * "Release on SIGTERM"). The guard lets a write of the ended term that is already on the wire land
   * while the Lease still names this replica. While this term's controllers run under the fencing
   * policy, last seen enforced, the API server refuses such a write once the Lease no longer names
   * this pod, so the guard buys nothing and only delays the next leader: 0. Otherwise (no policy
   * required, or not seen enforced) RELEASE_GUARD_MS.
   */
  releaseGuardMs(): number {
    return this.fenced ? 0 : RELEASE_GUARD_MS;
  }

  /** Called (once) when something the manager runs fails beyond repair while running. */
  onFatal(handler: (err: unknown) => void): void {
    this.fatalHandler = handler;
  }

  /**
   * A shared informer, started by start(). Namespaces default to the manager's. One created after
   * start() (a kind RBAC allowed later, src/controller/cluster-reads.ts) starts at once and is left
   * out of /readyz: a running replica does not turn unready while an optional cache fills.
   */
  informer<T extends KubernetesObject>(
    opts: Omit<InformerOptions<T>, 'logger' | 'clock' | 'transport'>,
  ): Informer<T> {
    if (this.stopping) throw new Error(`manager is stopping: no new informer for ${opts.plural}`);
    const informer = new Informer<T>(this.client, {
      ...opts,
      namespaces: opts.namespaces ?? this.opts.namespaces,
      pageSize: opts.pageSize ?? this.opts.listPageSize,
      logger: this.log,
      clock: this.opts.clock,
      transport: this.opts.informerTransport?.(opts) as Transport<T> | undefined,
    });
    const any = informer as unknown as Informer<KubernetesObject>;
    this.informers.push(any);
    if (this.started) {
      this.late.add(any);
      informer.start();
    }
    return informer;
  }

  /** stop() has been called. */
  isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Stops `informer` and forgets it (readiness, stop): its kind may no longer be read. */
  async dropInformer(informer: Informer<KubernetesObject>): Promise<void> {
    const at = this.informers.indexOf(informer);
    if (at >= 0) this.informers.splice(at, 1);
    this.late.delete(informer);
    await informer.stop();
  }

  /** Runs when the manager stops (e.g. clear a component's timers). */
  onStop(fn: () => void): void {
    this.stopHooks.push(fn);
  }

  /** Registers a controller; its workers run only while this replica leads. */
  add(spec: ControllerSpec): void {
    this.specs.push(spec);
  }

  /** Queues `key` on the running controller `name`; a no-op when not leading (the next term re-queues all). */
  enqueue(name: string, key: string): void {
    this.running.get(name)?.queue.add(key);
  }

  /** Every informer has synced; the message names those that have not (for /readyz). */
  cachesSynced(): { ok: boolean; message?: string } {
    const pending = this.informers.filter((i) => !this.late.has(i) && !i.hasSynced()).map((i) => i.name);
    return pending.length === 0
      ? { ok: true }
      : { ok: false, message: `caches not synced yet: ${pending.join(', ')}` };
  }

  get metricsUrl(): string {
    return this.http?.url ?? '';
  }

  /** See the module comment. Rejects with a StartupError; the caller then stops and exits non-zero. */
  async start(): Promise<void> {
    this.http = await startHttpServer({
      address: this.opts.metricsBindAddress,
      metrics: this.opts.metrics,
      readiness: { caches: () => this.cachesSynced() },
      logger: this.log,
    });
    this.log.info('serving /metrics, /healthz, /readyz', { url: this.http.url });
    await this.chooseWatchScopes();
    this.started = true;
    for (const i of this.informers) i.start();
    await this.waitForCaches();
    if (this.elector) this.elector.start();
    else this.startControllers(undefined);
  }

  /**
   * Namespaced mode: an informer serving several namespaces watches them all through ONE cluster-wide
   * watch (keeping only their objects) when RBAC lets this client list and watch its kind in every
   * namespace — e.g. a chart installed with rbac.clusterWideReads — and one watch per namespace
   * otherwise. The API server's authorizers answer (access reviews), not a guess from readable Roles;
   * a review that fails keeps the per-namespace watches, which need only the Roles namespaced mode
   * grants. Measured in docs/scale.md: per-namespace watches cost a list and a watch per namespace per
   * informer at every start.
   */
  private async chooseWatchScopes(): Promise<void> {
    const multi = this.informers.filter((i) => i.namespaces.length > 1);
    if (multi.length === 0) return;
    const ask =
      this.opts.canWatchAllNamespaces ??
      (async (ref: ResourceRef) => {
        const verbs = ['list', 'watch'].map((verb) =>
          accessAllowed(this.client, { group: ref.group ?? '', resource: ref.plural, verb }),
        );
        return (await Promise.all(verbs)).every(Boolean);
      });
    // One question per kind (both controllers watch Deployments, PDBs, ...); an informer's name is its kind.
    const answers = new Map<string, Promise<boolean>>();
    for (const i of multi) {
      if (answers.has(i.name)) continue;
      answers.set(
        i.name,
        ask(i.ref).catch((err: unknown) => {
          this.log.warn('could not ask whether RBAC allows a cluster-wide watch; watching each namespace', {
            kind: i.name,
            err,
          });
          return false;
        }),
      );
    }
    const allowed = await Promise.all(multi.map((i) => answers.get(i.name)!));
    const clusterWide = multi.filter((_, n) => allowed[n]);
    for (const i of clusterWide) i.watchClusterWide();
    const namespaces = this.opts.namespaces.length;
    if (clusterWide.length > 0)
      this.log.info(
        'one cluster-wide watch per kind, keeping the watched namespaces (RBAC allows reading it in all namespaces)',
        {
          kinds: [...new Set(clusterWide.map((i) => i.name))],
          namespaces,
        },
      );
    const perNamespace = multi.filter((_, n) => !allowed[n]);
    if (perNamespace.length > 0)
      this.log.info(
        'one watch per watched namespace per kind (RBAC grants reading it in those namespaces only)',
        {
          kinds: [...new Set(perNamespace.map((i) => i.name))],
          namespaces,
        },
      );
  }

  private async waitForCaches(): Promise<void> {
    const timeoutMs = this.opts.cacheSyncTimeoutMs ?? 120_000;
    const deadline = new AbortController();
    // One abort listener per informer waits on it: the two controllers have ~20 together, which Node's
    // default limit of 10 would report as a leak (it printed 14 warnings per CI run since KgatewayHA).
    setMaxListeners(0, deadline.signal);
    const timer = this.clock.setTimeout(
      () =>
        deadline.abort(
          new StartupError(`caches did not sync within ${timeoutMs / 1000}s: ${this.cachesSynced().message}`),
        ),
      timeoutMs,
    );
    try {
      await Promise.all(
        this.informers.filter((i) => !this.late.has(i)).map((i) => i.waitForSync(deadline.signal)),
      );
    } catch (err) {
      throw err instanceof StartupError ? err : new StartupError(`caches did not sync: ${String(err)}`);
    } finally {
      this.clock.clearTimeout(timer);
    }
    this.log.info('caches synced', { informers: this.informers.length });
  }

  /** A new term: fresh queues, cancelled with the term (AlwaysLeader: with the manager). */
  private startControllers(term: LeaderTerm | undefined): void {
    const signal = term?.signal ?? this.leadership.leadingSignal;
    // Every request of the term listens on its signal until it ends; with the applies of a stage sent
    // together and Events not awaited, more than Node's default of 10 are in flight at once, which
    // would be reported as a leak that is not one.
    setMaxListeners(0, signal);
    const le = this.opts.leaderElection;
    this.fenced = false;
    if (!(le.enabled && le.requireFencingPolicy)) {
      this.runControllers(term, signal);
      return;
    }
    void this.runWhileFenced(term, signal);
  }

  /**
   * The controllers run only while the API server enforces the fencing policy: not before it is
   * seen to (fencingEnforced), and no longer once a re-check every FENCING_RECHECK_MS finds it gone
   * (someone deleted the policy or its binding during the term); then it waits for it again.
   */
  private async runWhileFenced(term: LeaderTerm | undefined, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.fencingEnforced(signal))) return;
      this.fenced = true;
      this.runControllers(term, signal);
      for (;;) {
        await sleep(this.opts.fencingRecheckMs ?? FENCING_RECHECK_MS, signal, this.clock).catch(() => {});
        if (signal.aborted) return;
        const result = await this.probeFencing(signal).catch((err: unknown) => ({
          enforced: false as const,
          missing: false,
          reason: String(err),
        }));
        if (signal.aborted) return;
        // Only a probe the API server accepted proves the policy gone; an error (a 5xx, a timeout)
        // proves nothing and must not restart every controller (and re-reconcile everything).
        if (!result.enforced && result.missing) {
          this.fenced = false;
          this.opts.metrics.fencingPolicy.setMissing(true);
          await this.stopControllers(
            `the fencing policy is no longer enforced (${result.reason}): in-flight reconciles are cancelled`,
          );
          break;
        }
      }
    }
  }

  private probeFencing(signal: AbortSignal): Promise<FencingProbeResult> {
    const le = this.opts.leaderElection;
    return this.opts.probeFencing
      ? this.opts.probeFencing(signal)
      : probeFencingPolicy(this.client, { namespace: le.namespace, leaseName: le.leaseName }, signal);
  }

  /**
   * Resolves true once the API server refuses the fencing probe, false if the term ends first. Until
   * then this replica holds the Lease and reconciles nothing: failing closed. Another replica would
   * find the same API server, so handing the Lease on would not help; the metric and the log say why.
   */
  private async fencingEnforced(signal: AbortSignal): Promise<boolean> {
    const metric = this.opts.metrics.fencingPolicy;
    for (
      let backoffMs = 1_000;
      !signal.aborted;
      backoffMs = Math.min(2 * backoffMs, FENCING_PROBE_MAX_BACKOFF_MS)
    ) {
      let result: FencingProbeResult;
      try {
        result = await this.probeFencing(signal);
      } catch (err) {
        if (signal.aborted) break;
        result = { enforced: false, missing: false, reason: String(err) };
      }
      if (result.enforced) {
        metric.setMissing(false);
        this.log.info('the API server enforces the fencing policy');
        return true;
      }
      metric.setMissing(true);
      this.log.error('not reconciling: the API server does not enforce the fencing policy', {
        reason: result.reason,
        fix:
          'install the chart with leaderElection.fencingPolicy.enabled=true (or restore its ValidatingAdmissionPolicy ' +
          'and binding <release>-fencing), or run with --leader-elect-require-fencing-policy=false to accept ' +
          'the client-side fence alone',
        retryInMs: backoffMs,
      });
      await sleep(backoffMs, signal, this.clock).catch(() => {});
    }
    metric.setMissing(false); // not leading: nothing is held up
    return false;
  }

  /** Starts every registered controller for the term `signal` belongs to. */
  private runControllers(term: LeaderTerm | undefined, signal: AbortSignal): void {
    this.log.info('started leading: starting the controllers', { term: term?.id });
    for (const spec of this.specs) {
      const controller = new Controller({
        name: spec.name,
        reconcile: spec.reconcile,
        concurrency: spec.concurrency,
        resyncPeriodMs: spec.resyncPeriodMs,
        metrics: this.opts.metrics.workqueue(spec.name),
        logger: this.log,
        clock: this.opts.clock,
        signal,
      });
      // Registering replays each cache as adds: every key is reconciled at the start of a term.
      for (const { informer, ...watchOpts } of spec.watches) controller.watch(informer, watchOpts);
      this.running.set(spec.name, controller);
      controller.start().catch((err: unknown) => {
        if (signal.aborted) return; // the term ended while it started
        this.fatal(new StartupError(`controller ${spec.name} failed to start: ${String(err)}`));
      });
    }
  }

  /**
   * The term ended (signal already aborted, writes already fenced), or the fencing policy is gone:
   * cancel in-flight reconciles and wait for stragglers, bounded.
   */
  private async stopControllers(why: string): Promise<void> {
    const controllers = [...this.running.values()];
    this.running.clear();
    if (controllers.length === 0) return;
    this.log.warn(why);
    const timeoutMs = this.opts.drainTimeoutMs ?? 3_000;
    const stopped = Promise.all(controllers.map((c) => c.stop({ abort: true, stopInformers: false })));
    const finished = await within(stopped, timeoutMs, this.clock);
    if (!finished) this.log.warn('reconciles still running after the drain timeout', { timeoutMs });
  }

  private fatal(err: unknown): void {
    this.log.error('fatal: stopping', { err });
    this.fatalHandler(err);
  }

  /**
   * Stops everything, within `budgetMs` (default 8 s): leaving the election ends the term, waits for
   * the controllers (drainTimeout) and releases the Lease (bounded by the elector's request timeout).
   */
  stop(reason: string, budgetMs = 8_000): Promise<void> {
    this.stopping ??= (async () => {
      this.log.info('shutting down', { reason });
      const started = this.clock.now();
      const left = () => Math.max(0, budgetMs - (this.clock.now() - started));
      if (this.elector) {
        if (!(await within(this.elector.stop(), left(), this.clock)))
          this.log.warn('leaving the leader election took too long; the Lease expires on its own');
      } else {
        (this.leadership as AlwaysLeader).end();
        await within(
          this.stopControllers('shutting down: in-flight reconciles are cancelled'),
          left(),
          this.clock,
        );
      }
      for (const hook of this.stopHooks) {
        try {
          hook();
        } catch (err) {
          this.log.error('stop hook failed', { err });
        }
      }
      await within(Promise.all(this.informers.map((i) => i.stop())), left(), this.clock);
      if (this.http) await within(this.http.close(Math.min(1_000, left())), left(), this.clock);
      this.client.close();
      this.log.info('stopped');
    })();
    return this.stopping;
  }
}

/** Whether `p` settled within `ms` (it keeps running either way; its rejection is swallowed). */
export async function within(p: Promise<unknown>, ms: number, clock: Clock = realClock): Promise<boolean> {
  let timer: unknown;
  const timeout = new Promise<false>((resolve) => {
    timer = clock.setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clock.clearTimeout(timer);
  }
}
