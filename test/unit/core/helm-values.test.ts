// helmValues(): the chart paths for every option, the notes about what the chart cannot carry, and
// agreement with the objects the operator applies (so Helm and the operator never undo each other).
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  GLOO_HELM_CHART,
  glooChartVersion,
  helmValues,
  helmValuesNotes,
} from '../../../src/products/gloo/helm-values.js';
import { helmValuesYaml, type UpgradeTarget } from '../../../src/core/helm-values-yaml.js';
import { codes, get, glooHA, installFor, run } from './fixtures.js';

const TARGET: UpgradeTarget = {
  chart: GLOO_HELM_CHART,
  release: 'edge',
  namespace: 'gloo-system',
  chartVersion: '1.22.1',
  valuesFile: 'values-glooha.yaml',
  configMap: { namespace: 'ops', name: 'ha-helm-values' },
};

describe('helmValues', () => {
  it('maps gloo to gloo.deployment.{replicas,customEnv,affinity}, gloo.podDisruptionBudget and gloo.disableLeaderElection', () => {
    expect(helmValues(glooHA({ gloo: { replicas: 3, antiAffinity: 'required' } }))).toEqual({
      gloo: {
        disableLeaderElection: false,
        deployment: {
          replicas: 3,
          customEnv: [
            { name: 'LEADER_ELECTION_LEASE_DURATION', value: '15s' },
            { name: 'LEADER_ELECTION_RENEW_PERIOD', value: '10s' },
            { name: 'LEADER_ELECTION_RETRY_PERIOD', value: '2s' },
          ],
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { labelSelector: { matchLabels: { gloo: 'gloo' } }, topologyKey: 'kubernetes.io/hostname' },
              ],
            },
          },
        },
        podDisruptionBudget: { maxUnavailable: 1 },
      },
    });
  });

  it('disables leader election without lease env, and drops the PDB for a single replica', () => {
    expect(
      helmValues(glooHA({ gloo: { replicas: 1, leaderElection: { enabled: false }, antiAffinity: 'none' } })),
    ).toEqual({
      gloo: { disableLeaderElection: true, deployment: { replicas: 1 } },
    });
  });

  it('maps discovery only when the spec names it', () => {
    expect(helmValues(glooHA({}))).not.toHaveProperty('discovery');
    expect(helmValues(glooHA({ discovery: { replicas: 0 } })).discovery).toEqual({
      deployment: { replicas: 0 },
    });
  });

  it('maps a proxy with fixed replicas to kind.deployment.replicas, affinity (chart antiAffinity off) and its PDB', () => {
    const values = helmValues(
      glooHA({
        gatewayProxies: { gatewayProxy: { replicas: 3, podDisruptionBudget: { minAvailable: '50%' } } },
      }),
    );
    expect((values.gatewayProxies as Record<string, unknown>).gatewayProxy).toEqual({
      kind: { deployment: { replicas: 3 } },
      antiAffinity: false,
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: {
                labelSelector: {
                  matchLabels: { gloo: 'gateway-proxy', 'gateway-proxy-id': 'gateway-proxy' },
                },
                topologyKey: 'kubernetes.io/hostname',
              },
            },
          ],
        },
      },
      podDisruptionBudget: { minAvailable: '50%' },
    });
  });

  it("maps an autoscaled proxy to horizontalPodAutoscaler (autoscaling/v2, which the chart needs spelled out) and replicas: the HPA's minimum offline", () => {
    const values = helmValues(
      glooHA({
        gatewayProxies: {
          publicGw: {
            autoscaling: { minReplicas: 2, maxReplicas: 10 },
            antiAffinity: 'none',
            topologySpreadConstraints: [
              { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
            ],
          },
        },
      }),
    );
    expect((values.gatewayProxies as Record<string, unknown>).publicGw).toEqual({
      kind: { deployment: { replicas: 2 } },
      antiAffinity: false,
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { gloo: 'gateway-proxy', 'gateway-proxy-id': 'public-gw' } },
        },
      ],
      horizontalPodAutoscaler: { apiVersion: 'autoscaling/v2', minReplicas: 2, maxReplicas: 10 },
      podDisruptionBudget: { maxUnavailable: 1 },
    });
  });

  it("exports an autoscaled proxy's live replica count within the HPA's bounds, never null (Helm 3 would delete it)", () => {
    const g = glooHA({
      gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 2, maxReplicas: 5 } } },
    });
    const at = (replicas: number | undefined) =>
      parse(
        helmValuesYaml(
          helmValues(
            g,
            installFor(g, (i) => {
              i.gatewayProxies[0]!.replicas = replicas;
            }),
          ),
          { source: 'GlooHA ns/ha', target: { ...TARGET, configMap: undefined } },
        ),
      ).gatewayProxies.gatewayProxy.kind.deployment.replicas;
    expect(at(4)).toBe(4);
    expect(at(1)).toBe(2); // below the minimum: the HPA is about to scale it up
    expect(at(9)).toBe(5);
    expect(at(undefined)).toBe(2);
  });

  it('puts the upgrade command in the header: the export and the upgrade, with namespaces, runnable as printed', () => {
    const text = helmValuesYaml(helmValues(glooHA({})), { source: 'GlooHA ops/ha', target: TARGET });
    expect(text).toMatch(/^# Helm values/);
    expect(text).toContain(
      `#   kubectl -n ops get configmap ha-helm-values -o go-template='{{index .data \`values.yaml\`}}' > values-glooha.yaml && helm upgrade edge \${GLOO_CHART:-gloo/gloo} --version 1.22.1 -n gloo-system --reset-then-reuse-values -f values-glooha.yaml\n`,
    );
    // No placeholder bash would read as a redirection.
    expect(text).not.toMatch(/<release>|<chart>/);
    expect(text).not.toContain('Add --version');
  });

  it('without a known chart version (an offline render) prints no --version and says to add it', () => {
    const text = helmValuesYaml(helmValues(glooHA({})), {
      source: 'GlooHA ops/ha',
      target: { ...TARGET, chartVersion: undefined, configMap: undefined },
    });
    expect(text).toContain(
      '#   helm upgrade edge ${GLOO_CHART:-gloo/gloo} -n gloo-system --reset-then-reuse-values -f values-glooha.yaml\n',
    );
    expect(text).toContain('# Add --version with the installed chart version');
    // A version that is not one plain shell word is never printed into a command.
    const hostile = helmValuesYaml({}, { source: 'x', target: { ...TARGET, chartVersion: '1.0;rm -rf ~' } });
    expect(hostile).not.toContain('rm -rf');
  });

  it("reads Gloo's installed chart version from the gloo container's image tag (the chart tags its images so)", () => {
    const dep = (image?: string) => ({
      name: 'gloo',
      selector: {},
      containers: [{ name: 'gloo', ...(image ? { image } : {}) }],
    });
    expect(glooChartVersion(dep('quay.io/solo-io/gloo:1.22.1'))).toBe('1.22.1');
    expect(glooChartVersion(dep('localhost:5000/gloo:1.22.1-rc.1'))).toBe('1.22.1-rc.1');
    expect(glooChartVersion(dep('quay.io/solo-io/gloo@sha256:abc'))).toBeUndefined();
    expect(glooChartVersion(dep('localhost:5000/gloo'))).toBeUndefined();
    expect(glooChartVersion(dep('quay.io/solo-io/gloo:latest'))).toBeUndefined();
    expect(glooChartVersion(dep())).toBeUndefined();
    expect(glooChartVersion(undefined)).toBeUndefined();
  });

  it('produces the same fields the operator applies to a chart install (no Helm/operator fight)', () => {
    const g = glooHA({
      gloo: { replicas: 3, antiAffinity: 'required' },
      gatewayProxies: {
        gatewayProxy: {
          replicas: 3,
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' },
          ],
        },
      },
    });
    const values = helmValues(g) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    const d = run(g);
    const glooPatch = get(d.patches, 'Deployment', 'gloo').spec as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(values.gloo.deployment.replicas).toBe(glooPatch.replicas);
    expect(values.gloo.deployment.affinity).toEqual(glooPatch.template.spec.affinity);
    // The operator's env ends with the chart's POD_NAMESPACE (its anchor); customEnv renders right before it.
    expect([...values.gloo.deployment.customEnv, glooPatch.template.spec.containers[0].env.at(-1)]).toEqual(
      glooPatch.template.spec.containers[0].env,
    );
    const proxyPatch = get(d.patches, 'Deployment', 'gateway-proxy').spec as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(values.gatewayProxies.gatewayProxy.affinity).toEqual(proxyPatch.template.spec.affinity);
    expect(values.gatewayProxies.gatewayProxy.topologySpreadConstraints).toEqual(
      proxyPatch.template.spec.topologySpreadConstraints,
    );
    const pdb = get(d.owned, 'PodDisruptionBudget', 'gloo-glooha').spec as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(values.gloo.podDisruptionBudget).toEqual({ maxUnavailable: pdb.maxUnavailable });
  });
});

