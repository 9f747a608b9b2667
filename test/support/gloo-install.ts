// A simulated Gloo install, laid out as Gloo's Helm chart v1.22 (install/helm/gloo) lays it out:
// Deployments `gloo` (labels app=gloo, gloo=gloo; ServiceAccount gloo; container `gloo`), `discovery`
// (gloo=discovery; off by default, as in the chart since 1.22) and one Deployment per gateway proxy
// (gloo=gateway-proxy, gateway-proxy-id=<name>; its container named after the proxy), with Helm as
// their field manager. Optionally an HPA on a proxy (`<proxy>-hpa`, as the chart's
// `horizontalPodAutoscaler` values name it) and the chart's PDBs (`gloo-pdb`, `<proxy>-pdb`).
//
// Tests that need Gloo's real chart install it with test/support/gloo-chart.ts. This simulation is
// kept where a test needs what the chart cannot give: many installs in seconds (benchmarks, the
// operator HA tests), no Helm release to upgrade, and an install without the chart's hook Jobs.
import {
  AppsV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  PolicyV1Api,
  type KubeConfig,
  type V1PodDisruptionBudget,
  type V1Deployment,
  type V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';

export interface GlooInstallOptions {
  namespace: string;
  glooReplicas?: number;
  discovery?: boolean;
  /** Gateway proxy Deployment names (kebab-case, as the chart names them). */
  proxies?: string[];
  /** Proxies that get an HPA (min/max), as `gatewayProxies.<n>.horizontalPodAutoscaler` creates it. */
  autoscaled?: Record<string, { minReplicas: number; maxReplicas: number }>;
  /** The chart's PDBs: `gloo-pdb` (gloo.podDisruptionBudget) and `<proxy>-pdb` per listed proxy. */
  pdbs?: { gloo?: { maxUnavailable: number }; proxies?: Record<string, { maxUnavailable: number }> };
  /** Extra labels on every Deployment (e.g. a Helm release label to tell installs apart). */
  labels?: Record<string, string>;
}

const HELM_MANAGER = 'helm';

function glooDeployment(
  namespace: string,
  name: string,
  labels: Record<string, string>,
  selector: Record<string, string>,
  container: string,
  replicas: number | undefined,
  serviceAccountName?: string,
  image = container,
): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: 'gloo', ...labels } },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...selector } },
        spec: {
          ...(serviceAccountName ? { serviceAccountName } : {}),
          containers: [
            {
              name: container,
              image: `quay.io/solo-io/${image}:1.22.1`,
              env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
            },
          ],
        },
      },
    },
  };
}

export function glooInstallObjects(opts: GlooInstallOptions): {
  deployments: V1Deployment[];
  hpas: V2HorizontalPodAutoscaler[];
  pdbs: V1PodDisruptionBudget[];
} {
  const ns = opts.namespace;
  const extra = opts.labels ?? {};
  const deployments: V1Deployment[] = [
    glooDeployment(
      ns,
      'gloo',
      { gloo: 'gloo', ...extra },
      { gloo: 'gloo' },
      'gloo',
      opts.glooReplicas ?? 1,
      'gloo',
    ),
  ];
  if (opts.discovery ?? false) {
    deployments.push(
      glooDeployment(
        ns,
        'discovery',
        { gloo: 'discovery', ...extra },
        { gloo: 'discovery' },
        'discovery',
        1,
        'discovery',
      ),
    );
  }
  const hpas: V2HorizontalPodAutoscaler[] = [];
  for (const proxy of opts.proxies ?? ['gateway-proxy']) {
    const selector = { gloo: 'gateway-proxy', 'gateway-proxy-id': proxy };
    const hpa = opts.autoscaled?.[proxy];
    // The chart omits `replicas` when an HPA scales the proxy.
    deployments.push(
      glooDeployment(
        ns,
        proxy,
        { ...selector, ...extra },
        selector,
        proxy,
        hpa ? undefined : 1,
        'gateway-proxy',
        'gloo-envoy-wrapper',
      ),
    );
    if (hpa) {
      hpas.push({
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: `${proxy}-hpa`, namespace: ns, labels: { app: 'gloo', ...selector, ...extra } },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: proxy },
          minReplicas: hpa.minReplicas,
          maxReplicas: hpa.maxReplicas,
          metrics: [
            {
              type: 'Resource',
              resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
            },
          ],
        },
      });
    }
  }
  const pdbs: V1PodDisruptionBudget[] = [];
  const pdb = (name: string, matchLabels: Record<string, string>, maxUnavailable: number) => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: ns, labels: { app: 'gloo', ...extra } },
    spec: { maxUnavailable, selector: { matchLabels } },
  });
  if (opts.pdbs?.gloo) pdbs.push(pdb('gloo-pdb', { gloo: 'gloo' }, opts.pdbs.gloo.maxUnavailable));
  for (const [proxy, p] of Object.entries(opts.pdbs?.proxies ?? {}))
    pdbs.push(pdb(`${proxy}-pdb`, { 'gateway-proxy-id': proxy }, p.maxUnavailable));
  return { deployments, hpas, pdbs };
}

/** Creates the install (ServiceAccounts, Deployments, HPAs, PDBs) with Helm's field manager. */
export async function createGlooInstall(kc: KubeConfig, opts: GlooInstallOptions): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const autoscaling = kc.makeApiClient(AutoscalingV2Api);
  const policy = kc.makeApiClient(PolicyV1Api);
  const { deployments, hpas, pdbs } = glooInstallObjects(opts);
  for (const sa of new Set(
    deployments.map((d) => d.spec?.template.spec?.serviceAccountName).filter((s): s is string => !!s),
  )) {
    await core
      .createNamespacedServiceAccount({ namespace: opts.namespace, body: { metadata: { name: sa } } })
      .catch((err: { code?: number }) => {
        if (err.code !== 409) throw err;
      });
  }
  for (const body of deployments)
    await apps.createNamespacedDeployment({ namespace: opts.namespace, body, fieldManager: HELM_MANAGER });
  for (const body of hpas)
    await autoscaling.createNamespacedHorizontalPodAutoscaler({
      namespace: opts.namespace,
      body,
      fieldManager: HELM_MANAGER,
    });
  for (const body of pdbs)
    await policy.createNamespacedPodDisruptionBudget({
      namespace: opts.namespace,
      body,
      fieldManager: HELM_MANAGER,
    });
}
