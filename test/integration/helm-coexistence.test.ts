// The coexistence contract, on Gloo's real chart (v1.22.1, built from its Go module) with the real
// Helm 4 (server-side apply) and Helm 3 (three-way merge), and the operator running as its chart's
// ServiceAccount. Each upgrade path is measured — pod restarts, replica changes, drift corrections —
// and the figures are printed (they are quoted in docs/helm.md):
//  1. values path: `helm upgrade` with the exported values changes nothing (0 / 0 / 0);
//  2. plain path: Helm 4 and Helm 3 alike are refused by the chart's replicas-floor admission
//     policy, whose message names the GlooHA and the command to run: no pod is lost (without the
//     policy, 3 -> 1 -> 3: see docs/helm.md). Helm 4 gets there because the operator does not keep
//     owning spec.replicas (no server-side apply conflict comes first);
//  3. after the GlooHA is deleted, replicas/env/affinity stay, no operator field manager is left, and
//     the next plain upgrade succeeds without --force-conflicts, taking the chart's values;
//  4. no Helm path drops the autoscaled proxy below its HPA minimum while the operator manages it.
import {
  AppsV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GlooHA, GlooHASpec } from '../../src/products/gloo/types.js';
import { UPGRADE_FLAGS, upgradeCommand } from '../../src/core/helm-values-yaml.js';
import { GLOO_HELM_CHART } from '../../src/products/gloo/helm-values.js';
import { glooChartVersion } from '../env/binaries.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { HELM_MAJORS, helm, installGloo, upgradeGloo, type HelmMajor } from '../support/gloo-chart.js';
import { createGlooHA, deleteGlooHA, getGlooHA } from '../support/glooha.js';
import { ownsReplicas } from '../support/managed-fields.js';
import {
  InstallRecorder,
  describeMeasurement,
  totalRestarts,
  type Measurement,
} from '../support/install-recorder.js';
import {
  installOperatorRbac,
  installReplicasFloorPolicy,
  startOperatorInProcess,
  type InProcessOperator,
} from '../support/operator.js';
import { printedValuesPathCommand, runAsPrinted, type ShellRun } from '../support/shell.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const core = admin.makeApiClient(CoreV1Api);
const autoscaling = admin.makeApiClient(AutoscalingV2Api);

const SPEC: GlooHASpec = {
  gloo: { replicas: 3, antiAffinity: 'preferred' },
  discovery: { replicas: 1 },
  gatewayProxies: {
    gatewayProxy: { replicas: 2 },
    publicGw: { autoscaling: { minReplicas: 3, maxReplicas: 6 } },
  },
};
const HPA_MIN = 3;

/**
 * The user's own values file (what a plain upgrade is fed): discovery on, a second proxy with the
 * chart's HPA. With Helm 4 an autoscaled proxy must not render replicas (kind.deployment.replicas:
 * null): Helm would own the field and conflict with the HPA controller on every upgrade, glooha or
 * not. With Helm 3 most users keep the chart default (replicas: 1), which Helm 3 happily resets.
 */
function userValues(major: HelmMajor): Record<string, unknown> {
  return {
    discovery: { enabled: true },
    gatewayProxies: {
      publicGw: {
        ...(major === 4 ? { kind: { deployment: { replicas: null } } } : {}),
        horizontalPodAutoscaler: { apiVersion: 'autoscaling/v2', minReplicas: 1, maxReplicas: 4 },
      },
    },
  };
}

/** The flags of the header's recommended command (the same for both majors; run as printed in printed-commands.test.ts). */
function recommendedFlags(_major: HelmMajor): string[] {
  return [...UPGRADE_FLAGS];
}

async function deployments(ns: string): Promise<Map<string, V1Deployment>> {
  const list = await apps.listNamespacedDeployment({ namespace: ns });
  return new Map(list.items.map((d) => [d.metadata?.name ?? '', d]));
}

function glooEnv(d: V1Deployment | undefined) {
  return d?.spec?.template.spec?.containers.find((c) => c.name === 'gloo')?.env;
}

function condition(g: GlooHA, type: string) {
  return g.status?.conditions?.find((c) => c.type === type);
}

