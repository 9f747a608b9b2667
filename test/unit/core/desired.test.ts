// desired(): objects, partial applies and findings for every option of the spec and the shapes an
// install can take.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { GlooHA } from '../../../src/products/gloo/types.js';
import { desired } from '../../../src/products/gloo/desired.js';
import { LEASE_RULES } from '../../../src/products/gloo/leader-election.js';
import { NS, codes, find, get, glooHA, installFor, run } from './fixtures.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const example = (file: string) => parse(readFileSync(join(repoRoot, 'examples', file), 'utf8')) as GlooHA;
const spec = (o: unknown) => ((o as { spec?: unknown } | undefined)?.spec ?? {}) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the production example', () => {
  const g = { ...example('glooha.yaml'), metadata: { ...example('glooha.yaml').metadata, uid: 'u' } };
  const d = run(g);

  it('owns a ConfigMap, the leader-election Role and RoleBinding, a PDB per component and the HPA it had to create', () => {
    expect(d.owned.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'ConfigMap/gloo-helm-values',
      'Role/glooha-gloo-leader-election',
      'RoleBinding/glooha-gloo-leader-election',
      'PodDisruptionBudget/gloo-glooha',
      'PodDisruptionBudget/gateway-proxy-glooha',
      'PodDisruptionBudget/public-gw-glooha',
      'HorizontalPodAutoscaler/public-gw-glooha',
    ]);
  });

  it('patches the Deployments it manages, and reports nothing wrong', () => {
    expect(d.patches.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Deployment/gloo',
      'Deployment/discovery',
      'Deployment/gateway-proxy',
      'Deployment/public-gw',
    ]);
    expect(d.warnings).toEqual([]);
    expect(d.problems).toEqual([]);
    expect(d.needsFinalizer).toBe(false);
    expect(d.driftPolicy).toBe('enforce');
  });

  it('summarises each component for status', () => {
    expect(d.components).toEqual([
      {
        id: 'gloo',
        deploymentName: 'gloo',
        found: true,
        desiredReplicas: 3,
        managesReplicas: true,
        podDisruptionBudget: { name: 'gloo-glooha', owned: true, maxUnavailable: 1 },
      },
      {
        id: 'discovery',
        deploymentName: 'discovery',
        found: true,
        desiredReplicas: 1,
        managesReplicas: true,
      },
      {
        id: 'gatewayProxies.gatewayProxy',
        deploymentName: 'gateway-proxy',
        found: true,
        desiredReplicas: 3,
        managesReplicas: true,
        podDisruptionBudget: { name: 'gateway-proxy-glooha', owned: true, minAvailable: 2 },
      },
      {
        id: 'gatewayProxies.publicGw',
        deploymentName: 'public-gw',
        found: true,
        desiredReplicas: 3,
        managesReplicas: false,
        autoscaling: { hpaName: 'public-gw-glooha', owned: true, minReplicas: 3, maxReplicas: 12 },
        podDisruptionBudget: { name: 'public-gw-glooha', owned: true, minAvailable: 2 },
      },
    ]);
  });

  it('is deterministic and leaves its inputs alone', () => {
    const input = structuredClone(g);
    const install = installFor(g);
    const installCopy = structuredClone(install);
    expect(run(g, install)).toEqual(run(structuredClone(g), structuredClone(install)));
    expect(g).toEqual(input);
    expect(install).toEqual(installCopy);
  });
});

describe('the small example', () => {
  it('gets PDBs and preferred anti-affinity from the defaults, without warnings', () => {
    const d = run(example('glooha-small.yaml'));
    expect(spec(get(d.owned, 'PodDisruptionBudget', 'gloo-glooha')).maxUnavailable).toBe(1);
    expect(spec(get(d.owned, 'PodDisruptionBudget', 'gateway-proxy-glooha')).maxUnavailable).toBe(1);
    expect(d.warnings).toEqual([]);
    expect(d.problems).toEqual([]);
    expect(find(d.patches, 'Deployment', 'discovery')).toBeUndefined(); // spec.discovery omitted
  });
});

describe('validation', () => {
  it('returns every error instead of objects for an invalid GlooHA', () => {
    const r = desired(
      glooHA({ gloo: { replicas: 3, leaderElection: { enabled: false } }, discovery: { replicas: 2 } }),
      installFor(glooHA({})),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path)).toEqual([
      'spec.gloo.leaderElection.enabled',
      'spec.discovery.replicas',
    ]);
  });
});

