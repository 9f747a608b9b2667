// A KgatewayHA's controller switched from fixed replicas to autoscaling and back, then given a
// priorityClassName, on kgateway's real controller (one process per controller pod) installed with
// Helm 4, on the pinned kgateway version whose controller is built (v2.4.2). One watch on the controller Deployment, timestamped,
// records every readyReplicas it goes through: any dip below 2 counts — through the switches and
// through the rollout that adds the priority class. A priorityClassName whose PriorityClass does not
// exist is reported (Stalled, naming the field and the class) and not written; creating the class is
// enough for the operator to write it (the PriorityClass informer wakes it: no other change is made).
import { AppsV1Api, AutoscalingV2Api, SchedulingV1Api } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KgatewayHA } from '../../src/products/kgateway/types.js';
import { KGATEWAY_CONTROLLER_VERSION, type KgatewayFixtures } from '../env/binaries.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { helm } from '../support/gloo-chart.js';
import { createKgatewayHA, getKgatewayHA, patchKgatewayHASpec } from '../support/glooha.js';
import { KGATEWAY_CONTROLLER_POD, installKgatewayCrds } from '../support/kgateway.js';
import { ownsReplicas } from '../support/managed-fields.js';
import {
  installOperatorRbac,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { ProductControllers } from '../support/product-controller.js';
import { watchReady } from '../support/ready-watch.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const autoscaling = admin.makeApiClient(AutoscalingV2Api);
const scheduling = admin.makeApiClient(SchedulingV1Api);

let id: OperatorIdentity;

beforeAll(async () => {
  id = await installOperatorRbac(await createNamespace('kgw-ctl-as-operator'));
}, 180_000);

describe.each([KGATEWAY_CONTROLLER_VERSION])(
  "kgateway %s's controller: autoscaling and priorityClassName",
  (version) => {
    let fx: KgatewayFixtures;
    let ns: string;
    let operator: InProcessOperator | undefined;
    let controllers: ProductControllers | undefined;
    const priorityClass = `kgw-critical-${randomBytes(3).toString('hex')}`;
    const patchController = (controller: Record<string, unknown>) =>
      patchKgatewayHASpec(ns, 'kgw', { controller });
    const getK = () => getKgatewayHA(ns, 'kgw');
    const controller = () => apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns });
    const condition = (k: KgatewayHA, type: string) => k.status?.conditions?.find((c) => c.type === type);
    const readyAtGeneration = (k: KgatewayHA) =>
      condition(k, 'Ready')?.status === 'True' &&
      condition(k, 'Ready')?.observedGeneration === k.metadata.generation;

    beforeAll(async () => {
      fx = (await installKgatewayCrds(version, { controller: true })).fx;
      ns = await createNamespace('kgw-ctl-autoscale');
      operator = await startOperatorInProcess(id);
      // The chart's default replicaCount (1): the KgatewayHA asks for 2.
      const r = await helm(4, ['install', 'kgateway', fx.chart, '-n', ns]);
      expect(r.ok, r.stderr).toBe(true);
      controllers = await ProductControllers.start({
        ...KGATEWAY_CONTROLLER_POD,
        namespace: ns,
        binary: fx.controller!,
      });
    }, 1_800_000);

    afterAll(async () => {
      await controllers?.stop();
      await operator?.shutdown('test done');
      await scheduling.deletePriorityClass({ name: priorityClass }).catch(() => undefined);
    });

    it('keeps at least 2 ready controller replicas through fixed 2 → autoscaled {2..4} → fixed 2 and a priority class rollout; a missing PriorityClass is reported, not written, and written once created', async () => {
      await createKgatewayHA(ns, 'kgw', { controller: { replicas: 2 } });
      await eventually(
        'the controller with 2 ready replicas and the KgatewayHA Ready',
        async () => ({ d: await controller(), k: await getK() }),
        ({ d, k }) => d.spec?.replicas === 2 && d.status?.readyReplicas === 2 && readyAtGeneration(k),
        { timeoutMs: 180_000 },
      ).catch((err) => {
        throw new Error(`${(err as Error).message}\n${controllers!.describe()}`);
      });

      const watch = await watchReady(admin, ns, 'kgateway');
      try {
        // Fixed → autoscaled: glooha's HPA on the controller; the operator no longer applies replicas.
        await patchController({ replicas: null, autoscaling: { minReplicas: 2, maxReplicas: 4 } });
        await eventually('the KgatewayHA Ready with the controller autoscaled', getK, readyAtGeneration, {
          timeoutMs: 120_000,
        });
        const hpas = await eventually(
          'one HPA on the controller, synced',
          async () =>
            (await autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace: ns })).items.filter(
              (h) => h.spec?.scaleTargetRef.name === 'kgateway',
            ),
          (l) => l.length === 1 && (l[0]?.status?.currentReplicas ?? 0) >= 2,
          { timeoutMs: 120_000 },
        );
        expect(hpas.map((h) => [h.metadata?.name, h.spec?.minReplicas, h.spec?.maxReplicas])).toEqual([
          ['kgateway-glooha', 2, 4],
        ]);
        // Two HPA sync periods (15 s each): long enough for a dropped spec.replicas to show.
        const settleUntil = Date.now() + 35_000;
        await eventually(
          'two HPA syncs',
          async () => Date.now(),
          (t) => t > settleUntil,
          { timeoutMs: 60_000 },
        );
        const autoscaled = await controller();
        expect(ownsReplicas(autoscaled, 'glooha-operator')).toBe(false);
        expect(autoscaled.spec?.replicas).toBe(2);

        // Autoscaled → fixed 2: the HPA goes, replicas are the operator's again.
        await patchController({ replicas: 2, autoscaling: null });
        await eventually(
          'the controller back to fixed replicas 2, no HPA',
          async () => ({
            d: await controller(),
            k: await getK(),
            hpas: (await autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace: ns })).items,
          }),
          ({ d, k, hpas }) => d.spec?.replicas === 2 && hpas.length === 0 && readyAtGeneration(k),
          { timeoutMs: 120_000 },
        );

        // A priorityClassName whose PriorityClass does not exist: reported, and the pod template untouched.
        const before = await controller();
        await patchController({ priorityClassName: priorityClass });
        const stalled = await eventually(
          'the KgatewayHA Stalled on the missing PriorityClass',
          getK,
          (k) =>
            condition(k, 'Stalled')?.reason === 'PriorityClassNotFound' &&
            condition(k, 'Stalled')?.observedGeneration === k.metadata.generation,
          { timeoutMs: 60_000 },
        );
        const message = condition(stalled, 'Stalled')?.message ?? '';
        expect(message).toContain(`PriorityClass ${priorityClass} does not exist`);
        expect(message).toContain('spec.controller.priorityClassName');
        expect(message).toContain(`kubectl create priorityclass ${priorityClass}`);
        expect(condition(stalled, 'Ready')?.status).toBe('False');
        const untouched = await controller();
        expect(untouched.spec?.template.spec?.priorityClassName).toBeUndefined();
        expect(untouched.metadata?.generation).toBe(before.metadata?.generation);

        // Created: the operator writes it with no other change to wake it, and the rollout completes.
        await scheduling.createPriorityClass({
          body: {
            apiVersion: 'scheduling.k8s.io/v1',
            kind: 'PriorityClass',
            metadata: { name: priorityClass },
            value: 1000,
          },
        });
        await eventually(
          'the priority class on the pod template, rolled out, and the KgatewayHA Ready',
          async () => ({ d: await controller(), k: await getK() }),
          ({ d, k }) =>
            d.spec?.template.spec?.priorityClassName === priorityClass &&
            d.status?.observedGeneration === d.metadata?.generation &&
            d.status?.updatedReplicas === 2 &&
            d.status?.readyReplicas === 2 &&
            (d.status?.replicas ?? 0) === 2 &&
            readyAtGeneration(k),
          { timeoutMs: 180_000 },
        ).catch((err) => {
          throw new Error(`${(err as Error).message}\n${controllers!.describe()}`);
        });
      } finally {
        watch.stop();
      }
      const start = watch.samples[0]?.at ?? 0;
      const timeline = watch.samples.map(
        (s) => `+${((s.at - start) / 1000).toFixed(1)}s replicas=${s.replicas} ready=${s.ready}`,
      );
      console.log(
        `kgateway ${version} controller through the switches (${watch.samples.length} events; watch resumed ${watch.ends.length}×: ${watch.ends.join('; ')}):\n${timeline.join('\n')}`,
      );
      // The rollout that adds the priority class alone reports several ready counts.
      expect(watch.samples.length).toBeGreaterThan(5);
      expect(Math.min(...watch.samples.map((s) => s.ready)), timeline.join('\n')).toBeGreaterThanOrEqual(2);
    }, 600_000);
  },
);
