// The install paths against the real API server: `helm lint`, the chart and deploy/install.yaml
// server-side applied (pods admitted under the "restricted" Pod Security Standard, scheduled apart, and
// guarded by the PDB), and the chart's RBAC proven with the chart's own ServiceAccount token: it may do
// every verb the operator uses, nothing it must not (Secrets, deleting Deployments, ClusterRoles), and
// it can grant Gloo the Lease Role (RBAC's escalation check passes) but not a Role with more than it holds.
//
// Every test uses its own release name and namespaces, so cluster-scoped objects (ClusterRole,
// ClusterRoleBinding) never collide; they are deleted at the end.
import {
  ApiextensionsV1Api,
  AppsV1Api,
  AuthorizationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  FlowcontrolApiserverV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  PolicyV1Api,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type KubernetesObject,
  type V1Deployment,
  type V1NetworkPolicy,
} from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../scripts/lint-manifests.js';
import { installManifestPath, renderKubeVersion } from '../../scripts/sync-chart.js';
import { LEASE_RULES } from '../../src/products/gloo/leader-election.js';
import { stringify } from 'yaml';
import { locateBinaries } from '../env/binaries.js';
import { adminKubeConfig, controlPlane, createNamespace, kubeConfigFor } from '../support/cluster.js';
import { eventually, httpStatusOf } from '../support/wait.js';
import {
  checksOf,
  electionPermissions,
  mustNotAllow,
  reconcilerPermissions,
  type Check,
} from '../unit/chart/expected-rbac.js';
import { chartDir, helm, helmBuildTimeoutMs, parseManifests, render, runHelm } from '../unit/chart/helm.js';

const fieldManager = 'glooha-chart-test';
const admin = () => adminKubeConfig();
const suffix = () => randomBytes(3).toString('hex');
const clusterScoped: KubernetesObject[] = [];

/**
 * `kubectl apply --server-side` of the objects, as a user installs them (with dryRun: validated,
 * defaulted and admitted by the server, stored nowhere). kubectl rather than client-node's
 * KubernetesObjectApi: client-node 1.4 re-serializes a plain object through its typed models and drops
 * nested fields such as a CRD schema's `x-kubernetes-int-or-string`, so the server would see a
 * different CRD than the file.
 */
function apply(objects: KubernetesObject[], { dryRun = false } = {}): KubernetesObject[] {
  const args = [
    'apply',
    '--server-side',
    `--field-manager=${fieldManager}`,
    '--force-conflicts',
    '-o',
    'json',
    '-f',
    '-',
  ];
  if (dryRun) args.push('--dry-run=server');
  let out: string;
  try {
    out = execFileSync(locateBinaries().path('kubectl'), args, {
      input: objects.map((o) => stringify(o)).join('---\n'),
      encoding: 'utf8',
      env: { ...process.env, KUBECONFIG: controlPlane().kubeconfigPath },
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 32 << 20,
      timeout: 60_000,
    });
  } catch (err) {
    throw new Error(`kubectl apply failed: ${(err as { stderr?: string }).stderr ?? String(err)}`, {
      cause: err,
    });
  }
  if (!dryRun) clusterScoped.push(...objects.filter((o) => !o.metadata?.namespace));
  const parsed = JSON.parse(out) as KubernetesObject & { items?: KubernetesObject[] };
  return parsed.kind === 'List' ? (parsed.items ?? []) : [parsed];
}

/** Applies the chart's CRD copy (what Helm installs) and waits until it is served. */
async function installChartCrd(): Promise<void> {
  const dir = join(chartDir, 'crds');
  const crds = readdirSync(dir).flatMap((f) => parseManifests(readFileSync(join(dir, f), 'utf8')));
  apply(crds);
  await crdsEstablished(crds);
}

async function crdsEstablished(crds: KubernetesObject[]): Promise<void> {
  const ext = admin().makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    await eventually(
      `CRD ${crd.metadata?.name} Established`,
      () => ext.readCustomResourceDefinition({ name: crd.metadata!.name! }),
      (got) => got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true,
    );
  }
}

async function restrictedNamespace(prefix: string): Promise<string> {
  const name = await createNamespace(prefix);
  const labels = {
    'pod-security.kubernetes.io/enforce': 'restricted',
    'pod-security.kubernetes.io/enforce-version': 'latest',
  };
  apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }]);
  return name;
}

