// The Helm chart as rendered by the real Helm: what the operator's pods get (HA placement, probes,
// security context, the settings it reads from the environment), the RBAC in cluster and namespaced
// mode (exactly the operator's API use, nothing more), and the values schema and template guards.
import type {
  KubernetesObject,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1Deployment,
  V1EnvVar,
  V1PodDisruptionBudget,
  V1PolicyRule,
  V1Role,
  V1RoleBinding,
  V1Service,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { LABEL_REPLICAS_FLOORS } from '../../../src/api/constants.js';
import { FLOOR_KEYS } from '../../../src/core/replicas-floors.js';
import { FENCING_DENIAL_MARKER } from '../../../src/kube/client.js';
import { FENCING_PROBE_ANNOTATION, FENCING_PROBE_MARKER } from '../../../src/leader/fencing-probe.js';
import { electionPermissions, reconcilerPermissions, triples } from './expected-rbac.js';
import { chartDir, find, helm, helmBuildTimeoutMs, render, renderError } from './helm.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const packageVersion = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }
).version;

/** The rules of a (Cluster)Role as sorted "group/resource:verb" strings. */
function ruleTriples(rules: V1PolicyRule[] = []): string[] {
  return rules
    .flatMap((r) =>
      (r.apiGroups ?? []).flatMap((g) =>
        (r.resources ?? []).flatMap((res) => r.verbs.map((v) => `${g}/${res}:${v}`)),
      ),
    )
    .sort();
}

function env(deploy: V1Deployment): Map<string, V1EnvVar> {
  const c = deploy.spec?.template.spec?.containers[0];
  return new Map((c?.env ?? []).map((e) => [e.name, e]));
}

function envValues(deploy: V1Deployment): Record<string, string | undefined> {
  return Object.fromEntries([...env(deploy)].filter(([, e]) => !e.valueFrom).map(([k, e]) => [k, e.value]));
}

beforeAll(() => {
  helm(); // builds the pinned helm on a cold cache (idempotent and instant once built)
}, helmBuildTimeoutMs);