describe('PodDisruptionBudgets', () => {
  it("select exactly the Deployment's own spec.selector, matchExpressions included", () => {
    const g = glooHA({});
    const selector = {
      matchLabels: { gloo: 'gloo', release: 'edge' },
      matchExpressions: [{ key: 'tier', operator: 'In' as const, values: ['control'] }],
    };
    const d = run(
      g,
      installFor(
        g,
        (i) =>
          i.gloo &&
          ((i.gloo.selector = selector),
          (i.gloo.podLabels = { gloo: 'gloo', release: 'edge', tier: 'control' })),
      ),
    );
    const pdb = get(d.owned, 'PodDisruptionBudget', 'gloo-glooha');
    expect(spec(pdb).selector).toEqual(selector);
    expect(spec(pdb).unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
  });

  it('default to maxUnavailable 1 above one replica, and are absent for a single replica (with warnings)', () => {
    const d = run(glooHA({ gloo: { replicas: 1 }, gatewayProxies: { gatewayProxy: { replicas: 1 } } }));
    expect(d.owned.filter((o) => o.kind === 'PodDisruptionBudget')).toEqual([]);
    expect(codes(d.warnings)).toEqual([
      'SingleReplica',
      'NoPodDisruptionBudget',
      'SingleReplica',
      'NoPodDisruptionBudget',
    ]);
    expect(d.warnings[0]?.path).toBe('spec.gloo.replicas');
  });

  it('carry the spec value verbatim: an integer or a percentage, never both', () => {
    const d = run(
      glooHA({
        gloo: { replicas: 4, podDisruptionBudget: { minAvailable: '50%' } },
        gatewayProxies: { gatewayProxy: { replicas: 5, podDisruptionBudget: { maxUnavailable: 2 } } },
      }),
    );
    const gloo = spec(get(d.owned, 'PodDisruptionBudget', 'gloo-glooha'));
    expect(gloo.minAvailable).toBe('50%');
    expect(gloo).not.toHaveProperty('maxUnavailable');
    const proxy = spec(get(d.owned, 'PodDisruptionBudget', 'gateway-proxy-glooha'));
    expect(proxy.maxUnavailable).toBe(2);
    expect(proxy).not.toHaveProperty('minAvailable');
  });

  it('use the minimum of an autoscaled proxy to decide the default', () => {
    const one = run(
      glooHA({ gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 1, maxReplicas: 4 } } } }),
    );
    expect(find(one.owned, 'PodDisruptionBudget', 'gateway-proxy-glooha')).toBeUndefined();
    expect(one.warnings.find((w) => w.code === 'SingleReplica')?.message).toContain(
      'Polaris hpaMinAvailability',
    );
    const two = run(
      glooHA({ gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 2, maxReplicas: 4 } } } }),
    );
    expect(spec(get(two.owned, 'PodDisruptionBudget', 'gateway-proxy-glooha')).maxUnavailable).toBe(1);
  });

  it('stand down for an existing PDB that already covers the pods (no second PDB), silently when it matches', () => {
    const g = glooHA({});
    const d = run(
      g,
      installFor(g, (i) =>
        i.pdbs.push({
          name: 'gloo-pdb',
          selector: { matchLabels: { gloo: 'gloo' } },
          maxUnavailable: 1,
          ours: false,
        }),
      ),
    );
    expect(find(d.owned, 'PodDisruptionBudget', 'gloo-glooha')).toBeUndefined();
    expect(d.components[0]?.podDisruptionBudget).toEqual({
      name: 'gloo-pdb',
      owned: false,
      maxUnavailable: 1,
    });
    expect(d.problems).toEqual([]);
  });

  it('report an existing PDB that differs from the spec', () => {
    const g = glooHA({ gloo: { replicas: 3, podDisruptionBudget: { minAvailable: 2 } } });
    const d = run(
      g,
      installFor(g, (i) => i.pdbs.push({ name: 'gloo-pdb', selector: {}, maxUnavailable: 1, ours: false })),
    );
    expect(codes(d.problems)).toEqual(['ForeignPodDisruptionBudget']);
    expect(d.problems[0]?.message).toContain(
      "PDB gloo-pdb (not glooha's) already covers the pods of gloo with maxUnavailable 1, not minAvailable 2",
    );
  });

  it('tell how to fix a foreign PDB in the terms of what made it: kubectl for one Helm did not make', () => {
    const g = glooHA({ gloo: { replicas: 3, podDisruptionBudget: { minAvailable: 2 } } });
    const made = (helmRelease?: string) =>
      run(
        g,
        installFor(g, (i) =>
          i.pdbs.push({
            name: 'gloo-pdb',
            selector: {},
            maxUnavailable: 1,
            ours: false,
            ...(helmRelease ? { helmRelease } : {}),
          }),
        ),
      ).problems[0]!.message;
    const byKubectl = made();
    expect(byKubectl).toContain(
      `It was not made by Helm: change it with kubectl -n gloo-system patch pdb gloo-pdb --type=merge -p '{"spec":{"minAvailable":2,"maxUnavailable":null}}', or delete it so glooha manages the PDB (kubectl -n gloo-system delete pdb gloo-pdb)`,
    );
    expect(byKubectl).not.toContain('Helm values');
    const byHelm = made('gloo');
    expect(byHelm).toContain("It belongs to Helm release gloo: set it through that release's values");
    expect(byHelm).toContain('kubectl -n gloo-system delete pdb gloo-pdb');
  });

  it('report two PDBs over the same pods (the eviction API refuses them)', () => {
    const g = glooHA({});
    const d = run(
      g,
      installFor(g, (i) =>
        i.pdbs.push(
          { name: 'a', selector: { matchLabels: { gloo: 'gloo' } }, maxUnavailable: 1, ours: false },
          {
            name: 'b',
            selector: { matchExpressions: [{ key: 'gloo', operator: 'Exists' }] },
            minAvailable: 1,
            ours: false,
          },
        ),
      ),
    );
    expect(codes(d.problems)).toEqual(['MultiplePodDisruptionBudgets']);
    expect(codes(d.warnings)).toContain('NoPodDisruptionBudget');
  });

  it('ignore glooha-owned and unrelated PDBs when looking for existing ones', () => {
    const g = glooHA({});
    const d = run(
      g,
      installFor(g, (i) =>
        i.pdbs.push(
          { name: 'gloo-glooha', selector: { matchLabels: { gloo: 'gloo' } }, maxUnavailable: 1, ours: true },
          { name: 'other', selector: { matchLabels: { app: 'other' } }, maxUnavailable: 1, ours: false },
        ),
      ),
    );
    expect(find(d.owned, 'PodDisruptionBudget', 'gloo-glooha')).toBeDefined();
  });

  it('warn about an existing PDB that blocks drains or protects nothing', () => {
    const g = glooHA({
      gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 2, maxReplicas: 6 } } },
    });
    const d = run(
      g,
      installFor(g, (i) =>
        i.pdbs.push(
          {
            name: 'gp-pdb',
            selector: { matchLabels: { 'gateway-proxy-id': 'gateway-proxy' } },
            minAvailable: 2,
            ours: false,
          },
          { name: 'gloo-pdb', selector: { matchLabels: { gloo: 'gloo' } }, minAvailable: 0, ours: false },
        ),
      ),
    );
    expect(codes(d.warnings)).toEqual(['PDBProtectsNothing', 'HPAMinReplicasBelowPDBMinAvailable']);
  });

  it('warn when maxUnavailable lets every replica go at once', () => {
    const d = run(
      glooHA({
        gatewayProxies: { gatewayProxy: { replicas: 2, podDisruptionBudget: { maxUnavailable: '100%' } } },
      }),
    );
    expect(codes(d.warnings)).toEqual(['PDBAllowsFullOutage']);
  });
});

