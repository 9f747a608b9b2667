// What glooha relies on about kgateway (github.com/kgateway-dev/kgateway/v2: each fact holds for 2.3
// and 2.4, the lines glooha supports and tests: v2.4.2's charts and real controller, v2.3.6's charts,
// installed from its Go module; version.ts has the support policy). Each fact names where it is in
// kgateway's code; the integration test test/integration/kgateway-migration.test.ts checks the
// chart-side ones against the real charts.

import type { HelmChart } from '../../core/helm-values-yaml.js';

/** The kgateway release `glooha migrate kgateway` installs: the newest tested (version.ts NEWEST_TESTED). */
export const KGATEWAY_VERSION = 'v2.4.2';

/** The Helm release name kgateway's docs install the controller chart under. */
export const DEFAULT_RELEASE = 'kgateway';

/**
 * Selector labels of the controller's Deployment and pods (install/helm/kgateway/templates/_helpers.tpl,
 * kgateway.selectorLabels), with the chart's default name. The controller's anti-affinity selects them.
 */
export function controllerSelectorLabels(release: string): Record<string, string> {
  return {
    kgateway: 'kgateway',
    'app.kubernetes.io/name': 'kgateway',
    'app.kubernetes.io/instance': release,
  };
}

/**
 * The env var that turns the controller's leader election off (api/settings/settings.go,
 * DisableLeaderElection, read by envconfig with the KGW prefix); the chart passes env vars through
 * controller.extraEnv.
 */
export const ENV_DISABLE_LEADER_ELECTION = 'KGW_DISABLE_LEADER_ELECTION';

/**
 * The controller's Lease: controller-runtime's manager with LeaderElectionID "kgateway" plus "-envoy"
 * when only Envoy is enabled, which is what the kgateway chart sets (pkg/kgateway/setup/setup.go), in
 * the pod's namespace.
 */
export const CONTROLLER_LEASE_NAME = 'kgateway-envoy';

/**
 * The timings of that election: controller-runtime's defaults, because setup.go sets none and kgateway
 * has no setting for them (LeaseDuration 15s, RenewDeadline 10s, RetryPeriod 2s).
 */
export const CONTROLLER_LEASE_TIMINGS = { leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '2s' };

/**
 * Selector labels of a Gateway's proxy Deployment and pods, as kgateway's deployer renders them with
 * its internal chart (pkg/kgateway/helm/envoy/templates/_helpers.tpl, kgateway.gateway.selectorLabels;
 * the deployer uses the Gateway's name as release and gateway name). The Deployment is named after
 * the Gateway.
 */
export function proxySelectorLabels(gateway: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': gateway,
    'app.kubernetes.io/instance': gateway,
    'gateway.networking.k8s.io/gateway-name': gateway,
  };
}

/** GatewayParameters (api/v1alpha1/kgateway/gateway_parameters_types.go). */
export const GATEWAY_PARAMETERS_GROUP = 'gateway.kgateway.dev';
export const GATEWAY_PARAMETERS_API_VERSION = `${GATEWAY_PARAMETERS_GROUP}/v1alpha1`;
export const GATEWAY_PARAMETERS_KIND = 'GatewayParameters';

/** The controller's container in kgateway's chart (install/helm/kgateway/templates/deployment.yaml). */
export const CONTROLLER_CONTAINER = 'controller';

/**
 * The env entries the chart renders right after controller.extraEnv (deployment.yaml), by line: 2.3's
 * KGW_ENABLE_ENVOY (2.4 dropped it), 2.4's KGW_GATEWAY_CLASS_PARAMETERS_REFS (2.3 renders it after
 * KGW_ENABLE_ENVOY). glooha's env goes before the first of them the container has, where `helm
 * upgrade` with the exported values renders it, so the two agree on the order: at the end of the
 * list instead, the upgrade would move it and roll the pods. On a line that renders neither there
 * (newer than the tested ones), it goes at the end.
 */