describe('chart defaults (cluster mode)', () => {
  let objects: KubernetesObject[];
  let deploy: V1Deployment;
  let podLabels: Record<string, string>;
  beforeAll(async () => {
    objects = await render({ release: 'glooha-operator', namespace: 'glooha-system' });
    deploy = find<V1Deployment>(objects, 'Deployment', 'glooha-operator');
    podLabels = deploy.spec?.template.metadata?.labels ?? {};
  });

  it('renders exactly the expected objects, namespaced ones in the release namespace', () => {
    const kinds = objects.map((o) => `${o.kind}/${o.metadata?.name}`).sort();
    expect(kinds).toEqual([
      'ClusterRole/glooha-operator',
      'ClusterRoleBinding/glooha-operator',
      'Deployment/glooha-operator',
      'FlowSchema/glooha-operator-leader-election',
      'PodDisruptionBudget/glooha-operator',
      'Service/glooha-operator-metrics',
      'ServiceAccount/glooha-operator',
      'ValidatingAdmissionPolicy/glooha-operator-fencing',
      'ValidatingAdmissionPolicy/glooha-operator-replicas-floor',
      'ValidatingAdmissionPolicy/glooha-operator-replicas-floor-scale',
      'ValidatingAdmissionPolicyBinding/glooha-operator-fencing',
      'ValidatingAdmissionPolicyBinding/glooha-operator-replicas-floor',
      'ValidatingAdmissionPolicyBinding/glooha-operator-replicas-floor-scale',
    ]);
    for (const o of objects.filter(
      (o) => !/^(Cluster|ValidatingAdmissionPolicy|FlowSchema)/.test(o.kind ?? ''),
    )) {
      expect(o.metadata?.namespace, `${o.kind} namespace`).toBe('glooha-system');
    }
  });

  it('runs 2 replicas of the appVersion image with leader election on, identity from the downward API', () => {
    const spec = deploy.spec!;
    expect(spec.replicas).toBe(2);
    expect(spec.strategy?.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
    const container = spec.template.spec!.containers[0]!;
    expect(container.image).toBe(`ghcr.io/glooha/glooha-operator:${packageVersion}`);
    expect(spec.template.spec?.serviceAccountName).toBe('glooha-operator');
    const e = env(deploy);
    expect(e.get('POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(e.get('POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.namespace');
    expect(envValues(deploy)).toEqual({
      WATCH_NAMESPACES: '',
      GLOOHA_CONCURRENCY: '4',
      GLOOHA_RESYNC_PERIOD: '10m',
      GLOOHA_METRICS_BIND_ADDRESS: ':8080',
      LOG_LEVEL: 'info',
      LEADER_ELECT: 'true',
      LEADER_ELECT_LEASE_NAME: 'glooha-operator',
      LEADER_ELECT_LEASE_DURATION: '15s',
      LEADER_ELECT_RENEW_DEADLINE: '10s',
      LEADER_ELECT_RETRY_PERIOD: '2s',
      LEADER_ELECT_REQUIRE_FENCING_POLICY: 'true',
    });
    // No args or command: the image's ENTRYPOINT (node --max-semi-space-size=4 --expose-gc dist/src/main.js) runs, configured by env only.
    expect(container.command).toBeUndefined();
    expect(container.args).toBeUndefined();
  });

  it('probes /healthz (liveness) and /readyz (readiness) on the metrics port and sets resources', () => {
    const c = deploy.spec!.template.spec!.containers[0]!;
    expect(c.ports).toEqual([{ name: 'metrics', containerPort: 8080, protocol: 'TCP' }]);
    expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(c.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(c.resources?.limits?.memory).toBeDefined();
  });

  it('runs non-root (uid/gid 65532), read-only root filesystem, no escalation, no capabilities, RuntimeDefault seccomp', () => {
    const pod = deploy.spec!.template.spec!;
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.containers[0]!.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    // A writable /tmp (memory-backed, bounded) since the root filesystem is read-only.
    expect(pod.containers[0]!.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    expect(pod.volumes?.[0]?.emptyDir?.sizeLimit).toBeDefined();
  });

  it('spreads its replicas: preferred hostname anti-affinity and zone + hostname topology spread on its own pods', () => {
    const pod = deploy.spec!.template.spec!;
    const preferred = pod.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    expect(preferred).toHaveLength(1);
    expect(preferred[0]!.podAffinityTerm.topologyKey).toBe('kubernetes.io/hostname');
    expect(podLabels).toMatchObject(preferred[0]!.podAffinityTerm.labelSelector!.matchLabels!);
    expect(pod.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toBeUndefined();
    const tsc = pod.topologySpreadConstraints ?? [];
    expect(tsc.map((t) => t.topologyKey)).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
    for (const t of tsc) {
      expect(t).toMatchObject({ maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' });
      expect(podLabels).toMatchObject(t.labelSelector!.matchLabels!);
    }
  });

  it('guards its own pods with a PDB (maxUnavailable 1) and exposes metrics through a Service', () => {
    const pdb = find<V1PodDisruptionBudget>(objects, 'PodDisruptionBudget');
    expect(pdb.spec?.maxUnavailable).toBe(1);
    expect(pdb.spec?.minAvailable).toBeUndefined();
    expect(pdb.spec?.selector?.matchLabels).toEqual(deploy.spec?.selector.matchLabels);
    expect(podLabels).toMatchObject(pdb.spec!.selector!.matchLabels!);
    const svc = find<V1Service>(objects, 'Service');
    expect(podLabels).toMatchObject(svc.spec!.selector!);
    expect(svc.spec?.ports).toEqual([
      { name: 'metrics', port: 8080, targetPort: 'metrics', protocol: 'TCP' },
    ]);
    expect(find<V1ServiceAccount>(objects, 'ServiceAccount').metadata?.name).toBe('glooha-operator');
  });

  it('grants exactly the operator API use in one ClusterRole: no wildcard, no secrets, no escalate/bind', () => {
    const role = find<V1ClusterRole>(objects, 'ClusterRole');
    expect(ruleTriples(role.rules)).toEqual(triples(reconcilerPermissions));
    const flat = JSON.stringify(role.rules);
    expect(flat).not.toContain('*');
    expect(flat).not.toContain('secrets');
    const verbs = new Set((role.rules ?? []).flatMap((r) => r.verbs));
    for (const verb of ['escalate', 'bind', 'impersonate', 'deletecollection'])
      expect(verbs.has(verb), verb).toBe(false);
    for (const r of role.rules ?? []) expect(r.resourceNames).toBeUndefined();
    const binding = find<V1ClusterRoleBinding>(objects, 'ClusterRoleBinding');
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'glooha-operator',
    });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'glooha-operator', namespace: 'glooha-system' },
    ]);
  });

  it('carries the standard labels, with the chart appVersion', () => {
    for (const o of objects) {
      expect(o.metadata?.labels, `${o.kind} labels`).toMatchObject({
        'app.kubernetes.io/name': 'glooha-operator',
        'app.kubernetes.io/instance': 'glooha-operator',
        'app.kubernetes.io/version': packageVersion,
      });
    }
  });
});

describe('namespaced mode (watchNamespaces)', () => {
  let objects: KubernetesObject[];
  beforeAll(async () => {
    objects = await render({
      release: 'ops',
      namespace: 'ops-system',
      values: { watchNamespaces: ['gloo-a', 'gloo-b', 'gloo-a'] },
    });
  });

  it('renders a Role + RoleBinding per watched namespace (de-duplicated) and no cluster-scoped RBAC', () => {
    expect(objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding')).toEqual([]);
    for (const ns of ['gloo-a', 'gloo-b']) {
      const role = find<V1Role>(objects, 'Role', 'ops-glooha-operator', ns);
      expect(ruleTriples(role.rules)).toEqual(triples(reconcilerPermissions));
      const rb = find<V1RoleBinding>(objects, 'RoleBinding', 'ops-glooha-operator', ns);
      expect(rb.roleRef).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: 'ops-glooha-operator',
      });
      expect(rb.subjects).toEqual([
        { kind: 'ServiceAccount', name: 'ops-glooha-operator', namespace: 'ops-system' },
      ]);
    }
    expect(objects.filter((o) => o.kind === 'Role')).toHaveLength(3);
    expect(objects.filter((o) => o.kind === 'RoleBinding')).toHaveLength(3);
  });

  it('grants only its Lease and Events in the release namespace', () => {
    const role = find<V1Role>(objects, 'Role', 'ops-glooha-operator-leader-election', 'ops-system');
    expect(ruleTriples(role.rules)).toEqual(triples(electionPermissions));
    const rb = find<V1RoleBinding>(
      objects,
      'RoleBinding',
      'ops-glooha-operator-leader-election',
      'ops-system',
    );
    expect(rb.roleRef.name).toBe('ops-glooha-operator-leader-election');
  });

  it('tells the operator which namespaces to watch', () => {
    const deploy = find<V1Deployment>(objects, 'Deployment');
    expect(envValues(deploy).WATCH_NAMESPACES).toBe('gloo-a,gloo-b');
  });

  it('rbac.clusterWideReads adds one ClusterRole with exactly the reads (get/list/watch) of what the operator watches; writes stay per namespace', async () => {
    const withReads = await render({
      release: 'ops',
      namespace: 'ops-system',
      values: { watchNamespaces: ['gloo-a', 'gloo-b'], rbac: { clusterWideReads: true } },
    });
    const role = find<V1ClusterRole>(withReads, 'ClusterRole', 'ops-glooha-operator-reads');
    const watched = reconcilerPermissions
      .filter((p) => p.verbs.includes('list') && p.verbs.includes('watch'))
      .map((p) => ({ ...p, verbs: p.verbs.filter((v) => ['get', 'list', 'watch'].includes(v)) }));
    expect(ruleTriples(role.rules)).toEqual(triples(watched));
    expect(JSON.stringify(role.rules)).not.toContain('secrets');
    const binding = find<V1ClusterRoleBinding>(withReads, 'ClusterRoleBinding', 'ops-glooha-operator-reads');
    expect(binding.roleRef.name).toBe('ops-glooha-operator-reads');
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'ops-glooha-operator', namespace: 'ops-system' },
    ]);
    // The per-namespace Roles are unchanged; in cluster mode the value adds nothing.
    expect(withReads.filter((o) => o.kind === 'Role')).toHaveLength(3);
    const clusterMode = await render({ values: { rbac: { clusterWideReads: true } } });
    expect(clusterMode.filter((o) => o.metadata?.name?.endsWith('-reads'))).toEqual([]);
  });
});