describe('gloo leader election', () => {
  it('sets the three lease env vars on the gloo container only', () => {
    const d = run(
      glooHA({
        gloo: {
          replicas: 3,
          leaderElection: { leaseDuration: '30s', renewDeadline: '20s', retryPeriod: '4s' },
        },
      }),
    );
    const patch = get(d.patches, 'Deployment', 'gloo');
    expect(spec(patch).template.spec.containers).toEqual([
      {
        name: 'gloo',
        env: [
          { name: 'LEADER_ELECTION_LEASE_DURATION', value: '30s' },
          { name: 'LEADER_ELECTION_RENEW_PERIOD', value: '20s' },
          { name: 'LEADER_ELECTION_RETRY_PERIOD', value: '4s' },
          // The chart's entry after customEnv, as the chart spells it: anchors the lease env there.
          { name: 'POD_NAMESPACE' }, // the key only: its valueFrom stays Helm's
        ],
      },
    ]);
    // Helm's object: no labels, no ownerReferences; only the replicas floor the admission policy reads.
    expect(patch.metadata).toEqual({
      name: 'gloo',
      namespace: NS,
      annotations: {
        'glooha.io/min-replicas': '3',
        'glooha.io/owner': `${NS}/ha`,
        'glooha.io/owner-kind': 'GlooHA',
        'glooha.io/helm-values': 'ha-helm-values',
        'glooha.io/helm-upgrade': expect.stringContaining('helm upgrade gloo ${GLOO_CHART:-gloo/gloo} -n'),
      },
    });
  });

  it('appends the lease env without an anchor when the container has no POD_NAMESPACE from the downward API', () => {
    const g = glooHA({ gloo: { replicas: 2 } });
    for (const env of [undefined, [{ name: 'POD_NAMESPACE', value: 'literal' }]]) {
      const d = run(
        g,
        installFor(g, (i) => {
          i.gloo!.containers = [{ name: 'gloo', ...(env ? { env } : {}) }];
        }),
      );
      const containers = spec(get(d.patches, 'Deployment', 'gloo')).template.spec.containers;
      expect(containers[0].env.map((e: { name: string }) => e.name)).toEqual([
        'LEADER_ELECTION_LEASE_DURATION',
        'LEADER_ELECTION_RENEW_PERIOD',
        'LEADER_ELECTION_RETRY_PERIOD',
      ]);
    }
  });

  it('does not anchor DISABLE_LEADER_ELECTION (the chart renders it elsewhere)', () => {
    const d = run(glooHA({ gloo: { replicas: 1, leaderElection: { enabled: false } } }));
    const containers = spec(get(d.patches, 'Deployment', 'gloo')).template.spec.containers;
    expect(containers[0].env).toEqual([{ name: 'DISABLE_LEADER_ELECTION', value: 'true' }]);
  });

  it('grants create on leases and everything else on the gloo Lease only, to the gloo ServiceAccount', () => {
    const g = glooHA({});
    const d = run(
      g,
      installFor(g, (i) => i.gloo && (i.gloo.serviceAccountName = 'gloo-sa')),
    );
    const role = get(d.owned, 'Role', 'glooha-ha-leader-election');
    expect(role.rules).toEqual(LEASE_RULES);
    expect(role.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['gloo'],
        verbs: ['get', 'list', 'watch', 'update', 'patch'],
      },
    ]);
    const binding = get(d.owned, 'RoleBinding', 'glooha-ha-leader-election');
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'glooha-ha-leader-election',
    });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'gloo-sa', namespace: NS }]);
  });

  it('binds the default ServiceAccount when the Deployment names none', () => {
    const g = glooHA({});
    const d = run(
      g,
      installFor(g, (i) => i.gloo && delete i.gloo.serviceAccountName),
    );
    expect(get(d.owned, 'RoleBinding', 'glooha-ha-leader-election').subjects).toEqual([
      { kind: 'ServiceAccount', name: 'default', namespace: NS },
    ]);
  });

  it('disabled: sets DISABLE_LEADER_ELECTION like the chart and drops the Role', () => {
    const d = run(glooHA({ gloo: { replicas: 1, leaderElection: { enabled: false } } }));
    expect(spec(get(d.patches, 'Deployment', 'gloo')).template.spec.containers[0].env).toEqual([
      { name: 'DISABLE_LEADER_ELECTION', value: 'true' },
    ]);
    expect(d.owned.map((o) => o.kind)).not.toContain('Role');
  });

  it('reports leader election disabled through Helm while the spec enables it', () => {
    const g = glooHA({ gloo: { replicas: 3 } });
    const d = run(
      g,
      installFor(
        g,
        (i) =>
          i.gloo &&
          (i.gloo.containers[0] = {
            name: 'gloo',
            env: [{ name: 'DISABLE_LEADER_ELECTION', value: 'true' }],
          }),
      ),
    );
    expect(codes(d.problems)).toEqual(['LeaderElectionDisabledByHelm']);
    expect(d.problems[0]?.message).toContain('ha-helm-values');
  });

  // Gloo parses DISABLE_LEADER_ELECTION with Go's strconv.ParseBool: every spelling it takes as true
  // disables election; its false spellings and non-booleans leave it on.
  it.each(['true', 'True', 'TRUE', 't', 'T', '1'])(
    'reports leader election disabled by DISABLE_LEADER_ELECTION=%s (strconv.ParseBool true)',
    (value) => {
      const g = glooHA({ gloo: { replicas: 3 } });
      const d = run(
        g,
        installFor(
          g,
          (i) =>
            i.gloo &&
            (i.gloo.containers[0] = { name: 'gloo', env: [{ name: 'DISABLE_LEADER_ELECTION', value }] }),
        ),
      );
      expect(codes(d.problems)).toEqual(['LeaderElectionDisabledByHelm']);
      expect(d.problems[0]?.message).toContain(`DISABLE_LEADER_ELECTION=${value}`);
    },
  );

  it.each(['false', 'False', 'FALSE', 'f', 'F', '0', 'yes', 'on', ' true', ''])(
    'does not report DISABLE_LEADER_ELECTION=%j (not true for strconv.ParseBool)',
    (value) => {
      const g = glooHA({ gloo: { replicas: 3 } });
      const d = run(
        g,
        installFor(
          g,
          (i) =>
            i.gloo &&
            (i.gloo.containers[0] = { name: 'gloo', env: [{ name: 'DISABLE_LEADER_ELECTION', value }] }),
        ),
      );
      expect(codes(d.problems)).toEqual([]);
    },
  );

  it('reports a gloo Deployment without a gloo container, and still manages replicas', () => {
    const g = glooHA({ gloo: { replicas: 3 } });
    const d = run(
      g,
      installFor(g, (i) => i.gloo && (i.gloo.containers = [{ name: 'control-plane' }])),
    );
    expect(codes(d.problems)).toEqual(['GlooContainerNotFound']);
    const patch = spec(get(d.patches, 'Deployment', 'gloo'));
    expect(patch.replicas).toBe(3);
    expect(patch.template.spec).not.toHaveProperty('containers');
  });
});

