#!/usr/bin/env node
// glooha-operator: the entry point. Configuration → kubeconfig → the manager (transport, caches warm on
// every replica, health and metrics, leader election; the controllers work only while leading) under
// the process failure policy (src/process/failure-policy.ts).
import type { KubeConfig } from '@kubernetes/client-node';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { parseArgs } from 'node:util';
import { GROUP, VERSION } from './api/constants.js';
import { setupControllers, type ProductSetup } from './controller/setup.js';
import {
  parseDurationMs,
  resolveLeaderElectionConfig,
  LEADER_ELECTION_FLAGS,
  LeaderElectionConfigError,
} from './leader/config.js';
import { serves, watchForKinds, withinStartupWindow, type DiscoveryGet } from './kube/discovery.js';
import { loadKubeConfig } from './kube/config.js';
import { ClusterReads, type ClusterKind } from './controller/cluster-reads.js';
import { createLogger, isLogLevel, type Logger } from './log.js';
import { Manager } from './manager/manager.js';
import { DEFAULT_LIST_PAGE_SIZE } from './runtime/informer.js';
import { createMetrics } from './metrics/index.js';
import { PRODUCTS } from './products/index.js';
import { installFailurePolicy } from './process/failure-policy.js';
import { startMemoryRelease, type ExposedGc } from './process/memory-release.js';
import { version } from './version.js';

export { version };

export const USAGE = `glooha-operator: keeps installs highly available, as their HA resources (${PRODUCTS.map((p) => p.kind).join(', ')}) say.

Usage: glooha-operator [flags]

Flags (each also read from the environment variable shown; a flag wins):
  --kubeconfig PATH                      KUBECONFIG            kubeconfig file (default: in-cluster, then ~/.kube/config)
  --watch-namespaces NS[,NS...]          WATCH_NAMESPACES      namespaces to watch (default: all; namespaced RBAC needs this)
  --concurrency N                        GLOOHA_CONCURRENCY    HA resources reconciled in parallel (default 4)
  --resync-period DURATION               GLOOHA_RESYNC_PERIOD  re-check every HA resource this often (default 10m)
  --rbac-recheck-period DURATION         GLOOHA_RBAC_RECHECK_PERIOD  ask RBAC again this often whether the
                                         cluster-scoped kinds may be read, to start or stop their watches
                                         without a restart (default 1m; also at once after a 403)
  --metrics-bind-address ADDR            GLOOHA_METRICS_BIND_ADDRESS  /metrics, /healthz, /readyz (default :8080)
  --list-page-size N                     GLOOHA_LIST_PAGE_SIZE  objects per list request of a cache (default 500;
                                         0 = each kind in one request)
  --log-level debug|info|warn|error      LOG_LEVEL             (default info)
  --product-lease-handover[=false]       GLOOHA_PRODUCT_LEASE_HANDOVER  hand the product's leader Lease over once
                                         its kubelet reports the holder's process ended (default true)
  --leader-elect[=false]                 LEADER_ELECT          leader election (default true; false only for one replica)
  --leader-elect-lease-duration DUR      LEADER_ELECT_LEASE_DURATION  (default 15s)
  --leader-elect-renew-deadline DUR      LEADER_ELECT_RENEW_DEADLINE  (default 10s)
  --leader-elect-retry-period DUR        LEADER_ELECT_RETRY_PERIOD    (default 2s)
  --leader-elect-lease-name NAME         LEADER_ELECT_LEASE_NAME      (default glooha-operator)
  --leader-elect-namespace NS            POD_NAMESPACE                namespace of the Lease (required in-cluster)
  --leader-elect-release-on-cancel[=false] LEADER_ELECT_RELEASE_ON_CANCEL  release the Lease on shutdown (default true)
  --leader-elect-require-fencing-policy[=true] LEADER_ELECT_REQUIRE_FENCING_POLICY  lead only once the API server
                                         enforces the chart's fencing policy (default false; the chart sets it)
  --version                              print the version and exit
  --help                                 this text
Identity for leader election: POD_NAME (downward API) plus a random suffix.
Timing rule: lease-duration > renew-deadline > 1.2 × retry-period.`;

