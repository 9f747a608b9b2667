// Health semantics as GitOps tools read them: one GlooHA driven through its lifecycle against the real
// API server, each state's real object judged by kstatus (sigs.k8s.io/cli-utils: Flux, kpt) and by
// Argo CD's Lua interpreter running deploy/argocd/health.lua. Then spec.suspend (zero writes, proven
// from the audit log), the reconcile-request annotation, and the uninstall cleanup docs/health.md
// documents. Pods run on kwok's nodes, so scheduling, readiness and progress deadlines are real.
import {
  AdmissionregistrationV1Api,
  AppsV1Api,
  CoordinationV1Api,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  RbacAuthorizationV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, RECONCILE_REQUEST_ANNOTATION, VERSION } from '../../src/api/constants.js';
import { KGATEWAY_KIND, KGATEWAY_PLURAL } from '../../src/products/kgateway/api.js';
import { PLURAL } from '../../src/products/gloo/api.js';
import { UNRECONCILED_STATUS } from '../../src/products/gloo/schema.js';
import type { GlooHA } from '../../src/products/gloo/types.js';
import { CONTROLLER_LEASE_NAME } from '../../src/products/kgateway/facts.js';
import { EXIT } from '../../src/cli/args.js';
import { main as cliMain } from '../../src/cli/main.js';
import { formatMicroTime } from '../../src/leader/lease-client.js';
import { auditWrites, describeAudit } from '../support/audit.js';
import { adminKubeConfig, controlPlane, createNamespace } from '../support/cluster.js';
import { createGlooInstall } from '../support/gloo-install.js';
import { createGlooHA, deleteGlooHA, getGlooHA } from '../support/glooha.js';
import {
  argoHealth,
  buildHealthJudges,
  kstatus,
  type ArgoHealth,
  type KstatusStatus,
} from '../support/health-judges.js';
import { kubectl } from '../support/kubectl.js';
import {
  installOperatorRbac,
  metricValue,
  scrapeMetrics,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { KGATEWAY_CONTROLLER_VERSION } from '../env/binaries.js';
import { kgatewayControllerDeployment } from '../support/kgateway.js';
import { eventually, httpStatusOf } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const policy = admin.makeApiClient(PolicyV1Api);
const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
const admission = admin.makeApiClient(AdmissionregistrationV1Api);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

let id: OperatorIdentity;
let operator: InProcessOperator | undefined;

/** Each lifecycle state: the real object, and what kstatus and Argo CD said about it. */
const verdicts: { state: string; kstatus: string; argo: string; message: string }[] = [];

/** Judges one captured object with both tools, records the verdicts, and asserts what a user expects. */
function judge(
  state: string,
  obj: GlooHA | null,
  want: { kstatus: KstatusStatus; argo?: ArgoHealth },
): { kstatus: string; argo?: string } {
  const [k] = kstatus([obj]);
  const [a] = obj ? argoHealth([obj]) : [undefined];
  verdicts.push({
    state,
    kstatus: k!.status,
    argo: a?.status ?? '(Missing: Argo CD itself)',
    message: a?.message ?? k!.message,
  });
  expect({ kstatus: k!.status, argo: a?.status }, `${state}: ${k!.message} / ${a?.message}`).toEqual({
    kstatus: want.kstatus,
    argo: want.argo,
  });
  return { kstatus: k!.message, argo: a?.message };
}

/** `glooha` as users run it (in process), with the admin kubeconfig; its output goes into `out`. */
function glooha(args: string[], out: { stdout: string; stderr: string }): Promise<number> {
  out.stdout = out.stderr = '';
  return cliMain(
    args,
    {
      readFile: () => '',
      readStdin: async () => '',
      stdout: (t) => void (out.stdout += t),
      stderr: (t) => void (out.stderr += t),
    },
    { KUBECONFIG: controlPlane().kubeconfigPath },
  );
}

function condition(g: GlooHA, type: string) {
  return g.status?.conditions?.find((c) => c.type === type);
}

async function waitCondition(
  namespace: string,
  name: string,
  type: string,
  status: string,
  reason?: string,
  timeoutMs = 60_000,
): Promise<GlooHA> {
  return eventually(
    `${namespace}/${name} ${type}=${status}${reason ? ` (${reason})` : ''}`,
    () => getGlooHA(namespace, name),
    (g) => {
      const c = condition(g, type);
      return (
        c?.status === status &&
        (reason === undefined || c.reason === reason) &&
        c.observedGeneration === g.metadata.generation
      );
    },
    { timeoutMs },
  );
}

async function patchGlooHA(namespace: string, name: string, body: object): Promise<GlooHA> {
  return (await custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body },
    mergePatch,
  )) as GlooHA;
}