describe("replicas floor (read by the chart's admission policy)", () => {
  const floorOf = (d: ReturnType<typeof run>, name: string) =>
    (get(d.patches, 'Deployment', name).metadata as { annotations?: Record<string, string> }).annotations;

  it('is the fixed replica count, or the HPA minimum for an autoscaled proxy, naming the GlooHA and its values', () => {
    const d = run(
      glooHA({
        gloo: { replicas: 3 },
        gatewayProxies: {
          gatewayProxy: { replicas: 2 },
          publicGw: { autoscaling: { minReplicas: 4, maxReplicas: 8 } },
        },
      }),
    );
    expect(floorOf(d, 'gloo')?.['glooha.io/min-replicas']).toBe('3');
    expect(floorOf(d, 'gateway-proxy')?.['glooha.io/min-replicas']).toBe('2');
    // The HPA owns replicas (no spec.replicas in the patch), but a write below its minimum is refused.
    expect(spec(get(d.patches, 'Deployment', 'public-gw'))).not.toHaveProperty('replicas');
    expect(floorOf(d, 'public-gw')).toEqual({
      'glooha.io/min-replicas': '4',
      'glooha.io/owner': `${NS}/ha`,
      'glooha.io/owner-kind': 'GlooHA',
      'glooha.io/helm-values': 'ha-helm-values',
      // The refusal prints it: Gloo's release, chart and the values file named for the kind (the
      // chart's layout here has no version to pin).
      'glooha.io/helm-upgrade': `kubectl -n ${NS} get configmap ha-helm-values -o go-template='{{index .data \`values.yaml\`}}' > values-glooha.yaml && helm upgrade gloo \${GLOO_CHART:-gloo/gloo} -n ${NS} --reset-then-reuse-values -f values-glooha.yaml`,
    });
  });

  it('is not set under driftPolicy warn or ignore: admission must not refuse what the operator would let stand', () => {
    for (const driftPolicy of ['warn', 'ignore'] as const) {
      const d = run(glooHA({ gloo: { replicas: 3 }, driftPolicy }));
      expect(floorOf(d, 'gloo'), driftPolicy).toBeUndefined();
    }
  });

  it('is not set where an HPA the spec does not ask for owns replicas (glooha sets no count there)', () => {
    const g = glooHA({ gatewayProxies: { gatewayProxy: { replicas: 2 } } });
    const d = run(
      g,
      installFor(g, (i) => {
        i.hpas.push({ name: 'gateway-proxy-hpa', targetName: 'gateway-proxy', maxReplicas: 4, ours: false });
      }),
    );
    expect(codes(d.problems)).toContain('HorizontalPodAutoscalerConflict');
    expect(find(d.patches, 'Deployment', 'gateway-proxy')?.metadata).not.toHaveProperty('annotations');
  });
});