export class UsageError extends Error {}

export interface OperatorConfig {
  kubeconfig?: string;
  watchNamespaces: string[];
  concurrency: number;
  resyncPeriodMs: number;
  /** How often RBAC is asked again which cluster-scoped kinds may be read (cluster-reads.ts). */
  rbacRecheckPeriodMs: number;
  metricsBindAddress: string;
  /** Objects per list request of each informer (0 = no paging). */
  listPageSize: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Clear the managed product's Lease once the kubelet reports its holder's process ended (holder-release.ts). */
  productLeaseHandover: boolean;
  leaderElection: ReturnType<typeof resolveLeaderElectionConfig>;
}

/**
 * The largest --list-page-size: a page that big is a whole kind in one response for any install this
 * operator serves, which 0 says more plainly.
 */
const MAX_LIST_PAGE_SIZE = 100_000;

/** Leader-election flags that may be given bare (`--leader-elect` = `--leader-elect=true`). */
const BARE_BOOLEAN_FLAGS = [
  '--product-lease-handover',
  LEADER_ELECTION_FLAGS.enabled.flag,
  LEADER_ELECTION_FLAGS.releaseOnCancel.flag,
  LEADER_ELECTION_FLAGS.requireFencingPolicy.flag,
] as string[];

/** Flags, then env vars, then defaults; every bad value is a UsageError naming the flag and the fix. */
export function parseConfig(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): OperatorConfig | 'help' | 'version' {
  const le = Object.fromEntries(
    Object.values(LEADER_ELECTION_FLAGS).map(({ flag }) => [flag.slice(2), { type: 'string' as const }]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv.map((a) => (BARE_BOOLEAN_FLAGS.includes(a) ? `${a}=true` : a)),
      options: {
        kubeconfig: { type: 'string' },
        'watch-namespaces': { type: 'string' },
        concurrency: { type: 'string' },
        'resync-period': { type: 'string' },
        'rbac-recheck-period': { type: 'string' },
        'metrics-bind-address': { type: 'string' },
        'list-page-size': { type: 'string' },
        'log-level': { type: 'string' },
        'product-lease-handover': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        ...le,
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nRun glooha-operator --help for the flags.`);
  }
  if (values.help) return 'help';
  if (values.version) return 'version';
  const pick = (flag: string, envName: string) =>
    (values[flag] as string | undefined) ?? (env[envName] || undefined);

  const concurrencyRaw = pick('concurrency', 'GLOOHA_CONCURRENCY') ?? '4';
  const concurrency = /^\d+$/.test(concurrencyRaw) ? Number(concurrencyRaw) : NaN;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new UsageError(
      `--concurrency (GLOOHA_CONCURRENCY) must be a whole number from 1 to 64, got "${concurrencyRaw}"`,
    );
  }
  const resyncRaw = pick('resync-period', 'GLOOHA_RESYNC_PERIOD') ?? '10m';
  const resyncPeriodMs = parseDurationMs(resyncRaw);
  if (resyncPeriodMs === undefined || resyncPeriodMs < 10_000) {
    throw new UsageError(
      `--resync-period (GLOOHA_RESYNC_PERIOD) must be a duration of at least 10s such as 10m, got "${resyncRaw}"`,
    );
  }
  const recheckRaw = pick('rbac-recheck-period', 'GLOOHA_RBAC_RECHECK_PERIOD') ?? '1m';
  const rbacRecheckPeriodMs = parseDurationMs(recheckRaw);
  if (rbacRecheckPeriodMs === undefined || rbacRecheckPeriodMs < 1_000) {
    throw new UsageError(
      `--rbac-recheck-period (GLOOHA_RBAC_RECHECK_PERIOD) must be a duration of at least 1s such as 1m, got "${recheckRaw}"`,
    );
  }
  const pageSizeRaw = pick('list-page-size', 'GLOOHA_LIST_PAGE_SIZE') ?? String(DEFAULT_LIST_PAGE_SIZE);
  const listPageSize = /^\d+$/.test(pageSizeRaw) ? Number(pageSizeRaw) : NaN;
  if (!Number.isInteger(listPageSize) || listPageSize > MAX_LIST_PAGE_SIZE) {
    throw new UsageError(
      `--list-page-size (GLOOHA_LIST_PAGE_SIZE) must be a whole number from 0 (no paging) to ${MAX_LIST_PAGE_SIZE}, got "${pageSizeRaw}"`,
    );
  }
  const logLevel = pick('log-level', 'LOG_LEVEL') ?? 'info';
  if (!isLogLevel(logLevel))
    throw new UsageError(`--log-level (LOG_LEVEL) must be debug, info, warn or error, got "${logLevel}"`);
  const handoverRaw = pick('product-lease-handover', 'GLOOHA_PRODUCT_LEASE_HANDOVER') ?? 'true';
  if (handoverRaw !== 'true' && handoverRaw !== 'false')
    throw new UsageError(
      `--product-lease-handover (GLOOHA_PRODUCT_LEASE_HANDOVER) must be true or false, got "${handoverRaw}"`,
    );
  const watchNamespaces = (pick('watch-namespaces', 'WATCH_NAMESPACES') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const ns of watchNamespaces) {
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(ns)) {
      throw new UsageError(
        `--watch-namespaces (WATCH_NAMESPACES): "${ns}" is not a namespace name (lowercase letters, digits, '-')`,
      );
    }
  }
  const leFlags = Object.fromEntries(
    Object.entries(LEADER_ELECTION_FLAGS).map(([setting, { flag }]) => [
      setting,
      values[flag.slice(2)] as string | undefined,
    ]),
  );
  let leaderElection;
  try {
    leaderElection = resolveLeaderElectionConfig({
      flags: leFlags,
      env,
      defaultNamespace: inClusterNamespace(),
    });
  } catch (err) {
    if (err instanceof LeaderElectionConfigError) throw new UsageError(err.message);
    throw err;
  }
  return {
    kubeconfig: pick('kubeconfig', 'KUBECONFIG'),
    watchNamespaces,
    concurrency,
    resyncPeriodMs,
    rbacRecheckPeriodMs,
    metricsBindAddress: pick('metrics-bind-address', 'GLOOHA_METRICS_BIND_ADDRESS') ?? ':8080',
    listPageSize,
    logLevel,
    productLeaseHandover: handoverRaw === 'true',
    leaderElection,
  };
}

function isEntryPoint(argv1: string | undefined): boolean {
  if (!argv1) return false;
  try {
    return realpathSync(argv1) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim();
  } catch {
    return undefined;
  }
}

export interface RunningOperator {
  metricsUrl: string;
  /** Reconciles finished so far on this replica, all controllers. */
  reconcilesFinished(): number;
  /** Stops everything within its budget (the Lease is released if this replica leads). */
  shutdown(reason: string): Promise<void>;
}

/** The hard deadline of any shutdown; the manager's own budget stays below it. */
export const SHUTDOWN_DEADLINE_MS = 10_000;
const SHUTDOWN_BUDGET_MS = 8_000;

export interface RunHooks {
  /** Something failed beyond repair after start-up (the caller stops and exits non-zero). */
  onFatal?: (err: unknown) => void;
  /** The shutdown function, as soon as there is something to shut down (a signal may come mid-start). */
  onShutdown?: (shutdown: (reason: string) => Promise<void>) => void;
  /**
   * A kind missing at start-up is now served (a CRD installed after the operator): the caller stops
   * gracefully and exits 0 so the replica restarts and watches it.
   */
  onRestart?: (reason: string) => void;
  /** Start-up's API discovery window (default DISCOVERY_WINDOW_MS) and re-discovery interval. */
  discoveryWindowMs?: number;
  rediscoveryIntervalMs?: number;
}

/**
 * What each product's controller needs served: its CRD (unless required: then its informer reports a
 * missing one) and the related kinds (Gateway API for a KgatewayHA's spec.gateways). A product whose
 * CRD is not served is left out.
 */
async function discoverProducts(get: DiscoveryGet, signal?: AbortSignal): Promise<ProductSetup[]> {
  const setups: ProductSetup[] = [];
  for (const product of PRODUCTS) {
    const target = { path: `/apis/${GROUP}/${VERSION}`, plural: product.plural };
    if (!product.crdRequired && !(await serves(get, target, signal))) continue;
    let relatedServed = true;
    for (const k of product.relatedKinds) {
      const path = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
      relatedServed &&= await serves(get, { path, plural: k.plural }, signal);
    }
    setups.push({ product, relatedServed });
  }
  return setups;
}

/**
 * The products' cluster-scoped kinds, watched while RBAC lets this operator list and watch them at
 * cluster scope (asked, not guessed: a namespaced install has them only with the chart's
 * rbac.clusterWideReads). A kind not allowed is not watched (its cache could never sync) and the
 * product reports what it cannot check; RBAC is asked again every `recheckMs`, so a grant or a
 * revocation is picked up without a restart (src/controller/cluster-reads.ts).
 */
function clusterReads(manager: Manager, setups: readonly ProductSetup[], recheckMs: number): ClusterReads {
  const kinds: ClusterKind[] = [];
  for (const { product } of setups)
    for (const k of product.clusterKinds ?? []) {
      const known = kinds.find((x) => x.kind === k.kind);
      if (known) (known.readers as string[]).push(product.kind);
      else
        kinds.push({
          ...k,
          readers: [product.kind],
          grantHint: "namespaced mode: set the chart's rbac.clusterWideReads=true",
        });
    }
  return new ClusterReads({ manager, kinds, recheckMs });
}

/** How much of what the products can use is served: it only grows when a CRD is installed later. */
const servedScore = (setups: ProductSetup[]) => setups.length + setups.filter((s) => s.relatedServed).length;
const fullScore = () => 2 * PRODUCTS.length;

/**
 * Starts the manager and resolves once its caches synced and it joined the leader election. Rejects
 * (after stopping what had started) when start-up fails.
 */
export async function run(
  config: OperatorConfig,
  log: Logger,
  hooks: RunHooks = {},
): Promise<RunningOperator> {
  let kc: KubeConfig;
  try {
    // config.kubeconfig is the flag, or else $KUBECONFIG (which may list several files, as kubectl's).
    const fromEnv = config.kubeconfig === undefined || config.kubeconfig === process.env.KUBECONFIG;
    kc = loadKubeConfig(fromEnv ? {} : { path: config.kubeconfig });
  } catch (err) {
    log.error('start-up failed', { reason: (err as Error).message });
    throw err;
  }
  const metrics = createMetrics();
  const manager = new Manager({
    kubeConfig: kc,
    logger: log,
    metrics,
    namespaces: config.watchNamespaces,
    leaderElection: config.leaderElection,
    metricsBindAddress: config.metricsBindAddress,
    listPageSize: config.listPageSize,
  });
  const controllerOptions = {
    concurrency: config.concurrency,
    resyncPeriodMs: config.resyncPeriodMs,
    metrics,
    productLeaseHandover: config.productLeaseHandover,
  };
  // A signal during start-up stops whatever has started (discovery included) and exits 0.
  const stopped = new AbortController();
  const shutdown = (reason: string) => {
    stopped.abort(new Error(`stopping: ${reason}`));
    return manager.stop(reason, SHUTDOWN_BUDGET_MS);
  };
  hooks.onShutdown?.(shutdown);
  const get: DiscoveryGet = (path, signal) => manager.client.request('GET', path, signal ? { signal } : {});
  // A kind newer than the chart's CRDs an upgraded Helm release may still have (Helm never upgrades
  // CRDs) is skipped with a warning saying how to add it, rather than waited for with a cache that
  // cannot sync; a required one is always set up (its informer reports the missing CRD).
  let setups: ProductSetup[];
  try {
    setups = await withinStartupWindow(() => discoverProducts(get, stopped.signal), {
      signal: stopped.signal,
      ...(hooks.discoveryWindowMs !== undefined ? { windowMs: hooks.discoveryWindowMs } : {}),
      onRetry: (err, attempt, delayMs) =>
        log.warn('API discovery failed; retrying within the start-up window', {
          attempt,
          retryInMs: Math.round(delayMs),
          reason: (err as Error).message,
        }),
    });
  } catch (err) {
    if (stopped.signal.aborted) log.info('start-up stopped during API discovery');
    else
      log.error('start-up failed', {
        reason: `API discovery of ${GROUP}/${VERSION}: ${(err as Error).message}`,
      });
    throw err;
  }
  for (const product of PRODUCTS)
    if (!setups.some((x) => x.product === product))
      log.warn(
        `the ${product.plural}.${GROUP} CRD is not installed: ${product.kind}s are not managed; apply crds/ of this release (kubectl apply --server-side -f charts/glooha-operator/crds/); the operator restarts by itself once it is served`,
      );
  const reads = clusterReads(manager, setups, config.rbacRecheckPeriodMs);
  await reads.check('start-up');
  setupControllers(manager, setups, { ...controllerOptions, clusterReads: reads });
  manager.onFatal(hooks.onFatal ?? (() => {}));
  try {
    await manager.start();
  } catch (err) {
    log.error('start-up failed', { err });
    await shutdown('start-up failed');
    throw err;
  }
  reads.start();
  const atStart = servedScore(setups);
  if (atStart < fullScore()) {
    void watchForKinds({
      served: async (signal) => servedScore(await discoverProducts(get, signal)) > atStart,
      onServed: () => {
        log.info('the API server now serves a kind it did not at start-up: restarting to watch it');
        hooks.onRestart?.('a kind missing at start-up is now served');
      },
      signal: stopped.signal,
      ...(hooks.rediscoveryIntervalMs !== undefined ? { intervalMs: hooks.rediscoveryIntervalMs } : {}),
      onError: (err) =>
        log.debug('API discovery failed; asking again later', { reason: (err as Error).message }),
    });
  }
  return { metricsUrl: manager.metricsUrl, reconcilesFinished: () => metrics.reconcile.finished(), shutdown };
}

async function main(): Promise<void> {
  let config;
  try {
    config = parseConfig(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`glooha-operator: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (config === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (config === 'version') {
    process.stdout.write(`glooha-operator ${version()}\n`);
    return;
  }
  const log = createLogger(config.logLevel, { logger: 'glooha-operator' });
  // `node --expose-gc` (the image's entry point) lets the idle operator return unused heap pages.
  const gc = (globalThis as { gc?: ExposedGc }).gc;
  log.info('starting', {
    version: version(),
    watchNamespaces: config.watchNamespaces.length ? config.watchNamespaces : 'all',
    leaderElection: config.leaderElection.enabled
      ? {
          identity: config.leaderElection.identity,
          lease: `${config.leaderElection.namespace}/${config.leaderElection.leaseName}`,
        }
      : false,
    idleMemoryRelease: gc !== undefined,
  });
  let shutdown: ((reason: string) => Promise<void>) | undefined;
  const policy = installFailurePolicy({
    log,
    stop: (reason) => shutdown?.(reason) ?? Promise.resolve(),
    exit: (code) => process.exit(code),
    deadlineMs: SHUTDOWN_DEADLINE_MS,
  });
  let running: RunningOperator;
  try {
    running = await run(config, log, {
      onFatal: () => void policy.terminate(1, 'fatal error'),
      onShutdown: (fn) => (shutdown = fn),
      onRestart: (reason) => void policy.terminate(0, reason),
    });
  } catch {
    // A signal during start-up: the policy stops and exits 0 (start-up failed only because it stopped).
    if (policy.terminating()) return;
    // run() logged it and stopped what it had started (no Lease is held: it never joined).
    process.exit(1);
  }
  if (gc)
    startMemoryRelease({
      gc,
      heap: () => {
        const h = getHeapStatistics();
        return { committed: h.total_heap_size, used: h.used_heap_size };
      },
      work: () => running.reconcilesFinished(),
      rss: () => process.memoryUsage.rss(),
      log,
      minPeriodMs: config.resyncPeriodMs,
    });
}

// Run when executed, not when imported (tests import run()). argv[1] is a symlink when started as an
// npm bin (node_modules/.bin/glooha-operator, npm i -g): compare real paths.
if (isEntryPoint(process.argv[1])) {
  main().catch((err: unknown) => {
    process.stderr.write(
      `glooha-operator: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  });
}
