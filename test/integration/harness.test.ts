// Proves the test control plane is a real Kubernetes: storage and optimistic concurrency (etcd +
// kube-apiserver), RBAC with real ServiceAccount tokens, garbage collection (controller manager),
// scheduling and Ready pods (scheduler + kwok), and PDB-guarded evictions (disruption controller).
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  PolicyV1Api,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type V1Deployment,
} from '@kubernetes/client-node';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminKubeConfig, controlPlane, createNamespace, kubeConfigFor } from '../support/cluster.js';
import { HELM_MAJORS, helm } from '../support/gloo-chart.js';
import { eventually, httpStatusOf } from '../support/wait.js';

const admin = () => adminKubeConfig();

function deployment(
  namespace: string,
  name: string,
  replicas: number,
  extra: Partial<V1Deployment['metadata']> = {},
): V1Deployment {
  return {
    metadata: { name, namespace, ...extra },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'registry.invalid/none:1' }] },
      },
    },
  };
}

describe('test control plane', () => {
  it('stores Leases with optimistic concurrency (stale resourceVersion → 409)', async () => {
    const ns = await createNamespace('lease');
    const leases = admin().makeApiClient(CoordinationV1Api);
    const created = await leases.createNamespacedLease({
      namespace: ns,
      body: { metadata: { name: 'l' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } },
    });
    const stale = structuredClone(created);
    const updated = await leases.replaceNamespacedLease({
      name: 'l',
      namespace: ns,
      body: { ...created, spec: { ...created.spec, holderIdentity: 'b' } },
    });
    expect(updated.spec?.holderIdentity).toBe('b');
    expect(updated.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
    const conflict = await httpStatusOf(
      leases.replaceNamespacedLease({
        name: 'l',
        namespace: ns,
        body: { ...stale, spec: { ...stale.spec, holderIdentity: 'c' } },
      }),
    );
    expect(conflict).toBe(409);
    await leases.deleteNamespacedLease({ name: 'l', namespace: ns });
    expect(await httpStatusOf(leases.readNamespacedLease({ name: 'l', namespace: ns }))).toBe(404);
  });

  it('enforces RBAC on ServiceAccount tokens: 403 without a Role, 200 with one', async () => {
    const ns = await createNamespace('rbac');
    const sa = await kubeConfigFor(ns, 'reader');
    const asSa = sa.makeApiClient(CoordinationV1Api);
    expect(await httpStatusOf(asSa.listNamespacedLease({ namespace: ns }))).toBe(403);

    const rbac = admin().makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'lease-reader' },
        rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'lease-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'lease-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
      },
    });
    await eventually(
      'the RoleBinding to take effect',
      () => httpStatusOf(asSa.listNamespacedLease({ namespace: ns })),
      (s) => s === 200,
    );
    // Only what was granted: the same identity still cannot read Secrets.
    expect(await httpStatusOf(sa.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: ns }))).toBe(403);
  });

  it('garbage-collects a Deployment whose owner ConfigMap is deleted (controller manager runs)', async () => {
    const ns = await createNamespace('gc');
    const core = admin().makeApiClient(CoreV1Api);
    const apps = admin().makeApiClient(AppsV1Api);
    const owner = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'owner' } },
    });
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deployment(ns, 'owned', 0, {
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }],
      }),
    });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns });
    await eventually(
      'the garbage collector to delete the owned Deployment',
      () => httpStatusOf(apps.readNamespacedDeployment({ name: 'owned', namespace: ns })),
      (s) => s === 404,
      { timeoutMs: 60_000 },
    );
  });

  it('runs pods to Ready on simulated nodes and guards evictions with a PDB (429 past the budget)', async () => {
    const ns = await createNamespace('pdb');
    const core = admin().makeApiClient(CoreV1Api);
    const apps = admin().makeApiClient(AppsV1Api);
    const policy = admin().makeApiClient(PolicyV1Api);
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment(ns, 'web', 3) });
    await eventually(
      '3 ready replicas',
      () => apps.readNamespacedDeployment({ name: 'web', namespace: ns }),
      (d) => d.status?.readyReplicas === 3,
      { timeoutMs: 60_000 },
    );
    await policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
      },
    });
    await eventually(
      'the disruption controller to compute the PDB status',
      () => policy.readNamespacedPodDisruptionBudget({ name: 'web', namespace: ns }),
      (p) => p.status?.observedGeneration === p.metadata?.generation && p.status?.disruptionsAllowed === 1,
    );
    const pods = (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=web' })).items;
    expect(pods).toHaveLength(3);
    expect(new Set(pods.map((p) => p.spec?.nodeName)).size).toBeGreaterThan(0);
    const evict = (name: string) =>
      httpStatusOf(
        core.createNamespacedPodEviction({
          name,
          namespace: ns,
          body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } },
        }),
      );
    // Cordon every node first, as a drain does: kwok makes a replacement pod Ready within
    // milliseconds, which would otherwise restore the budget between the two evictions.
    const setCordon = (unschedulable: boolean) =>
      Promise.all(
        controlPlane().nodes.map((name) =>
          core.patchNode(
            { name, body: { spec: { unschedulable } } },
            setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
          ),
        ),
      );
    await setCordon(true);
    try {
      expect(await evict(pods[0]!.metadata!.name!)).toBe(200);
      expect(await evict(pods[1]!.metadata!.name!)).toBe(429);
    } finally {
      await setCordon(false);
    }
  });
});

