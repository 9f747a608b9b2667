// Reconcile benchmark: how fast one operator brings N Gloo installs to Ready, applies a spec change,
// corrects drift, how quiet it is in a steady state, and what --concurrency buys when N arrive at once.
//
//   npx tsx bench/reconcile.ts [--installs N] [--runs R] [--steady-seconds S]      (about 4 min at defaults)
//   npm run bench:reconcile -- --installs 20
//
// Starts its own test control plane (test/env/controlplane.ts, 4 kwok nodes: pods really get scheduled
// and become Ready), installs the CRD and the Helm chart's ServiceAccount and RBAC, and runs the
// operator in-process (`run()` from src/main.ts, via startOperatorInProcess) as that ServiceAccount,
// WITH leader election (the default, as the integration tests run it; the bench waits until it leads
// and its caches have synced before measuring). Only one operator runs at any time.
//
// 1. Latency (one operator, cluster-wide, default flags: --concurrency=4, --resync-period=10m).
//    N simulated Gloo installs (test/support/gloo-install.ts), one namespace each, rolled out first.
//    Then, ONE INSTALL AT A TIME (so each number is one install's latency, not a queue's), with the
//    GlooHA spec SPEC below:
//     - create the GlooHA → gloo Deployment spec.replicas 3; → gloo and proxy Deployments rolled out
//       (as `kubectl rollout status` decides: the control plane's share); → Ready=True (the condition's
//       observedGeneration == metadata.generation);
//     - spec update gloo.replicas 3→4 → Deployment spec.replicas 4, and → Ready=True again;
//     - drift: `kubectl scale --replicas=1` (field manager kubectl-scale) → spec.replicas back to 4.
//    Then a steady state: a simulated Gloo leader renews the `gloo` Lease of every install every 2 s
//    (as Gloo does); after the operator has been idle for 4 s, a window of S seconds (default 30)
//    counts the writes the operator's ServiceAccount made (API server audit log, excluding its own
//    leader-election Lease) and the change of controller_runtime_reconcile_total{controller="glooha"}.
// 2. Concurrency, side by side: R pairs (default 2) of two operators run one after the other, one with
//    --concurrency=1 and one with --concurrency=4 (the order alternates between pairs), each on a fresh
//    set of N installs (rolled out before the operator starts; the operator watches only those
//    namespaces, via --watch-namespaces, so the sets cannot see each other). All N GlooHAs are created
//    at once; the bench records when all N have their replicas applied, are rolled out, and are Ready,
//    and reports the ratio c1/c4 per pair (> 1: four workers are faster). Sets stay until the end
//    unless the nodes could not hold them all (then each is deleted after use).
//
// Times come from watches held by the bench (admin client), so they are event arrival times in the
// bench's process, which the operator shares: the numbers include the operator and the bench competing
// for one event loop, and the API server, controller manager, scheduler and kwok on the same machine.
// Prints a table (median / min / max) and writes bench/results/reconcile.json (with every sample).
//
// Ctrl-C / SIGTERM stop the operator and the control plane. The work happens in a child process (see
// supervise()); a second signal more than 3 s after the first exits at once.
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  V1MicroTime,
  Watch,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
  type V1Deployment,
} from '@kubernetes/client-node';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { constants as osConstants, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { GROUP, VERSION } from '../src/api/constants.js';
import { PLURAL } from '../src/products/gloo/api.js';
import type { GlooHA, GlooHASpec } from '../src/products/gloo/types.js';
import { formatMicroTime } from '../src/leader/lease-client.js';
import { startControlPlane, type ControlPlane } from '../test/env/controlplane.js';
import { auditWrites, describeAudit } from '../test/support/audit.js';
import { adminKubeConfig, createNamespace, setControlPlane } from '../test/support/cluster.js';
import { createGlooInstall } from '../test/support/gloo-install.js';
import {
  installOperatorRbac,
  metricValue,
  repoRoot,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../test/support/operator.js';

const NODES = 4;
/** kwok nodes allow 110 pods each. */
const POD_CAPACITY = NODES * 110;
/** Pods of one install once settled: latency phase (gloo 4, discovery 1, proxy 2), burst (gloo 3, ...). */
const PODS_LATENCY = 7;
const PODS_BURST = 6;
/** Surge pods of an install while it rolls out. */
const PODS_SURGE = 2;
const SPEC: GlooHASpec = {
  gloo: { replicas: 3, podDisruptionBudget: { maxUnavailable: 1 } },
  gatewayProxies: { gatewayProxy: { replicas: 2 } },
};
const PROXY = 'gateway-proxy';
const RECONCILES = ['controller_runtime_reconcile_total', { controller: 'glooha' }] as const;

const t0Bench = performance.now();
const log = (line: string) =>
  process.stderr.write(`[bench +${((performance.now() - t0Bench) / 1000).toFixed(1)}s] ${line}\n`);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

// ---------------------------------------------------------------------------------------------------
// Statistics and output

interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
}

function summarize(values: number[], digits = 0): Summary {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length ? (s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2) : NaN;
  const round = (x: number) => Number(x.toFixed(digits));
  return { n: s.length, median: round(median), min: round(s[0] ?? NaN), max: round(s.at(-1) ?? NaN) };
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (row: string[]) =>
    row
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Watches: the latest version of every object, and waiters that resolve on the event that satisfies
// them, with its arrival time (performance.now()).

interface Waiter<T> {
  key: string;
  accept: (obj: T) => boolean;
  resolve: (at: number) => void;
}

class Tracker<T extends KubernetesObject> {
  readonly objects = new Map<string, T>();
  private readonly waiters = new Set<Waiter<T>>();
  private abort: AbortController | undefined;
  private stopped = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly path: string,
    private readonly query: Record<string, string> = {},
  ) {}

  async start(): Promise<void> {
    const watch = new Watch(this.kc);
    this.abort = await watch.watch(
      this.path,
      { ...this.query, allowWatchBookmarks: false },
      (phase, obj: T) => this.onEvent(phase, obj),
      () => {
        if (this.stopped) return;
        // The API server ends watches after a while; start again (the ADDED events re-list).
        void sleep(100).then(() => (this.stopped ? undefined : this.start().catch(() => undefined)));
      },
    );
  }

  private onEvent(phase: string, obj: T): void {
    const at = performance.now();
    const key = `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    if (phase === 'DELETED') this.objects.delete(key);
    else if (phase === 'ADDED' || phase === 'MODIFIED') this.objects.set(key, obj);
    else return;
    if (phase === 'DELETED') return;
    for (const w of this.waiters) {
      if (w.key === key && w.accept(obj)) {
        this.waiters.delete(w);
        w.resolve(at);
      }
    }
  }

  /** Resolves with the arrival time of the first version of `key` that `accept`s (maybe the cached one). */
  until(key: string, what: string, accept: (obj: T) => boolean, timeoutMs: number): Promise<number> {
    const cached = this.objects.get(key);
    if (cached && accept(cached)) return Promise.resolve(performance.now());
    return handled(
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.waiters.delete(w);
          const last = this.objects.get(key);
          reject(
            new Error(
              `timed out after ${timeoutMs} ms waiting for ${what} (${key}); last seen: ${JSON.stringify(
                last ? { metadata: { generation: last.metadata?.generation }, ...summaryOf(last) } : null,
              )}`,
            ),
          );
        }, timeoutMs);
        const w: Waiter<T> = {
          key,
          accept,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        };
        this.waiters.add(w);
      }),
    );
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }
}

function summaryOf(obj: KubernetesObject): Record<string, unknown> {
  const o = obj as { spec?: { replicas?: number }; status?: unknown };
  return { specReplicas: o.spec?.replicas, status: o.status };
}

/**
 * `p`, marked as handled: waits are set up before the action they time and awaited one after another,
 * so one may reject (time out) before anyone awaits it; the awaiting code still gets the rejection.
 */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

type Deployment = V1Deployment & KubernetesObject;

/** The replica counts of an install's Deployments, as last seen. */
function deploymentsOf(c: Clients, ns: string, want: [string, number][]): Record<string, unknown> {
  return Object.fromEntries(
    want.map(([name]) => {
      const d = c.deployments.objects.get(`${ns}/${name}`);
      const st = d?.status ?? {};
      return [
        name,
        {
          generation: d?.metadata?.generation,
          observedGeneration: st.observedGeneration,
          spec: d?.spec?.replicas,
          replicas: st.replicas,
          updated: st.updatedReplicas,
          ready: st.readyReplicas,
          available: st.availableReplicas,
        },
      ];
    }),
  );
}

type GlooHAObject = GlooHA & KubernetesObject;

const isReady = (g: GlooHAObject) =>
  g.status?.conditions?.some(
    (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === g.metadata.generation,
  ) ?? false;

/** As `kubectl rollout status` decides it: every replica updated and available, no old pod left. */
const rolledOut = (d: Deployment) => {
  const want = d.spec?.replicas ?? 1;
  const st = d.status ?? {};
  return (
    (st.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    (st.updatedReplicas ?? 0) === want &&
    (st.replicas ?? 0) === want &&
    (st.availableReplicas ?? 0) === want
  );
};

// ---------------------------------------------------------------------------------------------------
// The bench

interface Clients {
  kc: KubeConfig;
  apps: AppsV1Api;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  leases: CoordinationV1Api;
  gloohas: Tracker<GlooHAObject>;
  deployments: Tracker<Deployment>;
}

interface InstallLatency {
  namespace: string;
  createToAppliedMs: number;
  /** → gloo and proxy Deployments rolled out at 3 and 2 (kubectl's sense): the control plane's part. */
  createToRolledOutMs: number;
  createToReadyMs: number;
  updateToAppliedMs: number;
  updateToReadyMs: number;
  driftToRestoredMs: number;
}

interface SteadyState {
  windowSeconds: number;
  glooLeaseRenewals: number;
  glooLeaseRenewErrors: number;
  operatorWrites: number;
  writes: string[];
  reconciles: number;
}

interface BurstResult {
  concurrency: number;
  pair: number;
  /** Position in the pair (0: ran first). */
  order: number;
  /** All N GlooHAs created at once → every gloo and proxy Deployment has the spec's replicas. */
  allAppliedMs: number;
  /** → those Deployments rolled out (ready and updated replicas == spec.replicas): the control plane's part. */
  allRolledOutMs: number;
  /** → every GlooHA Ready=True for its generation. */
  allReadyMs: number;
  perInstall: { appliedMs: number[]; rolledOutMs: number[]; readyMs: number[] };
  /** Installs whose GlooHA was Ready=True before its Deployments finished rolling out (kubectl's sense). */
  readyBeforeRolledOut: { namespace: string; byMs: number; deployments: unknown }[];
  reconciles: number;
  reconcileErrors: number;
}

class Bench {
  private readonly cleanups: (() => Promise<void> | void)[] = [];
  private stopping: Promise<void> | undefined;
  plane: ControlPlane | undefined;
  id: OperatorIdentity | undefined;
  /** Operators running now (for failure output and cleanup). */
  private readonly operators = new Set<InProcessOperator>();

  constructor(
    private readonly n: number,
    /** Delete each set of installs after its phase (only when the kwok nodes could not hold them all). */
    readonly deleteSets: boolean,
  ) {}

  /** Runs `fn` at shutdown (in reverse order of registration), or right away if shutdown has begun. */
  onCleanup(fn: () => Promise<void> | void): void {
    if (this.stopping) this.stopping = this.stopping.then(() => this.runCleanup(fn));
    else this.cleanups.push(fn);
  }

  private async runCleanup(fn: () => Promise<void> | void): Promise<void> {
    try {
      await fn();
    } catch (err) {
      log(`cleanup: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Resolves once shutdown and every cleanup registered after it began have run. */
  async drained(): Promise<void> {
    let p: Promise<void> | undefined;
    do {
      p = this.stopping ?? this.shutdown();
      await p;
    } while (p !== this.stopping);
  }

  /** Stops the operators, then runs the cleanups in reverse order; every caller gets the same promise. */
  shutdown(): Promise<void> {
    return (this.stopping ??= (async () => {
      for (const op of this.operators) await op.shutdown('bench end').catch(() => undefined);
      for (const fn of this.cleanups.reverse()) await this.runCleanup(fn);
    })());
  }

  async startOperator(args: string[]): Promise<InProcessOperator> {
    const op = await startOperatorInProcess(this.id!, { args });
    this.operators.add(op);
    await waitFor(
      'the operator to lead (leader_election_master_status 1) with synced caches (/readyz)',
      async () =>
        (await metricValue(op.metricsUrl, 'leader_election_master_status')) === 1 &&
        (await fetch(`${op.metricsUrl}/readyz`)).status === 200,
      60_000,
    );
    return op;
  }

  async stopOperator(op: InProcessOperator): Promise<void> {
    await op.shutdown('bench phase done');
    this.operators.delete(op);
  }

  operatorLogTail(lines = 30): string {
    return [...this.operators]
      .flatMap((op) => op.logs.slice(-lines))
      .map((l) => `    ${l}`)
      .join('\n');
  }

  /** N namespaces with a Gloo install each, rolled out (1 gloo, 1 discovery, 1 proxy replica). */
  async createInstalls(c: Clients, prefix: string): Promise<string[]> {
    const namespaces = await Promise.all(
      Array.from({ length: this.n }, (_, i) => createNamespace(`${prefix}-${i}`)),
    );
    await Promise.all(namespaces.map((namespace) => createGlooInstall(c.kc, { namespace, discovery: true })));
    await Promise.all(
      namespaces.flatMap((ns) =>
        ['gloo', 'discovery', PROXY].map((d) =>
          c.deployments.until(`${ns}/${d}`, 'the Gloo install to roll out', rolledOut, 120_000),
        ),
      ),
    );
    log(`${namespaces.length} Gloo installs rolled out`);
    return namespaces;
  }

  /** After its operator stopped: drop the handover finalizers and delete the namespaces (frees pods). */
  async deleteInstalls(c: Clients, namespaces: string[]): Promise<void> {
    await Promise.all(
      namespaces.map(async (namespace) => {
        await c.custom
          .patchNamespacedCustomObject(
            {
              group: GROUP,
              version: VERSION,
              namespace,
              plural: PLURAL,
              name: 'gloo',
              body: { metadata: { finalizers: null } },
            },
            mergePatch,
          )
          .catch(() => undefined);
        await c.core.deleteNamespace({ name: namespace }).catch(() => undefined);
      }),
    );
    log(`deleting ${namespaces.length} namespaces`);
    const gone = new Set(namespaces);
    await waitFor(
      `${namespaces.length} namespaces to be deleted`,
      async () => {
        const live = (await c.core.listNamespace()).items.map((x) => x.metadata?.name);
        return !live.some((x) => x && gone.has(x));
      },
      180_000,
      500,
    );
  }

  async createGlooHA(c: Clients, namespace: string): Promise<void> {
    await c.custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: PLURAL,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'GlooHA',
        metadata: { name: 'gloo', namespace },
        spec: SPEC,
      },
    });
  }

  /** Phase 1: per-install latencies, one install at a time, then a steady-state window. */
  async latency(
    c: Clients,
    steadySeconds: number,
  ): Promise<{ installs: InstallLatency[]; steady: SteadyState }> {
    log(`latency: creating ${this.n} Gloo installs`);
    const namespaces = await this.createInstalls(c, 'bench-lat');
    log('latency: starting the operator (cluster-wide, leader election on, default flags)');
    const op = await this.startOperator([]);
    const glooReplicas = (want: number) => (d: Deployment) => d.spec?.replicas === want;
    const installs: InstallLatency[] = [];
    for (const [i, ns] of namespaces.entries()) {
      const key = `${ns}/gloo`;
      // Create → applied / Ready.
      const applied = c.deployments.until(key, 'gloo replicas 3', glooReplicas(3), 60_000);
      const ready = c.gloohas.until(key, 'Ready=True', isReady, 120_000);
      const rolled = handled(
        Promise.all([
          c.deployments.until(
            key,
            'gloo rolled out at 3',
            (d) => d.spec?.replicas === 3 && rolledOut(d),
            120_000,
          ),
          c.deployments.until(
            `${ns}/${PROXY}`,
            'proxy rolled out at 2',
            (d) => d.spec?.replicas === 2 && rolledOut(d),
            120_000,
          ),
        ]).then((ts) => Math.max(...ts)),
      );
      let t0 = performance.now();
      await this.createGlooHA(c, ns);
      const createToAppliedMs = (await applied) - t0;
      const createToRolledOutMs = (await rolled) - t0;
      const createToReadyMs = (await ready) - t0;
      // Spec update 3 → 4.
      const gen = (c.gloohas.objects.get(key)?.metadata.generation ?? 0) + 1;
      const applied4 = c.deployments.until(key, 'gloo replicas 4', glooReplicas(4), 60_000);
      const ready4 = c.gloohas.until(
        key,
        `Ready=True for generation ${gen}`,
        (g) => (g.metadata.generation ?? 0) >= gen && isReady(g),
        120_000,
      );
      t0 = performance.now();
      await c.custom.patchNamespacedCustomObject(
        {
          group: GROUP,
          version: VERSION,
          namespace: ns,
          plural: PLURAL,
          name: 'gloo',
          body: { spec: { gloo: { replicas: 4 } } },
        },
        mergePatch,
      );
      const updateToAppliedMs = (await applied4) - t0;
      const updateToReadyMs = (await ready4) - t0;
      // Drift: kubectl scale to 1, back to 4 (the watch delivers every version in order).
      let scaledDown = false;
      const restored = c.deployments.until(
        key,
        'gloo restored to 4 after the scale to 1',
        (d) => {
          if (d.spec?.replicas === 1) scaledDown = true;
          return scaledDown && d.spec?.replicas === 4;
        },
        60_000,
      );
      t0 = performance.now();
      await c.apps.patchNamespacedDeploymentScale(
        { name: 'gloo', namespace: ns, body: { spec: { replicas: 1 } }, fieldManager: 'kubectl-scale' },
        mergePatch,
      );
      const driftToRestoredMs = (await restored) - t0;
      const r = {
        namespace: ns,
        createToAppliedMs,
        createToRolledOutMs,
        createToReadyMs,
        updateToAppliedMs,
        updateToReadyMs,
        driftToRestoredMs,
      };
      installs.push(r);
      log(
        `latency ${i + 1}/${this.n}: create→applied ${Math.round(createToAppliedMs)} ms, →rolled out ${Math.round(createToRolledOutMs)} ms, →Ready ${Math.round(
          createToReadyMs,
        )} ms; update→applied ${Math.round(updateToAppliedMs)} ms, →Ready ${Math.round(
          updateToReadyMs,
        )} ms; drift→restored ${Math.round(driftToRestoredMs)} ms`,
      );
    }
    // Everything back to Ready (the drift correction rolled gloo again) before the steady state.
    await Promise.all(namespaces.map((ns) => c.gloohas.until(`${ns}/gloo`, 'Ready=True', isReady, 120_000)));
    const steady = await this.steadyState(c, op, namespaces, steadySeconds);
    await this.stopOperator(op);
    this.stopRenewals?.();
    log('latency: operator stopped');
    if (this.deleteSets) await this.deleteInstalls(c, namespaces);
    return { installs, steady };
  }

  private stopRenewals: (() => void) | undefined;

  private async steadyState(
    c: Clients,
    op: InProcessOperator,
    namespaces: string[],
    seconds: number,
  ): Promise<SteadyState> {
    // A simulated Gloo leader per install renews its `gloo` Lease every 2 s, as Gloo does.
    const now = () => formatMicroTime(new Date());
    await Promise.all(
      namespaces.map((namespace, i) =>
        c.leases.createNamespacedLease({
          namespace,
          body: {
            metadata: { name: 'gloo' },
            spec: {
              holderIdentity: `gloo-bench-${i}`,
              leaseDurationSeconds: 15,
              acquireTime: new V1MicroTime(now()),
              renewTime: new V1MicroTime(now()),
              leaseTransitions: 0,
            },
          },
        }),
      ),
    );
    let renewals = 0;
    let renewErrors = 0;
    const renewer = setInterval(() => {
      for (const namespace of namespaces) {
        c.leases
          .patchNamespacedLease({ name: 'gloo', namespace, body: { spec: { renewTime: now() } } }, mergePatch)
          .then(
            () => renewals++,
            () => renewErrors++,
          );
      }
    }, 2000);
    this.stopRenewals = () => clearInterval(renewer);
    this.onCleanup(() => clearInterval(renewer));
    await Promise.all(
      namespaces.map((ns, i) =>
        c.gloohas.until(
          `${ns}/gloo`,
          'status.leader to show the simulated Gloo leader',
          (g) => g.status?.leader?.holder === `gloo-bench-${i}` && g.status.leader.fresh === true,
          60_000,
        ),
      ),
    );
    log('steady state: waiting for the operator to be idle for 4 s');
    await waitFor(
      'no reconcile for 4 s',
      async () => {
        const a = await metricValue(op.metricsUrl, ...RECONCILES);
        await sleep(4000);
        return a === (await metricValue(op.metricsUrl, ...RECONCILES));
      },
      90_000,
      0,
    );
    log(`steady state: ${seconds} s window`);
    const renewals0 = renewals;
    const errors0 = renewErrors;
    const since = new Date();
    const before = await metricValue(op.metricsUrl, ...RECONCILES);
    await sleep(seconds * 1000);
    const after = await metricValue(op.metricsUrl, ...RECONCILES);
    const until = new Date();
    await sleep(300); // requests sent just before `until` reach the audit log
    const id = this.id!;
    const writes = auditWrites({ username: id.username, since, until }).filter(
      (e) => !(e.objectRef?.resource === 'leases' && e.objectRef.namespace === id.namespace),
    );
    return {
      windowSeconds: seconds,
      glooLeaseRenewals: renewals - renewals0,
      glooLeaseRenewErrors: renewErrors - errors0,
      operatorWrites: writes.length,
      writes: writes.map(describeAudit),
      reconciles: after - before,
    };
  }

  /** Phase 2: N GlooHAs at once against an operator with --concurrency=`concurrency`. */
  async burst(c: Clients, concurrency: number, pair: number, order: number): Promise<BurstResult> {
    log(`pair ${pair + 1}, --concurrency=${concurrency}: creating ${this.n} fresh Gloo installs`);
    const namespaces = await this.createInstalls(c, `bench-c${concurrency}-p${pair}`);
    const op = await this.startOperator([
      `--concurrency=${concurrency}`,
      `--watch-namespaces=${namespaces.join(',')}`,
    ]);
    const counts = async () => ({
      all: await metricValue(op.metricsUrl, ...RECONCILES),
      errors: await metricValue(op.metricsUrl, RECONCILES[0], { ...RECONCILES[1], result: 'error' }),
    });
    const before = await counts();
    const want: [string, number][] = [
      ['gloo', 3],
      [PROXY, 2],
    ];
    // Per install: the later of its gloo and proxy Deployments.
    const perInstall = (accept: (d: Deployment, replicas: number) => boolean, what: string) =>
      namespaces.map((ns) =>
        handled(
          Promise.all(
            want.map(([d, r]) =>
              c.deployments.until(`${ns}/${d}`, `${d} ${what} ${r}`, (x) => accept(x, r), 180_000),
            ),
          ).then((ts) => Math.max(...ts)),
        ),
      );
    const applied = perInstall((d, r) => d.spec?.replicas === r, 'replicas');
    const rolled = perInstall((d, r) => d.spec?.replicas === r && rolledOut(d), 'rolled out at');
    // What the bench had seen of the Deployments when Ready=True arrived (the operator saw no later state).
    const atReady = new Map<string, Record<string, unknown>>();
    const ready = namespaces.map((ns) =>
      c.gloohas.until(
        `${ns}/gloo`,
        'Ready=True',
        (g) => {
          if (!isReady(g)) return false;
          atReady.set(ns, deploymentsOf(c, ns, want));
          return true;
        },
        180_000,
      ),
    );
    const t0 = performance.now();
    await Promise.all(namespaces.map((ns) => this.createGlooHA(c, ns)));
    const rel = (ts: number[]) => ts.map((t) => Math.round(t - t0));
    const appliedMs = rel(await Promise.all(applied));
    const rolledOutMs = rel(await Promise.all(rolled));
    const readyMs = rel(await Promise.all(ready));
    const after = await counts();
    const result: BurstResult = {
      concurrency,
      pair,
      order,
      allAppliedMs: Math.max(...appliedMs),
      allRolledOutMs: Math.max(...rolledOutMs),
      allReadyMs: Math.max(...readyMs),
      perInstall: { appliedMs, rolledOutMs, readyMs },
      readyBeforeRolledOut: namespaces
        .map((ns, i) => ({
          namespace: ns,
          byMs: rolledOutMs[i]! - readyMs[i]!,
          deployments: atReady.get(ns),
        }))
        .filter((x) => x.byMs > 0),
      reconciles: after.all - before.all,
      reconcileErrors: after.errors - before.errors,
    };
    log(
      `pair ${pair + 1}, --concurrency=${concurrency}: all applied ${result.allAppliedMs} ms, all rolled out ` +
        `${result.allRolledOutMs} ms, all Ready ${result.allReadyMs} ms; ${result.reconciles} reconciles ` +
        `(${result.reconcileErrors} errors); Ready before rolled out: ${result.readyBeforeRolledOut.length}/${this.n}`,
    );
    await this.stopOperator(op);
    if (this.deleteSets) await this.deleteInstalls(c, namespaces);
    return result;
  }
}

