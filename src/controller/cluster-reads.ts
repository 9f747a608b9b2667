// The cluster-scoped kinds the products read (Product.clusterKinds), watched for as long as RBAC lets
// this operator list and watch them at cluster scope — asked of the API server's authorizers (access
// reviews), not guessed. The question is asked once before the manager starts (a readable kind's
// cache is then warm before the first reconcile, as every other cache), then again every period and
// at once after a list or watch of one of them was refused (403). A kind that becomes readable gets
// its informer started in place — same process, same leadership — and one that stops being readable
// has its informer stopped and its cache dropped, with a warning. Either way the objects that read it
// are reconciled again (onChange), so their status says at once whether the kind can be checked.
// The decision is read-access.ts's; this module does the asking, the timing and the informers.
import type { KubernetesObject } from '@kubernetes/client-node';
import { accessAllowed } from '../kube/access.js';
import type { Logger } from '../log.js';
import type { Manager } from '../manager/manager.js';
import { realClock, sleep, type Clock } from '../runtime/clock.js';
import { ignoreNoopUpdates } from '../runtime/filters.js';
import type { Informer } from '../runtime/informer.js';
import type { Cache } from '../runtime/store.js';
import { stripLastApplied, stripManagedFields, transforms } from '../runtime/transforms.js';
import type { KindInfo } from './kinds.js';
import { decideReads, forbidden, readAnswer, type ReadAnswer, type VerbAnswer } from './read-access.js';

/** How often RBAC is asked again by default: a granted or revoked rule is picked up within a minute. */
export const READ_ACCESS_RECHECK_MS = 60_000;

/** A cluster-scoped kind to watch, and who reads it (for the log lines: e.g. the product kinds). */
export interface ClusterKind extends KindInfo {
  readers: readonly string[];
  /** What to do to grant it, for the warning when it cannot be read. */
  grantHint?: string;
}

export interface ClusterReadsOptions {
  manager: Manager;
  kinds: readonly ClusterKind[];
  /** Ask again this often (default READ_ACCESS_RECHECK_MS). */
  recheckMs?: number;
  /** Test seam: one access review (default: a SelfSubjectAccessReview at cluster scope). */
  ask?: (kind: KindInfo, verb: string) => Promise<boolean>;
  clock?: Clock;
}

export class ClusterReads {
  private readonly mgr: Manager;
  private readonly log: Logger;
  private readonly kinds: readonly ClusterKind[];
  private readonly clock: Clock;
  private readonly informers = new Map<string, Informer<KubernetesObject>>();
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly stopped = new AbortController();
  /** The running check, and whether another was asked for meanwhile (a 403 during it). */
  private checking?: Promise<void>;
  private again = false;
  private running = false;

  constructor(private readonly opts: ClusterReadsOptions) {
    this.mgr = opts.manager;
    this.log = opts.manager.log.child({ component: 'cluster-reads' });
    this.kinds = opts.kinds.filter((k, i) => opts.kinds.findIndex((o) => o.kind === k.kind) === i);
    this.clock = opts.clock ?? realClock;
    opts.manager.onStop(() => this.stop());
  }

  /** The kinds watched now (readable when last asked). */
  watched(): string[] {
    return [...this.informers.keys()];
  }

  /** The cache of `kind` once its informer has synced; undefined while it may not (or cannot yet) be read. */
  cache(kind: string): Cache<KubernetesObject> | undefined {
    const inf = this.informers.get(kind);
    return inf?.hasSynced() ? inf.store : undefined;
  }

  /** Calls `fn` on each change of what `kind`'s cache says: an object's event, or the kind becoming readable or not. */
  onChange(kind: string, fn: () => void): void {
    const set = this.listeners.get(kind) ?? new Set();
    set.add(fn);
    this.listeners.set(kind, set);
  }

  /**
   * Asks RBAC and starts (or stops) the informers it now allows (or no longer allows). Before the
   * manager starts: its informers start (and are waited for) with the others.
   */
  check(why: string): Promise<void> {
    if (this.checking) {
      this.again = true;
      return this.checking;
    }
    this.checking = (async () => {
      try {
        do {
          this.again = false;
          await this.checkOnce(why);
        } while (this.again && !this.stopped.signal.aborted);
      } finally {
        this.checking = undefined;
      }
    })();
    return this.checking;
  }

  /** Once the manager has started: asks again every period (and after a refused list or watch). */
  start(): void {
    if (this.running || this.kinds.length === 0) return;
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    const every = this.opts.recheckMs ?? READ_ACCESS_RECHECK_MS;
    while (!this.stopped.signal.aborted) {
      try {
        await sleep(every, this.stopped.signal, this.clock);
      } catch {
        return; // stopped
      }
      await this.recheck('periodic re-check');
    }
  }

