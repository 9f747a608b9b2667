// `glooha migrate kgateway` against the real API server, with kgateway's real charts (v2.4.2, from its
// Go module) installed the way users install them: Gateway API's CRDs and kgateway's CRDs with
// `kubectl apply --server-side`, kgateway's chart with Helm 4 and Helm 3 fed the values file the
// command prints, and the manifests it prints with `kubectl apply --server-side` (kubectl reads them as
// YAML 1.1). The API server, with kgateway's own CRD schema, must keep every field we write.
//
// Kubernetes 1.37 (this control plane) refuses four of kgateway v2.4.2's CRDs for the estimated cost
// of their CEL rules (duration strings without maxLength; kgateway fixed it in v2.4.3,
// kgateway-dev/kgateway#14560). The test pins exactly which, so the migration guide stays true.
import { CustomObjectsApi, AppsV1Api, PolicyV1Api, AutoscalingV2Api } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { main } from '../../src/cli/main.js';
import type { KgatewayFixtures } from '../env/binaries.js';
import { adminKubeConfig, createNamespace, installCrds } from '../support/cluster.js';
import { HELM_MAJORS, helm, valuesFiles } from '../support/gloo-chart.js';
import { REFUSED_ON_1_37, installKgatewayCrds } from '../support/kgateway.js';
import { kubectlOk } from '../support/kubectl.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const policy = admin.makeApiClient(PolicyV1Api);
const autoscaling = admin.makeApiClient(AutoscalingV2Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const repoRoot = join(import.meta.dirname, '..', '..');
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function migrate(namespace: string, output: 'manifests' | 'helm-values'): Promise<string> {
  // The production example, moved into the test's namespace.
  const example = readFileSync(join(repoRoot, 'examples/glooha.yaml'), 'utf8').replace(
    'namespace: gloo-system',
    `namespace: ${namespace}`,
  );
  let stdout = '';
  let stderr = '';
  const code = await main(['migrate', 'kgateway', '-f', 'glooha.yaml', '-o', output], {
    readFile: () => example,
    readStdin: async () => '',
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => (stderr += t),
  });
  if (code !== 0) throw new Error(`glooha migrate failed (${code}): ${stderr}`);
  return stdout;
}

describe('glooha migrate kgateway, applied to a kgateway install', () => {
  let fx: KgatewayFixtures;

  beforeAll(async () => {
    await installCrds(); // glooha's own: the manifests hold a KgatewayHA
    const installed = await installKgatewayCrds();
    fx = installed.fx;
    expect(installed.refused).toEqual(REFUSED_ON_1_37[fx.version]);
  }, 600_000);

  it.each(HELM_MAJORS)(
    'Helm %i installs kgateway with the values: controller replicas, leader election, PDB, anti-affinity',
    async (major) => {
      const ns = await createNamespace(`kgw-helm${major}`);
      const files = valuesFiles(await migrate(ns, 'helm-values'));
      try {
        const r = await helm(major, ['install', 'kgateway', fx.chart, '-n', ns, ...files.args]);
        expect(r.ok, r.stderr).toBe(true);
      } finally {
        files.cleanup();
      }
      const dep = await apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns });
      expect(dep.spec?.replicas).toBe(3);
      const pod = dep.spec?.template.spec;
      expect(pod?.containers[0]?.env).toContainEqual({ name: 'KGW_DISABLE_LEADER_ELECTION', value: 'false' });
      const term = pod?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0];
      expect(term?.labelSelector?.matchLabels).toEqual(dep.spec?.selector.matchLabels);
      expect(dep.spec?.strategy?.rollingUpdate).toEqual({ maxSurge: 0, maxUnavailable: 1 });
      const pdb = await policy.readNamespacedPodDisruptionBudget({ name: 'kgateway', namespace: ns });
      expect(pdb.spec?.maxUnavailable).toBe(1);
      expect(pdb.spec?.selector?.matchLabels).toEqual(dep.spec?.selector.matchLabels);
    },
  );

  it("kubectl applies the manifests, and kgateway's GatewayParameters schema keeps every field", async () => {
    const ns = await createNamespace('kgw-manifests');
    const text = await migrate(ns, 'manifests');
    await kubectlOk(['apply', '--server-side', '--field-manager', 'migration', '-f', '-'], text);
    const objects = parseAllDocuments(text).map((d) => d.toJS() as Obj);
    expect(objects[0]?.kind).toBe('KgatewayHA');
    const gps = objects.filter((o) => o.kind === 'GatewayParameters');
    expect(gps.map((o) => o.metadata.name)).toEqual(['gateway-proxy', 'public-gw']);
    for (const gp of gps) {
      const live = (await custom.getNamespacedCustomObject({
        group: 'gateway.kgateway.dev',
        version: 'v1alpha1',
        namespace: ns,
        plural: 'gatewayparameters',
        name: gp.metadata.name,
      })) as Obj;
      // A field the schema does not know would be pruned silently: the stored spec must be ours.
      expect(live.spec).toEqual(gp.spec);
    }
    for (const pdb of objects.filter((o) => o.kind === 'PodDisruptionBudget')) {
      const live = await policy.readNamespacedPodDisruptionBudget({ name: pdb.metadata.name, namespace: ns });
      expect(live.spec?.selector).toEqual(pdb.spec.selector);
    }
    const hpa = await autoscaling.readNamespacedHorizontalPodAutoscaler({ name: 'public-gw', namespace: ns });
    expect(hpa.spec).toMatchObject({
      minReplicas: 3,
      maxReplicas: 12,
      scaleTargetRef: { name: 'public-gw' },
    });
  });
});
