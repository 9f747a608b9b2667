// Finding and reading the kubeconfig, kubectl's way (--kubeconfig, then $KUBECONFIG, then
// ~/.kube/config, then the pod's ServiceAccount), with one clear error when none of them gives a
// cluster to talk to. client-node alone throws a raw ENOENT stack for a missing file and, with nothing
// at all, silently points at http://localhost:8080.
import { KubeConfig } from '@kubernetes/client-node';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** No usable kubeconfig: the message says what was looked at and what to do. */
export class KubeConfigError extends Error {
  override name = 'KubeConfigError';
}

export interface LoadKubeConfigOptions {
  /** An explicit file (--kubeconfig); wins over the environment. */
  path?: string;
  /** A context other than the file's current-context (--context). */
  context?: string;
  env?: Record<string, string | undefined>;
  /** Where ~/.kube/config is looked for (tests). */
  home?: string;
}

const SA_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const env = opts.env ?? process.env;
  const kc = new KubeConfig();
  let source: string;
  if (opts.path !== undefined) {
    source = `kubeconfig ${opts.path} (--kubeconfig)`;
    if (!existsSync(opts.path)) throw new KubeConfigError(`${source} does not exist: give an existing file`);
    readFile(kc, opts.path, source);
  } else if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(delimiter).filter(Boolean);
    const present = files.filter((f) => existsSync(f));
    source = `KUBECONFIG=${env.KUBECONFIG}`;
    // kubectl skips files of the list that do not exist; none at all is an error.
    if (present.length === 0)
      throw new KubeConfigError(`${source}: no such file; set KUBECONFIG to an existing kubeconfig file`);
    readFile(kc, present[0]!, source);
    for (const f of present.slice(1)) {
      const more = new KubeConfig();
      readFile(more, f, source);
      kc.mergeConfig(more);
    }
  } else {
    const home = join(opts.home ?? homedir(), '.kube', 'config');
    if (existsSync(home)) {
      source = `kubeconfig ${home}`;
      readFile(kc, home, source);
    } else if (env.KUBERNETES_SERVICE_HOST && existsSync(SA_TOKEN)) {
      source = 'the in-cluster ServiceAccount';
      kc.loadFromCluster();
    } else {
      throw new KubeConfigError(
        `no kubeconfig: --kubeconfig is not given, KUBECONFIG is not set, ${home} does not exist and this is not a pod; pass --kubeconfig FILE or set KUBECONFIG`,
      );
    }
  }
  if (opts.context !== undefined) {
    if (!kc.getContextObject(opts.context)) {
      const names = kc.getContexts().map((c) => c.name);
      throw new KubeConfigError(
        `${source} has no context ${JSON.stringify(opts.context)}${names.length ? ` (it has: ${names.join(', ')})` : ''}`,
      );
    }
    kc.setCurrentContext(opts.context);
  }
  if (!kc.getCurrentCluster()) {
    throw new KubeConfigError(
      `${source} has no current context with a cluster; pick one with --context or kubectl config use-context NAME`,
    );
  }
  return kc;
}

/** The current context's namespace, kubectl's default for namespaced commands. */
export function contextNamespace(kc: KubeConfig): string {
  return kc.getContextObject(kc.getCurrentContext())?.namespace || 'default';
}

function readFile(kc: KubeConfig, path: string, source: string): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeConfigError(`${source} cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
  // client-node reads an empty file (or one that is only a scalar) as undefined and then fails with
  // "Cannot read properties of undefined (reading 'clusters')": say what is wrong instead.
  if (text.trim() === '' || !/^\s*[A-Za-z"'{-]/m.test(text))
    throw new KubeConfigError(
      `${source} is empty: it must be a kubeconfig (apiVersion: v1, kind: Config, clusters, users, contexts)`,
    );
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw new KubeConfigError(
      `${source} cannot be read as a kubeconfig (apiVersion: v1, kind: Config, clusters, users, contexts): ${(err as Error).message.split('\n')[0]}`,
    );
  }
}
