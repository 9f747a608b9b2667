// A product is its folder and its registration lines: the test-only Widget product
// (test/fixtures/products/widget/) is registered here — the two registration modules, mocked with
// the real list plus Widget — and nothing else changes. Against the real control plane the operator
// (in process, as the chart's ServiceAccount) reconciles a WidgetHA, its metrics carry the kind, and
// `glooha status` lists it. The chart's generated parts with Widget: test/unit/chart/products-parts.test.ts.
import {
  AppsV1Api,
  CoordinationV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GROUP, VERSION } from '../../src/api/constants.js';
import { renderCrdYaml } from '../../src/api/crd-yaml.js';
import type { HAObject } from '../../src/api/types.js';
import { main as cliMain } from '../../src/cli/main.js';
import { formatMicroTime } from '../../src/leader/lease-client.js';
import { PRODUCTS, RECONCILER_PERMISSIONS } from '../../src/products/index.js';
import { CLI_PRODUCTS } from '../../src/products/cli.js';
import type * as CliRegistered from '../../src/products/cli.js';
import type * as Registered from '../../src/products/registered.js';
import {
  WIDGET_API,
  WIDGET_CRD_NAME,
  WIDGET_KIND,
  WIDGET_LEASE,
  WIDGET_PLURAL,
} from '../fixtures/products/widget/api.js';
import { WIDGET } from '../fixtures/products/widget/index.js';
import { adminKubeConfig, controlPlane, createNamespace } from '../support/cluster.js';
import {
  installOperatorRbac,
  metricValue,
  scrapeMetrics,
  startOperatorInProcess,
  type InProcessOperator,
} from '../support/operator.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { eventually } from '../support/wait.js';

// The registration lines, with Widget's added: the real lists, imported, plus the fixture.
vi.mock('../../src/products/registered.js', async (importOriginal) => {
  const real = await importOriginal<typeof Registered>();
  const { WIDGET: widget } = await import('../fixtures/products/widget/index.js');
  return { PRODUCTS: [...real.PRODUCTS, widget] };
});
vi.mock('../../src/products/cli.js', async (importOriginal) => {
  const real = await importOriginal<typeof CliRegistered>();
  const { WIDGET_CLI } = await import('../fixtures/products/widget/cli.js');
  return { CLI_PRODUCTS: [...real.CLI_PRODUCTS, WIDGET_CLI] };
});

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const objects = KubernetesObjectApi.makeApiClient(admin);

let operator: InProcessOperator | undefined;
let ns = '';
const cleanups: (() => Promise<unknown>)[] = [];

type WidgetHA = HAObject & {
  spec: { replicas: number };
  status?: {
    conditions?: { type: string; status: string; reason?: string }[];
    components?: Record<string, unknown>;
  };
};

const getWidgetHA = async (name: string) =>
  (await custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns,
    plural: WIDGET_PLURAL,
    name,
  })) as WidgetHA;

/** `glooha` as users run it (in process, with the same registration), with the admin kubeconfig. */
async function glooha(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const code = await cliMain(
    args,
    {
      readFile: () => '',
      readStdin: async () => '',
      stdout: (t) => void (out.stdout += t),
      stderr: (t) => void (out.stderr += t),
    },
    { KUBECONFIG: controlPlane().kubeconfigPath },
  );
  return { code, ...out };
}

