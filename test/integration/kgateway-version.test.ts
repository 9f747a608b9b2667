// The kgateway support policy against the real API server (src/products/kgateway/version.ts): a
// KgatewayHA over an install whose controller Deployment is labelled as kgateway 2.2 is Stalled with
// UnsupportedVersion and the operator writes nothing to it (the audit log says so) until kgateway is
// upgraded; one labelled as 2.5, newer than the newest tested line, is managed with the warning
// KgatewayVersionUntested and converges, its gateway's PDB written into the GatewayParameters because
// the schema the API server serves for them (kgateway v2.4.2's CRDs here) has the field.
//
// The controller Deployments are laid out as kgateway's chart lays them out (its labels, container
// controller) and run by kwok: what is under test is what the operator decides from their labels and
// from the served schema, not kgateway's controller (the products lane runs that).
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PolicyV1Api,
  type V1Deployment,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, MANAGER, VERSION } from '../../src/api/constants.js';
import type { GlooHA } from '../../src/products/gloo/types.js';
import { KGATEWAY_KIND, KGATEWAY_PLURAL } from '../../src/products/kgateway/api.js';
import { KGATEWAY_VERSION } from '../env/binaries.js';
import { auditWrites, describeAudit, type AuditEvent } from '../support/audit.js';
import { adminKubeConfig, createNamespace, installCrds } from '../support/cluster.js';
import {
  gatewayWithParameters,
  installKgatewayCrds,
  kgatewayControllerDeployment,
} from '../support/kgateway.js';
import { kubectlOk } from '../support/kubectl.js';
import {
  installOperatorRbac,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const core = admin.makeApiClient(CoreV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const policy = admin.makeApiClient(PolicyV1Api);
const kha = { group: GROUP, version: VERSION, plural: KGATEWAY_PLURAL };

let id: OperatorIdentity;
let operator: InProcessOperator | undefined;

beforeAll(async () => {
  await installCrds();
  // Served before the operator starts: it reads API discovery once, at start.
  await installKgatewayCrds(KGATEWAY_VERSION);
  id = await installOperatorRbac(await createNamespace('glooha-kgw-version'));
  operator = await startOperatorInProcess(id);
}, 900_000);

afterAll(async () => {
  await operator?.shutdown('test end');
});

/** kgateway's controller Deployment as its chart of `version` labels it (helm.sh/chart, app.kubernetes.io/version). */
async function controllerDeployment(ns: string, version: string): Promise<void> {
  await apps.createNamespacedDeployment({
    namespace: ns,
    fieldManager: 'helm',
    body: kgatewayControllerDeployment(ns, { version, replicas: 1 }),
  });
}

async function createKgatewayHA(ns: string, spec: Record<string, unknown>): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...kha,
    namespace: ns,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: KGATEWAY_KIND,
      metadata: { name: 'kgateway', namespace: ns },
      spec,
    },
  });
}

const getKha = async (ns: string) =>
  (await custom.getNamespacedCustomObject({ ...kha, namespace: ns, name: 'kgateway' })) as GlooHA;
const condition = (g: GlooHA, type: string) => g.status?.conditions?.find((c) => c.type === type);
const current = (g: GlooHA, type: string, status: string, reason?: string) => {
  const c = condition(g, type);
  return (
    c?.status === status &&
    (reason === undefined || c.reason === reason) &&
    c.observedGeneration === g.metadata.generation
  );
};

const byGlooha = (d: V1Deployment) => (d.metadata?.managedFields ?? []).some((m) => m.manager === MANAGER);

