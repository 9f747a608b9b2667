// Running the operator in tests exactly as it is shipped: with the RBAC the Helm chart grants, as the
// chart's ServiceAccount (a real token), either in-process (`run()` from src/main.ts) or as separate
// processes (`node --import tsx src/main.ts`) for fault injection (SIGKILL, SIGSTOP, partitions).
import {
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig as KubeConfigClass,
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
} from '@kubernetes/client-node';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, run, type OperatorConfig, type RunningOperator } from '../../src/main.js';
import { createLogger, type LogLevel } from '../../src/log.js';
import { render } from '../unit/chart/helm.js';
import { FENCING_DENIAL_MARKER } from '../../src/kube/client.js';
import { DEFAULT_LEASE_NAME } from '../../src/leader/config.js';
import { adminKubeConfig, installCrds, kubeConfigFor, podBoundToken } from './cluster.js';
import { eventually } from './wait.js';

export const repoRoot = join(import.meta.dirname, '..', '..');

export interface OperatorIdentity {
  /** Namespace the chart was "installed" into (the operator's own: its Lease lives here). */
  namespace: string;
  serviceAccount: string;
  /** `system:serviceaccount:<ns>:<sa>`, as the audit log names it. */
  username: string;
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  /** The pod the kubeconfig's token is bound to (boundToPod), if any. */
  podName?: string;
  /** The chart's Lease FlowSchema, when installed (installOperatorRbac's flowSchema). */
  flowSchema?: string;
}

/**
 * Applies the chart's replicas-floor ValidatingAdmissionPolicies (Deployment writes and the scale
 * subresource) and their bindings (cluster-scoped, so a
 * test that installs them removes them with the returned function: other files scale Deployments
 * down on purpose).
 */
export async function installReplicasFloorPolicy(): Promise<() => Promise<void>> {
  const release = `glooha-${randomBytes(3).toString('hex')}`;
  const objects = (await render({ release, namespace: 'default' })).filter(
    (o) =>
      o.kind?.startsWith('ValidatingAdmissionPolicy') &&
      /-replicas-floor(-scale)?$/.test(o.metadata?.name ?? ''),
  );
  if (objects.length !== 4)
    throw new Error(
      `expected both policies (Deployment writes, the scale subresource) and their bindings, the chart rendered ${objects.length}`,
    );
  const api = KubernetesObjectApi.makeApiClient(adminKubeConfig());
  for (const obj of objects)
    await api.patch(obj, undefined, undefined, 'glooha-tests', true, PatchStrategy.ServerSideApply);
  return async () => {
    for (const obj of objects) await api.delete(obj).catch(() => undefined);
  };
}

/**
 * Renders the chart (cluster mode, or namespaced with `watchNamespaces`), applies its ServiceAccount
 * and RBAC — and with `fencingPolicy` its ValidatingAdmissionPolicy and binding, waiting until the API
 * server enforces them — and returns a kubeconfig that authenticates as that ServiceAccount. With the
 * policy, the operator's writes need a pod-bound token: see boundToPod.
 */
export async function installOperatorRbac(
  namespace: string,
  opts: {
    watchNamespaces?: string[];
    release?: string;
    fencingPolicy?: boolean;
    /** Namespaced mode: the chart's rbac.clusterWideReads (a ClusterRole of reads in all namespaces). */
    clusterWideReads?: boolean;
    /** The chart's Lease FlowSchema (on by default in the chart): the Lease requests at `leader-election`. */
    flowSchema?: boolean;
  } = {},
): Promise<OperatorIdentity> {
  await installCrds();
  // The release name makes cluster-scoped names (ClusterRole) unique per test.
  const release = opts.release ?? `glooha-${randomBytes(3).toString('hex')}`;
  const objects = await render({
    release,
    namespace,
    values: {
      ...(opts.watchNamespaces ? { watchNamespaces: opts.watchNamespaces } : {}),
      ...(opts.clusterWideReads ? { rbac: { clusterWideReads: true } } : {}),
    },
  });
  const wanted = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
  if (opts.fencingPolicy) {
    wanted.add('ValidatingAdmissionPolicy');
    wanted.add('ValidatingAdmissionPolicyBinding');
  }
  if (opts.flowSchema) wanted.add('FlowSchema');
  const clusterScoped = /^(Cluster|ValidatingAdmissionPolicy|FlowSchema$)/;
  const api = KubernetesObjectApi.makeApiClient(adminKubeConfig());
  let serviceAccount = '';
  let flowSchema: string | undefined;
  for (const obj of objects.filter((o) => wanted.has(o.kind ?? ''))) {
    if (obj.kind === 'ServiceAccount') serviceAccount = obj.metadata?.name ?? '';
    if (obj.kind === 'FlowSchema') flowSchema = obj.metadata?.name;
    const body = {
      ...obj,
      metadata: {
        ...obj.metadata,
        namespace: obj.metadata?.namespace ?? (clusterScoped.test(obj.kind ?? '') ? undefined : namespace),
      },
    };
    await api.patch(body, undefined, undefined, 'glooha-tests', true, PatchStrategy.ServerSideApply);
  }
  if (!serviceAccount) throw new Error('the chart rendered no ServiceAccount');
  const kubeConfig = await kubeConfigFor(namespace, serviceAccount);
  const kubeconfigPath = writeKubeconfig('glooha-op-', kubeConfig.exportConfig());
  const id: OperatorIdentity = {
    namespace,
    serviceAccount,
    username: `system:serviceaccount:${namespace}:${serviceAccount}`,
    kubeConfig,
    kubeconfigPath,
    ...(flowSchema ? { flowSchema } : {}),
  };
  if (opts.flowSchema && !flowSchema) throw new Error('the chart rendered no Lease FlowSchema');
  if (opts.fencingPolicy) await waitForFencing(id);
  return id;
}