export const CHART_ENV_AFTER_EXTRA_ENV_BY_LINE = {
  '2.3': 'KGW_ENABLE_ENVOY',
  '2.4': 'KGW_GATEWAY_CLASS_PARAMETERS_REFS',
} as const;
export const CHART_ENV_AFTER_EXTRA_ENV: readonly string[] = Object.values(CHART_ENV_AFTER_EXTRA_ENV_BY_LINE);

/** The label kgateway's chart puts its app version in (kgateway.labels). */
export const CHART_VERSION_LABEL = 'app.kubernetes.io/version';

/** The label with `<chart name>-<chart version>` that kgateway's chart gives its objects (kgateway.labels). */
const HELM_CHART_LABEL = 'helm.sh/chart';

/** kgateway's chart as printed commands name it: the OCI chart its release notes install from. */
export const KGATEWAY_HELM_CHART: HelmChart = {
  inProse: "kgateway's chart (install/helm/kgateway)",
  variable: 'KGATEWAY_CHART',
  reference: 'oci://cr.kgateway.dev/kgateway-dev/charts/kgateway',
};

/**
 * The installed chart's version, from the controller Deployment's labels: helm.sh/chart
 * (`kgateway-v2.4.2`) names the chart's own version; kgateway's releases give app and chart one
 * version, so app.kubernetes.io/version stands in where that label is missing.
 */
export function kgatewayChartVersion(labels: Record<string, string> | undefined): string | undefined {
  const chart = labels?.[HELM_CHART_LABEL];
  if (chart?.startsWith('kgateway-')) return chart.slice('kgateway-'.length);
  return labels?.[CHART_VERSION_LABEL];
}

/**
 * Label selector of the controller's pods (the selector label kgateway.selectorLabels gives them; the
 * proxies' pods are labelled kgateway=kube-gateway): the pods that elect through CONTROLLER_LEASE_NAME.
 */
export const CONTROLLER_POD_SELECTOR = 'kgateway=kgateway';

/** Label selector of the Deployments, HPAs and PDBs of the controller and of the deployer's proxies. */
export const INSTALL_LABEL_SELECTOR = 'kgateway in (kgateway,kube-gateway)';

/**
 * The GatewayParameters fields kgateway 2.3 added (api/v1alpha1/kgateway/gateway_parameters_types.go,
 * GatewayParametersOverlays, inlined in spec.kube; each a KubernetesResourceOverlay {metadata, spec}):
 * with one set, the deployer renders a PDB (selector: the proxy Deployment's) or an HPA (scaleTargetRef:
 * the proxy Deployment) for the proxy, with the overlay's spec merged in
 * (pkg/deployer/strategicpatch/strategicpatch.go). glooha checks the served schema for them before it
 * writes a proxy's PDB or HPA there (an untested newer line may move them; CRDs a Helm upgrade left
 * behind may lack them).
 */
export const GATEWAY_PARAMETERS_PDB_FIELD = 'spec.kube.podDisruptionBudget';
export const GATEWAY_PARAMETERS_HPA_FIELD = 'spec.kube.horizontalPodAutoscaler';
/** Both: what the GatewayParameters of a tested line (2.3, 2.4) serve. */
export const GATEWAY_PARAMETERS_COVER_FIELDS: readonly string[] = [
  GATEWAY_PARAMETERS_PDB_FIELD,
  GATEWAY_PARAMETERS_HPA_FIELD,
];

/**
 * Whether a PDB or HPA is the one kgateway's deployer rendered for a Gateway's proxy from its
 * GatewayParameters: named after the proxy Deployment (the Gateway), with the Deployment's labels
 * (kgateway=kube-gateway among them). The deployer also deletes every PDB and HPA labelled
 * gateway.networking.k8s.io/gateway-name=<gateway> it did not render (Deployer.PruneRemovedResources),
 * which is why glooha's own carry no such label.
 */
export function isDeployerRendered(
  o: { name: string; labels?: Record<string, string> },
  gateway: string,
): boolean {
  return o.name === gateway && o.labels?.kgateway === 'kube-gateway';
}
