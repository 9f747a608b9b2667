// The generated CRD against a real API server: it installs; every rule's bad cases are rejected with
// the rule's message at the rule's path and every good case is accepted (the same cases the unit tests
// give the TypeScript validator, so CEL and TypeScript cannot drift); the server's defaulting equals
// applyDefaults; status is a subresource; printer columns; and the objects `glooha render` prints are
// accepted by the server, with the leader-election Role granting exactly what Gloo's election needs.
import {
  ApiException,
  AppsV1Api,
  CoordinationV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  type KubernetesObject,
  type V1Deployment,
} from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { CRD_NAME, GLOO_API, PLURAL, PRINTER_COLUMNS } from '../../src/products/gloo/api.js';
import { GROUP, MANAGER, VERSION } from '../../src/api/constants.js';
import {
  KGATEWAY_CRD_NAME,
  KGATEWAY_KIND,
  KGATEWAY_PLURAL,
  KGATEWAY_PRINTER_COLUMNS,
} from '../../src/products/kgateway/api.js';
import { RULES } from '../../src/products/index.js';
import type { GlooHA } from '../../src/products/gloo/types.js';
import type { KgatewayHASpec } from '../../src/products/kgateway/types.js';
import { defaultKgatewaySpec } from '../../src/products/kgateway/validate.js';
import { defaultSpec } from '../../src/products/gloo/validate.js';
import { desired } from '../../src/products/gloo/desired.js';
import { chartInstall, chartLabels } from '../../src/products/gloo/install.js';
import { buildCrd } from '../../src/api/crd.js';
import { raw, send } from '../support/api-request.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { adminKubeConfig, createNamespace, installCrds, kubeConfigFor } from '../support/cluster.js';
import { RULE_CASES, glooHAObject, haObject, type RuleCases } from '../unit/api/rule-cases.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const coords = { group: GROUP, version: VERSION, plural: PLURAL };
const coordsOf = (kind: RuleCases['kind']) => ({
  ...coords,
  plural: kind === KGATEWAY_KIND ? KGATEWAY_PLURAL : PLURAL,
});
const defaultsOf = (kind: RuleCases['kind'], spec: unknown) =>
  kind === KGATEWAY_KIND ? defaultKgatewaySpec(spec as KgatewayHASpec) : defaultSpec(spec as GlooHA['spec']);

interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** The Status causes of a rejected request. */
function causesOf(err: unknown): StatusCause[] {
  if (!(err instanceof ApiException)) throw err;
  expect(err.code, String(err.body)).toBe(422);
  const body = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as {
    details?: { causes?: StatusCause[] };
  };
  return body.details?.causes ?? [];
}

async function rejection(
  api: CustomObjectsApi,
  namespace: string,
  body: object,
  resource = coords,
): Promise<StatusCause[]> {
  try {
    await api.createNamespacedCustomObject({ ...resource, namespace, body, dryRun: 'All' });
  } catch (err) {
    return causesOf(err);
  }
  throw new Error('the API server accepted it');
}

let api: CustomObjectsApi;
let ns: string;

beforeAll(async () => {
  await installCrds();
  api = adminKubeConfig().makeApiClient(CustomObjectsApi);
  ns = await createNamespace('crd');
});