/** Temp dirs holding kubeconfigs (with tokens) written by this test process. */
const tempDirs = new Set<string>();

/**
 * Writes a kubeconfig (mode 0600) into a fresh temp dir and returns its path. The dir is removed
 * when the test process exits (operators started with it may run until then): ~22 per run were
 * left behind, each with a token.
 */
export function writeKubeconfig(prefix: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** Removes every temp dir writeKubeconfig made so far (also run at process exit). */
export function removeKubeconfigs(): void {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
process.on('exit', removeKubeconfigs);

/**
 * A copy of `id` whose kubeconfig (same server) carries a token bound to pod `podName` (created as a
 * kwok Pod of the ServiceAccount): what the kubelet gives the operator's container in a real pod.
 */
export async function boundToPod(id: OperatorIdentity, podName: string): Promise<OperatorIdentity> {
  const token = await podBoundToken(id.namespace, id.serviceAccount, podName);
  const kubeConfig = new KubeConfigClass();
  kubeConfig.loadFromString(readFileSync(id.kubeconfigPath, 'utf8'));
  kubeConfig.users = kubeConfig.users.map((u) => ({ ...u, token }));
  const kubeconfigPath = writeKubeconfig('glooha-op-pod-', kubeConfig.exportConfig());
  return { ...id, kubeConfig, kubeconfigPath, podName };
}

/**
 * Waits until the API server enforces the fencing policy for `id`: an Event posted with the token of
 * a pod that does not hold the Lease is refused by admission. (A policy and its binding take effect
 * a moment after they are created.)
 */
export async function waitForFencing(id: OperatorIdentity): Promise<void> {
  // The policy acts only once the Lease exists (parameterNotFoundAction: Allow): create it unheld.
  await adminKubeConfig()
    .makeApiClient(CoordinationV1Api)
    .createNamespacedLease({
      namespace: id.namespace,
      body: { metadata: { name: DEFAULT_LEASE_NAME }, spec: { holderIdentity: '', leaseDurationSeconds: 1 } },
    })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  const probe = await boundToPod(id, `fencing-probe-${randomBytes(3).toString('hex')}`);
  const core = probe.kubeConfig.makeApiClient(CoreV1Api);
  await eventually(
    `the fencing policy for ${id.username} to be enforced`,
    async () => {
      try {
        await core.createNamespacedEvent({
          namespace: id.namespace,
          body: {
            metadata: { generateName: 'fencing-probe-' },
            involvedObject: { kind: 'ServiceAccount', name: id.serviceAccount, namespace: id.namespace },
            reason: 'FencingProbe',
            message: 'probe',
            type: 'Normal',
          },
        });
        return 'accepted';
      } catch (err) {
        const e = err as { code?: number; body?: unknown };
        const body = typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '');
        // 403 from the validation; 422 ("failed to configure binding") while the Lease does not exist
        return (e.code === 403 || e.code === 422) && body.includes('ValidatingAdmissionPolicy')
          ? 'denied'
          : body;
      }
    },
    (v) => v === 'denied',
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

/** Whether `err` is the fencing policy's denial (403 with the policy's message). */
export function isFencingDenialError(err: unknown): boolean {
  const e = err as { code?: number; body?: unknown; cause?: unknown };
  const inner = (e.cause ?? e) as { code?: number; body?: unknown };
  const body = typeof inner.body === 'string' ? inner.body : JSON.stringify(inner.body ?? '');
  return inner.code === 403 && body.includes(FENCING_DENIAL_MARKER);
}

export interface OperatorRunOptions {
  /** Extra flags, e.g. ['--leader-elect=false'] or ['--watch-namespaces=a,b']. */
  args?: string[];
  env?: Record<string, string>;
  podName?: string;
  logLevel?: LogLevel;
  /** spawnOperator: the source tree to run (default this one; bench/failover.ts runs a baseline's). */
  root?: string;
}

function baseArgs(id: OperatorIdentity): string[] {
  return [
    `--kubeconfig=${id.kubeconfigPath}`,
    '--metrics-bind-address=127.0.0.1:0',
    `--leader-elect-namespace=${id.namespace}`,
  ];
}

export interface InProcessOperator extends RunningOperator {
  config: OperatorConfig;
  logs: string[];
}

/** Starts the operator in this process (fast; for reconciler behaviour). Stop it with `shutdown()`. */
export async function startOperatorInProcess(
  id: OperatorIdentity,
  opts: OperatorRunOptions = {},
): Promise<InProcessOperator> {
  const env = {
    ...process.env,
    POD_NAME: opts.podName ?? `op-${randomBytes(2).toString('hex')}`,
    ...opts.env,
  };
  const config = parseConfig([...baseArgs(id), ...(opts.args ?? [])], env);
  if (config === 'help' || config === 'version') throw new Error('unexpected --help/--version');
  const logs: string[] = [];
  const log = createLogger(opts.logLevel ?? 'info', { pod: env.POD_NAME }, (line) => {
    logs.push(line);
    if (process.env.GLOOHA_TEST_LOGS) process.stderr.write(line + '\n');
  });
  const running = await run(config, log);
  return { ...running, config, logs };
}

export interface OperatorProcess {
  child: ChildProcess;
  podName: string;
  /** JSON log lines seen so far (stderr). */
  logs: Record<string, unknown>[];
  /** Resolves with the metrics URL once the HTTP server logged that it listens. */
  metricsUrl: Promise<string>;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/** Starts the operator as its own process (for signals: SIGKILL, SIGSTOP/SIGCONT, SIGTERM). */
export function spawnOperator(id: OperatorIdentity, opts: OperatorRunOptions = {}): OperatorProcess {
  const podName = opts.podName ?? `op-${randomBytes(2).toString('hex')}`;
  const root = opts.root ?? repoRoot;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'src/main.ts'), ...baseArgs(id), ...(opts.args ?? [])],
    {
      cwd: root,
      env: { ...process.env, POD_NAME: podName, LOG_LEVEL: opts.logLevel ?? 'info', ...opts.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  live.add(child);
  const logs: Record<string, unknown>[] = [];
  let resolveUrl: (u: string) => void = () => {};
  const metricsUrl = new Promise<string>((r) => (resolveUrl = r));
  let buf = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (process.env.GLOOHA_TEST_LOGS) process.stderr.write(`[${podName}] ${line}\n`);
      try {
        const rec = JSON.parse(line) as Record<string, unknown>;
        logs.push(rec);
        if (typeof rec.url === 'string' && String(rec.msg).includes('serving /metrics')) resolveUrl(rec.url);
      } catch {
        logs.push({ msg: line, raw: true });
      }
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  return { child, podName, logs, metricsUrl, exited, kill: (sig) => child.kill(sig) };
}

/** Reads one sample (sum over series matching `labels`) from a Prometheus text exposition. */
/**
 * The operator's /metrics text. A failed request is retried (3 tries, 500 ms apart): a scrape can land
 * on a keep-alive connection the operator's server is closing (Node's 5 s keepAliveTimeout), which
 * fetch reports as "fetch failed" — a 1000-install bench run ended on one. The last error names its cause.
 */
export async function scrapeMetrics(metricsUrl: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(`${metricsUrl}/metrics`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return await res.text();
    } catch (err) {
      if (attempt >= 3) {
        const cause = (err as { cause?: unknown }).cause;
        throw new Error(
          `GET ${metricsUrl}/metrics failed ${attempt} times: ${(err as Error).message}${cause ? ` (${cause instanceof Error ? cause.message : JSON.stringify(cause)})` : ''}`,
          { cause: err },
        );
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** rest_client_requests_total summed by method (GET, PATCH, ...): the operator's requests so far. */
export async function requestsByMethod(metricsUrl: string): Promise<Record<string, number>> {
  const text = await scrapeMetrics(metricsUrl);
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^rest_client_requests_total\{([^}]*)\}\s+(\S+)/gm)) {
    const method = /method="([^"]+)"/.exec(m[1]!)?.[1] ?? '?';
    out[method] = (out[method] ?? 0) + Number(m[2]);
  }
  return out;
}

export async function metricValue(
  metricsUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await scrapeMetrics(metricsUrl);
  let sum = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const lbls = Object.fromEntries(
      [...(m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => lbls[k] === v)) {
      sum += Number(m[4]);
      found = true;
    }
  }
  if (!found) throw new Error(`metric ${name}${JSON.stringify(labels)} not exposed at ${metricsUrl}/metrics`);
  return sum;
}
