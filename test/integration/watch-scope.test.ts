// Namespaced mode's watch scope against the real API server, as the chart's ServiceAccount: with the
// chart's rbac.clusterWideReads the operator serves its watched namespaces from one cluster-wide watch
// per kind (asked of RBAC with access reviews) and keeps only their objects — a GlooHA in a namespace
// it does not watch stays untouched; with the chart's per-namespace Roles alone it watches each
// namespace. Which one it chose shows in the reflectors' "listed" lines (a per-namespace reflector
// logs its namespace).
import { afterAll, describe, expect, it } from 'vitest';
import type { GlooHASpec } from '../../src/products/gloo/types.js';
import { APPLIED_ANNOTATION } from '../../src/controller/plan-types.js';
import { AppsV1Api } from '@kubernetes/client-node';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { createGlooInstall } from '../support/gloo-install.js';
import { createGlooHA, deleteGlooHA, getGlooHA } from '../support/glooha.js';
import { installOperatorRbac, startOperatorInProcess, type InProcessOperator } from '../support/operator.js';
import { eventually } from '../support/wait.js';

const apps = adminKubeConfig().makeApiClient(AppsV1Api);
const SPEC: GlooHASpec = { gloo: { replicas: 2 } };

type Line = { msg?: string; informer?: string; namespace?: string; kinds?: string[] };
const lines = (op: InProcessOperator) => op.logs.map((l) => JSON.parse(l) as Line);
/** The namespace of each "listed" line of the GlooHA informer ('' = a cluster-wide list). */
const glooHAListScopes = (op: InProcessOperator) =>
  lines(op)
    .filter((l) => l.msg === 'listed' && l.informer === 'gloohas.glooha.io')
    .map((l) => l.namespace ?? '');

describe('namespaced mode: the watch scope follows RBAC', () => {
  // GlooHAs go first, while the operators that put their finalizer on them still run.
  const glooHAs: (() => Promise<unknown>)[] = [];
  const operators: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    await Promise.all(glooHAs.map((c) => c().catch(() => undefined)));
    for (const c of operators) await c().catch(() => undefined);
  });

  async function installs(prefix: string) {
    const watched = [await createNamespace(`${prefix}-a`), await createNamespace(`${prefix}-b`)];
    const other = await createNamespace(`${prefix}-other`);
    for (const ns of [...watched, other]) {
      await createGlooInstall(adminKubeConfig(), { namespace: ns });
      await createGlooHA(ns, 'gloo', SPEC);
      glooHAs.push(() => deleteGlooHA(ns, 'gloo'));
    }
    return { watched, other };
  }

  async function start(prefix: string, watched: string[], clusterWideReads: boolean) {
    const opNs = await createNamespace(`${prefix}-op`);
    const id = await installOperatorRbac(opNs, { watchNamespaces: watched, clusterWideReads });
    const op = await startOperatorInProcess(id, {
      args: [`--watch-namespaces=${watched.join(',')}`],
      logLevel: 'debug',
    });
    operators.push(() => op.shutdown('test end'));
    for (const ns of watched) {
      await eventually(
        `${ns}: gloo applied`,
        () => apps.readNamespacedDeployment({ name: 'gloo', namespace: ns }),
        (d) => d.spec?.replicas === 2 && Boolean(d.metadata?.annotations?.[APPLIED_ANNOTATION]),
        { timeoutMs: 60_000 },
      );
    }
    return op;
  }

  it('rbac.clusterWideReads: one cluster-wide list+watch per kind; only the watched namespaces are reconciled', async () => {
    const { watched, other } = await installs('scope-wide');
    const op = await start('scope-wide', watched, true);
    expect(glooHAListScopes(op)).toEqual(['']);
    const chose = lines(op).find((l) => l.msg?.startsWith('one cluster-wide watch per kind'));
    expect(chose?.kinds).toEqual(expect.arrayContaining(['gloohas.glooha.io', 'deployments.apps']));
    // The other namespace's GlooHA and Deployment came through the same watch and were dropped.
    const untouched = await getGlooHA(other, 'gloo');
    expect(untouched.metadata?.finalizers ?? []).toEqual([]);
    // Only the CRD's default status (Pending, generation 0 observed): the operator never wrote it.
    expect(untouched.status?.observedGeneration ?? 0).toBe(0);
    expect(untouched.status?.conditions?.map((c) => c.reason)).toEqual(['Pending']);
    const dep = await apps.readNamespacedDeployment({ name: 'gloo', namespace: other });
    expect(dep.metadata?.annotations?.[APPLIED_ANNOTATION]).toBeUndefined();
  });

  it('without it: one list+watch per watched namespace, as the per-namespace Roles allow', async () => {
    const { watched } = await installs('scope-ns');
    const op = await start('scope-ns', watched, false);
    expect(glooHAListScopes(op).sort()).toEqual([...watched].sort());
    expect(lines(op).some((l) => l.msg?.startsWith('one watch per watched namespace'))).toBe(true);
  });
});