/** Sets the reconcile-request annotation, as `kubectl annotate --overwrite` does. */
async function requestReconcile(namespace: string, name: string): Promise<string> {
  const value = new Date().toISOString();
  await patchGlooHA(namespace, name, {
    metadata: { annotations: { [RECONCILE_REQUEST_ANNOTATION]: value } },
  });
  return value;
}

async function deleteGlooHAObject(namespace: string, name: string): Promise<GlooHA> {
  return (await custom.deleteNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURAL,
    name,
  })) as GlooHA;
}

/** The ClusterRole the chart bound to the operator's ServiceAccount. */
async function operatorClusterRole(): Promise<string> {
  const bindings = (await rbac.listClusterRoleBinding()).items;
  const binding = bindings.find((b) =>
    b.subjects?.some((s) => s.name === id.serviceAccount && s.namespace === id.namespace),
  );
  if (!binding) throw new Error('no ClusterRoleBinding for the operator');
  return binding.roleRef.name;
}

// One operator for the whole file (the lifecycle starts it once its first state is captured).
beforeAll(async () => {
  buildHealthJudges(); // a cold build of both tools takes minutes; cached afterwards
  const opNs = await createNamespace('glooha-health');
  id = await installOperatorRbac(opNs);
}, 900_000);

afterAll(async () => {
  await operator?.shutdown('test end');
  console.log(
    ['lifecycle state | kstatus | Argo CD health | message', '--- | --- | --- | ---']
      .concat(verdicts.map((v) => `${v.state} | ${v.kstatus} | ${v.argo} | ${v.message}`))
      .join('\n'),
  );
});