describe('a third product registered by its folder and the registration lines alone', () => {
  beforeAll(async () => {
    // Its CRD, rendered and applied the way crds/ are (scripts/gen-crd.ts, `kubectl apply --server-side`).
    await kubectlOk(
      ['apply', '--server-side', '--field-manager=glooha-tests', '-f', '-'],
      renderCrdYaml(WIDGET_API),
    );
    // --wait=false: a WidgetHA left by a failed test keeps its finalizer once the operator stopped.
    cleanups.push(() => kubectl(['delete', 'crd', WIDGET_CRD_NAME, '--wait=false']));
    await kubectlOk(['wait', '--for=condition=Established', '--timeout=30s', `crd/${WIDGET_CRD_NAME}`]);

    // The operator as the chart's ServiceAccount; the tree's chart grants Widget nothing, so its
    // permissions (what the chart's generated parts would grant with Widget registered) are added.
    const opNs = await createNamespace('glooha-system');
    const id = await installOperatorRbac(opNs);
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    const roleName = `${opNs}-widget`;
    await rbac.createClusterRole({
      body: {
        metadata: { name: roleName },
        rules: WIDGET.permissions.map((p) => ({
          apiGroups: [p.group],
          resources: [p.resource],
          verbs: [...p.verbs],
        })),
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: roleName },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
        subjects: [{ kind: 'ServiceAccount', name: id.serviceAccount, namespace: opNs }],
      },
    });
    cleanups.push(
      () => rbac.deleteClusterRoleBinding({ name: roleName }),
      () => rbac.deleteClusterRole({ name: roleName }),
    );

    // A Widget install: its Deployment at one replica (as its own chart would leave it) and the Lease
    // its replicas elect through.
    ns = await createNamespace('widget');
    const labels = { 'app.kubernetes.io/name': 'widget' };
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'widget', labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'widget', image: 'registry.example/widget:1.0' }] },
          },
        },
      },
    });
    // A MicroTime is sent as the string the API server expects (the client types it as a Date).
    const now = formatMicroTime(new Date()) as unknown as Date;
    await admin.makeApiClient(CoordinationV1Api).createNamespacedLease({
      namespace: ns,
      body: {
        metadata: { name: WIDGET_LEASE },
        spec: { holderIdentity: 'widget-0', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now },
      },
    });

    operator = await startOperatorInProcess(id, { args: ['--resync-period=10m'] });
    await eventually(
      'the operator to lead',
      () => metricValue(operator!.metricsUrl, 'leader_election_master_status'),
      (v) => v === 1,
    );
  });

  afterAll(async () => {
    await operator?.shutdown('test end');
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('is registered: the operator and the CLI read the same lists, with Widget last', async () => {
    // The tree's own registration lines do not list it: only this file's do.
    const tree = await vi.importActual<typeof Registered>('../../src/products/registered.js');
    expect(tree.PRODUCTS.map((p) => p.kind)).toEqual(['GlooHA', 'KgatewayHA']);
    expect(PRODUCTS.map((p) => p.kind)).toEqual(['GlooHA', 'KgatewayHA', WIDGET_KIND]);
    expect(CLI_PRODUCTS.map((p) => p.api.kind)).toEqual(['GlooHA', 'KgatewayHA', WIDGET_KIND]);
    expect(RECONCILER_PERMISSIONS).toEqual(expect.arrayContaining([...WIDGET.permissions]));
  });

  it("its rule table reaches the API server: a WidgetHA with replicas 0 is refused with the rule's message", async () => {
    const refused = await custom
      .createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: WIDGET_PLURAL,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: WIDGET_KIND,
          metadata: { name: 'zero' },
          spec: { replicas: 0 },
        },
      })
      .then(
        () => 'created',
        (err: unknown) => `${(err as { code?: number }).code} ${String((err as { body?: unknown }).body)}`,
      );
    expect(refused).toMatch(/^422 .*spec\.replicas: Invalid value.*replicas must be at least 1/);
  });

  it('the operator reconciles a WidgetHA: scales its Deployment and reports Ready with the leader', async () => {
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: WIDGET_PLURAL,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: WIDGET_KIND,
        metadata: { name: 'w' },
        spec: { replicas: 3 },
      },
    });
    await eventually(
      'the widget Deployment scaled to spec.replicas (3)',
      () => apps.readNamespacedDeployment({ name: 'widget', namespace: ns }),
      (d) => d.spec?.replicas === 3,
    );
    const ready = await eventually(
      'the WidgetHA to be Ready',
      () => getWidgetHA('w'),
      (w) => w.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
      { timeoutMs: 90_000 },
    );
    expect(ready.status?.components?.widget).toMatchObject({ deploymentName: 'widget', desiredReplicas: 3 });
    expect((ready.status as { leader?: { holder?: string } }).leader?.holder).toBe('widget-0');
    // The engine's planner gave it the PDB every multi-replica component gets, owned by the WidgetHA.
    const pdb = await objects.read({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'widget-glooha', namespace: ns },
    });
    expect(pdb.metadata?.labels?.['glooha.io/owner-kind']).toBe(WIDGET_KIND);
  });

  it('the metrics label it with its kind and controller', async () => {
    await eventually(
      'glooha_ready{kind="WidgetHA"} to be 1',
      () =>
        metricValue(operator!.metricsUrl, 'glooha_ready', { kind: WIDGET_KIND, namespace: ns, name: 'w' }),
      (v) => v === 1,
    );
    const text = await scrapeMetrics(operator!.metricsUrl);
    expect(text).toMatch(/^glooha_resources\{kind="WidgetHA",ready="true"\} 1$/m);
    expect(text).toMatch(
      new RegExp(
        `^glooha_product_leader_lease_age_seconds\\{kind="WidgetHA",namespace="${ns}",name="w",lease="widget"\\} `,
        'm',
      ),
    );
    expect(text).toMatch(
      /^controller_runtime_reconcile_total\{controller="widgetha",result="success"\} [1-9]/m,
    );
  });

  it('`glooha status` lists it beside the others', async () => {
    // Other files' objects share this control plane (and may be unhealthy): -A is judged by this
    // namespace's lines only, its exit code by the namespace alone.
    const all = await glooha(['status', '-A']);
    expect(all.stderr.split('\n').filter((l) => l.includes(`${ns}/`))).toEqual([]);
    expect(all.stdout).toContain(WIDGET_KIND);
    const mine = await glooha(['status', '-n', ns]);
    expect(mine.stderr).toBe('');
    expect(mine.code).toBe(0);
    expect(mine.stdout).toMatch(new RegExp(`^WidgetHA\\s+w\\s+True`, 'm'));
    expect(all.stdout).toMatch(
      new RegExp(
        `^${ns}\\s+WidgetHA\\s+w\\s+True\\s+False\\s+Reconciled\\s+widget 3/3\\s+widget-0 \\(fresh\\)`,
        'm',
      ),
    );
    // `glooha check` finds the Widget install by its CliProduct.installSelector and its WidgetHA.
    const check = await glooha(['check', '-n', ns]);
    expect(check.stdout).toMatch(new RegExp(`Widget install.*${ns}/widget is targeted by a WidgetHA`));
    const one = await glooha(['status', '-n', ns, '--kind', 'widgetha', 'w']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('widget');
    expect(one.stdout).toContain('widget-0');
  });

  it('a deleted WidgetHA goes: the engine takes its finalizer off, and the Deployment keeps its replicas', async () => {
    await custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: WIDGET_PLURAL,
      name: 'w',
    });
    await eventually(
      'the WidgetHA to be gone',
      () =>
        getWidgetHA('w').then(
          () => 'still there',
          (err: unknown) => String((err as { code?: number }).code),
        ),
      (v) => v === '404',
    );
    const d = await apps.readNamespacedDeployment({ name: 'widget', namespace: ns });
    expect(d.spec?.replicas).toBe(3);
  });
});