describe('the GlooHA CRD', () => {
  it('installs with every CEL rule of the table, the short name, status subresource and printer columns', async () => {
    const stored = JSON.parse(
      await raw('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`),
    ) as object;
    expect(JSON.stringify(stored).match(/"x-kubernetes-validations"/g)?.length).toBeGreaterThan(0);
    for (const rule of RULES.filter((r) => !r.id.startsWith('kgateway-')))
      expect(JSON.stringify(stored), rule.id).toContain(JSON.stringify(rule.rule));
    expect(JSON.stringify(stored)).toContain('"shortNames":["gha"]');
    const table = await getTable(`/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      ...PRINTER_COLUMNS.map((c) => c.name),
    ]);
    expect(table.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name)).toEqual([
      'Name',
      'Ready',
      'Gloo',
      'Leader',
      'Age',
    ]);
  });

  it('installs the KgatewayHA CRD beside it: its rules, short name kha, printer columns', async () => {
    // Re-stringified: the API server's JSON escapes < and > (\u003c).
    const stored = JSON.stringify(
      JSON.parse(
        await raw('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${KGATEWAY_CRD_NAME}`),
      ),
    );
    for (const rule of RULES.filter((r) => r.id.startsWith('kgateway-')))
      expect(stored, rule.id).toContain(JSON.stringify(rule.rule));
    expect(stored).toContain('"shortNames":["kha"]');
    const table = await getTable(`/apis/${GROUP}/${VERSION}/namespaces/${ns}/${KGATEWAY_PLURAL}`);
    expect(table.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name)).toEqual([
      'Name',
      ...KGATEWAY_PRINTER_COLUMNS.filter((c) => !c.priority).map((c) => c.name),
    ]);
    // A KgatewayHA no operator has written reads Ready Unknown, as a GlooHA does.
    const created = (await api.createNamespacedCustomObject({
      ...coordsOf(KGATEWAY_KIND),
      namespace: ns,
      body: haObject(KGATEWAY_KIND, {}, 'fresh'),
    })) as { spec: unknown; status: { conditions: { reason: string; message: string }[] } };
    expect(created.spec).toEqual(defaultKgatewaySpec({}));
    expect(created.status.conditions[0]?.message).toContain('this KgatewayHA');
  });

  describe('rejects every bad case with the rule message at the rule path (same cases as the unit tests)', () => {
    for (const [id, cases] of Object.entries(RULE_CASES)) {
      const rule = RULES.find((r) => r.id === id);
      for (const bad of cases.bad) {
        it(`${id}: ${bad.name}`, async () => {
          const causes = await rejection(
            api,
            ns,
            haObject(cases.kind, bad.spec, bad.metadataName ?? 'bad'),
            coordsOf(cases.kind),
          );
          expect(causes).toHaveLength(1);
          expect(causes[0]?.field).toBe(bad.path);
          expect(causes[0]?.message).toContain(rule?.message);
        });
      }
    }
  });

  describe('accepts every good case and defaults it exactly as applyDefaults does', () => {
    let n = 0;
    for (const [id, cases] of Object.entries(RULE_CASES)) {
      for (const good of cases.good) {
        it(`${id}: ${good.name}`, async () => {
          const name = good.metadataName ?? `good-${++n}`;
          const created = (await api.createNamespacedCustomObject({
            ...coordsOf(cases.kind),
            namespace: ns,
            body: haObject(cases.kind, good.spec, name),
          })) as GlooHA;
          expect(created.spec).toEqual(defaultsOf(cases.kind, good.spec));
        });
      }
    }
  });

  it('round-trips the production example with defaults applied', async () => {
    const example = parse(readFileSync(join(repoRoot, 'examples', 'glooha.yaml'), 'utf8')) as GlooHA;
    const body = { ...example, metadata: { name: 'example', namespace: ns } };
    await api.createNamespacedCustomObject({ ...coords, namespace: ns, body });
    const got = (await api.getNamespacedCustomObject({
      ...coords,
      namespace: ns,
      name: 'example',
    })) as GlooHA;
    expect(got.spec).toEqual(defaultSpec(example.spec));
    expect(got.metadata.generation).toBe(1);
  });

  it('defaults an empty spec to HA settings', async () => {
    const created = (await api.createNamespacedCustomObject({
      ...coords,
      namespace: ns,
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'GlooHA', metadata: { name: 'empty' } },
    })) as GlooHA;
    expect(created.spec).toEqual({
      gloo: {
        replicas: 2,
        antiAffinity: 'preferred',
        leaderElection: { enabled: true, leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '2s' },
      },
      driftPolicy: 'enforce',
    });
  });

  it('rejects structurally invalid values too (enum, type)', async () => {
    const causes = await rejection(
      api,
      ns,
      glooHAObject({ gloo: { antiAffinity: 'sometimes' }, driftPolicy: 'revert' }),
    );
    expect(
      causes
        .filter((c) => c.field !== '<nil>')
        .map((c) => c.field)
        .sort(),
    ).toEqual(['spec.driftPolicy', 'spec.gloo.antiAffinity']);
    // The server skips CEL rules on an object that fails the schema, and says so.
    expect(causes.filter((c) => c.field === '<nil>').map((c) => c.message)).toEqual([
      expect.stringContaining('validation rules were not checked'),
    ]);
  });

  it('serves status as a subresource: status writes ignore spec, spec writes ignore status', async () => {
    const name = 'status';
    await api.createNamespacedCustomObject({ ...coords, namespace: ns, body: glooHAObject({}, name) });
    const current = (await api.getNamespacedCustomObject({ ...coords, namespace: ns, name })) as GlooHA;
    const status = {
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          observedGeneration: 1,
          lastTransitionTime: '2025-01-01T00:00:00Z',
          reason: 'Reconciled',
          message: 'all components available',
        },
        {
          type: 'Reconciling',
          status: 'False',
          observedGeneration: 1,
          lastTransitionTime: '2025-01-01T00:00:00Z',
          reason: 'Reconciled',
          message: '',
        },
      ],
      components: {
        gloo: {
          deploymentName: 'gloo',
          desiredReplicas: 2,
          readyReplicas: 2,
          podDisruptionBudget: { name: 'gloo-glooha', owned: true, maxUnavailable: 1, disruptionsAllowed: 1 },
        },
        gatewayProxies: {
          publicGw: {
            deploymentName: 'public-gw',
            desiredReplicas: 3,
            autoscaling: { hpaName: 'public-gw-hpa', minReplicas: 3, maxReplicas: 12, currentReplicas: 4 },
            podDisruptionBudget: { name: 'public-gw-pdb', owned: false, minAvailable: '50%' },
          },
        },
      },
      leader: {
        holder: 'gloo-7d9f-abcde',
        fresh: true,
        leaseDurationSeconds: 15,
        leaseTransitions: 2,
      },
      warnings: [
        { code: 'SingleReplica', component: 'gatewayProxies.publicGw', message: 'runs a single replica' },
      ],
      helmValuesConfigMap: 'status-helm-values',
    };
    const written = (await api.replaceNamespacedCustomObjectStatus({
      ...coords,
      namespace: ns,
      name,
      body: { ...current, spec: { ...current.spec, driftPolicy: 'ignore' }, status },
    })) as GlooHA;
    expect(written.status).toEqual(status);
    expect(written.spec?.driftPolicy).toBe('enforce');
    expect(written.metadata.generation).toBe(1);

    const updated = (await api.replaceNamespacedCustomObject({
      ...coords,
      namespace: ns,
      name,
      body: {
        ...written,
        spec: { ...written.spec, driftPolicy: 'warn' },
        status: { observedGeneration: 99 },
      },
    })) as GlooHA;
    expect(updated.spec?.driftPolicy).toBe('warn');
    expect(updated.status).toEqual(status);
    expect(updated.metadata.generation).toBe(2);

    const table = await getTable(`/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}/${name}`);
    expect(table.rows[0]?.cells.slice(1, 4)).toEqual(['True', 2, 'gloo-7d9f-abcde']);
  });
});