describe('options', () => {
  it('renders a ServiceMonitor on the metrics port only when asked', async () => {
    const plain = await render();
    expect(plain.filter((o) => o.kind === 'ServiceMonitor')).toEqual([]);
    const objects = await render({
      values: {
        metrics: { serviceMonitor: { enabled: true, labels: { release: 'prom' }, scrapeTimeout: '10s' } },
      },
    });
    const sm = find<KubernetesObject & { spec: Record<string, unknown> }>(objects, 'ServiceMonitor');
    expect(sm.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(sm.metadata?.labels?.release).toBe('prom');
    expect(sm.spec.endpoints).toEqual([
      // honorLabels: the per-GlooHA series keep the GlooHA's namespace label (docs/observability.md).
      { port: 'metrics', path: '/metrics', honorLabels: true, interval: '30s', scrapeTimeout: '10s' },
    ]);
    const svc = find<V1Service>(objects, 'Service');
    expect(svc.metadata?.labels).toMatchObject((sm.spec.selector as { matchLabels: object }).matchLabels);
  });

  it('takes image tag, digest and repository overrides', async () => {
    const image = async (values: Record<string, unknown>) =>
      find<V1Deployment>(await render({ values }), 'Deployment').spec!.template.spec!.containers[0]!.image;
    expect(await image({ image: { repository: 'registry.local/op', tag: 'dev' } })).toBe(
      'registry.local/op:dev',
    );
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(await image({ image: { digest } })).toBe(
      `ghcr.io/glooha/glooha-operator:${packageVersion}@${digest}`,
    );
  });

  it('switches anti-affinity to required or off, and takes verbatim affinity / spread constraints', async () => {
    const pod = async (values: Record<string, unknown>) =>
      find<V1Deployment>(await render({ values }), 'Deployment').spec!.template.spec!;
    const hard = await pod({ podAntiAffinity: 'hard' });
    expect(
      hard.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.topologyKey,
    ).toBe('kubernetes.io/hostname');
    expect(
      (await pod({ podAntiAffinity: 'none', topologySpread: { enabled: false } })).affinity,
    ).toBeUndefined();
    const custom = await pod({
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
      },
      topologySpreadConstraints: [{ maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }],
    });
    expect(custom.affinity?.podAntiAffinity).toBeUndefined();
    expect(custom.affinity?.nodeAffinity).toBeDefined();
    expect(custom.topologySpreadConstraints).toEqual([
      { maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
    ]);
  });

  it('uses an existing ServiceAccount when serviceAccount.create=false and can leave RBAC out', async () => {
    const objects = await render({
      values: { serviceAccount: { create: false, name: 'mine' }, rbac: { create: false } },
    });
    // The replicas-floor policy and the FlowSchema are not RBAC: the API server evaluates them.
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'Deployment',
      'FlowSchema',
      'PodDisruptionBudget',
      'Service',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
    ]);
    expect(find<V1Deployment>(objects, 'Deployment').spec?.template.spec?.serviceAccountName).toBe('mine');
    expect(JSON.stringify(find(objects, 'FlowSchema'))).toContain('"serviceAccount":{"name":"mine"');
    expect(await renderError({ values: { serviceAccount: { create: false } } })).toContain(
      'serviceAccount.name is required',
    );
  });

  it('the replicas-floor policy binds to its policy by name, and replicasFloorPolicy.enabled=false leaves it out', async () => {
    const objects = await render({});
    const policy = find(objects, 'ValidatingAdmissionPolicy', 'glooha-operator-replicas-floor');
    const binding = find<KubernetesObject & { spec: { policyName: string; validationActions: string[] } }>(
      objects,
      'ValidatingAdmissionPolicyBinding',
      'glooha-operator-replicas-floor',
    );
    expect(binding.spec.policyName).toBe(policy.metadata?.name);
    expect(binding.spec.validationActions).toEqual(['Deny']);
    const off = await render({ values: { replicasFloorPolicy: { enabled: false } } });
    expect(off.filter((o) => /-replicas-floor(-scale)?$/.test(o.metadata?.name ?? ''))).toEqual([]);
  });

  it('the scale policy reads its floors from the ConfigMaps the operator labels, in the request’s namespace, and lets a namespace without one through', async () => {
    const objects = await render({});
    const policy = find<KubernetesObject & { spec: Record<string, unknown> }>(
      objects,
      'ValidatingAdmissionPolicy',
      'glooha-operator-replicas-floor-scale',
    );
    const binding = find<KubernetesObject & { spec: Record<string, unknown> }>(
      objects,
      'ValidatingAdmissionPolicyBinding',
      'glooha-operator-replicas-floor-scale',
    );
    expect(policy.spec).toMatchObject({
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['UPDATE'],
            resources: ['deployments/scale'],
          },
        ],
      },
    });
    // No namespace in the paramRef: the params are looked up in the namespace of the request.
    expect(binding.spec).toEqual({
      policyName: 'glooha-operator-replicas-floor-scale',
      paramRef: {
        selector: { matchLabels: { [LABEL_REPLICAS_FLOORS]: 'true' } },
        parameterNotFoundAction: 'Allow',
      },
      validationActions: ['Deny'],
    });
    // The keys it reads are those the operator writes (src/core/replicas-floors.ts).
    const text = JSON.stringify(policy.spec);
    for (const prefix of Object.values(FLOOR_KEYS)) expect(text).toContain(`'${prefix}.' + request.name`);
  });

  it("puts the operator's Lease requests, and only those, at the leader-election priority level; off with the value or without leader election", async () => {
    const objects = await render({ release: 'ops', namespace: 'ops-system' });
    const schema = find<KubernetesObject & { spec: Record<string, unknown> }>(
      objects,
      'FlowSchema',
      'ops-glooha-operator-leader-election',
    );
    expect(schema.apiVersion).toBe('flowcontrol.apiserver.k8s.io/v1');
    expect(schema.spec).toEqual({
      priorityLevelConfiguration: { name: 'leader-election' },
      matchingPrecedence: 250,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [
            {
              kind: 'ServiceAccount',
              serviceAccount: { name: 'ops-glooha-operator', namespace: 'ops-system' },
            },
          ],
          resourceRules: [
            {
              verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
              apiGroups: ['coordination.k8s.io'],
              resources: ['leases'],
              namespaces: ['ops-system'],
            },
          ],
        },
      ],
    });
    const kinds = async (values: Record<string, unknown>) =>
      (await render({ values })).filter((o) => o.kind === 'FlowSchema').map((o) => o.metadata?.name);
    expect(await kinds({ leaderElection: { flowSchema: { enabled: false } } })).toEqual([]);
    expect(await kinds({ replicaCount: 1, leaderElection: { enabled: false } })).toEqual([]);
  });

  it("fences server-side by default: a policy on the Lease for the operator's ServiceAccount only; off with the value or without leader election", async () => {
    const objects = await render({
      release: 'ops',
      namespace: 'ops-system',
      values: { leaderElection: { id: 'my-lease' } },
    });
    const policy = find<KubernetesObject & { spec: Record<string, unknown> }>(
      objects,
      'ValidatingAdmissionPolicy',
      'ops-glooha-operator-fencing',
    );
    const binding = find<KubernetesObject & { spec: Record<string, unknown> }>(
      objects,
      'ValidatingAdmissionPolicyBinding',
      'ops-glooha-operator-fencing',
    );
    expect(policy.spec).toMatchObject({
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
    });
    const text = JSON.stringify(policy.spec);
    expect(text).toContain(
      "request.userInfo.username == 'system:serviceaccount:ops-system:ops-glooha-operator'",
    );
    expect(text).toContain("request.name == 'my-lease'");
    expect(text).toContain('authentication.kubernetes.io/pod-name');
    // The operator recognises the policy's denials by this marker (src/kube/client.ts).
    expect(text).toContain(`'${FENCING_DENIAL_MARKER}`);
    // ... and verifies that it is enforced by the probe it always refuses (src/leader/fencing-probe.ts).
    expect(text).toContain(`'${FENCING_PROBE_ANNOTATION}' in object.metadata.annotations`);
    expect(text).toContain(`"message":"${FENCING_PROBE_MARKER}`);
    // The operator then requires the policy; without it (or without leader election) it does not.
    const requires = async (values: Record<string, unknown>) =>
      envValues(find<V1Deployment>(await render({ values }), 'Deployment'))
        .LEADER_ELECT_REQUIRE_FENCING_POLICY;
    expect(await requires({})).toBe('true');
    expect(await requires({ leaderElection: { fencingPolicy: { enabled: false } } })).toBeUndefined();
    expect(await requires({ replicaCount: 1, leaderElection: { enabled: false } })).toBeUndefined();
    expect(binding.spec).toEqual({
      policyName: 'ops-glooha-operator-fencing',
      validationActions: ['Deny'],
      paramRef: { name: 'my-lease', namespace: 'ops-system', parameterNotFoundAction: 'Allow' },
    });
    const kinds = async (values: Record<string, unknown>) =>
      (await render({ values })).filter((o) => o.metadata?.name?.endsWith('-fencing')).map((o) => o.kind);
    expect(await kinds({ leaderElection: { fencingPolicy: { enabled: false } } })).toEqual([]);
    expect(await kinds({ replicaCount: 1, leaderElection: { enabled: false } })).toEqual([]);
  });

  it('passes the metrics port and leader-election timings through', async () => {
    const objects = await render({
      values: {
        metrics: { port: 9090 },
        leaderElection: { leaseDuration: '30s', renewDeadline: '20s', retryPeriod: '5s', id: 'my-lock' },
        logLevel: 'debug',
      },
    });
    const deploy = find<V1Deployment>(objects, 'Deployment');
    expect(envValues(deploy)).toMatchObject({
      GLOOHA_METRICS_BIND_ADDRESS: ':9090',
      LEADER_ELECT_LEASE_DURATION: '30s',
      LEADER_ELECT_RENEW_DEADLINE: '20s',
      LEADER_ELECT_RETRY_PERIOD: '5s',
      LEADER_ELECT_LEASE_NAME: 'my-lock',
      LOG_LEVEL: 'debug',
    });
    expect(deploy.spec?.template.spec?.containers[0]?.ports?.[0]?.containerPort).toBe(9090);
  });
});