async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await probe()) return;
      last = false;
    } catch (err) {
      last = err instanceof Error ? err.message : err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    await sleep(intervalMs);
  }
}

const USAGE = `usage: npx tsx bench/reconcile.ts [--installs N (default 10)] [--runs R (default 2)] [--steady-seconds S (default 30)]
  --installs N        Gloo installs per phase (each its own namespace)
  --runs R            --concurrency=1 vs --concurrency=4 pairs (order alternates)
  --steady-seconds S  length of the steady-state window`;

class UsageError extends Error {}

function positiveInt(name: string, raw: string | undefined, max: number): number {
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 1 || v > max)
    throw new UsageError(`--${name} must be an integer from 1 to ${max}, got ${raw}`);
  return v;
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        installs: { type: 'string', default: '10' },
        runs: { type: 'string', default: '2' },
        'steady-seconds': { type: 'string', default: '30' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // One set at a time must fit on the nodes; all sets at once may not (then each is deleted after use).
  const maxInstalls = Math.floor(POD_CAPACITY / (PODS_LATENCY + PODS_SURGE));
  const n = positiveInt('installs', values.installs, maxInstalls);
  const runs = positiveInt('runs', values.runs, 20);
  const deleteSets = n * (PODS_LATENCY + 2 * runs * PODS_BURST + PODS_SURGE) > POD_CAPACITY;
  const steadySeconds = positiveInt('steady-seconds', values['steady-seconds'], 600);

  const started = performance.now();
  const bench = new Bench(n, deleteSets);
  let interrupted = false;
  let firstSignalAt = 0;
  let planeStarting: Promise<ControlPlane> | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (interrupted) {
      // Ctrl-C reaches this process twice: from the terminal and forwarded by the supervisor.
      if (performance.now() - firstSignalAt < 3000) return;
      log(`${sig} again: exiting now (the next control plane start reaps what is left)`);
      process.exit(130);
    }
    interrupted = true;
    firstSignalAt = performance.now();
    log(`${sig}: stopping the operator and the control plane`);
    void (async () => {
      await planeStarting?.catch(() => undefined);
      await bench.drained();
    })().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A bug guard: whatever escapes, the control plane still goes.
  const onCrash = (err: unknown) => {
    log(`unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    void bench.drained().finally(() => process.exit(1));
  };
  process.on('unhandledRejection', onCrash);
  process.on('uncaughtException', onCrash);

  let latency: Awaited<ReturnType<Bench['latency']>>;
  const bursts: BurstResult[] = [];
  try {
    log('starting the control plane');
    // Registered in the same step that gets the plane: a signal during start-up still stops it.
    planeStarting = startControlPlane({ log, nodes: NODES }).then((p) => {
      bench.plane = p;
      bench.onCleanup(async () => {
        setControlPlane(undefined);
        await p.stop();
        log('control plane stopped');
      });
      return p;
    });
    const plane = await planeStarting;
    if (interrupted) throw new Error('interrupted');
    setControlPlane(plane);
    const kc = adminKubeConfig();
    const gloohas = new Tracker<GlooHAObject>(kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`);
    const deployments = new Tracker<Deployment>(kc, '/apis/apps/v1/deployments', {
      labelSelector: 'app=gloo',
    });
    const opNamespace = await createNamespace('glooha-system');
    bench.id = await installOperatorRbac(opNamespace); // installs the CRD first
    const kubeconfigDir = dirname(bench.id.kubeconfigPath);
    bench.onCleanup(() => rmSync(kubeconfigDir, { recursive: true, force: true }));
    await gloohas.start();
    await deployments.start();
    bench.onCleanup(() => {
      gloohas.stop();
      deployments.stop();
    });
    const c: Clients = {
      kc,
      apps: kc.makeApiClient(AppsV1Api),
      core: kc.makeApiClient(CoreV1Api),
      custom: kc.makeApiClient(CustomObjectsApi),
      leases: kc.makeApiClient(CoordinationV1Api),
      gloohas,
      deployments,
    };

    latency = await bench.latency(c, steadySeconds);
    for (let pair = 0; pair < runs; pair++) {
      const order = pair % 2 === 0 ? [1, 4] : [4, 1];
      for (const [i, concurrency] of order.entries()) bursts.push(await bench.burst(c, concurrency, pair, i));
    }
    const failures = plane.failures();
    if (failures.length) throw new Error(`control plane component failed:\n${failures.join('\n')}`);
  } catch (err) {
    if (interrupted) {
      await bench.drained(); // the signal handler started it: wait for it, then exit 130
      return 130;
    }
    const tail = bench.operatorLogTail();
    process.stderr.write(
      `bench/reconcile: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n` +
        (tail ? `last operator log lines:\n${tail}\n` : '') +
        (bench.plane?.failures().join('\n') ?? ''),
    );
    await bench.drained();
    return 1;
  }
  await bench.drained();
  const totalSeconds = Math.round((performance.now() - started) / 1000);

  // --- report ---------------------------------------------------------------------------------------
  const pick = (k: keyof Omit<InstallLatency, 'namespace'>) => latency.installs.map((r) => r[k]);
  type BurstKey = 'allAppliedMs' | 'allRolledOutMs' | 'allReadyMs';
  const side = (conc: number, k: BurstKey) => bursts.filter((b) => b.concurrency === conc).map((b) => b[k]);
  const ratios = (k: BurstKey) =>
    Array.from({ length: runs }, (_, pair) => {
      const one = bursts.find((b) => b.pair === pair && b.concurrency === 1)![k];
      const four = bursts.find((b) => b.pair === pair && b.concurrency === 4)![k];
      return one / four;
    });
  const ss = latency.steady;
  const metrics: { metric: string; unit: string; summary: Summary }[] = [
    { metric: 'create → gloo replicas applied', unit: 'ms', summary: summarize(pick('createToAppliedMs')) },
    {
      metric: 'create → Deployments rolled out',
      unit: 'ms',
      summary: summarize(pick('createToRolledOutMs')),
    },
    { metric: 'create → Ready=True', unit: 'ms', summary: summarize(pick('createToReadyMs')) },
    {
      metric: 'update gloo.replicas 3→4 → applied',
      unit: 'ms',
      summary: summarize(pick('updateToAppliedMs')),
    },
    {
      metric: 'update → Ready=True (new generation)',
      unit: 'ms',
      summary: summarize(pick('updateToReadyMs')),
    },
    {
      metric: 'drift: kubectl scale 1 → restored to 4',
      unit: 'ms',
      summary: summarize(pick('driftToRestoredMs')),
    },
    {
      metric: `steady ${ss.windowSeconds} s: operator writes (excl. own Lease)`,
      unit: 'count',
      summary: summarize([ss.operatorWrites]),
    },
    {
      metric: `steady ${ss.windowSeconds} s: reconciles`,
      unit: 'count',
      summary: summarize([ss.reconciles]),
    },
    { metric: `all ${n} applied, --concurrency=1`, unit: 'ms', summary: summarize(side(1, 'allAppliedMs')) },
    { metric: `all ${n} applied, --concurrency=4`, unit: 'ms', summary: summarize(side(4, 'allAppliedMs')) },
    {
      metric: 'all applied: ratio c1/c4 (per pair)',
      unit: '×',
      summary: summarize(ratios('allAppliedMs'), 2),
    },
    {
      metric: `all ${n} rolled out, --concurrency=1`,
      unit: 'ms',
      summary: summarize(side(1, 'allRolledOutMs')),
    },
    {
      metric: `all ${n} rolled out, --concurrency=4`,
      unit: 'ms',
      summary: summarize(side(4, 'allRolledOutMs')),
    },
    { metric: `all ${n} Ready, --concurrency=1`, unit: 'ms', summary: summarize(side(1, 'allReadyMs')) },
    { metric: `all ${n} Ready, --concurrency=4`, unit: 'ms', summary: summarize(side(4, 'allReadyMs')) },
    {
      metric: 'all Ready: ratio c1/c4 (per pair)',
      unit: '×',
      summary: summarize(ratios('allReadyMs'), 2),
    },
  ];
  const rows = metrics.map((m) => [
    m.metric,
    String(m.summary.n),
    String(m.summary.median),
    String(m.summary.min),
    String(m.summary.max),
    m.unit,
  ]);
  process.stdout.write(
    `\nReconcile: ${n} Gloo installs, 1 in-process operator (chart ServiceAccount, leader election on); ` +
      `${runs} concurrency pair(s); ${totalSeconds} s total\n` +
      `${table(['metric', 'n', 'median', 'min', 'max', 'unit'], rows)}\n` +
      `steady state: ${ss.glooLeaseRenewals} Gloo Lease renewals (${ss.glooLeaseRenewErrors} failed) during the window` +
      (ss.writes.length ? `; operator writes:\n  ${ss.writes.join('\n  ')}` : '') +
      `\nconcurrency bursts: ${bursts.map((b) => `c${b.concurrency} ${b.reconciles} reconciles (${b.reconcileErrors} errors)`).join(', ')}` +
      `; GlooHAs Ready=True before their Deployments finished rolling out: ` +
      `${bursts.reduce((a, b) => a + b.readyBeforeRolledOut.length, 0)}/${bursts.length * n}\n`,
  );

  const dir = join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'reconcile.json');
  const round = (x: number) => Math.round(x);
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        loadavgAtEnd: loadavg(),
        installs: n,
        runs,
        nodes: NODES,
        setsDeletedBetweenPhases: deleteSets,
        operator: {
          mode: 'in-process run() as the chart ServiceAccount, leader election on',
          latencyPhase: 'cluster-wide, default flags (--concurrency=4, --resync-period=10m)',
          concurrencyPhase: '--concurrency=1|4 --watch-namespaces=<its set of N>',
        },
        spec: SPEC,
        totalSeconds,
        summary: Object.fromEntries(metrics.map((m) => [m.metric, { unit: m.unit, ...m.summary }])),
        latency: latency.installs.map((r) => ({
          namespace: r.namespace,
          createToAppliedMs: round(r.createToAppliedMs),
          createToRolledOutMs: round(r.createToRolledOutMs),
          createToReadyMs: round(r.createToReadyMs),
          updateToAppliedMs: round(r.updateToAppliedMs),
          updateToReadyMs: round(r.updateToReadyMs),
          driftToRestoredMs: round(r.driftToRestoredMs),
        })),
        steadyState: ss,
        concurrency: bursts,
      },
      null,
      2,
    ) + '\n',
  );
  process.stdout.write(`\nwrote ${out}\n`);
  return 0;
}

/**
 * Runs the bench in a child process and waits for it. The operator runs inside the bench, so its event
 * loop is often busy for tens of milliseconds; tsx's CLI SIGKILLs a child that does not acknowledge
 * SIGINT within ~60 ms, which would leave the control plane running. This parent stays idle (so tsx
 * gets its acknowledgement), forwards SIGINT/SIGTERM, and exits with the child's status; the child
 * stops the operator and the control plane, and would finish doing so even if this parent were killed.
 */
function supervise(): void {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, [WORKER_ENV]: '1' } },
  );
  const forward = (sig: NodeJS.Signals) => child.kill(sig);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) =>
    process.exit(code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0)),
  );
}

const WORKER_ENV = 'GLOOHA_BENCH_RECONCILE_WORKER';
if (process.env[WORKER_ENV] !== '1') {
  supervise();
} else {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`bench/reconcile: ${err.message}\n${USAGE}\n`);
        process.exit(2);
      }
      process.stderr.write(
        `bench/reconcile: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}
