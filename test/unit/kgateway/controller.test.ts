// A KgatewayHA's controller: autoscaling (glooha's HPA on the controller Deployment, or adopting the
// one kgateway's chart renders; never two) and priorityClassName (written only once its PriorityClass
// is known to exist), through the whole plan, as the engine runs it.
import type { KubernetesObject, V1Deployment, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KGATEWAY_KIND } from '../../../src/products/kgateway/api.js';
import type { GlooHA } from '../../../src/products/gloo/types.js';
import { plan } from '../../../src/controller/plan.js';
import type { Plan, Snapshot } from '../../../src/controller/plan-types.js';
import { controllerSelectorLabels } from '../../../src/products/kgateway/facts.js';
import { KGATEWAY } from '../../../src/products/kgateway/index.js';
import { deployment, finalizedGlooHA, NS, snapshotOf } from '../controller/snapshots.js';

function kgatewayHA(controller: Record<string, unknown>): GlooHA {
  const k = finalizedGlooHA({}, { name: 'kgw', uid: 'uid-kgw' });
  Object.assign(k, { kind: KGATEWAY_KIND, spec: { controller } });
  return k;
}

function controllerDeployment(
  opts: { replicas?: number; version?: string; priorityClassName?: string } = {},
) {
  const d = deployment('kgateway', controllerSelectorLabels('kgateway'), 'controller');
  d.metadata!.labels = {
    ...controllerSelectorLabels('kgateway'),
    'app.kubernetes.io/version': opts.version ?? 'v2.4.2',
  };
  d.spec!.replicas = opts.replicas ?? 2;
  if (opts.priorityClassName) d.spec!.template.spec!.priorityClassName = opts.priorityClassName;
  return d;
}

const priorityClass = (name: string): KubernetesObject => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
});

function snapshot(
  controller: Record<string, unknown>,
  opts: {
    dep?: V1Deployment;
    hpas?: V2HorizontalPodAutoscaler[];
    /** undefined: the operator may not read PriorityClasses. */
    priorityClasses?: string[];
  } = { priorityClasses: [] },
): Snapshot {
  return snapshotOf(kgatewayHA(controller), {
    key: `${NS}/kgw`,
    deployments: [opts.dep ?? controllerDeployment()],
    hpas: opts.hpas ?? [],
    cluster: new Map(
      opts.priorityClasses ? [['PriorityClass', opts.priorityClasses.map(priorityClass)]] : [],
    ),
  });
}

const applied = (p: Plan, kind: string, name: string) =>
  p.applies.find((a) => a.body.kind === kind && a.body.metadata?.name === name)?.body as
    (KubernetesObject & { spec: Record<string, unknown> }) | undefined;
const podSpec = (p: Plan) =>
  (applied(p, 'Deployment', 'kgateway')?.spec as { template?: { spec?: Record<string, unknown> } })?.template
    ?.spec;
const condition = (p: Plan, type: string) => p.status?.conditions?.find((c) => c.type === type);
const helmValues = (p: Plan) =>
  (applied(p, 'ConfigMap', 'kgw-kgateway-helm-values') as { data?: Record<string, string> } | undefined)
    ?.data?.['values.yaml'] ?? '';

/** The HPA kgateway's 2.4 chart renders from controller.horizontalPodAutoscaler (named as the Deployment). */
const chartHpa: V2HorizontalPodAutoscaler = {
  metadata: { name: 'kgateway', namespace: NS, labels: { 'app.kubernetes.io/name': 'kgateway' } },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'kgateway' },
    minReplicas: 1,
    maxReplicas: 3,
  },
};