describe('values.schema.json and template guards reject bad values', () => {
  it('is strict at the top level: additionalProperties false, and it lists every key of values.yaml', () => {
    const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as {
      additionalProperties: boolean;
      properties: Record<string, unknown>;
    };
    expect(schema.additionalProperties).toBe(false);
    const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(values).filter((k) => !(k in schema.properties))).toEqual([]);
  });

  it.each([
    ['a typo at the top level', { replicaCont: 3 }, 'replicaCont'],
    ['a typo in a nested key', { leaderElection: { leaseDuraton: '20s' } }, 'leaseDuraton'],
    ['an unknown log level', { logLevel: 'verbose' }, 'logLevel'],
    ['a PDB that blocks every eviction', { podDisruptionBudget: { maxUnavailable: 0 } }, 'maxUnavailable'],
    ['a duration the operator cannot parse', { leaderElection: { leaseDuration: '15' } }, 'leaseDuration'],
    ['zero replicas', { replicaCount: 0 }, 'replicaCount'],
    ['a privileged metrics port', { metrics: { port: 80 } }, 'port'],
    ['an invalid namespace name', { watchNamespaces: ['Gloo_System'] }, 'watchNamespaces'],
  ])('rejects %s', async (_what, values, mentions) => {
    const err = await renderError({ values });
    expect(err).toMatch(/values don't meet the specifications of the schema|schema/i);
    expect(err).toContain(mentions);
  });

  it.each([
    [
      'several replicas without leader election',
      { leaderElection: { enabled: false } },
      'replicaCount > 1 needs leaderElection.enabled=true',
    ],
    [
      'a lease no longer than the renew deadline',
      { leaderElection: { leaseDuration: '10s', renewDeadline: '10s' } },
      'must be longer than leaderElection.renewDeadline',
    ],
    [
      'a renew deadline within 1.2 x the retry period',
      { leaderElection: { renewDeadline: '12s', retryPeriod: '10s' } },
      'must be longer than 1.2 x leaderElection.retryPeriod',
    ],
    [
      'a ServiceMonitor without the metrics Service',
      { metrics: { service: { enabled: false }, serviceMonitor: { enabled: true } } },
      'needs metrics.service.enabled=true',
    ],
  ])('refuses %s with a clear message', async (_what, values, message) => {
    expect(await renderError({ values })).toContain(message);
  });

  it('allows a single replica without leader election', async () => {
    const objects = await render({ values: { replicaCount: 1, leaderElection: { enabled: false } } });
    expect(envValues(find<V1Deployment>(objects, 'Deployment')).LEADER_ELECT).toBe('false');
  });
});