describe('replicas and autoscaling', () => {
  it('creates an HPA for an autoscaled proxy without one, and leaves replicas to it', () => {
    const d = run(
      glooHA({ gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 2, maxReplicas: 8 } } } }),
    );
    const hpa = get(d.owned, 'HorizontalPodAutoscaler', 'gateway-proxy-glooha');
    expect(spec(hpa)).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway-proxy' },
      minReplicas: 2,
      maxReplicas: 8,
    });
    expect(spec(get(d.patches, 'Deployment', 'gateway-proxy'))).not.toHaveProperty('replicas');
  });

  it("sets only the bounds on an existing HPA (the chart's), without taking it over", () => {
    const g = glooHA({
      gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 3, maxReplicas: 9 } } },
    });
    const d = run(
      g,
      installFor(g, (i) =>
        i.hpas.push({
          name: 'gateway-proxy-hpa',
          targetName: 'gateway-proxy',
          minReplicas: 1,
          maxReplicas: 5,
          ours: false,
        }),
      ),
    );
    expect(find(d.owned, 'HorizontalPodAutoscaler', 'gateway-proxy-glooha')).toBeUndefined();
    expect(get(d.patches, 'HorizontalPodAutoscaler', 'gateway-proxy-hpa')).toEqual({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'gateway-proxy-hpa', namespace: NS },
      spec: { minReplicas: 3, maxReplicas: 9 },
    });
    expect(d.components[1]?.autoscaling).toEqual({
      hpaName: 'gateway-proxy-hpa',
      owned: false,
      minReplicas: 3,
      maxReplicas: 9,
    });
  });

  it('reports two HPAs on one Deployment', () => {
    const g = glooHA({
      gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 3, maxReplicas: 9 } } },
    });
    const d = run(
      g,
      installFor(g, (i) =>
        i.hpas.push(
          { name: 'a', targetName: 'gateway-proxy', maxReplicas: 5, ours: false },
          { name: 'b', targetName: 'gateway-proxy', maxReplicas: 5, ours: false },
        ),
      ),
    );
    expect(codes(d.problems)).toEqual(['MultipleHorizontalPodAutoscalers']);
  });

  it('does not fight a foreign HPA over fixed replicas: leaves replicas alone and reports it', () => {
    const g = glooHA({ gatewayProxies: { gatewayProxy: { replicas: 3 } } });
    const d = run(
      g,
      installFor(g, (i) =>
        i.hpas.push({ name: 'gateway-proxy-hpa', targetName: 'gateway-proxy', maxReplicas: 5, ours: false }),
      ),
    );
    expect(codes(d.problems)).toEqual(['HorizontalPodAutoscalerConflict']);
    expect(spec(get(d.patches, 'Deployment', 'gateway-proxy'))).not.toHaveProperty('replicas');
  });

  it('takes replicas back from its own HPA when the spec stops autoscaling (the HPA is pruned)', () => {
    const g = glooHA({ gatewayProxies: { gatewayProxy: { replicas: 4 } } });
    const d = run(
      g,
      installFor(g, (i) =>
        i.hpas.push({
          name: 'gateway-proxy-glooha',
          targetName: 'gateway-proxy',
          maxReplicas: 5,
          ours: true,
        }),
      ),
    );
    expect(spec(get(d.patches, 'Deployment', 'gateway-proxy')).replicas).toBe(4);
    expect(find(d.owned, 'HorizontalPodAutoscaler', 'gateway-proxy-glooha')).toBeUndefined();
    expect(d.problems).toEqual([]);
  });

  it('sets discovery to 0 or 1 replicas when the spec names it', () => {
    const d = run(glooHA({ discovery: { replicas: 0 } }));
    expect(spec(get(d.patches, 'Deployment', 'discovery'))).toEqual({ replicas: 0 });
    expect(d.owned.filter((o) => o.metadata.labels?.['glooha.io/component'] === 'discovery')).toEqual([]);
  });
});