describe('helmValuesNotes', () => {
  it('flags the lists Helm replaces, what the chart cannot express, and replicas removed under an HPA', () => {
    const notes = helmValuesNotes(
      glooHA({
        gloo: {
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
          ],
        },
        gatewayProxies: { gatewayProxy: { autoscaling: { minReplicas: 2, maxReplicas: 4 } } },
      }),
    );
    expect(codes(notes)).toEqual(['HelmListReplaced', 'HelmCannotExpress', 'HelmReplicasFollowHPA']);
  });

  it("warns when the chart's gatewayProxy defaults would leak into another proxy", () => {
    const notes = helmValuesNotes(
      glooHA({
        gatewayProxies: {
          gatewayProxy: {
            autoscaling: { minReplicas: 2, maxReplicas: 4 },
            podDisruptionBudget: { minAvailable: 1 },
          },
          internalGw: { replicas: 2 },
        },
      }),
    );
    const inherited = notes.filter((n) => n.code === 'HelmProxyDefaultsInherited');
    expect(inherited.map((n) => n.component)).toEqual([
      'gatewayProxies.internalGw',
      'gatewayProxies.internalGw',
    ]);
    expect(inherited[0]?.message).toContain(
      'podDisruptionBudget.minAvailable next to its own maxUnavailable',
    );
    expect(inherited[1]?.message).toContain('horizontalPodAutoscaler');
  });

  it('says that the chart drops minAvailable: 0', () => {
    const notes = helmValuesNotes(
      glooHA({
        gloo: { replicas: 1, leaderElection: { enabled: false }, podDisruptionBudget: { minAvailable: 0 } },
      }),
    );
    expect(notes).toEqual([
      expect.objectContaining({
        code: 'HelmCannotExpress',
        path: 'spec.gloo.podDisruptionBudget.minAvailable',
      }),
    ]);
  });

  it('has nothing to say about the leader election list when leader election is off', () => {
    expect(helmValuesNotes(glooHA({ gloo: { replicas: 1, leaderElection: { enabled: false } } }))).toEqual(
      [],
    );
  });
});
