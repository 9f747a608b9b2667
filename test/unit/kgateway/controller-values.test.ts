// The controller's chart values the operator exports (and `glooha migrate kgateway` prints), rendered
// by kgateway's own chart of each pinned version (v2.4.2, v2.3.6) with the real Helm: the controller
// Deployment must carry the anti-affinity, spread and priority class the KgatewayHA asks for, through
// the controller's own values (controller.affinity, controller.topologySpreadConstraints,
// controller.priorityClassName; every supported chart, 2.3 and newer, has them).
import type {
  KubernetesObject as KubeObject,
  V1Deployment,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ComponentIntent } from '../../../src/core/component.js';
import { chartEnvAnchor } from '../../../src/products/kgateway/desired.js';
import { ENV_DISABLE_LEADER_ELECTION } from '../../../src/products/kgateway/facts.js';
import { kgatewayControllerValues } from '../../../src/products/kgateway/migrate.js';
import { KGATEWAY_VERSIONS, kgatewayFixtures } from '../../env/binaries.js';
import { helmBuildTimeoutMs, runHelm } from '../chart/helm.js';

const intent: ComponentIntent = {
  id: 'controller',
  role: 'controller',
  specPath: 'spec.controller',
  deploymentName: 'kgateway',
  replicas: 3,
  podDisruptionBudget: { maxUnavailable: 1 },
  antiAffinity: 'required',
  topologySpreadConstraints: [
    { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
  ],
};

describe('kgateway controller chart values, rendered by kgateway’s chart', () => {
  it.each(KGATEWAY_VERSIONS)(
    '%s: the controller Deployment gets the replicas, the required anti-affinity, the spread, and the PDB',
    async (version) => {
      const fx = kgatewayFixtures(version);
      const values = kgatewayControllerValues(intent, true, 'kgw', {});
      const res = await runHelm(['template', 'kgw', fx.chart, '-n', 'kgateway-system'], values);
      expect(res.ok, res.stderr).toBe(true);
      const objects = parseAllDocuments(res.stdout).map((d) => d.toJSON() as V1Deployment | null);
      const deployments = objects.filter((o) => o?.kind === 'Deployment');
      expect(deployments).toHaveLength(1);
      const deployment = deployments[0];
      const pod = deployment?.spec?.template.spec;
      expect(deployment?.spec?.replicas).toBe(3);
      const selector = deployment?.spec?.selector;
      expect(pod?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
        { labelSelector: selector, topologyKey: 'kubernetes.io/hostname' },
      ]);
      expect(pod?.topologySpreadConstraints).toEqual([
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: selector,
        },
      ]);
      // Not through the deprecated top-level value.
      expect(values).not.toHaveProperty('affinity');
      const pdbs = objects.filter((o) => o?.kind === 'PodDisruptionBudget');
      expect(pdbs.map((p) => (p as { spec?: unknown }).spec)).toEqual([
        { maxUnavailable: 1, selector: { matchLabels: selector?.matchLabels } },
      ]);
    },
    helmBuildTimeoutMs,
  );

  const render = async (version: string, values: Record<string, unknown>) => {
    const res = await runHelm(
      ['template', 'kgw', kgatewayFixtures(version).chart, '-n', 'kgateway-system'],
      values,
    );
    expect(res.ok, res.stderr).toBe(true);
    return parseAllDocuments(res.stdout).map((d) => d.toJSON() as KubeObject | null);
  };
  const autoscaled: ComponentIntent = {
    ...intent,
    replicas: undefined,
    autoscaling: { minReplicas: 2, maxReplicas: 5 },
  };

  it.each(KGATEWAY_VERSIONS)(
    '%s: an autoscaled controller with a priority class: replicas = the live count within the HPA bounds, the priorityClassName, no chart HPA',
    async (version) => {
      const values = kgatewayControllerValues(autoscaled, true, 'kgw', {
        priorityClassName: 'kgw-critical',
        liveReplicas: 1,
      });
      const objects = await render(version, values);
      const deployment = objects.find((o) => o?.kind === 'Deployment') as V1Deployment;
      // Live 1 is below minReplicas 2: the upgrade renders the HPA's floor, never less.
      expect(deployment.spec?.replicas).toBe(2);
      expect(objects.filter((o) => o?.kind === 'HorizontalPodAutoscaler')).toEqual([]);
      expect(deployment.spec?.template.spec?.priorityClassName).toBe('kgw-critical');
      const above = kgatewayControllerValues(autoscaled, true, 'kgw', { liveReplicas: 9 });
      expect(above).toHaveProperty('controller.replicaCount', 5);
    },
    helmBuildTimeoutMs,
  );

  // The operator writes KGW_DISABLE_LEADER_ELECTION before the entry it finds after extraEnv in the
  // chart's render (desired.ts, chartEnvAnchor); `helm upgrade` with the exported values must put it
  // in the same place, or the upgrade reorders the env and rolls the pods (it did on v2.3.6 when the
  // anchor was 2.2's KGW_ENABLE_AGENTGATEWAY, which neither pinned chart renders).
  it.each(KGATEWAY_VERSIONS)(
    '%s: the chart renders the leader-election env right before the entry the operator anchors it to',
    async (version) => {
      const containerOf = (objects: (KubeObject | null)[]) =>
        (objects.find((o) => o?.kind === 'Deployment') as V1Deployment).spec?.template.spec?.containers.find(
          (c) => c.name === 'controller',
        );
      const plain = containerOf(await render(version, {}));
      const anchor = chartEnvAnchor({
        env: plain?.env?.map((e) => ({ name: e.name, value: e.value ?? '' })),
      });
      expect(anchor).toBeDefined();
      const upgraded = containerOf(await render(version, kgatewayControllerValues(intent, true, 'kgw', {})));
      const names = upgraded?.env?.map((e) => e.name) ?? [];
      expect(names[names.indexOf(ENV_DISABLE_LEADER_ELECTION) + 1]).toBe(anchor);
    },
    helmBuildTimeoutMs,
  );

  // Why the exported values leave controller.horizontalPodAutoscaler out: with it the chart renders
  // the HPA (named as the controller Deployment, the bounds, scaleTargetRef the controller) but drops the Deployment's replicas,
  // whatever replicaCount says, so Helm would remove spec.replicas and the Deployment fall to 1.
  it.each(KGATEWAY_VERSIONS)(
    '%s: the chart’s own controller.horizontalPodAutoscaler renders an HPA on the controller and drops spec.replicas',
    async (version) => {
      const objects = await render(version, {
        controller: { replicaCount: 3, horizontalPodAutoscaler: { minReplicas: 2, maxReplicas: 5 } },
      });
      const deployment = objects.find((o) => o?.kind === 'Deployment') as V1Deployment;
      expect(deployment.spec?.replicas).toBeUndefined();
      const hpas = objects.filter(
        (o) => o?.kind === 'HorizontalPodAutoscaler',
      ) as V2HorizontalPodAutoscaler[];
      expect(hpas.map((h) => [h.metadata?.name, h.spec])).toEqual([
        [
          deployment.metadata?.name,
          {
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata?.name },
            minReplicas: 2,
            maxReplicas: 5,
          },
        ],
      ]);
    },
    helmBuildTimeoutMs,
  );
});