  /** check() from the timer or an informer's 403: a failure is logged, never thrown (nobody awaits it). */
  private async recheck(why: string): Promise<void> {
    try {
      await this.check(why);
    } catch (err) {
      // Shutting down: the manager takes no new informer, and none is needed.
      if (this.mgr.isStopping()) return;
      this.log.error('re-checking RBAC for the cluster-scoped kinds failed; asking again later', {
        why,
        err,
      });
    }
  }

  private stop(): void {
    this.stopped.abort(new Error('cluster reads stopped'));
  }

  private async checkOnce(why: string): Promise<void> {
    const answers = new Map<string, ReadAnswer>();
    await Promise.all(this.kinds.map(async (k) => answers.set(k.kind, readAnswer(await this.askBoth(k)))));
    if (this.stopped.signal.aborted) return;
    const decision = decideReads(
      new Set(this.informers.keys()),
      this.kinds.map((k) => k.kind),
      answers,
    );
    for (const { kind, readable, reason } of decision.kept)
      this.log.warn(
        `could not ask whether RBAC lets the operator list and watch ${this.label(kind)} cluster-wide; ${readable ? 'still watching it' : 'still not watching it'}, asking again later`,
        { kind, reason, why },
      );
    for (const kind of decision.stop) await this.unwatch(kind);
    for (const kind of decision.start) this.watch(kind);
    // At start-up each denied kind is reported once; later only a change is (unwatch).
    if (this.running) return;
    for (const k of this.kinds) {
      const answer = answers.get(k.kind);
      if (answer && 'readable' in answer && !answer.readable)
        this.log.warn(this.deniedMessage(k), { kind: k.kind });
    }
  }

  private async askBoth(k: KindInfo): Promise<VerbAnswer[]> {
    const ask =
      this.opts.ask ??
      ((kind: KindInfo, verb: string) =>
        accessAllowed(this.mgr.client, { group: kind.group ?? '', resource: kind.plural, verb }));
    return Promise.all(
      ['list', 'watch'].map((verb) =>
        ask(k, verb).catch((err: unknown): VerbAnswer => ({ error: (err as Error).message ?? String(err) })),
      ),
    );
  }

  private watch(kind: string): void {
    const k = this.kinds.find((x) => x.kind === kind)!;
    const { readers: _readers, grantHint: _hint, ...ref } = k;
    const inf = this.mgr.informer<KubernetesObject>({
      ...ref,
      namespaces: [],
      transform: transforms(stripManagedFields, stripLastApplied),
    });
    this.informers.set(kind, inf);
    const changed = () => this.notify(kind);
    inf.addEventHandler({ filter: ignoreNoopUpdates, add: changed, update: changed, delete: changed });
    // A list or watch refused: the permission may be gone, ask now rather than at the next period.
    inf.onError((err) => {
      if (this.running && forbidden(err))
        void this.recheck(`a list or watch of ${this.label(kind)} was forbidden`);
    });
    if (!this.running) return; // before start: the manager starts it and waits for its cache
    this.log.info(`RBAC now lets the operator list and watch ${this.label(kind)} cluster-wide: watching it`, {
      kind,
      readers: k.readers,
    });
    // Once synced, the readers see it (an empty list emits no event: say so once).
    inf.waitForSync(this.stopped.signal).then(changed, () => undefined);
  }

  private async unwatch(kind: string): Promise<void> {
    const inf = this.informers.get(kind)!;
    this.informers.delete(kind);
    const k = this.kinds.find((x) => x.kind === kind)!;
    this.log.warn(`${this.deniedMessage(k)}: stopped watching it and dropped its cache`, { kind });
    await this.mgr.dropInformer(inf);
    this.notify(kind);
  }

  private notify(kind: string): void {
    for (const fn of this.listeners.get(kind) ?? []) {
      try {
        fn();
      } catch (err) {
        this.log.error('cluster read listener threw', { kind, err });
      }
    }
  }

  private label(kind: string): string {
    const k = this.kinds.find((x) => x.kind === kind)!;
    return k.group ? `${k.plural}.${k.group}` : k.plural;
  }

  private deniedMessage(k: ClusterKind): string {
    return `RBAC does not let the operator list and watch ${this.label(k.kind)} cluster-wide: ${k.readers.join(', ')}s that need them report it${k.grantHint ? ` (${k.grantHint})` : ''}`;
  }
}