describe('the CRD as users install and use it, with kubectl (YAML 1.1)', () => {
  const gha = (name: string, spec: string) =>
    `apiVersion: ${GROUP}/${VERSION}\nkind: GlooHA\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n${spec}`;

  it('serves driftPolicy as strings, and accepts every value written unquoted, as the README shows', async () => {
    const served = JSON.parse(
      await raw('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`),
    ) as { spec: { versions: { schema: { openAPIV3Schema: Record<string, any> } }[] } }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const schema = served.spec.versions[0]?.schema.openAPIV3Schema;
    expect(schema?.properties.spec.properties.driftPolicy.enum).toEqual(['enforce', 'warn', 'ignore']);
    // Everything kubectl read from the file is what buildCrd(GLOO_API) meant: no string turned into a boolean.
    const crd = buildCrd(GLOO_API) as { spec: { versions: { schema: unknown }[] } };
    expect(served.spec.versions[0]?.schema).toEqual(crd.spec.versions[0]?.schema);
    for (const policy of ['enforce', 'warn', 'ignore']) {
      const out = await kubectlOk(
        ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
        gha(`drift-${policy}`, `  driftPolicy: ${policy}\n`),
      );
      expect((JSON.parse(out) as GlooHA).spec?.driftPolicy).toBe(policy);
    }
    // The old spelling is a boolean to kubectl: rejected, with the field named.
    const off = await kubectl(
      ['create', '--dry-run=server', '-f', '-'],
      gha('drift-off', '  driftPolicy: off\n'),
    );
    expect(off.code).not.toBe(0);
    expect(off.stderr).toContain('spec.driftPolicy');
  });

  it('keeps a GlooHA stored with driftPolicy "off" by an older CRD updatable (validation ratcheting)', async () => {
    // The old CRD, as a YAML 1.2 or JSON client installed it: enum enforce, warn, "off".
    const old = JSON.parse(JSON.stringify(buildCrd(GLOO_API))) as {
      spec: { versions: { schema: { openAPIV3Schema: { properties: Record<string, any> } } }[] }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const version = old.spec.versions[0];
    if (!version) throw new Error('no version');
    version.schema.openAPIV3Schema.properties.spec.properties.driftPolicy.enum = ['enforce', 'warn', 'off'];
    try {
      await kubectlOk(['replace', '-f', '-'], JSON.stringify(old));
      await kubectlOk(['wait', '--for=condition=Established', `crd/${CRD_NAME}`]);
      await kubectlOk(['create', '-f', '-'], gha('legacy', '  driftPolicy: "off"\n'));
    } finally {
      await installCrds();
    }
    await kubectlOk([
      'patch',
      'gha',
      'legacy',
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      '{"spec":{"gloo":{"replicas":3}}}',
    ]);
    const got = JSON.parse(await kubectlOk(['get', 'gha', 'legacy', '-n', ns, '-o', 'json'])) as GlooHA;
    expect(got.spec?.driftPolicy).toBe('off');
    expect(got.spec?.gloo?.replicas).toBe(3);
    // The operator's core reads it as ignore and says what to write.
    const result = desired(got, chartInstall(ns, {}));
    expect(result.ok && result.desired.driftPolicy).toBe('ignore');
    // Setting it anew is refused.
    const again = await kubectl(
      ['create', '--dry-run=server', '-f', '-'],
      gha('legacy-2', '  driftPolicy: "off"\n'),
    );
    expect(again.code).not.toBe(0);
  });

  it('JSON float literals: kubectl sends 3.0 as 3 (render reads it so); sent as is, the server refuses it', async () => {
    const json = `{"apiVersion":"${GROUP}/${VERSION}","kind":"GlooHA","metadata":{"name":"floats","namespace":"${ns}"},"spec":{"gloo":{"replicas":3.0}}}`;
    const viaKubectl = JSON.parse(
      await kubectlOk(['create', '--dry-run=server', '-o', 'json', '-f', '-'], json),
    ) as GlooHA;
    expect(viaKubectl.spec?.gloo?.replicas).toBe(3);
    const direct = await send(
      'POST',
      `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}?dryRun=All`,
      json,
      {
        'Content-Type': 'application/json',
      },
    );
    expect(direct.code).toBe(422);
    expect(direct.text).toContain('expected int, got float64');
  });
});

describe('objects glooha renders are accepted by the API server', () => {
  let installNs: string;
  let objects: KubernetesObjectApi;

  beforeAll(async () => {
    installNs = await createNamespace('install');
    const apps = adminKubeConfig().makeApiClient(AppsV1Api);
    objects = KubernetesObjectApi.makeApiClient(adminKubeConfig());
    // Deployments laid out like Gloo's chart, so the partial applies have something to merge into.
    for (const [name, labels, container, sa] of [
      ['gloo', chartLabels.gloo, 'gloo', 'gloo'],
      ['discovery', chartLabels.discovery, 'discovery', 'discovery'],
      ['gateway-proxy', chartLabels.gatewayProxy('gatewayProxy'), 'gateway-proxy', 'gateway-proxy'],
      ['public-gw', chartLabels.gatewayProxy('publicGw'), 'public-gw', 'gateway-proxy'],
    ] as const) {
      await apps.createNamespacedDeployment({
        namespace: installNs,
        body: chartDeployment(name, labels, container, sa),
      });
    }
  });

  it('server-side applies every owned object and patch of the production example', async () => {
    const example = parse(readFileSync(join(repoRoot, 'examples', 'glooha.yaml'), 'utf8')) as GlooHA;
    const g: GlooHA = { ...example, metadata: { name: 'prod', namespace: installNs } };
    const result = desired(g, chartInstall(installNs, g.spec?.gatewayProxies ?? {}));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    for (const obj of [...result.desired.owned, ...result.desired.patches]) {
      await objects.patch(
        obj as KubernetesObject,
        undefined,
        undefined,
        MANAGER,
        true,
        PatchStrategy.ServerSideApply,
      );
    }
    const apps = adminKubeConfig().makeApiClient(AppsV1Api);
    const gloo = await apps.readNamespacedDeployment({ name: 'gloo', namespace: installNs });
    expect(gloo.spec?.replicas).toBe(3);
    const env = gloo.spec?.template.spec?.containers.find((c) => c.name === 'gloo')?.env ?? [];
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'LEADER_ELECTION_LEASE_DURATION', value: '20s' },
        { name: 'LEADER_ELECTION_RENEW_PERIOD', value: '15s' },
        { name: 'LEADER_ELECTION_RETRY_PERIOD', value: '3s' },
        {
          name: 'POD_NAMESPACE',
          valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } },
        },
      ]),
    );
    expect(gloo.spec?.template.spec?.containers[0]?.image).toBe('registry.invalid/gloo:1');
    const proxy = await apps.readNamespacedDeployment({ name: 'public-gw', namespace: installNs });
    // Replicas are the HPA's: glooha's apply does not own spec.replicas of an autoscaled proxy.
    const ours = proxy.metadata?.managedFields?.find((m) => m.manager === MANAGER && m.operation === 'Apply');
    expect(JSON.stringify(ours?.fieldsV1)).toContain('topologySpreadConstraints');
    expect(JSON.stringify(ours?.fieldsV1)).not.toContain('"f:replicas"');
    const glooFields = gloo.metadata?.managedFields?.find(
      (m) => m.manager === MANAGER && m.operation === 'Apply',
    );
    expect(JSON.stringify(glooFields?.fieldsV1)).toContain('"f:replicas"');
    expect(proxy.spec?.template.spec?.topologySpreadConstraints?.[0]?.labelSelector?.matchLabels).toEqual(
      chartLabels.gatewayProxy('publicGw'),
    );
  });

  it('grants gloo exactly what leader election on the gloo Lease needs', async () => {
    const g: GlooHA = {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'GlooHA',
      metadata: { name: 'rbac', namespace: installNs },
      spec: {},
    };
    const result = desired(g, chartInstall(installNs, {}));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    for (const obj of result.desired.owned.filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding')) {
      await objects.patch(
        obj as KubernetesObject,
        undefined,
        undefined,
        MANAGER,
        true,
        PatchStrategy.ServerSideApply,
      );
    }
    const leases = (await kubeConfigFor(installNs, 'gloo')).makeApiClient(CoordinationV1Api);
    const lease = (name: string) => ({
      metadata: { name },
      spec: { holderIdentity: 'gloo-0', leaseDurationSeconds: 15 },
    });
    const status = (p: Promise<unknown>) =>
      p.then(
        () => 200,
        (e: unknown) => (e instanceof ApiException ? e.code : Promise.reject(e)),
      );

    // What client-go's LeaseLock does: create, get, update the gloo Lease.
    expect(await status(leases.createNamespacedLease({ namespace: installNs, body: lease('gloo') }))).toBe(
      200,
    );
    const got = await leases.readNamespacedLease({ name: 'gloo', namespace: installNs });
    expect(
      await status(
        leases.replaceNamespacedLease({
          name: 'gloo',
          namespace: installNs,
          body: { ...got, spec: { ...got.spec, holderIdentity: 'gloo-1' } },
        }),
      ),
    ).toBe(200);
    expect(
      await status(leases.listNamespacedLease({ namespace: installNs, fieldSelector: 'metadata.name=gloo' })),
    ).toBe(200);
    // Nothing else: other Leases cannot be read or changed, and an unfiltered list is refused.
    expect(await status(leases.readNamespacedLease({ name: 'kube-scheduler', namespace: installNs }))).toBe(
      403,
    );
    expect(await status(leases.listNamespacedLease({ namespace: installNs }))).toBe(403);
    expect(await status(leases.deleteNamespacedLease({ name: 'gloo', namespace: installNs }))).toBe(403);
  });
});

function chartDeployment(
  name: string,
  labels: Record<string, string>,
  container: string,
  sa: string,
): V1Deployment {
  return {
    metadata: { name, labels: { app: 'gloo', ...labels } },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: sa,
          containers: [
            {
              name: container,
              image: `registry.invalid/${container}:1`,
              env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
            },
          ],
        },
      },
    },
  };
}

interface Table {
  columnDefinitions: { name: string; priority: number }[];
  rows: { cells: unknown[] }[];
}

/** GET as a meta.k8s.io Table (what kubectl get prints). */
async function getTable(path: string): Promise<Table> {
  return JSON.parse(
    await raw('GET', path, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }),
  ) as Table;
}