describe('KgatewayHA spec.controller.autoscaling', () => {
  it('neither replicas nor autoscaling: 2 fixed replicas, applied to the Deployment', () => {
    const p = plan(snapshot({}), KGATEWAY);
    expect(applied(p, 'Deployment', 'kgateway')?.spec).toHaveProperty('replicas', 2);
    expect(p.applies.some((a) => a.body.kind === 'HorizontalPodAutoscaler')).toBe(false);
  });

  it("autoscaled: glooha's HPA on the controller with the bounds, no replicas applied, the floor is minReplicas", () => {
    const p = plan(snapshot({ autoscaling: { minReplicas: 2, maxReplicas: 5 } }), KGATEWAY);
    const hpa = applied(p, 'HorizontalPodAutoscaler', 'kgateway-glooha');
    expect(hpa?.spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'kgateway' },
      minReplicas: 2,
      maxReplicas: 5,
    });
    const dep = applied(p, 'Deployment', 'kgateway');
    expect(dep?.spec).not.toHaveProperty('replicas');
    expect(dep?.metadata?.annotations?.['glooha.io/min-replicas']).toBe('2');
    expect(p.status?.components?.controller).toMatchObject({
      desiredReplicas: 2,
      autoscaling: { hpaName: 'kgateway-glooha', minReplicas: 2, maxReplicas: 5 },
    });
  });

  it("adopts the chart's HPA (controller.horizontalPodAutoscaler) with the spec's bounds: never a second HPA", () => {
    const p = plan(
      snapshot(
        { autoscaling: { minReplicas: 2, maxReplicas: 5 } },
        { hpas: [chartHpa], priorityClasses: [] },
      ),
      KGATEWAY,
    );
    expect(applied(p, 'HorizontalPodAutoscaler', 'kgateway-glooha')).toBeUndefined();
    expect(applied(p, 'HorizontalPodAutoscaler', 'kgateway')?.spec).toMatchObject({
      minReplicas: 2,
      maxReplicas: 5,
    });
    expect(p.status?.components?.controller?.autoscaling).toMatchObject({
      hpaName: 'kgateway',
    });
  });

  it('fixed replicas beside an HPA on the controller: a problem naming spec.controller.replicas, replicas left to the HPA', () => {
    const p = plan(snapshot({ replicas: 3 }, { hpas: [chartHpa], priorityClasses: [] }), KGATEWAY);
    expect(condition(p, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'HorizontalPodAutoscalerConflict',
    });
    expect(applied(p, 'Deployment', 'kgateway')?.spec ?? {}).not.toHaveProperty('replicas');
  });

  it('the exported values keep replicaCount at the live count within the bounds, and say the HPA is the operator’s', () => {
    const p = plan(
      snapshot(
        { autoscaling: { minReplicas: 2, maxReplicas: 5 } },
        { dep: controllerDeployment({ replicas: 4 }), priorityClasses: [] },
      ),
      KGATEWAY,
    );
    expect(helmValues(p)).toMatch(/replicaCount: 4/);
    expect(helmValues(p)).not.toMatch(/^\s*horizontalPodAutoscaler:/m);
    expect(helmValues(p)).toMatch(/spec.controller.autoscaling is the operator's HPA/);
  });
});

describe('KgatewayHA spec.controller.priorityClassName', () => {
  it('the PriorityClass exists: the pod template gets it, and the 2.4 values carry it', () => {
    const p = plan(
      snapshot({ priorityClassName: 'kgw-critical' }, { priorityClasses: ['kgw-critical'] }),
      KGATEWAY,
    );
    expect(podSpec(p)).toHaveProperty('priorityClassName', 'kgw-critical');
    expect(helmValues(p)).toMatch(/priorityClassName: kgw-critical/);
    expect(condition(p, 'Stalled')?.status).toBe('False');
  });

  it('missing: Stalled with a problem naming the field, the class and the fix; priorityClassName not written', () => {
    const p = plan(snapshot({ priorityClassName: 'kgw-critical' }, { priorityClasses: ['other'] }), KGATEWAY);
    expect(podSpec(p) ?? {}).not.toHaveProperty('priorityClassName');
    expect(helmValues(p)).not.toMatch(/priorityClassName/);
    const stalled = condition(p, 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'PriorityClassNotFound' });
    expect(stalled?.message).toMatch(/spec.controller.priorityClassName/);
    expect(stalled?.message).toMatch(/PriorityClass kgw-critical does not exist/);
    expect(stalled?.message).toMatch(/kubectl create priorityclass kgw-critical/);
    expect(condition(p, 'Ready')?.status).toBe('False');
  });

  it('deleted after the pods run with it: kept as it is (no rollout), and reported', () => {
    const p = plan(
      snapshot(
        { priorityClassName: 'kgw-critical' },
        { dep: controllerDeployment({ priorityClassName: 'kgw-critical' }), priorityClasses: [] },
      ),
      KGATEWAY,
    );
    expect(podSpec(p)).toHaveProperty('priorityClassName', 'kgw-critical');
    expect(condition(p, 'Stalled')?.reason).toBe('PriorityClassNotFound');
  });

  it('PriorityClasses not readable (namespaced install without cluster reads): says so, writes nothing', () => {
    const p = plan(snapshot({ priorityClassName: 'kgw-critical' }, { priorityClasses: undefined }), KGATEWAY);
    expect(podSpec(p) ?? {}).not.toHaveProperty('priorityClassName');
    const stalled = condition(p, 'Stalled');
    expect(stalled?.reason).toBe('PriorityClassesUnreadable');
    expect(stalled?.message).toMatch(/rbac.clusterWideReads/);
  });

  it('the exported values carry it as controller.priorityClassName once written', () => {
    const p = plan(
      snapshot({ priorityClassName: 'kgw-critical' }, { priorityClasses: ['kgw-critical'] }),
      KGATEWAY,
    );
    expect(podSpec(p)).toHaveProperty('priorityClassName', 'kgw-critical');
    expect(helmValues(p)).toMatch(/^\s+priorityClassName: kgw-critical$/m);
  });
});

