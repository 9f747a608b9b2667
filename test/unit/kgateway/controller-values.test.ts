// The controller's chart values the operator exports (and `glooha migrate kgateway` prints), rendered
// by kgateway's own chart of each pinned version with the real Helm: the controller Deployment must
// carry the anti-affinity and spread the KgatewayHA asks for where the chart can express them (2.3+:
// controller.affinity, controller.topologySpreadConstraints), and the affinity at least on 2.2, whose
// chart has only the top-level affinity and no spread value.
import type {
  KubernetesObject as KubeObject,
  V1Deployment,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ComponentIntent } from '../../../src/core/component.js';
import { chartHasControllerScheduling } from '../../../src/products/kgateway/facts.js';
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
  it('2.3 and later read the controller’s own scheduling values; 2.2 and unknown versions do not', () => {
    expect(['v2.2.0', '2.2.9', undefined, 'main'].map(chartHasControllerScheduling)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(['v2.3.0', 'v2.3.6', 'v2.4.0', '3.0.0'].map(chartHasControllerScheduling)).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it.each(KGATEWAY_VERSIONS)(
    '%s: the controller Deployment gets the replicas, the required anti-affinity, the spread where the chart has it, and the PDB',
    async (version) => {
      const fx = kgatewayFixtures(version);
      const values = kgatewayControllerValues(intent, true, 'kgw', { chartVersion: version });
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
      if (chartHasControllerScheduling(version)) {
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
      } else {
        expect(pod?.topologySpreadConstraints).toBeUndefined();
      }
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
    '%s: an autoscaled controller with a priority class: replicas = the live count within the HPA bounds, priorityClassName where the chart has it, no chart HPA',
    async (version) => {
      const values = kgatewayControllerValues(autoscaled, true, 'kgw', {
        chartVersion: version,
        priorityClassName: 'kgw-critical',
        liveReplicas: 1,
      });
      const objects = await render(version, values);
      const deployment = objects.find((o) => o?.kind === 'Deployment') as V1Deployment;
      // Live 1 is below minReplicas 2: the upgrade renders the HPA's floor, never less.
      expect(deployment.spec?.replicas).toBe(2);
      expect(objects.filter((o) => o?.kind === 'HorizontalPodAutoscaler')).toEqual([]);
      if (chartHasControllerScheduling(version)) {
        expect(deployment.spec?.template.spec?.priorityClassName).toBe('kgw-critical');
      } else {
        expect(deployment.spec?.template.spec?.priorityClassName).toBeUndefined();
        expect(values).not.toHaveProperty('controller.priorityClassName');
      }
      const above = kgatewayControllerValues(autoscaled, true, 'kgw', {
        chartVersion: version,
        liveReplicas: 9,
      });
      expect(above).toHaveProperty('controller.replicaCount', 5);
    },
    helmBuildTimeoutMs,
  );

  // Why the exported values leave controller.horizontalPodAutoscaler out: with it the 2.3+ chart renders
  // the HPA (named as the controller Deployment, the bounds, scaleTargetRef the controller) but drops the Deployment's replicas,
  // whatever replicaCount says, so Helm would remove spec.replicas and the Deployment fall to 1.
  it(
    'v2.4.0: the chart’s own controller.horizontalPodAutoscaler renders an HPA on the controller and drops spec.replicas',
    async () => {
      const objects = await render('v2.4.0', {
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