/** SelfSubjectAccessReview as the given identity. */
/** The APF FlowSchema and priority level UIDs the API server reports for a GET as `kc` (any status). */
async function flowOf(
  kc: KubeConfig,
  path: string,
): Promise<{ flowSchema?: string; priorityLevel?: string }> {
  const server = new URL(kc.getCurrentCluster()?.server ?? '');
  const opts: RequestOptions = { hostname: server.hostname, port: server.port, path, method: 'GET' };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(opts, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          flowSchema: res.headers['x-kubernetes-pf-flowschema-uid'] as string | undefined,
          priorityLevel: res.headers['x-kubernetes-pf-prioritylevel-uid'] as string | undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

async function allowed(kc: KubeConfig, c: Check, namespace?: string): Promise<boolean> {
  const review = await kc.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
    body: {
      spec: {
        resourceAttributes: {
          group: c.group,
          resource: c.resource,
          verb: c.verb,
          ...(c.subresource ? { subresource: c.subresource } : {}),
          ...(c.clusterScoped || namespace === undefined ? {} : { namespace }),
        },
      },
    },
  });
  return review.status?.allowed === true;
}

const label = (c: Check) =>
  `${c.verb} ${c.group || 'core'}/${c.resource}${c.subresource ? '/' + c.subresource : ''}`;

/** Every check's outcome, for one readable assertion: { "get apps/deployments": true, ... }. */
async function outcomes(
  kc: KubeConfig,
  checks: Check[],
  namespace?: string,
): Promise<Record<string, boolean>> {
  const results = await Promise.all(checks.map((c) => allowed(kc, c, namespace)));
  return Object.fromEntries(checks.map((c, i) => [label(c), results[i]!]));
}

const all = (checks: Check[], value: boolean) => Object.fromEntries(checks.map((c) => [label(c), value]));

beforeAll(() => {
  helm();
}, helmBuildTimeoutMs);

afterAll(async () => {
  const api = KubernetesObjectApi.makeApiClient(admin());
  // Cluster-scoped objects outlive the namespaces: the admission policies above all, which would go on
  // refusing later files' writes (the replicas floor, the fencing of this file's ServiceAccounts).
  const removable = [
    'ClusterRole',
    'ClusterRoleBinding',
    'ValidatingAdmissionPolicy',
    'ValidatingAdmissionPolicyBinding',
  ];
  for (const o of clusterScoped.filter((o) => removable.includes(o.kind ?? ''))) {
    await api.delete(o).catch(() => undefined);
  }
});