describe('KgatewayHA spec.controller.topologySpreadConstraints in the exported values', () => {
  const spread = {
    topologySpreadConstraints: [
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
    ],
  };

  it('controller.topologySpreadConstraints carries them, and the header does not call them the operator’s alone', () => {
    const values = helmValues(plan(snapshot(spread), KGATEWAY));
    expect(values).toMatch(/^\s+topologySpreadConstraints:/m);
    expect(values).not.toMatch(/topologySpreadConstraints are the operator's alone/);
  });
});

describe('the installed kgateway version (support policy: 2.3 and newer)', () => {
  const labelled = (version: string) => controllerDeployment({ version });

  it.each(['v2.2.0', '2.2.9', 'v2.1.3', 'v1.9.0', 'v2.2.0-rc.1'])(
    '%s: Stalled UnsupportedVersion naming the version, the range and the fix, and nothing written',
    (version) => {
      const p = plan(snapshot({ replicas: 3 }, { dep: labelled(version), priorityClasses: [] }), KGATEWAY);
      expect(p.applies).toEqual([]);
      expect(p.prunes).toEqual([]);
      const stalled = condition(p, 'Stalled');
      expect(stalled).toMatchObject({ status: 'True', reason: 'UnsupportedVersion' });
      expect(stalled?.message).toContain(`runs kgateway ${version}`);
      expect(stalled?.message).toMatch(/supports kgateway 2\.3 and newer/);
      expect(stalled?.message).toMatch(/Upgrade kgateway to 2\.3 or newer/);
      expect(condition(p, 'Ready')).toMatchObject({ status: 'False', reason: 'UnsupportedVersion' });
    },
  );

  it('the chart label decides over the app version, as for the upgrade command', () => {
    const dep = labelled('v2.4.2');
    dep.metadata!.labels!['helm.sh/chart'] = 'kgateway-v2.2.1';
    const p = plan(snapshot({ replicas: 3 }, { dep, priorityClasses: [] }), KGATEWAY);
    expect(condition(p, 'Stalled')?.reason).toBe('UnsupportedVersion');
  });

  it.each(['v2.3.0', 'v2.3.6', '2.3.0-beta.1', 'v2.4.2'])('%s: managed, no version warning', (version) => {
    const p = plan(snapshot({ replicas: 3 }, { dep: labelled(version), priorityClasses: [] }), KGATEWAY);
    expect(applied(p, 'Deployment', 'kgateway')).toBeDefined();
    expect(condition(p, 'Stalled')?.status).toBe('False');
    expect(p.status?.warnings?.map((w) => w.code) ?? []).not.toContain('KgatewayVersionUntested');
    expect(p.status?.warnings?.map((w) => w.code) ?? []).not.toContain('KgatewayVersionUnknown');
  });

  it.each(['v2.5.0', 'v2.10.0', '3.0.0', 'v2.5.0-beta.1'])(
    '%s: newer than the newest tested line: managed, with the warning KgatewayVersionUntested (not Stalled)',
    (version) => {
      const p = plan(snapshot({ replicas: 3 }, { dep: labelled(version), priorityClasses: [] }), KGATEWAY);
      expect(applied(p, 'Deployment', 'kgateway')?.spec).toMatchObject({ replicas: 3 });
      expect(condition(p, 'Stalled')?.status).toBe('False');
      const warning = p.status?.warnings?.find((w) => w.code === 'KgatewayVersionUntested');
      expect(warning?.message).toContain(
        `runs kgateway ${version}, newer than the newest line glooha is tested with (2.4)`,
      );
    },
  );

  it.each([['main'], ['latest'], ['v2.4'], ['garbage!']])(
    'label %s: said so in the warning KgatewayVersionUnknown; managed from the served schema',
    (label) => {
      const p = plan(snapshot({ replicas: 3 }, { dep: labelled(label), priorityClasses: [] }), KGATEWAY);
      expect(applied(p, 'Deployment', 'kgateway')).toBeDefined();
      expect(condition(p, 'Stalled')?.status).toBe('False');
      const warning = p.status?.warnings?.find((w) => w.code === 'KgatewayVersionUnknown');
      expect(warning?.message).toContain(
        `labelled with version ${JSON.stringify(label)}, which is not a version`,
      );
    },
  );

  it('no version label at all: the same warning, saying the label is missing', () => {
    const dep = controllerDeployment();
    delete dep.metadata!.labels!['app.kubernetes.io/version'];
    const p = plan(snapshot({ replicas: 3 }, { dep, priorityClasses: [] }), KGATEWAY);
    expect(applied(p, 'Deployment', 'kgateway')).toBeDefined();
    expect(p.status?.warnings?.find((w) => w.code === 'KgatewayVersionUnknown')?.message).toMatch(
      /has no version label/,
    );
  });
});

describe('KGW_DISABLE_LEADER_ELECTION goes where the chart renders controller.extraEnv', () => {
  const env = (names: string[]) => names.map((name) => ({ name, value: 'x' }));
  const appliedEnv = (names: string[]) => {
    const dep = controllerDeployment();
    dep.spec!.template.spec!.containers[0]!.env = env(names);
    const p = plan(snapshot({ replicas: 2 }, { dep, priorityClasses: [] }), KGATEWAY);
    return (
      podSpec(p) as { containers?: { name: string; env?: { name: string }[] }[] } | undefined
    )?.containers
      ?.find((c) => c.name === 'controller')
      ?.env?.map((e) => e.name);
  };

  it("2.3's chart: before KGW_ENABLE_ENVOY, the first entry after extraEnv (KGW_GATEWAY_CLASS_PARAMETERS_REFS comes later)", () => {
    expect(
      appliedEnv([
        'KGW_VALIDATION_MODE',
        'KGW_ENABLE_ENVOY',
        'KGW_GATEWAY_CLASS_PARAMETERS_REFS',
        'POD_NAMESPACE',
      ]),
    ).toEqual(['KGW_DISABLE_LEADER_ELECTION', 'KGW_ENABLE_ENVOY']);
  });

  it("2.4's chart: before KGW_GATEWAY_CLASS_PARAMETERS_REFS", () => {
    expect(
      appliedEnv(['KGW_AWS_EC2_REFRESH_INTERVAL', 'KGW_GATEWAY_CLASS_PARAMETERS_REFS', 'POD_NAMESPACE']),
    ).toEqual(['KGW_DISABLE_LEADER_ELECTION', 'KGW_GATEWAY_CLASS_PARAMETERS_REFS']);
  });

  it("a chart that renders neither: no anchor; one that already has the entry (Helm's extraEnv): its place kept", () => {
    expect(appliedEnv(['KGW_VALIDATION_MODE', 'POD_NAMESPACE'])).toEqual(['KGW_DISABLE_LEADER_ELECTION']);
    expect(appliedEnv(['KGW_DISABLE_LEADER_ELECTION', 'KGW_GATEWAY_CLASS_PARAMETERS_REFS'])).toEqual([
      'KGW_DISABLE_LEADER_ELECTION',
    ]);
  });
});

describe("a KgatewayHA's upgrade command (the ConfigMap's header and the replicas floor's refusal)", () => {
  const floorCommand = (p: Plan) =>
    (applied(p, 'Deployment', 'kgateway')?.metadata?.annotations ?? {})['glooha.io/helm-upgrade'];

  it("names kgateway's release and chart, the installed chart version (helm.sh/chart) and values-kgatewayha.yaml", () => {
    const dep = controllerDeployment({ version: 'v2.3.6' });
    dep.metadata!.labels!['helm.sh/chart'] = 'kgateway-v2.3.6';
    const p = plan(snapshot({ replicas: 3 }, { dep, priorityClasses: [] }), KGATEWAY);
    const command = floorCommand(p);
    expect(command).toBe(
      `kubectl -n ${NS} get configmap kgw-kgateway-helm-values -o go-template='{{index .data \`values.yaml\`}}' > values-kgatewayha.yaml && ` +
        `helm upgrade kgateway \${KGATEWAY_CHART:-oci://cr.kgateway.dev/kgateway-dev/charts/kgateway} --version v2.3.6 -n ${NS} --reset-then-reuse-values -f values-kgatewayha.yaml`,
    );
    expect(helmValues(p)).toContain(`#   ${command}\n`);
  });

  it('takes the chart version from helm.sh/chart over the app version, and the release from spec.target', () => {
    const dep = controllerDeployment({ version: 'v2.4.2' });
    dep.metadata!.labels!['helm.sh/chart'] = 'kgateway-v2.4.1-patch.1';
    const k = kgatewayHA({ replicas: 3 });
    Object.assign(k.spec!, { target: { helmRelease: 'kgateway' } });
    const p = plan(snapshotOf(k, { key: `${NS}/kgw`, deployments: [dep], hpas: [] }), KGATEWAY);
    expect(floorCommand(p)).toContain(' --version v2.4.1-patch.1 ');
    expect(floorCommand(p)).toContain('helm upgrade kgateway ');
  });
});
