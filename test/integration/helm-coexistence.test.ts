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
// The cases of one Helm major share one install, each starting from the state the one before left it
// in. A case that fails or times out (its helm may still be running) would leave the next a broken
// install, so the next case starts on a fresh one instead: its own namespace and release, verified
// deployed and Ready before the case runs (see freshInstall).
import {
  AppsV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GlooHA, GlooHASpec } from '../../src/products/gloo/types.js';
import { UPGRADE_FLAGS, upgradeCommand } from '../../src/core/helm-values-yaml.js';
import { GLOO_HELM_CHART } from '../../src/products/gloo/helm-values.js';
import { glooChartVersion } from '../env/binaries.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import {
  HELM_MAJORS,
  HELM_TIMEOUT_MS,
  helm,
  installGloo,
  upgradeGloo,
  type HelmMajor,
} from '../support/gloo-chart.js';
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
import { kubectl } from '../support/kubectl.js';
import { eventually, httpStatusOf } from '../support/wait.js';

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
const HPA_MAX = 6;

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

/**
 * A case's bound: two helm upgrades (Helm 4's plain path runs a second with --force-conflicts), each
 * allowed the harness's kill timeout, and the waits around them; a fresh install's: one helm install.
 */
const CASE_TIMEOUT_MS = 2 * HELM_TIMEOUT_MS + 120_000;
const INSTALL_TIMEOUT_MS = HELM_TIMEOUT_MS + 180_000;

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

