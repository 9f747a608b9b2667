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
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, PLURAL, VERSION } from '../../src/api/constants.js';
import type { GlooHA } from '../../src/api/types.js';
import { locateBinaries } from '../env/binaries.js';
import { adminKubeConfig, controlPlane, createNamespace, installCrds } from '../support/cluster.js';
import { installGloo } from '../support/gloo-chart.js';
import { createGlooHA, getGlooHA } from '../support/glooha.js';
import {
  installOperatorRbac,
  repoRoot,
  startOperatorInProcess,
  type InProcessOperator,
} from '../support/operator.js';
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
    const applied = await kubectl('apply', '-f', join('examples', 'glooha.yaml'));
    expect(applied.ok, applied.out).toBe(true);
    const waited = await kubectl('-n', ns, 'wait', 'glooha/gloo', '--for=condition=Ready', '--timeout=120s');
    console.log(
      `examples/glooha.yaml: kubectl wait --for=condition=Ready returned after ${(waited.ms / 1000).toFixed(1)} s`,
    );
    expect(waited.ok, waited.out).toBe(true);
    const nodes = await glooPodNodes(ns);
    expect(nodes).toHaveLength(3);
    expect(new Set(nodes).size).toBe(3); // one gloo pod per node: required anti-affinity holds
    const gloo = await apps.readNamespacedDeployment({ name: 'gloo', namespace: ns });
    expect(gloo.spec?.strategy?.rollingUpdate).toEqual({ maxSurge: 0, maxUnavailable: 1 });
  }, 180_000); // kubectl wait may take its whole 120 s before it fails with its own message

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