describe('health semantics: a GlooHA through its lifecycle, judged by kstatus and Argo CD', () => {
  let ns: string;

  it('created, before any operator reconciled it: in progress, never a healthy-looking empty status', async () => {
    ns = await createNamespace('health');
    await createGlooInstall(admin, { namespace: ns, proxies: ['gateway-proxy'] });
    // gloo's pods cannot schedule until the nodeSelector goes, and its rollout gives up after 20 s:
    // the "progressing" and "past its deadline" states, made deterministic.
    await apps.patchNamespacedDeployment(
      {
        name: 'gloo',
        namespace: ns,
        fieldManager: 'helm',
        body: {
          spec: {
            progressDeadlineSeconds: 20,
            template: { spec: { nodeSelector: { 'glooha.io/test': 'no-such-node' } } },
          },
        },
      },
      mergePatch,
    );
    await createGlooHA(ns, 'gloo', {
      gloo: { replicas: 2 },
      gatewayProxies: { gatewayProxy: { replicas: 2 } },
    });
    const created = await getGlooHA(ns, 'gloo');
    // The CRD defaults the status on every read until the operator writes one: observedGeneration 0
    // and Ready=Unknown Pending, so `kubectl get gha` says what it waits for.
    expect(created.status).toEqual(UNRECONCILED_STATUS);
    const said = judge('created (no operator yet; also: namespace not watched)', created, {
      kstatus: 'InProgress',
      argo: 'Progressing',
    });
    expect(said.argo).toMatch(/running, and does it watch this namespace/);
    // The control: without that default, kstatus reads an empty status as Current.
    const { status: _dropped, ...withoutStatus } = created;
    expect(kstatus([withoutStatus])[0]!.status).toBe('Current');
  });

  it('progressing: Reconciling=True while replicas are not ready', async () => {
    operator = await startOperatorInProcess(id, { args: ['--resync-period=10m'] });
    await eventually(
      'the operator to lead',
      () => metricValue(operator!.metricsUrl, 'leader_election_master_status'),
      (v) => v === 1,
    );
    const progressing = await waitCondition(ns, 'gloo', 'Reconciling', 'True', undefined, 30_000);
    expect(condition(progressing, 'Stalled')?.status).toBe('False');
    judge('progressing (replicas not ready)', progressing, { kstatus: 'InProgress', argo: 'Progressing' });
  });

  it('rollout past its progress deadline: Stalled=True, Reconciling=False: Failed', async () => {
    const stalled = await waitCondition(ns, 'gloo', 'Stalled', 'True', 'ProgressDeadlineExceeded', 90_000);
    expect(condition(stalled, 'Reconciling')?.status).toBe('False');
    expect(condition(stalled, 'Stalled')?.message).toMatch(/Deployment gloo/);
    judge('rollout past its progress deadline', stalled, { kstatus: 'Failed', argo: 'Degraded' });
  });

  it('Ready once the pods can run: Current / Healthy', async () => {
    await apps.patchNamespacedDeployment(
      {
        name: 'gloo',
        namespace: ns,
        fieldManager: 'helm',
        body: { spec: { template: { spec: { nodeSelector: null } } } },
      },
      mergePatch,
    );
    const ready = await waitCondition(ns, 'gloo', 'Ready', 'True', undefined, 90_000);
    judge('Ready', ready, { kstatus: 'Current', argo: 'Healthy' });
  });

  it('spec changed: the new generation is in progress until the operator has observed it', async () => {
    const patched = await patchGlooHA(ns, 'gloo', { spec: { gloo: { replicas: 3 } } });
    expect(patched.metadata.generation).toBeGreaterThan(patched.status?.observedGeneration ?? 0);
    judge('spec changed (not yet observed)', patched, { kstatus: 'InProgress', argo: 'Progressing' });
    const ready = await waitCondition(ns, 'gloo', 'Ready', 'True', undefined, 60_000);
    judge('spec changed, then Ready', ready, { kstatus: 'Current', argo: 'Healthy' });
  });

  it('a proxy the spec names is missing: Stalled=True GatewayProxyNotFound: Failed', async () => {
    await patchGlooHA(ns, 'gloo', { spec: { gatewayProxies: { missingGw: { replicas: 2 } } } });
    const stalled = await waitCondition(ns, 'gloo', 'Stalled', 'True', 'GatewayProxyNotFound');
    expect(condition(stalled, 'Reconciling')?.status).toBe('False');
    judge('proxy missing', stalled, { kstatus: 'Failed', argo: 'Degraded' });
    await patchGlooHA(ns, 'gloo', { spec: { gatewayProxies: { missingGw: null } } });
    await waitCondition(ns, 'gloo', 'Ready', 'True');
  });

  it('no Gloo install where the GlooHA points: Stalled=True TargetNotFound: Failed', async () => {
    const empty = await createNamespace('health-empty');
    await createGlooHA(empty, 'gloo', { gloo: { replicas: 2 } });
    const stalled = await waitCondition(empty, 'gloo', 'Stalled', 'True', 'TargetNotFound');
    judge('target missing', stalled, { kstatus: 'Failed', argo: 'Degraded' });
    await deleteGlooHA(empty, 'gloo'); // nothing of it left to retry while later tests count writes
  });

  it('forbidden: Stalled=True Forbidden: Failed; the reconcile request retries at once once granted', async () => {
    const forbiddenNs = await createNamespace('health-forbidden');
    await createGlooInstall(admin, { namespace: forbiddenNs });
    const roleName = await operatorClusterRole();
    const role = await rbac.readClusterRole({ name: roleName });
    const fullRules = role.rules ?? [];
    const readOnlyPdbs = fullRules.map((r) =>
      r.resources?.includes('poddisruptionbudgets') ? { ...r, verbs: ['get', 'list', 'watch'] } : r,
    );
    await rbac.patchClusterRole({ name: roleName, body: { rules: readOnlyPdbs } }, mergePatch);
    try {
      await createGlooHA(forbiddenNs, 'gloo', { gloo: { replicas: 2 } });
      const stalled = await waitCondition(forbiddenNs, 'gloo', 'Stalled', 'True', 'Forbidden');
      judge('forbidden (a permission missing)', stalled, { kstatus: 'Failed', argo: 'Degraded' });
    } finally {
      await rbac.patchClusterRole({ name: roleName, body: { rules: fullRules } }, mergePatch);
    }
    // The operator re-checks a Forbidden stall after a minute; the annotation asks for it now.
    const t0 = Date.now();
    const requested = await requestReconcile(forbiddenNs, 'gloo');
    const ready = await eventually(
      'the requested reconcile to be handled and the GlooHA Ready',
      () => getGlooHA(forbiddenNs, 'gloo'),
      (g) => g.status?.lastHandledReconcileAt === requested && condition(g, 'Ready')?.status === 'True',
      { timeoutMs: 40_000 },
    );
    console.log(
      `reconcile request → handled and Ready: ${Date.now() - t0} ms (the Forbidden requeue is 60 s)`,
    );
    judge('permission granted, reconcile requested', ready, { kstatus: 'Current', argo: 'Healthy' });
    await deleteGlooHA(forbiddenNs, 'gloo');
  });

  it('the API server rejects a write as invalid: Stalled=True InvalidObject: Failed', async () => {
    const invalidNs = await createNamespace('health-invalid');
    await createGlooInstall(admin, { namespace: invalidNs });
    // An admission policy that rejects PodDisruptionBudgets there as Invalid (HTTP 422), as a policy
    // engine would; the GlooHA itself is valid.
    const policyName = `deny-pdbs-${invalidNs}`;
    await admission.createValidatingAdmissionPolicy({
      body: {
        metadata: { name: policyName },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: ['policy'],
                apiVersions: ['v1'],
                operations: ['CREATE', 'UPDATE'],
                resources: ['poddisruptionbudgets'],
              },
            ],
          },
          validations: [
            { expression: 'false', message: 'PodDisruptionBudgets are not allowed here', reason: 'Invalid' },
          ],
        },
      },
    });
    await admission.createValidatingAdmissionPolicyBinding({
      body: {
        metadata: { name: policyName },
        spec: {
          policyName,
          validationActions: ['Deny'],
          matchResources: {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': invalidNs } },
          },
        },
      },
    });
    try {
      await eventually(
        'the admission policy to be in force',
        () =>
          httpStatusOf(
            policy.createNamespacedPodDisruptionBudget({
              namespace: invalidNs,
              dryRun: 'All',
              body: { metadata: { name: 'probe' }, spec: { maxUnavailable: 1, selector: {} } },
            }),
          ),
        (code) => code === 422,
      );
      await createGlooHA(invalidNs, 'gloo', { gloo: { replicas: 2 } });
      const stalled = await waitCondition(invalidNs, 'gloo', 'Stalled', 'True', 'InvalidObject');
      expect(condition(stalled, 'Stalled')?.message).toContain('PodDisruptionBudgets are not allowed here');
      judge('invalid apply (the API server rejects a write)', stalled, {
        kstatus: 'Failed',
        argo: 'Degraded',
      });
    } finally {
      await admission.deleteValidatingAdmissionPolicyBinding({ name: policyName });
      await admission.deleteValidatingAdmissionPolicy({ name: policyName });
    }
    await deleteGlooHA(invalidNs, 'gloo');
  });

  it('spec.suspend: Current for kstatus (nothing in progress), Suspended for Argo CD', async () => {
    await patchGlooHA(ns, 'gloo', { spec: { suspend: true } });
    const suspended = await waitCondition(ns, 'gloo', 'Reconciling', 'False', 'Suspended');
    judge('suspended', suspended, { kstatus: 'Current', argo: 'Suspended' });
  });

  it('deleted: Terminating while the finalizer runs, then NotFound', async () => {
    await patchGlooHA(ns, 'gloo', { spec: { suspend: false } });
    await waitCondition(ns, 'gloo', 'Ready', 'True');
    // The DELETE response is the object as it stands with deletionTimestamp set and our finalizer on.
    const deleting = await deleteGlooHAObject(ns, 'gloo');
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    judge('deleting (finalizer running)', deleting, { kstatus: 'Terminating', argo: 'Progressing' });
    await eventually(
      'the GlooHA to be gone',
      () => httpStatusOf(getGlooHA(ns, 'gloo')),
      (s) => s === 404,
    );
    judge('deleted', null, { kstatus: 'NotFound' });
  });
});