describe('scheduling', () => {
  it('spreads with preferred or required anti-affinity over the component selector', () => {
    const d = run(
      glooHA({ gloo: { antiAffinity: 'required' }, gatewayProxies: { gatewayProxy: { replicas: 2 } } }),
    );
    expect(spec(get(d.patches, 'Deployment', 'gloo')).template.spec.affinity).toEqual({
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { gloo: 'gloo' } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    });
    expect(spec(get(d.patches, 'Deployment', 'gateway-proxy')).template.spec.affinity).toEqual({
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              labelSelector: { matchLabels: { gloo: 'gateway-proxy', 'gateway-proxy-id': 'gateway-proxy' } },
              topologyKey: 'kubernetes.io/hostname',
            },
          },
        ],
      },
    });
  });

  it('leaves affinity alone with antiAffinity none, and warns for a replicated component', () => {
    const d = run(glooHA({ gatewayProxies: { gatewayProxy: { replicas: 2, antiAffinity: 'none' } } }));
    expect(spec(get(d.patches, 'Deployment', 'gateway-proxy'))).toEqual({ replicas: 2 });
    expect(codes(d.warnings)).toEqual(['NoAntiAffinity']);
    expect(d.warnings[0]?.message).toContain('kube-score');
  });

  it('fills topology spread constraints in with the component selector', () => {
    const d = run(
      glooHA({
        gatewayProxies: {
          gatewayProxy: {
            replicas: 3,
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: 'topology.kubernetes.io/zone',
                whenUnsatisfiable: 'DoNotSchedule',
                minDomains: 2,
                matchLabelKeys: ['pod-template-hash'],
              },
            ],
          },
        },
      }),
    );
    expect(
      spec(get(d.patches, 'Deployment', 'gateway-proxy')).template.spec.topologySpreadConstraints,
    ).toEqual([
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { gloo: 'gateway-proxy', 'gateway-proxy-id': 'gateway-proxy' } },
        minDomains: 2,
        matchLabelKeys: ['pod-template-hash'],
      },
    ]);
  });
});