describe('the Helm harness (test/support/gloo-chart.ts helm())', () => {
  // A loaded machine once made a helm upgrade outlast the harness's timeout: killed mid-way, it left
  // its release pending-upgrade, and every later test of the file failed with "another operation
  // (install/upgrade/rollback) is in progress". A killed command now says what it waited for and
  // leaves the release at its last finished revision.
  it.each(HELM_MAJORS)(
    'Helm %i: an upgrade killed at the timeout says so and leaves no pending release; the next upgrade succeeds',
    async (major) => {
      const ns = await createNamespace(`helm${major}-killed`);
      const chart = mkdtempSync(join(tmpdir(), 'glooha-chart-'));
      try {
        writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: unschedulable\nversion: 0.1.0\n');
        mkdirSync(join(chart, 'templates'));
        // A Deployment whose pod no node takes: `--wait` never ends on it.
        writeFileSync(
          join(chart, 'templates', 'deployment.yaml'),
          `apiVersion: apps/v1
kind: Deployment
metadata: {name: never-ready}
spec:
  replicas: {{ .Values.replicas | default 1 }}
  selector: {matchLabels: {app: never-ready}}
  template:
    metadata: {labels: {app: never-ready}}
    spec:
      nodeSelector: {glooha.io/no-such-node: "true"}
      containers: [{name: c, image: registry.invalid/none:1}]
`,
        );
        const release = 'killed';
        const installed = await helm(major, ['install', release, chart, '-n', ns]);
        expect(installed.ok, installed.stderr).toBe(true);

        const killed = await helm(
          major,
          ['upgrade', release, chart, '-n', ns, '--set', 'replicas=2', '--wait', '--timeout', '10m'],
          { timeoutMs: 4_000 },
        );
        expect(killed.ok).toBe(false);
        expect(killed.stderr).toContain(`helm ${major} upgrade ${release} did not finish within 4 s`);
        expect(killed.stderr).toContain(`removed its pending-upgrade revision 2 of release ${ns}/${release}`);

        const next = await helm(major, ['upgrade', release, chart, '-n', ns, '--set', 'replicas=3']);
        expect(next.ok, next.stderr).toBe(true);
        const status = await helm(major, ['status', release, '-n', ns, '-o', 'json']);
        expect((JSON.parse(status.stdout) as { info: { status: string } }).info.status).toBe('deployed');
      } finally {
        rmSync(chart, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