describe('kubectl, against the served CRD', () => {
  it('explain describes fields the CRD used to leave blank; get all leaves GlooHAs out, get gloo lists them', async () => {
    for (const [field, text] of [
      ['gloohas.spec.gloo.topologySpreadConstraints.whenUnsatisfiable', 'DoNotSchedule'],
      ['gloohas.spec.target.selector.matchExpressions', 'ANDed with matchLabels'],
      ['gloohas.status.components', 'managed component'],
      ['gloohas.spec.suspend', 'writes nothing'],
    ]) {
      const r = await kubectl(['explain', field!]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.replace(/\s+/g, ' '), field).toContain(text); // explain wraps lines
    }
    const where = await createNamespace('health-get');
    await createGlooHA(where, 'gloo', { gloo: { replicas: 1, leaderElection: { enabled: false } } });
    const all = await kubectl(['get', 'all', '-n', where, '-o', 'name']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).not.toContain('glooha');
    const gloo = await kubectl(['get', 'gloo', '-n', where, '-o', 'name']);
    expect(gloo.stdout).toContain('glooha.glooha.io/gloo');
    await deleteGlooHA(where, 'gloo');
  });
});

describe('spec.suspend and the reconcile request', () => {
  it('suspended: zero writes but its own status; drift and the pending spec change are reported; resuming applies both', async () => {
    const sus = await createNamespace('suspend');
    await createGlooInstall(admin, { namespace: sus });
    await createGlooHA(sus, 'gloo', { gloo: { replicas: 2 } });
    await waitCondition(sus, 'gloo', 'Ready', 'True', undefined, 90_000);
    await patchGlooHA(sus, 'gloo', { spec: { suspend: true } });
    await waitCondition(sus, 'gloo', 'Reconciling', 'False', 'Suspended');
    const since = new Date();

    // Drift: someone scales gloo down. Reported, not corrected.
    await apps.patchNamespacedDeploymentScale(
      { name: 'gloo', namespace: sus, body: { spec: { replicas: 1 } }, fieldManager: 'kubectl-scale' },
      mergePatch,
    );
    const drifted = await waitCondition(sus, 'gloo', 'Drifted', 'True', 'DriftDetected', 30_000);
    expect(condition(drifted, 'Drifted')?.message).toMatch(/gloo.*spec\.replicas.*the scale subresource/);

    // A spec change: observed, listed as pending, not applied.
    await patchGlooHA(sus, 'gloo', { spec: { gloo: { replicas: 3 } } });
    const pending = await waitCondition(sus, 'gloo', 'Ready', 'False', 'Suspended', 30_000);
    expect(condition(pending, 'Ready')?.message).toContain(`update Deployment ${sus}/gloo`);
    // kstatus reads Ready=False as in progress: a Flux wait on it times out, as it should while the
    // spec it applied is not in force.
    judge('suspended, with a spec change not applied', pending, { kstatus: 'InProgress', argo: 'Suspended' });

    // A reconcile request is handled while suspended too (a fresh report), still without writes;
    // with the commands docs/health.md shows.
    const now = String(Math.floor(Date.now() / 1000));
    const annotated = await kubectl([
      '-n',
      sus,
      'annotate',
      'gha',
      'gloo',
      '--overwrite',
      `glooha.io/reconcile-requested-at=${now}`,
    ]);
    expect(annotated.code, annotated.stderr).toBe(0);
    const waited = await kubectl([
      '-n',
      sus,
      'wait',
      'gha/gloo',
      `--for=jsonpath={.status.lastHandledReconcileAt}=${now}`,
      '--timeout=1m',
    ]);
    expect(waited.code, waited.stderr).toBe(0);
    expect((await apps.readNamespacedDeployment({ name: 'gloo', namespace: sus })).spec?.replicas).toBe(1);

    // Everything the operator wrote in the suspended GlooHA's namespace: its install and Events live
    // there. (Its own leader-election Lease is in its own namespace.)
    const writes = auditWrites({ username: id.username, since }).filter(
      (e) => e.objectRef?.namespace === sus,
    );
    const targets = new Set(
      writes.map(
        (e) => `${e.objectRef?.resource}${e.objectRef?.subresource ? '/' + e.objectRef.subresource : ''}`,
      ),
    );
    console.log(`writes while suspended: ${writes.length}, to ${[...targets].join(', ')}`);
    expect([...targets], writes.map(describeAudit).join('\n')).toEqual(['gloohas/status']);
    expect(writes.every((e) => e.objectRef?.name === 'gloo')).toBe(true);
    // Sanity of the audit query: the same query sees the writes of the apply that made it Ready.
    expect(
      auditWrites({ username: id.username }).filter((e) => e.objectRef?.namespace === sus).length,
    ).toBeGreaterThan(writes.length);

    // Resume: the drift is corrected and the pending change applied.
    await patchGlooHA(sus, 'gloo', { spec: { suspend: false } });
    await eventually(
      'gloo to reach the spec once resumed',
      () => apps.readNamespacedDeployment({ name: 'gloo', namespace: sus }),
      (d) => d.spec?.replicas === 3,
    );
    await waitCondition(sus, 'gloo', 'Ready', 'True', undefined, 60_000);
  });
});

