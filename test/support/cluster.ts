// What integration tests use to reach the shared control plane: an admin client, a fresh namespace
// per test, clients authenticated as a ServiceAccount (to prove RBAC), and the project's CRDs.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { ControlPlaneInfo } from '../env/controlplane.js';

let explicitControlPlane: ControlPlaneInfo | undefined;

/**
 * Outside vitest (scripts/demo.ts), names the control plane these helpers use; vitest's inject() is
 * only available inside a test run. Pass undefined to go back to inject().
 */
export function setControlPlane(info: ControlPlaneInfo | undefined): void {
  explicitControlPlane = info;
}

export function controlPlane(): ControlPlaneInfo {
  if (explicitControlPlane) return explicitControlPlane;
  const info = inject('controlPlane');
  if (!info)
    throw new Error(
      'no control plane: run integration tests through `npm test` / vitest --project integration, or call setControlPlane() first',
    );
  return info;
}

export function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(controlPlane().kubeconfigPath);
  return kc;
}

/** A new namespace with a unique name; the control plane's data dir (and it) go at the end of the run. */
export async function createNamespace(prefix: string): Promise<string> {
  const name = `${prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 40)}-${randomBytes(3).toString('hex')}`;
  await adminKubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name } } });
  return name;
}

/** A client config that authenticates with a fresh token of `namespace/serviceAccount` (created if missing). */
export async function kubeConfigFor(
  namespace: string,
  serviceAccount: string,
  expirationSeconds = 3600,
): Promise<KubeConfig> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  await core
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name: serviceAccount } } })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  const tr = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: { spec: { audiences: [], expirationSeconds } },
  });
  const token = tr.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${serviceAccount} returned no token`);
  return kubeConfigWithToken(`${namespace}:${serviceAccount}`, token);
}

/**
 * A client config for `namespace/serviceAccount` as a process in pod `podName` has it: a token bound
 * to that Pod (TokenRequest with boundObjectRef, what the kubelet mounts), so the API server adds the
 * pod's name and uid to the user's extra info (`authentication.kubernetes.io/pod-name`), which the
 * chart's fencing policy compares with the Lease holder. The Pod is created (a kwok pod: an API object
 * that runs nothing) unless it exists. Deleting the Pod invalidates the token.
 */
export async function kubeConfigForPod(
  namespace: string,
  serviceAccount: string,
  podName: string,
  expirationSeconds = 3600,
): Promise<KubeConfig> {
  const token = await podBoundToken(namespace, serviceAccount, podName, expirationSeconds);
  return kubeConfigWithToken(`${namespace}:${serviceAccount}:${podName}`, token);
}

/** The token of kubeConfigForPod alone (to put into an existing kubeconfig). */
export async function podBoundToken(
  namespace: string,
  serviceAccount: string,
  podName: string,
  expirationSeconds = 3600,
): Promise<string> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const pod = await core
    .createNamespacedPod({
      namespace,
      body: {
        metadata: { name: podName, labels: { 'glooha-test': 'operator-pod' } },
        spec: {
          serviceAccountName: serviceAccount,
          automountServiceAccountToken: false,
          containers: [{ name: 'operator', image: 'glooha-operator:test' }],
        },
      },
    })
    .catch(async (err: { code?: number }) => {
      if (err.code !== 409) throw err;
      return core.readNamespacedPod({ name: podName, namespace });
    });
  const tr = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: {
      spec: {
        audiences: [],
        expirationSeconds,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: podName, uid: pod.metadata?.uid },
      },
    },
  });
  const token = tr.status?.token;
  if (!token) throw new Error(`TokenRequest for pod ${namespace}/${podName} returned no token`);
  return token;
}

function kubeConfigWithToken(user: string, token: string): KubeConfig {
  const info = controlPlane();
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      { name: 'test', server: info.server, caFile: join(info.pkiDir, 'ca.crt'), skipTLSVerify: false },
    ],
    users: [{ name: user, token }],
    contexts: [{ name: 'sa', cluster: 'test', user }],
    currentContext: 'sa',
  });
  return kc;
}

const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * Installs crds/ the way users do, with `kubectl apply --server-side -f crds/`, and waits until every
 * CRD is Established. kubectl reads the files as YAML 1.1 (an unquoted `off` is false there); a
 * JavaScript YAML 1.2 parser would install a different CRD than users get.
 */
export async function installCrds(): Promise<void> {
  // Imported here: kubectl.ts imports this module for controlPlane().
  const { kubectlOk } = await import('./kubectl.js');
  const dir = join(repoRoot, 'crds');
  await kubectlOk(['apply', '--server-side', '--force-conflicts', '--field-manager=glooha-tests', '-f', dir]);
  await kubectlOk(['wait', '--for=condition=Established', '--timeout=30s', '-f', dir]);
}
