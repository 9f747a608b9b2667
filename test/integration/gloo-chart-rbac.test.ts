// Dropping the wildcard of Gloo's chart on leases and configmaps, and running Gloo's leader election on
// the operator's least-privilege Role alone.
//
// Gloo's chart grants its `gloo` ServiceAccount `*` on leases and configmaps through the role
// kube-leader-election; the chart has no value for that role alone. The chart value that drops it is
// global.glooRbac.create=false, which drops all of Gloo's RBAC: the user then applies the chart's other
// roles themselves (rendered from the same chart, kube-leader-election left out — what this test does
// with `helm template`). The operator's Role then is the only grant on leases.
//
// There is no Gloo process here (no container runs on kwok's nodes). What stands in for Gloo's leader
// election (controller-runtime's client-go LeaseLock: get, create, update on the Lease `gloo`) is
//  - SubjectAccessReviews for exactly those requests as the gloo ServiceAccount, and
//  - two real lease electors (the operator's own, which make the same get/create/update requests plus a
//    watch on that one name) running with tokens of the gloo ServiceAccount: one leads, the other
//    takes over when it stops, and the GlooHA reports the holder.
// What it cannot prove: that a future Gloo makes no other request (e.g. a configmaps lock); Gloo 1.22's
// controller-runtime v0.22 uses the Lease lock only.
import {
  AuthorizationV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/kube/client.js';
import { LeaderElector } from '../../src/leader/elector.js';
import { KubeLeaseClient } from '../../src/leader/lease-client.js';
import { adminKubeConfig, createNamespace, kubeConfigFor } from '../support/cluster.js';
import { glooChart, helm, installGloo } from '../support/gloo-chart.js';
import { createGlooHA, getGlooHA } from '../support/glooha.js';
import { parseManifests } from '../unit/chart/helm.js';
import { installOperatorRbac, startOperatorInProcess, type InProcessOperator } from '../support/operator.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const authz = admin.makeApiClient(AuthorizationV1Api);
const rbac = admin.makeApiClient(RbacAuthorizationV1Api);

const NO_CHART_RBAC = { global: { glooRbac: { create: false } } };
const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

async function allowed(
  ns: string,
  verb: string,
  resource: string,
  group: string,
  name?: string,
): Promise<boolean> {
  const review = await authz.createSubjectAccessReview({
    body: {
      spec: {
        user: `system:serviceaccount:${ns}:gloo`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
        resourceAttributes: { namespace: ns, verb, resource, group, ...(name ? { name } : {}) },
      },
    },
  });
  return review.status?.allowed === true;
}

describe("Gloo's leader election on the operator's Role alone (chart wildcard dropped)", () => {
  let ns: string;
  let operator: InProcessOperator;
  const electors: LeaderElector[] = [];

  beforeAll(async () => {
    ns = await createNamespace('gloo-rbac');
    await installGloo(4, ns, 'gloo', NO_CHART_RBAC);
    // The chart's other roles, applied by the user from the same chart: everything RBAC it renders
    // with its defaults except kube-leader-election (the wildcard) and its binding.
    const rendered = await helm(4, [
      'template',
      'gloo',
      glooChart(),
      '-n',
      ns,
      '--set',
      'gateway.validation.webhook.enabled=false',
    ]);
    expect(rendered.ok, rendered.stderr).toBe(true);
    const api = KubernetesObjectApi.makeApiClient(admin);
    for (const obj of parseManifests(rendered.stdout)) {
      if (!RBAC_KINDS.has(obj.kind ?? '')) continue;
      if (obj.metadata?.name?.startsWith('kube-leader-election')) continue;
      await api.patch(obj, undefined, undefined, 'user', true, PatchStrategy.ServerSideApply);
    }
    const opNs = await createNamespace('gloo-rbac-op');
    const id = await installOperatorRbac(opNs, { watchNamespaces: [ns] });
    operator = await startOperatorInProcess(id, { args: [`--watch-namespaces=${ns}`] });
  }, 300_000);

  afterAll(async () => {
    for (const e of electors) await e.stop();
    await operator?.shutdown('test done');
  });

  it('with global.glooRbac.create=false no role grants * on leases or configmaps, and the gloo ServiceAccount cannot touch Leases', async () => {
    const roles = await rbac.listClusterRole();
    const nsRoles = await rbac.listNamespacedRole({ namespace: ns });
    // This install's roles only (other test files leave Gloo installs with the chart's RBAC on behind):
    // Gloo's chart names its ClusterRoles `<role>-<release namespace>`; Helm annotates what it installs.
    const ofThisRelease = (r: {
      metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
    }) =>
      r.metadata?.namespace === ns ||
      (r.metadata?.name ?? '').endsWith(`-${ns}`) ||
      r.metadata?.annotations?.['meta.helm.sh/release-namespace'] === ns;
    const wildcard = [...roles.items, ...nsRoles.items].filter(
      (r) =>
        ofThisRelease(r) &&
        (r.rules ?? []).some(
          (rule) =>
            rule.verbs.includes('*') && rule.resources?.some((x) => x === 'leases' || x === 'configmaps'),
        ),
    );
    // The filter must see this install's roles (the ones applied above), or the check proves nothing.
    expect([...roles.items, ...nsRoles.items].filter(ofThisRelease).length).toBeGreaterThan(0);
    expect(wildcard.map((r) => r.metadata?.name)).toEqual([]);
    expect(await allowed(ns, 'get', 'leases', 'coordination.k8s.io', 'gloo')).toBe(false);
    expect(await allowed(ns, 'create', 'leases', 'coordination.k8s.io')).toBe(false);
    // Gloo's other roles still let it read ConfigMaps (kube-resource-watcher), never write them.
    for (const verb of ['create', 'update', 'delete'])
      expect(await allowed(ns, verb, 'configmaps', ''), `${verb} configmaps`).toBe(false);
  });

  it("after the GlooHA, exactly client-go's LeaseLock requests on the Lease gloo are allowed, nothing else", async () => {
    await createGlooHA(ns, 'gloo', { gloo: { replicas: 2 } });
    await eventually(
      'the operator Role to bind the gloo ServiceAccount',
      () => allowed(ns, 'update', 'leases', 'coordination.k8s.io', 'gloo'),
      (ok) => ok,
      { timeoutMs: 60_000 },
    );
    for (const verb of ['get', 'create', 'update'])
      expect(await allowed(ns, verb, 'leases', 'coordination.k8s.io', 'gloo'), verb).toBe(true);
    expect(await allowed(ns, 'update', 'leases', 'coordination.k8s.io', 'someone-else')).toBe(false);
    expect(await allowed(ns, 'delete', 'leases', 'coordination.k8s.io', 'gloo')).toBe(false);
    expect(await allowed(ns, 'update', 'configmaps', '', 'gloo')).toBe(false);
  });

  it('two electors with gloo ServiceAccount tokens elect one leader, fail over, and the GlooHA shows the holder', async () => {
    const leading = new Set<string>();
    for (const identity of ['gloo-a', 'gloo-b']) {
      const kubeConfig = await kubeConfigFor(ns, 'gloo');
      const e = new LeaderElector({
        lease: new KubeLeaseClient({ client: new KubeClient(kubeConfig), namespace: ns, name: 'gloo' }),
        identity,
        name: 'gloo',
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 500,
        releaseOnCancel: true,
        callbacks: {
          onStartedLeading: () => {
            leading.add(identity);
          },
          onStoppedLeading: () => {
            leading.delete(identity);
          },
        },
      });
      electors.push(e);
      e.start();
    }
    const first = await eventually(
      'one leader',
      async () => [...leading],
      (l) => l.length === 1,
    );
    const g = await eventually(
      'the GlooHA to show the leader',
      () => getGlooHA(ns, 'gloo'),
      (x) => x.status?.leader?.holder === first[0],
      { timeoutMs: 30_000 },
    );
    expect(g.status?.leader?.fresh).toBe(true);
    const leader = electors.find((_, i) => ['gloo-a', 'gloo-b'][i] === first[0])!;
    await leader.stop();
    const second = await eventually(
      'the other to take over',
      async () => [...leading],
      (l) => l.length === 1 && l[0] !== first[0],
      {
        timeoutMs: 15_000,
      },
    );
    expect(second).toHaveLength(1);
  });
});