describe('health semantics: a KgatewayHA through its lifecycle, judged the same way', () => {
  const kgw = { group: GROUP, version: VERSION, plural: KGATEWAY_PLURAL };
  let ns: string;
  let renewing: ReturnType<typeof setInterval> | undefined;
  const holder = 'kgateway-7d9f8c-abcde_0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0';

  const getKha = async (name: string) =>
    (await custom.getNamespacedCustomObject({ ...kgw, namespace: ns, name })) as GlooHA;
  /** `kubectl wait --for=condition=Ready` on the KgatewayHA, as a user gates on it. */
  const kubectlWaitReady = (timeout: string) =>
    kubectl(['wait', 'kgatewayha/kgateway', '-n', ns, '--for=condition=Ready', `--timeout=${timeout}`]);
  const waitKha = (name: string, type: string, status: string, reason?: string, timeoutMs = 60_000) =>
    eventually(
      `KgatewayHA ${ns}/${name} ${type}=${status}${reason ? ` (${reason})` : ''}`,
      () => getKha(name),
      (g) => {
        const c = condition(g, type);
        return (
          c?.status === status &&
          (reason === undefined || c.reason === reason) &&
          c.observedGeneration === g.metadata.generation
        );
      },
      { timeoutMs },
    );

  afterAll(() => clearInterval(renewing));

  it('created, not reconciled yet: in progress, and the Argo CD message names the KgatewayHA', async () => {
    ns = await createNamespace('health-kgw');
    const created = (await custom.createNamespacedCustomObject({
      ...kgw,
      namespace: ns,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: KGATEWAY_KIND,
        metadata: { name: 'kgateway', namespace: ns },
        spec: { controller: { replicas: 2 } },
      },
    })) as GlooHA;
    expect(created.status?.conditions?.[0]?.message).toContain('this KgatewayHA');
    const said = judge('KgatewayHA created (not reconciled yet)', created, {
      kstatus: 'InProgress',
      argo: 'Progressing',
    });
    expect(said.argo).toBe(
      'waiting for glooha-operator to reconcile this KgatewayHA: is it running, and does it watch this namespace?',
    );
  });

  it('no kgateway install where it points: Stalled=True TargetNotFound: Failed / Degraded', async () => {
    const stalled = await waitKha('kgateway', 'Stalled', 'True', 'TargetNotFound');
    expect(condition(stalled, 'Stalled')?.message).toMatch(/no kgateway install found/);
    judge('KgatewayHA: target missing', stalled, { kstatus: 'Failed', argo: 'Degraded' });
  });

  it('Ready once kgateway is installed and leads: Current / Healthy; kubectl get kha shows its columns; glooha_ready{kind="KgatewayHA"} is 1', async () => {
    // kgateway's chart's controller Deployment (kwok runs its pods), and its Lease kgateway-envoy
    // renewed every 2 s as controller-runtime renews it.
    await apps.createNamespacedDeployment({
      namespace: ns,
      fieldManager: 'helm',
      body: kgatewayControllerDeployment(ns, { version: KGATEWAY_CONTROLLER_VERSION, replicas: 1 }),
    });
    const leases = admin.makeApiClient(CoordinationV1Api);
    const now = () => formatMicroTime(new Date()) as unknown as Date;
    await leases.createNamespacedLease({
      namespace: ns,
      body: {
        metadata: { name: CONTROLLER_LEASE_NAME },
        spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: now(), renewTime: now() },
      },
    });
    renewing = setInterval(() => {
      leases
        .patchNamespacedLease(
          { name: CONTROLLER_LEASE_NAME, namespace: ns, body: { spec: { renewTime: now() } } },
          mergePatch,
        )
        .catch(() => undefined);
    }, 2_000);
    await requestKhaReconcile(); // the TargetNotFound stall is re-checked after a minute; ask now
    const ready = await waitKha('kgateway', 'Ready', 'True', undefined, 90_000);
    judge('KgatewayHA Ready', ready, { kstatus: 'Current', argo: 'Healthy' });

    // kubectl get kha (-o wide): the columns read the KgatewayHA's own status fields.
    const table = await kubectl(['get', 'kha', 'kgateway', '-n', ns, '-o', 'wide', '--no-headers=false']);
    expect(table.code, table.stderr).toBe(0);
    const [head, row] = table.stdout.trim().split('\n');
    const cols = head!.trim().split(/\s{2,}/);
    const cells = row!.trim().split(/\s{2,}/);
    const cell = (name: string) => cells[cols.indexOf(name)];
    expect(cols.slice(0, 5)).toEqual(['NAME', 'READY', 'CONTROLLER', 'LEADER', 'AGE']);
    expect(cell('READY')).toBe('True');
    expect(cell('CONTROLLER')).toBe('2');
    expect(cell('LEADER')).toBe(holder);
    expect(cell('DESIRED')).toBe('2');
    expect(cell('FRESH')).toBe('true');
    expect(cell('DRIFT')).toBe('enforce');

    // The per-object series, read from the cache at scrape time, with the kind label.
    const labelsOf = { kind: KGATEWAY_KIND, namespace: ns, name: 'kgateway' };
    await eventually(
      'glooha_ready{kind="KgatewayHA"} = 1',
      () => metricValue(operator!.metricsUrl, 'glooha_ready', labelsOf),
      (v) => v === 1,
    );
    expect(
      await metricValue(operator!.metricsUrl, 'glooha_product_leader_lease_duration_seconds', {
        ...labelsOf,
        lease: CONTROLLER_LEASE_NAME,
      }),
    ).toBe(15);
    expect(
      await metricValue(operator!.metricsUrl, 'glooha_resources', { kind: KGATEWAY_KIND, ready: 'true' }),
    ).toBeGreaterThanOrEqual(1);
  });

  async function requestKhaReconcile(): Promise<string> {
    const value = new Date().toISOString();
    await custom.patchNamespacedCustomObject(
      {
        ...kgw,
        namespace: ns,
        name: 'kgateway',
        body: { metadata: { annotations: { [RECONCILE_REQUEST_ANNOTATION]: value } } },
      },
      mergePatch,
    );
    return value;
  }

  it('spec changed: in progress until observed, then Ready again', async () => {
    const patched = (await custom.patchNamespacedCustomObject(
      { ...kgw, namespace: ns, name: 'kgateway', body: { spec: { controller: { replicas: 3 } } } },
      mergePatch,
    )) as GlooHA;
    expect(patched.metadata.generation).toBeGreaterThan(patched.status?.observedGeneration ?? 0);
    judge('KgatewayHA spec changed (not yet observed)', patched, {
      kstatus: 'InProgress',
      argo: 'Progressing',
    });
    const ready = await waitKha('kgateway', 'Ready', 'True', undefined, 90_000);
    judge('KgatewayHA spec changed, then Ready', ready, { kstatus: 'Current', argo: 'Healthy' });
  });

  it('spec.suspend: Current for kstatus, Suspended for Argo CD', async () => {
    await custom.patchNamespacedCustomObject(
      { ...kgw, namespace: ns, name: 'kgateway', body: { spec: { suspend: true } } },
      mergePatch,
    );
    const suspended = await waitKha('kgateway', 'Reconciling', 'False', 'Suspended');
    judge('KgatewayHA suspended, nothing pending', suspended, { kstatus: 'Current', argo: 'Suspended' });
    await custom.patchNamespacedCustomObject(
      { ...kgw, namespace: ns, name: 'kgateway', body: { spec: { suspend: false } } },
      mergePatch,
    );
    await waitKha('kgateway', 'Ready', 'True');
  });

  it('a leader handover within the failover bound leaves Ready alone; a leader lost beyond it fails kubectl wait, glooha status and glooha_ready, Degraded for Argo CD', async () => {
    // A 4 s Lease (kgateway's retryPeriod 2 s): failover bound 4 + 2 + 8 s slack = 14 s
    // (src/controller/leaderless-gap.ts failoverBound; docs/health.md).
    const leases = admin.makeApiClient(CoordinationV1Api);
    const now = () => formatMicroTime(new Date()) as unknown as Date;
    const successor = 'kgateway-7d9f8c-fghij_1c2d3e4f-5061-7283-94a5-b6c7d8e9f0a1';
    const renew = (spec: object = {}) =>
      leases.patchNamespacedLease(
        { name: CONTROLLER_LEASE_NAME, namespace: ns, body: { spec: { renewTime: now(), ...spec } } },
        mergePatch,
      );
    const renewEverySecond = () => setInterval(() => void renew().catch(() => undefined), 1_000);
    clearInterval(renewing);
    await renew({ leaseDurationSeconds: 4 });
    renewing = renewEverySecond();
    const labelsOf = { kind: KGATEWAY_KIND, namespace: ns, name: 'kgateway' };
    await eventually(
      'the operator to see the 4 s Lease',
      () =>
        metricValue(operator!.metricsUrl, 'glooha_product_leader_lease_duration_seconds', {
          ...labelsOf,
          lease: CONTROLLER_LEASE_NAME,
        }),
      (v) => v === 4,
    );
    const before = condition(await waitKha('kgateway', 'Ready', 'True'), 'Ready')!;

    // A handover after a crash: the holder stops renewing, its Lease expires (Degraded at once), and
    // a successor takes it over within the bound.
    clearInterval(renewing);
    await waitKha('kgateway', 'Degraded', 'True', 'KgatewayLeaderLost', 30_000);
    await renew({ holderIdentity: successor, acquireTime: now(), leaseTransitions: 1 });
    renewing = renewEverySecond();
    const handedOver = await waitKha('kgateway', 'Degraded', 'False', undefined, 30_000);
    expect(handedOver.status?.leader?.holder).toBe(successor);
    expect(condition(handedOver, 'Ready'), 'Ready never flipped during the handover').toEqual(before);
    const waitedDuringHandover = await kubectlWaitReady('5s');
    expect(waitedDuringHandover.code, waitedDuringHandover.stderr).toBe(0);

    // Lost for good: the successor stops renewing and nobody takes over.
    clearInterval(renewing);
    const lastRenewal = Date.now();
    await renew();
    const lost = await waitKha('kgateway', 'Ready', 'False', 'KgatewayLeaderLost', 60_000);
    const flippedAfterMs = Date.now() - lastRenewal;
    expect(flippedAfterMs, 'not before the failover bound').toBeGreaterThanOrEqual(14_000);
    expect(flippedAfterMs, 'soon after the failover bound').toBeLessThan(14_000 + 20_000);
    expect(condition(lost, 'Ready')!.message).toBe(
      'the kgateway-envoy Lease has had no live holder longer than its failover bound of 14s (leaseDuration 4s + retryPeriod 2s + 8s slack): no kgateway controller replica runs the deployer or writes Gateway statuses',
    );
    expect(condition(lost, 'Degraded')).toMatchObject({ status: 'True', reason: 'KgatewayLeaderLost' });
    expect(condition(lost, 'Reconciling')?.status).toBe('False');
    expect(condition(lost, 'Stalled')?.status).toBe('False');
    judge('KgatewayHA: product leader lost beyond its failover bound', lost, {
      kstatus: 'InProgress',
      argo: 'Degraded',
    });
    const waited = await kubectlWaitReady('3s');
    expect(waited.code, 'kubectl wait --for=condition=Ready fails').not.toBe(0);
    expect(waited.stderr).toContain('timed out');
    const cliOut = { stdout: '', stderr: '' };
    const statusCode = await glooha(['status', 'kgateway', '-n', ns, '--kind', 'KgatewayHA'], cliOut);
    expect(statusCode, cliOut.stderr).toBe(EXIT.UNHEALTHY);
    expect(cliOut.stdout).toContain('KgatewayLeaderLost');
    expect(cliOut.stderr).toContain('no live holder longer than its failover bound of 14s');
    await eventually(
      'glooha_ready{kind="KgatewayHA"} = 0',
      () => metricValue(operator!.metricsUrl, 'glooha_ready', labelsOf),
      (v) => v === 0,
    );

    // A leader again: Ready at once, as every tool sees it.
    await renew();
    renewing = renewEverySecond();
    const back = await waitKha('kgateway', 'Ready', 'True', undefined, 30_000);
    judge('KgatewayHA: a leader again', back, { kstatus: 'Current', argo: 'Healthy' });
    const waitedAgain = await kubectlWaitReady('5s');
    expect(waitedAgain.code, waitedAgain.stderr).toBe(0);
    expect(await glooha(['status', 'kgateway', '-n', ns, '--kind', 'KgatewayHA'], cliOut)).toBe(EXIT.OK);
  });

  it('deleted: Terminating while the finalizer runs, then NotFound; its metric series goes', async () => {
    const deleting = (await custom.deleteNamespacedCustomObject({
      ...kgw,
      namespace: ns,
      name: 'kgateway',
    })) as GlooHA;
    if (deleting.metadata?.deletionTimestamp)
      judge('KgatewayHA being deleted', deleting, { kstatus: 'Terminating', argo: 'Progressing' });
    await eventually(
      'the KgatewayHA to be gone',
      () => httpStatusOf(getKha('kgateway')),
      (st) => st === 404,
    );
    judge('KgatewayHA deleted', null, { kstatus: 'NotFound' });
    await eventually(
      'its glooha_ready series to go',
      async () =>
        (await scrapeMetrics(operator!.metricsUrl))
          .split('\n')
          .some((l) => l.startsWith('glooha_ready{') && l.includes(`namespace="${ns}"`)),
      (present) => !present,
    );
    clearInterval(renewing);
  });
});

