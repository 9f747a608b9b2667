// Rollouts on Gloo's real chart that never wedge, and a rollout that cannot finish reported as such:
//  - examples/glooha.yaml and the README's commands, as written, on the default 3-node test cluster:
//    gloo runs 3 replicas with required anti-affinity (one per node) and every rollout finishes,
//    because the operator replaces those pods in place (maxSurge 0, maxUnavailable 1);
//  - a Deployment whose rollout passes its progress deadline makes the GlooHA Stalled with the
//    Deployment's reason and message (kubectl wait for Ready then fails fast instead of timing out).
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../src/api/constants.js';
import { PLURAL } from '../../src/products/gloo/api.js';
import type { GlooHA } from '../../src/products/gloo/types.js';
import { locateBinaries } from '../env/binaries.js';
import { adminKubeConfig, controlPlane, createNamespace, installCrds } from '../support/cluster.js';
import { glooChart, helmBinary, installGloo } from '../support/gloo-chart.js';
import { createGlooHA, getGlooHA } from '../support/glooha.js';
import {
  installOperatorRbac,
  repoRoot,
  startOperatorInProcess,
  type InProcessOperator,
} from '../support/operator.js';
import { readmeBlock } from '../support/readme.js';
import { eventually } from '../support/wait.js';

const run = promisify(execFile);
const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const core = admin.makeApiClient(CoreV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** kubectl as the README runs it (the admin kubeconfig of the test cluster). */
async function kubectl(...args: string[]): Promise<{ ok: boolean; out: string; ms: number }> {
  const started = performance.now();
  try {
    const { stdout, stderr } = await run(locateBinaries().path('kubectl'), args, {
      env: { ...process.env, KUBECONFIG: controlPlane().kubeconfigPath },
      cwd: repoRoot,
    });
    return { ok: true, out: stdout + stderr, ms: performance.now() - started };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? e.message}`, ms: performance.now() - started };
  }
}

/**
 * A README shell block, exactly as written (readmeBlock throws if the README no longer has it),
 * through bash -c with kubectl and Helm 4 first on PATH and the test cluster's admin kubeconfig.
 */
async function readmeShell(
  text: string,
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ ok: boolean; out: string; ms: number }> {
  const bin = mkdtempSync(join(tmpdir(), 'readme-bin-'));
  symlinkSync(locateBinaries().path('kubectl'), join(bin, 'kubectl'));
  symlinkSync(helmBinary(4), join(bin, 'helm'));
  const started = performance.now();
  try {
    const { stdout, stderr } = await run('bash', ['-c', `set -euo pipefail\n${readmeBlock(text)}`], {
      cwd,
      env: {
        ...process.env,
        ...env,
        PATH: `${bin}:${process.env.PATH}`,
        KUBECONFIG: controlPlane().kubeconfigPath,
      },
      maxBuffer: 16 << 20,
    });
    return { ok: true, out: stdout + stderr, ms: performance.now() - started };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? e.message}`, ms: performance.now() - started };
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

/** Helm's own directories, under `dir`, so a repository added there stays in this test. */
function helmHome(dir: string): Record<string, string> {
  return {
    HELM_CACHE_HOME: join(dir, '.helm', 'cache'),
    HELM_CONFIG_HOME: join(dir, '.helm', 'config'),
    HELM_DATA_HOME: join(dir, '.helm', 'data'),
  };
}

/**
 * Each pod of the install's Deployments (by UID) and each Deployment's replicas: what an upgrade must
 * not change. Job pods are left out: the chart's hook Jobs (gateway-certgen) run anew on every upgrade.
 */
async function podsAndReplicas(ns: string): Promise<{ pods: string[]; replicas: Record<string, number> }> {
  const pods = (await core.listNamespacedPod({ namespace: ns })).items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .filter((p) => !p.metadata?.ownerReferences?.some((o) => o.kind === 'Job'))
    .map((p) => `${p.metadata?.name} ${p.metadata?.uid}`)
    .sort();
  const replicas = Object.fromEntries(
    (await apps.listNamespacedDeployment({ namespace: ns })).items.map((d) => [
      d.metadata?.name ?? '',
      d.spec?.replicas ?? 0,
    ]),
  );
  return { pods, replicas };
}

function condition(g: GlooHA, type: string) {
  return g.status?.conditions?.find((c) => c.type === type);
}

async function glooPodNodes(ns: string): Promise<string[]> {
  const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: 'gloo=gloo' });
  return pods.items.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.spec?.nodeName ?? '');
}