describe('the install as observed', () => {
  it('reports a proxy the install does not have, and carries on with the rest', () => {
    const g = glooHA({ gatewayProxies: { gatewayProxy: { replicas: 2 }, internalGw: { replicas: 2 } } });
    const d = run(
      g,
      installFor(g, (i) => (i.gatewayProxies = i.gatewayProxies.filter((p) => p.name !== 'internal-gw'))),
    );
    expect(d.problems).toEqual([
      {
        code: 'GatewayProxyNotFound',
        component: 'gatewayProxies.internalGw',
        path: 'spec.gatewayProxies[internalGw]',
        message: expect.stringContaining('no Deployment internal-gw for gatewayProxies.internalGw'),
      },
    ]);
    expect(find(d.owned, 'PodDisruptionBudget', 'gateway-proxy-glooha')).toBeDefined();
    expect(d.components.find((c) => c.id === 'gatewayProxies.internalGw')?.found).toBe(false);
  });

  it('finds a renamed proxy through deploymentName', () => {
    const g = glooHA({ gatewayProxies: { publicGw: { replicas: 2, deploymentName: 'edge-proxy' } } });
    const d = run(g);
    expect(get(d.patches, 'Deployment', 'edge-proxy')).toBeDefined();
    expect(get(d.owned, 'PodDisruptionBudget', 'edge-proxy-glooha')).toBeDefined();
  });

  it('reports a missing gloo or discovery Deployment and renders no RBAC without gloo', () => {
    const g = glooHA({ discovery: {} });
    const d = run(
      g,
      installFor(g, (i) => (delete i.gloo, delete i.discovery)),
    );
    expect(codes(d.problems)).toEqual(['DeploymentNotFound', 'DeploymentNotFound']);
    expect(d.owned.map((o) => o.kind)).toEqual(['ConfigMap']);
  });

  it('warns about proxies it does not manage and about discovery running more than one replica', () => {
    const g = glooHA({});
    const d = run(
      g,
      installFor(g, (i) => {
        i.gatewayProxies.push({
          name: 'legacy-proxy',
          selector: { matchLabels: { gloo: 'gateway-proxy' } },
          containers: [],
          replicas: 1,
        });
        if (i.discovery) i.discovery.replicas = 2;
      }),
    );
    expect(codes(d.warnings)).toEqual(['UnmanagedGatewayProxy', 'DiscoveryReplicas']);
    expect(d.warnings[0]?.message).toContain('legacy-proxy is not in spec.gatewayProxies');
  });
});

