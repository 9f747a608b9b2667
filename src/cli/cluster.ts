// How the cluster commands (status, check, helm-values) reach the API server: the kubeconfig, read
// kubectl's way (src/kube/config.ts), and the operator's one transport (src/kube/client.ts). Their
// failures become one line and an exit status (ClusterError), never a stack trace.
import type { KubeConfig } from '@kubernetes/client-node';
import { contextNamespace, KubeConfigError, loadKubeConfig } from '../kube/config.js';
import { errorStatus, KubeClient } from '../kube/client.js';
import type { ClusterFlags } from './args.js';
import { EXIT } from './flags.js';

/** The cluster cannot be used, or the named object is missing: message + exit status. */
export class ClusterError extends Error {
  override name = 'ClusterError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.CLUSTER,
  ) {
    super(message);
  }
}

export interface Cluster {
  client: KubeClient;
  kubeConfig: KubeConfig;
  /** The context's namespace (kubectl's default for -n). */
  namespace: string;
}

export function connect(flags: ClusterFlags, env: Record<string, string | undefined>): Cluster {
  let kubeConfig: KubeConfig;
  try {
    kubeConfig = loadKubeConfig({ path: flags.kubeconfig, context: flags.context, env });
  } catch (err) {
    if (err instanceof KubeConfigError) throw new ClusterError(err.message);
    throw err;
  }
  // A CLI waits for one answer at a time: no pooled connections left to hold the process open.
  const client = new KubeClient(kubeConfig, { reuseConnections: false, timeoutMs: 20_000 });
  return { client, kubeConfig, namespace: contextNamespace(kubeConfig) };
}

/**
 * A failed request as the user should read it, as a ClusterError (exit 3). `what` names what was
 * asked ("list GlooHAs in gloo-system"); callers handle the statuses they expect (404) first.
 */
export function explain(err: unknown, what: string, client: KubeClient): never {
  if (err instanceof ClusterError) throw err;
  const status = errorStatus(err);
  if (status === 401)
    throw new ClusterError(`${what}: the API server at ${client.host} did not accept your credentials (401)`);
  if (status === undefined)
    throw new ClusterError(`${what}: cannot reach the API server at ${client.host}: ${messageOf(err)}`);
  // KubeApiError's message already says "<operation>: <code> <reason>: <message>".
  throw new ClusterError(`${what}: ${messageOf(err)}`);
}

function messageOf(err: unknown): string {
  const e = err as { message?: unknown; cause?: { message?: unknown } };
  const m = typeof e.message === 'string' ? e.message : String(err);
  const cause = typeof e.cause?.message === 'string' ? ` (${e.cause.message})` : '';
  return `${m.split('\n')[0]}${cause}`;
}