describe('examples/glooha.yaml on the default 3-node cluster (Gloo chart, Helm 4)', () => {
  const ns = 'gloo-system';
  let operator: InProcessOperator;

  beforeAll(async () => {
    await installCrds();
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await installGloo(4, ns, 'gloo', {
      discovery: { enabled: true },
      gatewayProxies: {
        publicGw: {
          kind: { deployment: { replicas: null } },
          horizontalPodAutoscaler: { apiVersion: 'autoscaling/v2', minReplicas: 1, maxReplicas: 12 },
        },
      },
    });
    const opNs = await createNamespace('example-op');
    const id = await installOperatorRbac(opNs);
    operator = await startOperatorInProcess(id);
  }, 300_000);

  afterAll(async () => {
    await operator?.shutdown('test done');
  });

  it('the README commands work as written: kubectl apply, then kubectl wait for Ready', async () => {
    expect(controlPlane().nodes).toHaveLength(3);
    const waited = await readmeShell(
      `kubectl apply -f examples/glooha.yaml
kubectl -n gloo-system wait glooha/gloo --for=condition=Ready --timeout=5m`,
      repoRoot,
    );
    console.log(
      `examples/glooha.yaml: kubectl apply and kubectl wait --for=condition=Ready returned after ${(waited.ms / 1000).toFixed(1)} s`,
    );
    expect(waited.ok, waited.out).toBe(true);
    const nodes = await glooPodNodes(ns);
    expect(nodes).toHaveLength(3);
    expect(new Set(nodes).size).toBe(3); // one gloo pod per node: required anti-affinity holds
    const gloo = await apps.readNamespacedDeployment({ name: 'gloo', namespace: ns });
    expect(gloo.spec?.strategy?.rollingUpdate).toEqual({ maxSurge: 0, maxUnavailable: 1 });
  }, 330_000); // kubectl wait may take its whole 5 min before it fails with its own message

  it("the README's Helm upgrade, as written (Helm 4, chart gloo/gloo from a repository): no pod replaced, no replica changed", async () => {
    // `gloo/gloo` resolves to Gloo's chart through a chart repository named gloo, served here.
    const repoDir = mkdtempSync(join(tmpdir(), 'gloo-repo-'));
    copyFileSync(glooChart(), join(repoDir, basename(glooChart())));
    const server = createServer((req, res) => {
      try {
        res.end(readFileSync(join(repoDir, basename(req.url ?? '/'))));
      } catch {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const helmEnv = helmHome(repoDir);
      await run(helmBinary(4), ['repo', 'index', repoDir, '--url', url], { env: helmEnv });
      await run(helmBinary(4), ['repo', 'add', 'gloo', url], { env: helmEnv });
      const before = await podsAndReplicas(ns);
      const upgraded = await readmeShell(
        `kubectl -n gloo-system get configmap gloo-helm-values -o go-template='{{index .data \`values.yaml\`}}' > values-glooha.yaml
helm upgrade gloo gloo/gloo --version 1.22.1 -n gloo-system --reset-then-reuse-values -f values-glooha.yaml`,
        repoDir,
        helmEnv,
      );
      expect(upgraded.ok, upgraded.out).toBe(true);
      expect(upgraded.out).toContain('has been upgraded');
      expect(readFileSync(join(repoDir, 'values-glooha.yaml'), 'utf8')).toContain('replicas: 3');
      // The operator may take a moment to notice nothing changed: give it the time a correction takes.
      await sleep(3_000);
      expect(await podsAndReplicas(ns)).toEqual(before);
    } finally {
      server.close();
      rmSync(repoDir, { recursive: true, force: true });
    }
  }, 300_000);

  it('a later rollout (new lease timings) also finishes on 3 nodes', async () => {
    const before =
      (await apps.readNamespacedDeployment({ name: 'gloo', namespace: ns })).metadata?.generation ?? 0;
    await custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: PLURAL,
        name: 'gloo',
        body: { spec: { gloo: { leaderElection: { leaseDuration: '21s' } } } },
      },
      mergePatch,
    );
    await eventually(
      'the new template rolled out on all 3 gloo pods',
      async () => apps.readNamespacedDeployment({ name: 'gloo', namespace: ns }),
      (d) =>
        (d.metadata?.generation ?? 0) > before &&
        d.status?.observedGeneration === d.metadata?.generation &&
        d.status?.updatedReplicas === 3 &&
        d.status?.readyReplicas === 3 &&
        d.status?.replicas === 3,
      { timeoutMs: 90_000 },
    );
    const waited = await kubectl('-n', ns, 'wait', 'glooha/gloo', '--for=condition=Ready', '--timeout=60s');
    expect(waited.ok, waited.out).toBe(true);
  });
});

describe('a rollout that passes its progress deadline (Gloo chart, Helm 4)', () => {
  let ns: string;
  let operator: InProcessOperator;

  beforeAll(async () => {
    ns = await createNamespace('deadline');
    // No node carries this label: the gloo pods the operator scales up to stay Pending.
    await installGloo(4, ns, 'gloo', {
      gloo: { deployment: { nodeSelector: { 'glooha.io/test': 'no-such-node' } } },
    });
    const opNs = await createNamespace('deadline-op');
    const id = await installOperatorRbac(opNs, { watchNamespaces: [ns] });
    operator = await startOperatorInProcess(id, { args: [`--watch-namespaces=${ns}`] });
  }, 300_000);

  afterAll(async () => {
    await operator?.shutdown('test done');
  });

  it('makes the GlooHA Stalled with the Deployment reason and message', async () => {
    await apps.patchNamespacedDeployment(
      { name: 'gloo', namespace: ns, body: { spec: { progressDeadlineSeconds: 3 } } },
      mergePatch,
    );
    await createGlooHA(ns, 'gloo', { gloo: { replicas: 2 } });
    const g = await eventually(
      'Stalled=True (ProgressDeadlineExceeded)',
      () => getGlooHA(ns, 'gloo'),
      (x) => condition(x, 'Stalled')?.status === 'True',
      { timeoutMs: 60_000 },
    );
    expect(condition(g, 'Stalled')).toMatchObject({ reason: 'ProgressDeadlineExceeded' });
    expect(condition(g, 'Stalled')?.message).toMatch(/^Deployment gloo: .*progress/);
    expect(condition(g, 'Ready')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
  });
});