describe.each(HELM_MAJORS)("Gloo's chart with Helm %i", { timeout: CASE_TIMEOUT_MS }, (major) => {
  let ns: string;
  let operator: InProcessOperator;
  /** What the plain upgrade's refusal printed on the current install (the floor's message with the command to run). */
  let refusal = '';
  /** The case that failed on the current install: the next case starts on a fresh one. */
  let failed: string | undefined;

  const record = async (what: string, run: () => Promise<unknown>): Promise<Measurement> => {
    const rec = new InstallRecorder(admin, ns, operator.metricsUrl);
    await rec.start();
    await run();
    const m = await rec.stop();
    report.push(`Helm ${major}, ${what}: ${describeMeasurement(m)}`);
    return m;
  };

  /**
   * Gloo installed by Helm in a new namespace (a release of its own), its operator, its GlooHA; verified
   * before any case runs on it: the release deployed (no pending or failed revision), the GlooHA Ready.
   */
  async function freshInstall(): Promise<void> {
    ns = await createNamespace(`helm${major}-gloo`);
    refusal = '';
    const opNs = await createNamespace(`helm${major}-op`);
    const id = await installOperatorRbac(opNs, { watchNamespaces: [ns] });
    const installed = await installGloo(major, ns, 'gloo', userValues(major));
    report.push(
      `Helm ${major}, helm install of Gloo's chart in ${ns}: ${(installed.ms / 1000).toFixed(1)} s`,
    );
    operator = await startOperatorInProcess(id, { args: [`--watch-namespaces=${ns}`] });
    await createGlooHA(ns, 'gloo', SPEC);
    await waitReady(ns);
    const status = await helm(major, ['status', 'gloo', '-n', ns, '-o', 'json']);
    expect(status.ok, status.stderr).toBe(true);
    expect((JSON.parse(status.stdout) as { info?: { status?: string } }).info?.status).toBe('deployed');
  }

  beforeAll(freshInstall, INSTALL_TIMEOUT_MS);

  beforeEach(async ({ task, onTestFailed }) => {
    if (failed !== undefined) {
      // The old install is left as the failed case left it (its helm may still run): only its operator stops.
      const old = ns;
      await operator.shutdown(`"${failed}" failed`);
      await freshInstall();
      report.push(
        `Helm ${major}: "${failed}" failed in ${old}; "${task.name}" runs on a fresh install in ${ns}`,
      );
      failed = undefined;
    }
    onTestFailed(() => {
      failed = task.name;
    });
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await operator?.shutdown('test done');
  });

  const exportedValues = async () =>
    (await core.readNamespacedConfigMap({ name: 'gloo-helm-values', namespace: ns })).data?.['values.yaml'] ??
    '';

  /** The plain upgrade's refusal on this install: the plain-path case's, or (on a fresh install) a plain upgrade's own. */
  async function refusalText(): Promise<string> {
    if (refusal) return refusal;
    const res = await upgradeGloo(major, ns, 'gloo', [], userValues(major));
    expect(res.ok, 'a plain upgrade under the floor must be refused').toBe(false);
    return (refusal = res.stderr);
  }

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
    const exported = await exportedValues();
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

  it("helm rollback to a revision rendered without the exported values is refused by the floor too; that revision's values, then the exported ones, through helm upgrade, work (docs/helm.md)", async () => {
    // Revision 1: the install with the user's values alone (gloo at the chart's 1 replica).
    let rolled: Awaited<ReturnType<typeof helm>> | undefined;
    const m = await record('helm rollback to revision 1', async () => {
      rolled = await helm(major, ['rollback', 'gloo', '1', '-n', ns]);
    });
    expect(rolled?.ok, 'helm rollback is refused').toBe(false);
    expect(rolled?.stderr).toMatch(/spec\.replicas 1 is below 3, the floor that GlooHA [^ ]+\/gloo keeps/);
    expect(totalRestarts(m)).toBe(0);
    expect(m.replicaChanges).toEqual([]);

    // The rollback that works: the revision's own values, the operator's last.
    const revisionValues = await helm(major, [
      'get',
      'values',
      'gloo',
      '-n',
      ns,
      '--revision',
      '1',
      '-o',
      'yaml',
    ]);
    expect(revisionValues.ok, revisionValues.stderr).toBe(true);
    const glooha = (await core.readNamespacedConfigMap({ name: 'gloo-helm-values', namespace: ns })).data?.[
      'values.yaml'
    ];
    const mu = await record(
      'rollback as an upgrade: revision 1 values, then the exported values',
      async () => {
        const res = await upgradeGloo(
          major,
          ns,
          'gloo',
          ['--reset-values'],
          revisionValues.stdout,
          glooha ?? '',
        );
        expect(res.ok, res.stderr).toBe(true);
      },
    );
    expect(mu.podRestarts).toEqual({});
    expect(mu.replicaChanges).toEqual([]);
    expect(mu.driftCorrections).toBe(0);
    expect((await deployments(ns)).get('gloo')?.spec?.replicas).toBe(3);
  });

  it('values path: helm upgrade with the exported values restarts no pod, changes no replica count, corrects nothing', async () => {
    const exported = await exportedValues();
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
    const exported = await exportedValues();
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
      const exported = await exportedValues();
      const text = source === 'the refusal' ? await refusalText() : exported;
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

  it('the floor refuses a lowering scale (kubectl scale, any deployments/scale write) with the same message as a lowering update, deleting no pod; an HPA still scales within its bounds', async () => {
    const denied = (text: string) => text.slice(text.indexOf('denied request: ') + 'denied request: '.length);
    const refused = await apps
      .patchNamespacedDeployment(
        { name: 'gloo', namespace: ns, body: { spec: { replicas: 1 } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    // The client's error carries the API server's Status as JSON text.
    const body = (refused as { body?: unknown } | undefined)?.body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: string } | undefined;
    const updateMessage = denied(status?.message ?? String(refused));
    expect(updateMessage).toMatch(/^spec\.replicas 1 is below 3, the floor that GlooHA [^ ]+\/gloo keeps/);

    const podsOf = async () =>
      (await core.listNamespacedPod({ namespace: ns, labelSelector: 'gloo=gloo' })).items.map(
        (p) => `${p.metadata?.name}${p.metadata?.deletionTimestamp ? ' (terminating)' : ''}`,
      );
    const podsBefore = (await podsOf()).sort();
    expect(podsBefore).toHaveLength(3);
    const scaled = await kubectl(['-n', ns, 'scale', 'deploy/gloo', '--replicas=1']);
    expect(scaled.code, 'kubectl scale below the floor is refused').not.toBe(0);
    expect(scaled.stderr).toMatch(/ValidatingAdmissionPolicy '[^']*-replicas-floor-scale'/);
    expect(denied(scaled.stderr).trim(), 'the same message as the Deployment write').toBe(updateMessage);
    // Any client of the scale subresource, not only kubectl; replicas 0 (omitted from a Scale) too.
    for (const replicas of [2, 0]) {
      const viaApi = await apps
        .patchNamespacedDeploymentScale(
          { name: 'gloo', namespace: ns, body: { spec: { replicas } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        )
        .then(
          () => 'allowed',
          (e: unknown) => String((e as { body?: unknown }).body),
        );
      expect(viaApi).toContain(`spec.replicas ${replicas} is below 3`);
    }
    const gloo = await apps.readNamespacedDeployment({ name: 'gloo', namespace: ns });
    expect(gloo.spec?.replicas).toBe(3);
    expect((await podsOf()).sort(), 'no gloo pod deleted').toEqual(podsBefore);
    // Raising, and lowering to the floor, stay allowed.
    const raised = await kubectl(['-n', ns, 'scale', 'deploy/gateway-proxy', '--replicas=4']);
    expect(raised.code, raised.stderr).toBe(0);
    const toFloor = await kubectl(['-n', ns, 'scale', 'deploy/gateway-proxy', '--replicas=2']);
    expect(toFloor.code, toFloor.stderr).toBe(0);

    // The HPA (3–6, its minimum is the floor) scales within its bounds through the same subresource:
    // above its maximum, the HPA controller brings public-gw back to 6, a lowering the floor lets by.
    const above = await kubectl(['-n', ns, 'scale', 'deploy/public-gw', `--replicas=${HPA_MAX + 1}`]);
    expect(above.code, above.stderr).toBe(0);
    await eventually(
      `the HPA controller to scale public-gw down to its maximum ${HPA_MAX}`,
      () => apps.readNamespacedDeployment({ name: 'public-gw', namespace: ns }),
      (d) => d.spec?.replicas === HPA_MAX,
      { timeoutMs: 90_000 },
    );
    const lowered = (await core.listNamespacedEvent({ namespace: ns })).items.filter(
      (e) => e.involvedObject.name === 'public-gw-hpa' && e.reason === 'SuccessfulRescale',
    );
    expect(lowered.map((e) => e.message).join('\n')).toContain(`New size: ${HPA_MAX}`);
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
    // After the case before, no GlooHA is left; on a fresh install, the enforcing one goes first.
    if ((await httpStatusOf(getGlooHA(ns, 'gloo'))) !== 404) await deleteGlooHA(ns, 'gloo');
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