describe('ownership', () => {
  it('labels every owned object and references the GlooHA as controller', () => {
    const d = run(glooHA({}));
    for (const o of d.owned) {
      expect(o.metadata.labels).toEqual(
        expect.objectContaining({
          'app.kubernetes.io/managed-by': 'glooha-operator',
          'glooha.io/owner-name': 'ha',
          'glooha.io/owner-namespace': NS,
        }),
      );
      expect(o.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'glooha.io/v1alpha1',
          kind: 'GlooHA',
          name: 'ha',
          uid: 'uid-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    for (const p of d.patches)
      expect(Object.keys(p.metadata).filter((k) => k !== 'annotations')).toEqual(['name', 'namespace']);
  });

  it('puts no ownerReference across namespaces and asks for a finalizer instead', () => {
    const g = glooHA({ target: { namespace: 'edge' } }, { namespace: 'platform' });
    const d = run(g);
    expect(d.installNamespace).toBe('edge');
    expect(d.needsFinalizer).toBe(true);
    const cm = get(d.owned, 'ConfigMap', 'ha-helm-values');
    expect(cm.metadata.namespace).toBe('platform');
    expect(cm.metadata.ownerReferences).toHaveLength(1);
    const pdb = get(d.owned, 'PodDisruptionBudget', 'gloo-glooha');
    expect(pdb.metadata.namespace).toBe('edge');
    expect(pdb.metadata.ownerReferences).toBeUndefined();
    expect(pdb.metadata.labels?.['glooha.io/owner-namespace']).toBe('platform');
  });

  it('omits ownerReferences without a uid (offline render)', () => {
    const d = run(glooHA({}, { uid: undefined }));
    expect(d.owned.every((o) => o.metadata.ownerReferences === undefined)).toBe(true);
  });

  it('keeps the Helm values in the ConfigMap, parseable', () => {
    const d = run(glooHA({ gloo: { replicas: 3 } }));
    const data = get(d.owned, 'ConfigMap', 'ha-helm-values').data as Record<string, string>;
    expect(parse(data['values.yaml'] ?? '')).toEqual(d.helmValues);
  });
});

describe('rollout strategy', () => {
  it('replaces pods in place (maxSurge 0, maxUnavailable 1) under required anti-affinity', () => {
    const d = run(glooHA({ gloo: { replicas: 3, antiAffinity: 'required' } }));
    expect(spec(get(d.patches, 'Deployment', 'gloo')).strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 0, maxUnavailable: 1 },
    });
    expect(codes(d.warnings)).not.toContain('RolloutExceedsDisruptionBudget');
  });

  it('leaves the strategy alone with preferred or no anti-affinity (a surge pod schedules anyway)', () => {
    for (const antiAffinity of ['preferred', 'none'] as const) {
      const d = run(glooHA({ gloo: { replicas: 3, antiAffinity } }));
      expect(spec(get(d.patches, 'Deployment', 'gloo'))).not.toHaveProperty('strategy');
    }
  });

  it("warns when the PDB in force (here the chart's gloo-pdb) allows no disruption, since the in-place rollout takes one pod down", () => {
    const g = glooHA({ gloo: { replicas: 3, antiAffinity: 'required' } });
    const d = run(
      g,
      installFor(g, (i) => {
        i.pdbs.push({
          name: 'gloo-pdb',
          selector: { matchLabels: { gloo: 'gloo' } },
          minAvailable: 3,
          ours: false,
        });
      }),
    );
    expect(codes(d.warnings)).toContain('RolloutExceedsDisruptionBudget');
  });

  // A single replica replaced in place goes 1→0→1 available on every rollout.
  it('never replaces the only pod in place: below 2 replicas it leaves the strategy to the Deployment default', () => {
    const one = run(glooHA({ gloo: { replicas: 1, antiAffinity: 'required' } }));
    expect(spec(get(one.patches, 'Deployment', 'gloo'))).not.toHaveProperty('strategy');
    const autoscaledToOne = run(
      glooHA({
        gatewayProxies: {
          publicGw: { autoscaling: { minReplicas: 1, maxReplicas: 4 }, antiAffinity: 'required' },
        },
      }),
    );
    expect(spec(get(autoscaledToOne.patches, 'Deployment', 'public-gw'))).not.toHaveProperty('strategy');
  });

  it('judges by the count the Deployment runs when something else sets it (a foreign HPA at 1)', () => {
    const g = glooHA({ gloo: { replicas: 3, antiAffinity: 'required' } });
    const d = run(
      g,
      installFor(g, (i) => {
        i.gloo!.replicas = 1;
        i.hpas.push({ name: 'gloo', targetName: 'gloo', minReplicas: 1, maxReplicas: 3, ours: false });
      }),
    );
    expect(codes(d.problems)).toContain('HorizontalPodAutoscalerConflict');
    expect(spec(get(d.patches, 'Deployment', 'gloo'))).not.toHaveProperty('strategy');
    // Replicas we set ourselves are what counts: 3 after the apply, whatever the Deployment has now.
    const ours = run(
      g,
      installFor(g, (i) => (i.gloo!.replicas = 1)),
    );
    expect(spec(get(ours.patches, 'Deployment', 'gloo')).strategy.rollingUpdate).toEqual({
      maxSurge: 0,
      maxUnavailable: 1,
    });
  });

  // Under warn (or ignore) a plain Helm upgrade lowers gloo to 1 and the operator leaves it there: a
  // maxSurge 0 it had applied would then take the only pod down on the next rollout.
  it('replaces pods in place only under driftPolicy enforce, which keeps the count at 2 or more', () => {
    for (const driftPolicy of ['warn', 'ignore'] as const) {
      const d = run(glooHA({ driftPolicy, gloo: { replicas: 3, antiAffinity: 'required' } }));
      expect(spec(get(d.patches, 'Deployment', 'gloo'))).not.toHaveProperty('strategy');
      expect(d.warnings.find((w) => w.code === 'InPlaceRolloutNeedsEnforce')).toMatchObject({
        component: 'gloo',
        path: 'spec.driftPolicy',
      });
    }
    const enforced = run(glooHA({ driftPolicy: 'enforce', gloo: { replicas: 3, antiAffinity: 'required' } }));
    expect(spec(get(enforced.patches, 'Deployment', 'gloo')).strategy.rollingUpdate.maxSurge).toBe(0);
    expect(codes(enforced.warnings)).not.toContain('InPlaceRolloutNeedsEnforce');
    // Nothing to say where no in-place strategy was wanted anyway.
    const preferred = run(glooHA({ driftPolicy: 'warn', gloo: { replicas: 3, antiAffinity: 'preferred' } }));
    expect(codes(preferred.warnings)).not.toContain('InPlaceRolloutNeedsEnforce');
  });

  it('applies to an autoscaled proxy too, without setting its replicas', () => {
    const d = run(
      glooHA({
        gatewayProxies: {
          publicGw: { autoscaling: { minReplicas: 3, maxReplicas: 6 }, antiAffinity: 'required' },
        },
      }),
    );
    const patch = spec(get(d.patches, 'Deployment', 'public-gw'));
    expect(patch.strategy.rollingUpdate).toEqual({ maxSurge: 0, maxUnavailable: 1 });
    expect(patch).not.toHaveProperty('replicas');
  });
});