describe('kgateway before 2.3 (labelled v2.2.0): UnsupportedVersion, and nothing written', () => {
  let ns: string;

  it('Stalled with UnsupportedVersion naming the version, the range and the fix; only its own status and events written', async () => {
    ns = await createNamespace('kgw-v22');
    const since = new Date();
    await controllerDeployment(ns, 'v2.2.0');
    await createKgatewayHA(ns, { controller: { replicas: 2 } });
    const stalled = await eventually(
      'KgatewayHA Stalled (UnsupportedVersion)',
      () => getKha(ns),
      (g) => current(g, 'Stalled', 'True', 'UnsupportedVersion'),
    );
    const message = condition(stalled, 'Stalled')?.message ?? '';
    expect(message).toContain(`kgateway's controller Deployment ${ns}/kgateway runs kgateway v2.2.0`);
    expect(message).toContain('supports kgateway 2.3 and newer (tested: 2.3 to 2.4)');
    expect(message).toMatch(/Upgrade kgateway to 2\.3 or newer/);
    expect(condition(stalled, 'Ready')).toMatchObject({ status: 'False', reason: 'UnsupportedVersion' });

    // Nothing of the install was written: the Deployment is Helm's alone, no PDB, no values ConfigMap.
    const dep = await apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns });
    expect(dep.spec?.replicas).toBe(1);
    expect(byGlooha(dep)).toBe(false);
    expect((await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items).toEqual([]);
    const configMaps = (await core.listNamespacedConfigMap({ namespace: ns })).items.map(
      (c) => c.metadata?.name,
    );
    expect(configMaps).not.toContain('kgateway-kgateway-helm-values');
    // The audit log: the operator's writes in the namespace are to the KgatewayHA itself (its
    // finalizer, its status) and events, none to the install.
    const target = (e: AuditEvent) =>
      `${e.objectRef?.resource}${e.objectRef?.subresource ? '/' + e.objectRef.subresource : ''}`;
    // The status write that showed Stalled is in the log once the API server has flushed it.
    const writes = await eventually(
      "the operator's status write in the audit log",
      async () => auditWrites({ username: id.username, since }).filter((e) => e.objectRef?.namespace === ns),
      (w) => w.some((e) => target(e) === 'kgatewayhas/status'),
    );
    expect(
      writes.map(target).filter((t) => !['kgatewayhas', 'kgatewayhas/status', 'events'].includes(t)),
      writes.map(describeAudit).join('\n'),
    ).toEqual([]);
  });

  it('upgraded to a supported line (the Deployment relabelled v2.4.2): the stall clears and the replicas are applied', async () => {
    await kubectlOk([
      'label',
      'deployment/kgateway',
      '-n',
      ns,
      '--overwrite',
      `helm.sh/chart=kgateway-${KGATEWAY_VERSION}`,
      `app.kubernetes.io/version=${KGATEWAY_VERSION}`,
    ]);
    await eventually(
      'the controller Deployment scaled to 2 by the operator',
      () => apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns }),
      (d) => d.spec?.replicas === 2 && byGlooha(d),
    );
    const k = await eventually(
      'KgatewayHA no longer Stalled',
      () => getKha(ns),
      (g) => current(g, 'Stalled', 'False'),
    );
    expect(k.status?.warnings ?? []).toEqual([]);
  });
});

describe('kgateway newer than the newest tested line (labelled v2.5.0): KgatewayVersionUntested, and it converges', () => {
  it('a warning naming the version, not Stalled; Ready; the gateway PDB written into the GatewayParameters because the served schema has the field', async () => {
    const ns = await createNamespace('kgw-v25');
    await controllerDeployment(ns, 'v2.5.0');
    for (const o of gatewayWithParameters(ns, 'web'))
      await kubectlOk(['apply', '--server-side', '-f', '-'], JSON.stringify(o));
    await createKgatewayHA(ns, { controller: { replicas: 2 }, gateways: { web: { replicas: 2 } } });

    const ready = await eventually(
      'KgatewayHA Ready',
      () => getKha(ns),
      (g) => current(g, 'Ready', 'True'),
      { timeoutMs: 90_000 },
    );
    expect(condition(ready, 'Stalled')?.status).toBe('False');
    const warning = ready.status?.warnings?.find((w) => w.code === 'KgatewayVersionUntested');
    expect(warning?.message).toContain(
      `kgateway's controller Deployment ${ns}/kgateway runs kgateway v2.5.0, newer than the newest line glooha is tested with (2.4)`,
    );
    const dep = await apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns });
    expect(dep.spec?.replicas).toBe(2);

    const parameters = (await custom.getNamespacedCustomObject({
      group: 'gateway.kgateway.dev',
      version: 'v1alpha1',
      plural: 'gatewayparameters',
      namespace: ns,
      name: 'web',
    })) as { spec?: { kube?: Record<string, unknown> } };
    expect(parameters.spec?.kube).toMatchObject({
      deployment: { replicas: 2 },
      podDisruptionBudget: { spec: { maxUnavailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' } },
    });
    // No PDB of glooha's own beside the one kgateway's deployer would render.
    const pdbs = (await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items.map(
      (p) => p.metadata?.name,
    );
    expect(pdbs).not.toContain('web-glooha');
  });
});