describe('helm lint', () => {
  const lint = (values?: Record<string, unknown>) =>
    runHelm(['lint', chartDir, '--strict', '--kube-version', renderKubeVersion()], values);

  it('passes with the default values and in namespaced mode', async () => {
    const plain = await lint();
    expect(plain.stderr + plain.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(plain.ok).toBe(true);
    const namespaced = await lint({ watchNamespaces: ['gloo-a', 'gloo-b'] });
    expect(namespaced.ok, namespaced.stderr + namespaced.stdout).toBe(true);
    const monitored = await lint({ metrics: { serviceMonitor: { enabled: true } } });
    expect(monitored.ok, monitored.stderr + monitored.stdout).toBe(true);
    console.log(
      `helm lint: ${plain.ms.toFixed(0)} ms (defaults), ${namespaced.ms.toFixed(0)} ms (namespaced)`,
    );
  });

  it('fails on a misspelled value (values.schema.json)', async () => {
    const res = await lint({ watchNamespace: ['gloo-a'] });
    expect(res.ok).toBe(false);
    expect(res.stdout + res.stderr).toContain("additional properties 'watchNamespace' not allowed");
  });
});

describe('deploy/install.yaml', () => {
  it('server-side applies: Namespace and CRD for real, every other object validated and admitted (kubectl --dry-run=server)', async () => {
    const objects = parseManifests(readFileSync(installManifestPath, 'utf8'));
    const [ns, crd, ...rest] = objects;
    expect([ns?.kind, crd?.kind]).toEqual(['Namespace', 'CustomResourceDefinition']);
    const started = performance.now();
    apply([ns!, crd!]);
    await crdsEstablished([crd!]);
    // The operator's objects use fixed names (glooha-system, ClusterRole glooha-operator) that other tests may
    // install for real; a server-side dry run runs validation, defaulting and admission without storing them.
    const applied = apply(rest, { dryRun: true });
    console.log(
      `install.yaml: ${objects.length} objects server-side applied in ${(performance.now() - started).toFixed(0)} ms`,
    );
    expect(applied.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(
      rest.map((o) => `${o.kind}/${o.metadata?.name}`),
    );
    const deploy = applied.find((o) => o.kind === 'Deployment') as V1Deployment;
    expect(deploy.metadata?.namespace).toBe('glooha-system');
    expect(deploy.spec?.template.spec?.securityContext?.runAsUser).toBe(65532);
  });
});

describe('the chart, installed (cluster mode)', () => {
  let ns: string;
  let glooNs: string;
  let release: string;
  let sa: KubeConfig;

  beforeAll(async () => {
    ns = await restrictedNamespace('chart');
    glooNs = await createNamespace('gloo');
    release = `c${suffix()}`;
    const objects = await render({ release, namespace: ns });
    const started = performance.now();
    apply(objects);
    console.log(
      `chart (cluster mode): ${objects.length} objects applied in ${(performance.now() - started).toFixed(0)} ms`,
    );
    sa = await kubeConfigFor(ns, `${release}-glooha-operator`);
    await eventually(
      'the ClusterRoleBinding to take effect',
      () => allowed(sa, { group: 'glooha.io', resource: 'gloohas', verb: 'list' }),
      (a) => a,
    );
  });

  it('runs 2 replicas admitted under the restricted Pod Security Standard, on different nodes, guarded by the PDB', async () => {
    const apps = admin().makeApiClient(AppsV1Api);
    const core = admin().makeApiClient(CoreV1Api);
    const name = `${release}-glooha-operator`;
    // A compact view for the timeout message: the Deployment's counts, each pod, and warning events.
    const state = async () => {
      const d = await apps.readNamespacedDeployment({ name, namespace: ns });
      const pods = (await core.listNamespacedPod({ namespace: ns })).items.map(
        (p) => `${p.metadata?.name} ${p.status?.phase} node=${p.spec?.nodeName ?? '-'}`,
      );
      const warnings = (await core.listNamespacedEvent({ namespace: ns })).items
        .filter((e) => e.type === 'Warning')
        .map((e) => `${e.involvedObject.kind}/${e.involvedObject.name}: ${e.reason} ${e.message}`);
      return {
        ready: d.status?.readyReplicas ?? 0,
        conditions: d.status?.conditions?.map((c) => `${c.type}=${c.status} ${c.message}`),
        pods,
        warnings,
      };
    };
    await eventually('2 ready operator replicas', state, (s) => s.ready === 2, { timeoutMs: 90_000 });
    const pods = (await admin().makeApiClient(CoreV1Api).listNamespacedPod({ namespace: ns })).items;
    expect(pods).toHaveLength(2);
    expect(
      new Set(pods.map((p) => p.spec?.nodeName)).size,
      'pods on distinct nodes (hostname anti-affinity)',
    ).toBe(2);
    const pdb = await eventually(
      'the PDB status',
      () => admin().makeApiClient(PolicyV1Api).readNamespacedPodDisruptionBudget({ name, namespace: ns }),
      (p) => p.status?.observedGeneration === p.metadata?.generation && p.status?.expectedPods === 2,
    );
    expect(pdb.status?.disruptionsAllowed).toBe(1);
  });

  it("classifies the ServiceAccount's Lease requests, and only those, into the leader-election priority level", async () => {
    const schema = await admin()
      .makeApiClient(FlowcontrolApiserverV1Api)
      .readFlowSchema({ name: `${release}-glooha-operator-leader-election` });
    const level = await admin()
      .makeApiClient(FlowcontrolApiserverV1Api)
      .readPriorityLevelConfiguration({ name: 'leader-election' });
    // The API server names the schema and level that admitted each request in response headers.
    const lease = await flowOf(sa, `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/glooha-operator`);
    expect(lease).toEqual({ flowSchema: schema.metadata?.uid, priorityLevel: level.metadata?.uid });
    const other = await flowOf(sa, `/apis/glooha.io/v1alpha1/namespaces/${glooNs}/gloohas`);
    expect(other.flowSchema).toBeDefined();
    expect(other.flowSchema).not.toBe(schema.metadata?.uid);
    const leaseElsewhere = await flowOf(sa, `/apis/coordination.k8s.io/v1/namespaces/${glooNs}/leases/gloo`);
    expect(leaseElsewhere.flowSchema).not.toBe(schema.metadata?.uid);
  });

  it('re-applying the same manifests changes nothing (no field the server keeps rewriting)', async () => {
    const objects = await render({ release, namespace: ns });
    const api = KubernetesObjectApi.makeApiClient(admin());
    // generation for objects that have one (status writes by controllers do not bump it), else resourceVersion.
    const version = (o: KubernetesObject) => o.metadata?.generation ?? o.metadata?.resourceVersion;
    const before = await Promise.all(objects.map((o) => api.read(o as never)));
    const after = apply(objects);
    expect(after.map(version)).toEqual(before.map(version));
  });

  it('lets the ServiceAccount do every verb the operator uses, in any namespace', async () => {
    const checks = checksOf(reconcilerPermissions);
    expect(await outcomes(sa, checks, glooNs)).toEqual(all(checks, true));
    expect(await outcomes(sa, checks, ns)).toEqual(all(checks, true));
    // Cluster-wide list/watch, which the operator's informers use in cluster mode.
    const clusterWide = checks.filter((c) => c.verb === 'list' || c.verb === 'watch');
    expect(await outcomes(sa, clusterWide)).toEqual(all(clusterWide, true));
  });

  it('denies it everything else checked: Secrets, Deployment create/delete/scale, ClusterRoles, escalate/bind, impersonation', async () => {
    expect(await outcomes(sa, mustNotAllow, glooNs)).toEqual(all(mustNotAllow, false));
    expect(await outcomes(sa, mustNotAllow, ns)).toEqual(all(mustNotAllow, false));
  });

  it('is refused by the API server for real: 403 on Secrets, deleting a Deployment, creating a ClusterRole', async () => {
    const deployment: V1Deployment = {
      metadata: { name: 'gloo', namespace: glooNs },
      spec: {
        replicas: 1,
        selector: { matchLabels: { gloo: 'gloo' } },
        template: {
          metadata: { labels: { gloo: 'gloo' } },
          spec: { containers: [{ name: 'gloo', image: 'registry.invalid/gloo:1' }] },
        },
      },
    };
    await admin()
      .makeApiClient(AppsV1Api)
      .createNamespacedDeployment({ namespace: glooNs, body: deployment });
    await installChartCrd(); // for the real GlooHA list below
    const core = sa.makeApiClient(CoreV1Api);
    const apps = sa.makeApiClient(AppsV1Api);
    expect(await httpStatusOf(core.listNamespacedSecret({ namespace: glooNs }))).toBe(403);
    expect(await httpStatusOf(core.listSecretForAllNamespaces())).toBe(403);
    expect(await httpStatusOf(apps.deleteNamespacedDeployment({ name: 'gloo', namespace: glooNs }))).toBe(
      403,
    );
    expect(
      await httpStatusOf(
        sa.makeApiClient(RbacAuthorizationV1Api).createClusterRole({
          body: {
            metadata: { name: `${release}-nope` },
            rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
          },
        }),
      ),
    ).toBe(403);
    // ...while what it does use works: list GlooHAs everywhere (a CRD just (re)applied may answer 429
    // for a moment), server-side apply replicas onto Gloo's Deployment.
    const glooHAs = sa.makeApiClient(CustomObjectsApi);
    await eventually(
      'GlooHA list as the operator',
      () =>
        httpStatusOf(
          glooHAs.listClusterCustomObject({ group: 'glooha.io', version: 'v1alpha1', plural: 'gloohas' }),
        ),
      (status) => status !== 429,
      { timeoutMs: 15_000 },
    ).then((status) => expect(status).toBe(200));
    const objects = KubernetesObjectApi.makeApiClient(sa);
    const patched = await objects.patch<V1Deployment>(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'gloo', namespace: glooNs },
        spec: { replicas: 2 },
      } as V1Deployment,
      undefined,
      undefined,
      'glooha-operator',
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(patched.spec?.replicas).toBe(2);
  });

  it("can create the Role and RoleBinding that grant Gloo's ServiceAccount its Lease (escalation check passes), and that Role works", async () => {
    const rbac = sa.makeApiClient(RbacAuthorizationV1Api);
    const created = await rbac.createNamespacedRole({
      namespace: glooNs,
      body: { metadata: { name: 'gloo-leader-election' }, rules: LEASE_RULES },
    });
    expect(created.rules).toEqual(LEASE_RULES);
    await rbac.createNamespacedRoleBinding({
      namespace: glooNs,
      body: {
        metadata: { name: 'gloo-leader-election' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gloo-leader-election' },
        subjects: [{ kind: 'ServiceAccount', name: 'gloo', namespace: glooNs }],
      },
    });
    // Gloo's ServiceAccount can now hold its `gloo` Lease (and nothing else).
    const gloo = await kubeConfigFor(glooNs, 'gloo');
    const leases = gloo.makeApiClient(CoordinationV1Api);
    await eventually(
      "Gloo's Lease create to be allowed",
      () =>
        httpStatusOf(
          leases.createNamespacedLease({
            namespace: glooNs,
            body: { metadata: { name: 'gloo' }, spec: { holderIdentity: 'gloo-1' } },
          }),
        ),
      (s) => s === 200,
    );
    expect(await httpStatusOf(leases.readNamespacedLease({ name: 'gloo', namespace: glooNs }))).toBe(200);
    expect(await httpStatusOf(leases.readNamespacedLease({ name: 'other', namespace: glooNs }))).toBe(403);
  });

  it('cannot create a Role granting more than it holds (secrets get, lease delete), nor bind one: 403 from the escalation check', async () => {
    const rbac = sa.makeApiClient(RbacAuthorizationV1Api);
    for (const rule of [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['delete'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['*'] },
    ]) {
      const status = await httpStatusOf(
        rbac.createNamespacedRole({
          namespace: glooNs,
          body: { metadata: { name: `too-much-${suffix()}` }, rules: [rule] },
        }),
      );
      expect(status, JSON.stringify(rule)).toBe(403);
    }
    // Nor bind an existing Role whose permissions it does not hold (no `bind` verb): one granting Secrets.
    await admin()
      .makeApiClient(RbacAuthorizationV1Api)
      .createNamespacedRole({
        namespace: glooNs,
        body: {
          metadata: { name: 'secret-reader' },
          rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
        },
      });
    const bind = await httpStatusOf(
      rbac.createNamespacedRoleBinding({
        namespace: glooNs,
        body: {
          metadata: { name: 'sneaky' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-reader' },
          subjects: [{ kind: 'ServiceAccount', name: `${release}-glooha-operator`, namespace: ns }],
        },
      }),
    );
    expect(bind).toBe(403);
  });
});

describe('the value sets kube-score lints (lint/kube-score.yaml)', () => {
  it('are admitted by the API server: NetworkPolicy, priorityClassName, namespaced and single-replica renders (dry run)', async () => {
    await installChartCrd();
    for (const [name, lintValues] of Object.entries(loadConfig().variants)) {
      const ns = await restrictedNamespace(`lint-${name}`);
      // Watched namespaces must exist for their Roles; use fresh ones of the same count.
      const watched = (lintValues.watchNamespaces as string[] | undefined) ?? [];
      const values = {
        ...lintValues,
        ...(watched.length > 0
          ? { watchNamespaces: await Promise.all(watched.map(() => createNamespace('lint-watched'))) }
          : {}),
      };
      const objects = await render({ release: `l${suffix()}`, namespace: ns, values });
      const applied = apply(objects, { dryRun: true });
      expect(applied.map((o) => o.kind).sort(), name).toEqual(objects.map((o) => o.kind).sort());
      if (name === 'network-policy') {
        const policy = applied.find((o) => o.kind === 'NetworkPolicy') as V1NetworkPolicy;
        expect(policy.spec?.egress?.[0]?.ports?.map((p) => p.port)).toEqual([443, 6443]);
      }
    }
  });
});

describe('helm install', () => {
  it('installs with Helm against the real API server (waits for Ready, prints the NOTES) and uninstalls cleanly', async () => {
    const ns = await restrictedNamespace('helm');
    const release = `h${suffix()}`;
    const kube = ['--kubeconfig', controlPlane().kubeconfigPath, '--namespace', ns];
    const installed = await runHelm(['install', release, chartDir, ...kube, '--wait', '--timeout', '90s']);
    expect(installed.ok, installed.stderr).toBe(true);
    console.log(`helm install --wait: ${installed.ms.toFixed(0)} ms`);
    expect(installed.stdout).toContain('NOTES:');
    expect(installed.stdout).toContain(
      `kubectl -n ${ns} rollout status deployment/${release}-glooha-operator`,
    );
    const name = `${release}-glooha-operator`;
    const deploy = await admin().makeApiClient(AppsV1Api).readNamespacedDeployment({ name, namespace: ns });
    expect(deploy.status?.readyReplicas).toBe(2);

    const uninstalled = await runHelm(['uninstall', release, ...kube, '--wait', '--timeout', '60s']);
    expect(uninstalled.ok, uninstalled.stderr).toBe(true);
    const rbac = admin().makeApiClient(RbacAuthorizationV1Api);
    expect(await httpStatusOf(rbac.readClusterRole({ name }))).toBe(404);
    expect(await httpStatusOf(rbac.readClusterRoleBinding({ name }))).toBe(404);
    // Helm keeps CRDs on uninstall (by design): the GlooHA CRD is still served.
    expect(
      await httpStatusOf(
        admin().makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: 'gloohas.glooha.io' }),
      ),
    ).toBe(200);
  });
});

describe('the chart, installed in namespaced mode (watchNamespaces)', () => {
  let ns: string;
  let watched: string[];
  let unwatched: string;
  let release: string;
  let sa: KubeConfig;

  beforeAll(async () => {
    ns = await restrictedNamespace('chart-ns');
    watched = [await createNamespace('gloo-a'), await createNamespace('gloo-b')];
    unwatched = await createNamespace('gloo-c');
    release = `n${suffix()}`;
    // Fencing off: this ServiceAccount's token is bound to no pod, so once the Lease test below has
    // created the operator's Lease, the fencing policy would refuse every write it makes, for that
    // reason, whatever RBAC says. This block is about RBAC; fencing.test.ts covers the policy.
    const objects = await render({
      release,
      namespace: ns,
      values: { watchNamespaces: watched, leaderElection: { fencingPolicy: { enabled: false } } },
    });
    expect(objects.filter((o) => o.kind?.startsWith('Cluster'))).toEqual([]);
    apply(objects);
    sa = await kubeConfigFor(ns, `${release}-glooha-operator`);
    await eventually(
      'the RoleBindings to take effect',
      () => allowed(sa, { group: 'glooha.io', resource: 'gloohas', verb: 'list' }, watched[1]),
      (a) => a,
    );
  });

  it('allows every operator verb in each watched namespace', async () => {
    const checks = checksOf(reconcilerPermissions);
    for (const w of watched) expect(await outcomes(sa, checks, w), w).toEqual(all(checks, true));
  });

  it('allows nothing in an unwatched namespace, nor cluster-wide', async () => {
    const checks = checksOf(reconcilerPermissions);
    expect(await outcomes(sa, checks, unwatched)).toEqual(all(checks, false));
    const clusterWide = checks.filter((c) => c.verb === 'list' || c.verb === 'watch');
    expect(await outcomes(sa, clusterWide)).toEqual(all(clusterWide, false));
    expect(await outcomes(sa, mustNotAllow, watched[0])).toEqual(all(mustNotAllow, false));
  });

  it('allows only its Lease and Events in its own namespace', async () => {
    const election = checksOf(electionPermissions);
    expect(await outcomes(sa, election, ns)).toEqual(all(election, true));
    const others = checksOf(reconcilerPermissions).filter(
      (c) => !election.some((e) => label(e) === label(c)),
    );
    expect(await outcomes(sa, others, ns)).toEqual(all(others, false));
    // Real calls: its own Lease can be created; Secrets and Gloo's Deployments elsewhere cannot be read.
    const leases = sa.makeApiClient(CoordinationV1Api);
    expect(
      await httpStatusOf(
        leases.createNamespacedLease({
          namespace: ns,
          body: { metadata: { name: 'glooha-operator' }, spec: { holderIdentity: 'me' } },
        }),
      ),
    ).toBe(200);
    expect(await httpStatusOf(sa.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: ns }))).toBe(403);
    expect(
      await httpStatusOf(sa.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace: unwatched })),
    ).toBe(403);
  });

  it("grants Gloo's Lease Role in a watched namespace but not in an unwatched one", async () => {
    const rbac = sa.makeApiClient(RbacAuthorizationV1Api);
    const create = (namespace: string) =>
      httpStatusOf(
        rbac.createNamespacedRole({
          namespace,
          body: { metadata: { name: 'gloo-leader-election' }, rules: LEASE_RULES },
        }),
      );
    expect(await create(watched[0]!)).toBe(200);
    expect(await create(unwatched)).toBe(403);
  });
});
