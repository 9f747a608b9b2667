// Running the operator in tests exactly as it is shipped: with the RBAC the Helm chart grants, as the
// chart's ServiceAccount (a real token), either in-process (`run()` from src/main.ts) or as separate
// processes (`node --import tsx src/main.ts`) for fault injection (SIGKILL, SIGSTOP, partitions).
import {
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, run, type OperatorConfig, type RunningOperator } from '../../src/main.js';
import { createLogger, type LogLevel } from '../../src/log.js';
import { render } from '../unit/chart/helm.js';
import { adminKubeConfig, installCrds, kubeConfigFor } from './cluster.js';

export const repoRoot = join(import.meta.dirname, '..', '..');

export interface OperatorIdentity {
  /** Namespace the chart was "installed" into (the operator's own: its Lease lives here). */
  namespace: string;
  serviceAccount: string;
  /** `system:serviceaccount:<ns>:<sa>`, as the audit log names it. */
  username: string;
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
}

/**
 * Applies the chart's replicas-floor ValidatingAdmissionPolicy and its binding (cluster-scoped, so a
 * test that installs them removes them with the returned function: other files scale Deployments
 * down on purpose).
 */
export async function installReplicasFloorPolicy(): Promise<() => Promise<void>> {
  const release = `glooha-${randomBytes(3).toString('hex')}`;
  const objects = (await render({ release, namespace: 'default' })).filter(
    (o) => o.kind?.startsWith('ValidatingAdmissionPolicy') && o.metadata?.name?.endsWith('-replicas-floor'),
  );
  if (objects.length !== 2)
    throw new Error(`expected the policy and its binding, the chart rendered ${objects.length}`);
  const api = KubernetesObjectApi.makeApiClient(adminKubeConfig());
  for (const obj of objects)
    await api.patch(obj, undefined, undefined, 'glooha-tests', true, PatchStrategy.ServerSideApply);
  return async () => {
    for (const obj of objects) await api.delete(obj).catch(() => undefined);
  };
}

/**
 * Renders the chart (cluster mode, or namespaced with `watchNamespaces`), applies its ServiceAccount
 * and RBAC — nothing else — and returns a kubeconfig that authenticates as that ServiceAccount.
 */
export async function installOperatorRbac(
  namespace: string,
  opts: { watchNamespaces?: string[]; release?: string } = {},
): Promise<OperatorIdentity> {
  await installCrds();
  // The release name makes cluster-scoped names (ClusterRole) unique per test.
  const release = opts.release ?? `glooha-${randomBytes(3).toString('hex')}`;
  const objects = await render({
    release,
    namespace,
    values: opts.watchNamespaces ? { watchNamespaces: opts.watchNamespaces } : {},
  });
  const wanted = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
  const api = KubernetesObjectApi.makeApiClient(adminKubeConfig());
  let serviceAccount = '';
  for (const obj of objects.filter((o) => wanted.has(o.kind ?? ''))) {
    if (obj.kind === 'ServiceAccount') serviceAccount = obj.metadata?.name ?? '';
    const body = {
      ...obj,
      metadata: {
        ...obj.metadata,
        namespace: obj.metadata?.namespace ?? (obj.kind?.startsWith('Cluster') ? undefined : namespace),
      },
    };
    await api.patch(
      body as KubernetesObject,
      undefined,
      undefined,
      'glooha-tests',
      true,
      PatchStrategy.ServerSideApply,
    );
  }
  if (!serviceAccount) throw new Error('the chart rendered no ServiceAccount');
  const kubeConfig = await kubeConfigFor(namespace, serviceAccount);
  const dir = mkdtempSync(join(tmpdir(), 'glooha-op-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeConfig.exportConfig(), { mode: 0o600 });
  return {
    namespace,
    serviceAccount,
    username: `system:serviceaccount:${namespace}:${serviceAccount}`,
    kubeConfig,
    kubeconfigPath,
  };
}

export interface OperatorRunOptions {
  /** Extra flags, e.g. ['--leader-elect=false'] or ['--watch-namespaces=a,b']. */
  args?: string[];
  env?: Record<string, string>;
  podName?: string;
  logLevel?: LogLevel;
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
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'src/main.ts'), ...baseArgs(id), ...(opts.args ?? [])],
    {
      cwd: repoRoot,
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
export async function metricValue(
  metricsUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
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