describe('uninstalling with GlooHAs present (docs/health.md)', () => {
  it('before helm uninstall: deleting the GlooHAs lets the running operator hand over and finalize them', async () => {
    const a = await createNamespace('uninstall');
    await createGlooInstall(admin, { namespace: a });
    await createGlooHA(a, 'gloo', { gloo: { replicas: 2 } });
    await waitCondition(a, 'gloo', 'Ready', 'True', undefined, 90_000);
    // docs/health.md runs it with --all-namespaces; here one namespace, not other tests' objects.
    const r = await kubectl(['delete', 'gloohas', '--all', '-n', a, '--wait', '--timeout=2m']);
    expect(r.code, r.stderr).toBe(0);
    expect(await httpStatusOf(getGlooHA(a, 'gloo'))).toBe(404);
    const gloo = await apps.readNamespacedDeployment({ name: 'gloo', namespace: a });
    expect(gloo.spec?.replicas).toBe(2); // handed over, left as it was
    expect((gloo.metadata?.managedFields ?? []).map((m) => m.manager)).not.toContain('glooha-operator');
  });

  it('after the operator is gone: a deleted GlooHA stays Terminating; the documented finalizer removal frees it', async () => {
    const b = await createNamespace('uninstall-late');
    await createGlooInstall(admin, { namespace: b });
    await createGlooHA(b, 'gloo', { gloo: { replicas: 2 } });
    await waitCondition(b, 'gloo', 'Ready', 'True', undefined, 90_000);
    await operator?.shutdown('helm uninstall');
    operator = undefined;
    await deleteGlooHAObject(b, 'gloo');
    await new Promise((r) => setTimeout(r, 3000));
    const stuck = await getGlooHA(b, 'gloo');
    expect(stuck.metadata.deletionTimestamp).toBeDefined();
    expect(stuck.metadata.finalizers).toContain('glooha.io/handover');
    const r = await kubectl([
      'patch',
      'gloohas',
      'gloo',
      '-n',
      b,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ]);
    expect(r.code, r.stderr).toBe(0);
    await eventually(
      'the GlooHA to be gone',
      () => httpStatusOf(getGlooHA(b, 'gloo')),
      (s) => s === 404,
    );
  });
});