async function waitReady(ns: string, timeoutMs = 90_000): Promise<GlooHA> {
  return eventually(
    `${ns}/gloo Ready=True`,
    () => getGlooHA(ns, 'gloo'),
    (g) => condition(g, 'Ready')?.status === 'True' && g.status?.observedGeneration === g.metadata.generation,
    { timeoutMs },
  );
}

const report: string[] = [];
let removeFloorPolicy: (() => Promise<void>) | undefined;

beforeAll(async () => {
  removeFloorPolicy = await installReplicasFloorPolicy();
});

afterAll(async () => {
  await removeFloorPolicy?.();
});

afterAll(() => {
  if (report.length) console.log(`helm coexistence, measured:\n  ${report.join('\n  ')}`);
});

describe.each(HELM_MAJORS)("Gloo's chart with Helm %i", (major) => {
  let ns: string;
  let operator: InProcessOperator;
  let exported: string;
  /** What the plain upgrade's refusal printed (the floor's message with the command to run). */
  let refusal = '';

  const record = async (what: string, run: () => Promise<unknown>): Promise<Measurement> => {
    const rec = new InstallRecorder(admin, ns, operator.metricsUrl);
    await rec.start();
    await run();
    const m = await rec.stop();
    report.push(`Helm ${major}, ${what}: ${describeMeasurement(m)}`);
    return m;
  };

  beforeAll(async () => {
    ns = await createNamespace(`helm${major}-gloo`);
    const opNs = await createNamespace(`helm${major}-op`);
    const id = await installOperatorRbac(opNs, { watchNamespaces: [ns] });
    const installed = await installGloo(major, ns, 'gloo', userValues(major));
    report.push(`Helm ${major}, helm install of Gloo's chart: ${(installed.ms / 1000).toFixed(1)} s`);
    operator = await startOperatorInProcess(id, { args: [`--watch-namespaces=${ns}`] });
    await createGlooHA(ns, 'gloo', SPEC);
    await waitReady(ns);
  }, 300_000);

  afterAll(async () => {
    await operator?.shutdown('test done');
  });

  it('helm version reports the pinned release', async () => {
    const v = await helm(major, ['version', '--short']);
    expect(v.ok, v.stderr).toBe(true);
    expect(v.stdout.trim()).toMatch(major === 4 ? /^v4\.3\.2(\+g[0-9a-f]+)?$/ : /^v3\.21\.4(\+g[0-9a-f]+)?$/);
  });

  it("the chart's objects are what the operator expects: names, containers, HPA and discovery", async () => {
    const deps = await deployments(ns);
    expect([...deps.keys()].sort()).toEqual(['discovery', 'gateway-proxy', 'gloo', 'public-gw']);
    expect(deps.get('gateway-proxy')?.spec?.template.spec?.containers[0]?.name).toBe('gateway-proxy');
    expect(deps.get('public-gw')?.spec?.template.spec?.containers[0]?.name).toBe('public-gw');
    const hpa = await autoscaling.readNamespacedHorizontalPodAutoscaler({
      name: 'public-gw-hpa',
      namespace: ns,
    });
    expect(hpa.spec?.minReplicas).toBe(HPA_MIN); // adopted by the operator
    const g = await getGlooHA(ns, 'gloo');
    expect(g.status?.components?.gatewayProxies?.publicGw?.autoscaling?.hpaName).toBe('public-gw-hpa');
    expect(deps.get('gloo')?.spec?.replicas).toBe(3);
  });

  it('the ConfigMap header recommends an upgrade command for each Helm major', async () => {
    const cm = await core.readNamespacedConfigMap({ name: 'gloo-helm-values', namespace: ns });
    exported = cm.data?.['values.yaml'] ?? '';
    expect(exported).toContain(
      `#   ${upgradeCommand({
        chart: GLOO_HELM_CHART,
        chartVersion: glooChartVersion(),
        valuesFile: 'values-glooha.yaml',
        release: 'gloo',
        namespace: ns,
        configMap: { namespace: ns, name: 'gloo-helm-values' },
      })}`,
    );
    const values = parse(exported) as {
      gatewayProxies: Record<string, { kind: { deployment: { replicas: unknown } } }>;
    };
    // Never null under a running HPA: Helm 3 would delete replicas and the Deployment fall to 1.
    expect(values.gatewayProxies.publicGw?.kind.deployment.replicas).toBe(HPA_MIN);
  });

  it('the operator keeps the replica counts but owns none of them: no server-side apply conflict for Helm 4', async () => {
    // Fixed-replica Deployments: the operator applied spec.replicas, then released its ownership.
    // The autoscaled proxy: the operator never applies replicas there (the HPA owns the count).
    const deps = await eventually(
      'the operator owns no spec.replicas',
      () => deployments(ns),
      (ds) => [...ds.values()].every((d) => !ownsReplicas(d, 'glooha-operator')),
      { timeoutMs: 30_000 },
    );
    expect(deps.get('gloo')?.spec?.replicas).toBe(3);
    expect(deps.get('gateway-proxy')?.spec?.replicas).toBe(2);
    // Still the operator's: the rest of what it applies (its annotations, the lease env), in its one
    // Apply entry (the release, a merge patch that changes no field, adds no Update entry).
    const ours = (deps.get('gloo')?.metadata?.managedFields ?? []).filter((e) =>
      e.manager?.startsWith('glooha-operator'),
    );
    expect(ours.map((e) => `${e.manager} ${e.operation}`)).toEqual(['glooha-operator Apply']);
    const entry = ours[0];
    expect(JSON.stringify(entry?.fieldsV1)).toContain('glooha.io/min-replicas');
    expect(JSON.stringify(entry?.fieldsV1)).toContain('LEADER_ELECTION_LEASE_DURATION');
  });

  it('plain upgrade (the user values alone): refused by the replicas floor with the GlooHA and what to run, Helm 4 and Helm 3 alike', async () => {
    const before = await deployments(ns);
    let result: Awaited<ReturnType<typeof upgradeGloo>> | undefined;
    const m = await record('plain upgrade', async () => {
      result = await upgradeGloo(major, ns, 'gloo', [], userValues(major));
    });
    expect(result?.ok).toBe(false);
    // The admission policy's message: the floor, the GlooHA that keeps it, the command to run.
    expect(result?.stderr).toMatch(/ValidatingAdmissionPolicy '[^']*-replicas-floor'/);
    expect(result?.stderr).toMatch(/spec\.replicas 1 is below 3, the floor that GlooHA [^ ]+\/gloo keeps/);
    expect(result?.stderr).toContain(`kubectl -n ${ns} get configmap gloo-helm-values`);
    expect(result?.stderr).toContain(
      `helm upgrade gloo \${GLOO_CHART:-gloo/gloo} --version ${glooChartVersion()} -n ${ns} --reset-then-reuse-values -f values-glooha.yaml`,
    );
    refusal = result?.stderr ?? '';
    // No server-side apply conflict on replicas: the operator does not own it.
    expect(result?.stderr).not.toMatch(/conflict with "glooha-operator[^"]*": \.spec\.replicas/);
    report.push(`Helm ${major}, plain upgrade error: ${result?.stderr.trim().replace(/\s+/g, ' ')}`);
    expect(totalRestarts(m)).toBe(0);
    expect(m.replicaChanges).toEqual([]);
    // Helm 3 goes on with the release's other objects: it sets the HPA's minReplicas to the user's 1
    // (an HPA is not a Deployment: the floor does not cover it), and the operator restores it. No pod
    // depends on that write. Helm 4 leaves the HPA alone: its bounds conflict with the operator's.
    if (major === 4) {
      expect(result?.stderr).toMatch(/public-gw-hpa.*conflicts? with "glooha-operator"/s);
      expect(m.driftCorrections).toBe(0);
    } else expect(m.driftCorrections).toBeLessThanOrEqual(1);
    if (major === 4) {
      // Helm 4's escape hatch takes the operator's other fields (the HPA's bounds: restored); the
      // floor still refuses the replica drop.
      let forced: Awaited<ReturnType<typeof upgradeGloo>> | undefined;
      const mf = await record('plain upgrade with --force-conflicts', async () => {
        forced = await upgradeGloo(major, ns, 'gloo', ['--force-conflicts'], userValues(major));
      });
      expect(forced?.ok).toBe(false);
      expect(forced?.stderr).toMatch(/spec\.replicas 1 is below 3, the floor that GlooHA [^ ]+\/gloo keeps/);
      expect(totalRestarts(mf)).toBe(0);
      expect(mf.replicaChanges).toEqual([]);
      expect(mf.driftCorrections).toBeLessThanOrEqual(1);
    }
    const hpa = await autoscaling.readNamespacedHorizontalPodAutoscaler({
      name: 'public-gw-hpa',
      namespace: ns,
    });
    expect(hpa.spec?.minReplicas).toBe(HPA_MIN);
    const now = await deployments(ns);
    expect(now.get('gloo')?.spec?.replicas).toBe(3);
    expect(now.get('public-gw')?.spec?.replicas).toBeGreaterThanOrEqual(HPA_MIN);
    expect(glooEnv(now.get('gloo'))).toEqual(glooEnv(before.get('gloo')));
  });

  it('values path: helm upgrade with the exported values restarts no pod, changes no replica count, corrects nothing', async () => {
    const cm = await core.readNamespacedConfigMap({ name: 'gloo-helm-values', namespace: ns });
    exported = cm.data?.['values.yaml'] ?? '';
    const before = await deployments(ns);
    const m = await record('values path (recommended command)', async () => {
      const res = await upgradeGloo(major, ns, 'gloo', recommendedFlags(major), userValues(major), exported);
      expect(res.ok, res.stderr).toBe(true);
    });
    expect(m.podRestarts).toEqual({});
    expect(m.replicaChanges).toEqual([]);
    expect(m.driftCorrections).toBe(0);
    const now = await deployments(ns);
    for (const [name, d] of before) {
      expect(now.get(name)?.spec?.replicas, name).toBe(d.spec?.replicas);
      expect(now.get(name)?.spec?.template, name).toEqual(d.spec?.template);
    }
    expect(now.get('public-gw')?.spec?.replicas).toBeGreaterThanOrEqual(HPA_MIN);
    const g = await waitReady(ns);
    expect(condition(g, 'Ready')?.status).toBe('True');
  });

  it('values path again (steady state): still nothing changes', async () => {
    const m = await record('values path, second time', async () => {
      const res = await upgradeGloo(major, ns, 'gloo', recommendedFlags(major), userValues(major), exported);
      expect(res.ok, res.stderr).toBe(true);
    });
    expect(m.podRestarts).toEqual({});
    expect(m.replicaChanges).toEqual([]);
    expect(m.driftCorrections).toBe(0);
  });

  // Pasted as printed into bash, from the kubeconfig's own namespace (default, not the install's):
  // the quoted jsonpath exports a non-empty file, and -n finds the release.
  it.each(['the refusal', 'the ConfigMap header'])(
    'the command %s prints, run as printed through bash -c, is the values path (0 / 0 / 0)',
    async (source) => {
      const text =
        source === 'the refusal'
          ? refusal
          : ((await core.readNamespacedConfigMap({ name: 'gloo-helm-values', namespace: ns })).data?.[
              'values.yaml'
            ] ?? '');
      const command = printedValuesPathCommand(text);
      let run: ShellRun | undefined;
      const m = await record(`values path, ${source}'s command through bash`, async () => {
        run = await runAsPrinted(command, { helm: major });
      });
      expect(run?.code, `${command}\n${run?.stderr}`).toBe(0);
      expect(run?.files['values-glooha.yaml']).toBe(exported);
      expect(m.podRestarts).toEqual({});
      expect(m.replicaChanges).toEqual([]);
      expect(m.driftCorrections).toBe(0);
    },
  );

  it('the floor refuses a lowering update, but not the scale subresource (kubectl scale, the HPA controller)', async () => {
    const refused = await apps
      .patchNamespacedDeployment(
        { name: 'gateway-proxy', namespace: ns, body: { spec: { replicas: 1 } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(String((refused as { body?: unknown })?.body ?? refused)).toMatch(/spec\.replicas 1 is below 2/);
    await apps.patchNamespacedDeploymentScale(
      { name: 'gateway-proxy', namespace: ns, body: { spec: { replicas: 1 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    // Allowed, then restored by the operator (driftPolicy enforce), as any drift; the restoring apply
    // takes spec.replicas again, and the operator releases it once more (no owner left, value kept).
    const restored = await eventually(
      'gateway-proxy back at 2 replicas, spec.replicas owned by no one',
      () => apps.readNamespacedDeployment({ name: 'gateway-proxy', namespace: ns }),
      (d) => d.spec?.replicas === 2 && !ownsReplicas(d),
      { timeoutMs: 30_000 },
    );
    expect(restored.spec?.replicas).toBe(2);
  });

  it('after the GlooHA is deleted: fields stay, no operator manager is left, and a plain upgrade succeeds without --force-conflicts', async () => {
    const before = await deployments(ns);
    await deleteGlooHA(ns, 'gloo');
    const kept = await deployments(ns);
    for (const [name, d] of before) {
      expect(kept.get(name)?.spec?.replicas, name).toBe(d.spec?.replicas);
      expect(kept.get(name)?.spec?.template.spec?.affinity, name).toEqual(d.spec?.template.spec?.affinity);
      const managers = (kept.get(name)?.metadata?.managedFields ?? []).map((e) => e.manager);
      expect(
        managers.filter((x) => x?.startsWith('glooha-operator')),
        name,
      ).toEqual([]);
    }
    expect(glooEnv(kept.get('gloo'))).toEqual(glooEnv(before.get('gloo')));

    let result: Awaited<ReturnType<typeof upgradeGloo>> | undefined;
    const m = await record('plain upgrade after the GlooHA is deleted', async () => {
      result = await upgradeGloo(major, ns, 'gloo', [], userValues(major));
    });
    expect(result?.ok, result?.stderr).toBe(true);
    expect(result?.stderr ?? '').not.toMatch(/conflict/);
    const now = await deployments(ns);
    // The chart's values from now on: gloo and the fixed proxy back to the chart's 1 replica.
    expect(now.get('gloo')?.spec?.replicas).toBe(1);
    expect(now.get('gateway-proxy')?.spec?.replicas).toBe(1);
    expect(m.driftCorrections).toBe(0);
  });

  it('driftPolicy warn (no floor): a plain upgrade sets the chart replicas, with no field conflict; the operator reports the drift and restores nothing', async () => {
    await createGlooHA(ns, 'gloo', { ...SPEC, driftPolicy: 'warn' });
    await waitReady(ns);
    const released = await eventually(
      'gloo at 3 replicas, spec.replicas not owned by the operator',
      () => deployments(ns),
      (ds) =>
        ds.get('gloo')?.spec?.replicas === 3 &&
        ds.get('gateway-proxy')?.spec?.replicas === 2 &&
        [...ds.values()].every((d) => !ownsReplicas(d, 'glooha-operator')),
      { timeoutMs: 60_000 },
    );
    expect(released.get('gloo')?.metadata?.annotations?.['glooha.io/min-replicas']).toBeUndefined();
    let result: Awaited<ReturnType<typeof upgradeGloo>> | undefined;
    const m = await record('plain upgrade, driftPolicy warn', async () => {
      result = await upgradeGloo(major, ns, 'gloo', [], userValues(major));
    });
    report.push(
      `Helm ${major}, plain upgrade under driftPolicy warn: ${result?.ok ? 'succeeded' : `failed: ${result?.stderr.trim().replace(/\s+/g, ' ')}`}`,
    );
    expect(result?.stderr ?? '').not.toMatch(/conflict with "glooha-operator[^"]*": \.spec\.replicas/);
    expect(result?.stderr ?? '').not.toMatch(/replicas-floor/);
    const g = await eventually(
      'Drifted=True reported',
      () => getGlooHA(ns, 'gloo'),
      (x) => condition(x, 'Drifted')?.status === 'True',
      { timeoutMs: 30_000 },
    );
    expect(condition(g, 'Drifted')?.message).toMatch(
      /Deployment gloo: spec.replicas \(replicas 1, want 3\) changed by helm/,
    );
    const now = await deployments(ns);
    expect(now.get('gloo')?.spec?.replicas).toBe(1); // the chart's, left as it is
    expect(m.replicaChanges.map((c) => `${c.deployment} ${c.from}→${c.to}`)).toEqual(
      expect.arrayContaining(['gloo 3→1', 'gateway-proxy 2→1']),
    );
    expect(m.driftCorrections).toBe(0);
  });
});
