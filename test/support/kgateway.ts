// kgateway in the test control plane, installed the way users install it: Gateway API's CRDs and
// kgateway's CRDs with `kubectl apply --server-side`, from the charts test/env/build-kgateway.sh
// packages from kgateway's Go module.
import { readFileSync } from 'node:fs';
import type { V1Deployment } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { controllerSelectorLabels } from '../../src/products/kgateway/facts.js';
import { KGATEWAY_VERSION, kgatewayFixtures, type KgatewayFixtures } from '../env/binaries.js';
import { helm } from './gloo-chart.js';
import { kubectl, kubectlOk } from './kubectl.js';
import type { ControllerPod } from './product-controller.js';
import { eventually } from './wait.js';

/**
 * The CRDs of each pinned kgateway-crds that Kubernetes 1.37 refuses for the estimated cost of their
 * CEL rules (duration strings without maxLength; kgateway-dev/kgateway#14560, fixed in v2.4.3: v2.4.2's
 * four CRDs are v2.4.0's byte for byte, and v2.3.6's, which differ, are refused all the same).
 */
export const REFUSED_ON_1_37: Record<string, string[]> = {
  'v2.3.6': [
    'backendconfigpolicies.gateway.kgateway.dev',
    'gatewayextensions.gateway.kgateway.dev',
    'httplistenerpolicies.gateway.kgateway.dev',
    'listenerpolicies.gateway.kgateway.dev',
  ],
  'v2.4.2': [
    'backendconfigpolicies.gateway.kgateway.dev',
    'gatewayextensions.gateway.kgateway.dev',
    'httplistenerpolicies.gateway.kgateway.dev',
    'listenerpolicies.gateway.kgateway.dev',
  ],
};

/** kgateway's controller pods as its chart makes them: Deployment kgateway, container controller. */
export const KGATEWAY_CONTROLLER_POD: ControllerPod = {
  product: 'kgateway',
  deployment: 'kgateway',
  container: 'controller',
};

const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';

/**
 * Deletes the Gateway API CRDs that a newer bundle installed and `bundle` does not hold, so the
 * control plane serves what a cluster installed with this version serves. A controller built
 * against the older Gateway API watches a kind by the version it knows when its CRD exists: kgateway
 * v2.2.0 after v2.4.0's TCPRoute and TLSRoute (standard in Gateway API 1.6.1, served as v1 only)
 * waited for ever for v1alpha2 ones and never elected a leader.
 */
async function removeGatewayApiCrdsNotIn(bundle: string): Promise<void> {
  const wanted = new Set(
    parseAllDocuments(readFileSync(bundle, 'utf8'))
      .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)
      .filter((o) => o?.kind === 'CustomResourceDefinition')
      .map((o) => o?.metadata?.name),
  );
  const listed = await kubectlOk([
    'get',
    'crd',
    '-o',
    `jsonpath={range .items[?(@.spec.group=="${GATEWAY_API_GROUP}")]}{.metadata.name}{"\\n"}{end}`,
  ]);
  const extra = listed
    .split('\n')
    .filter(Boolean)
    .filter((name) => !wanted.has(name));
  if (extra.length > 0) await kubectlOk(['delete', 'crd', ...extra, '--wait=true']);
}

/**
 * Applies Gateway API's standard CRDs and kgateway's CRDs of one pinned version (idempotent; a file
 * that pins another version applies its own: the files of a lane run one at a time), waits for
 * GatewayParameters to be served, and returns the fixtures and the names of the CRDs the API server
 * refused. With `controller: true` the fixtures hold kgateway's controller binary too.
 */
export async function installKgatewayCrds(
  version: string = KGATEWAY_VERSION,
  opts: { controller?: boolean } = {},
): Promise<{ fx: KgatewayFixtures; refused: string[] }> {
  const fx = kgatewayFixtures(version, opts);
  const gatewayApi = ['apply', '--server-side', '--force-conflicts', '-f', fx.gatewayApiCrds];
  const first = await kubectl(gatewayApi);
  if (first.code !== 0) {
    // Gateway API 1.5+ installs a ValidatingAdmissionPolicy that refuses older CRDs; a file pinning
    // an older kgateway (its Gateway API) after one that installed a newer does what the message
    // tells users: remove the policy, then install the older CRDs.
    if (!first.stderr.includes('safe-upgrades.gateway.networking.k8s.io')) {
      throw new Error(`kubectl ${gatewayApi.join(' ')} failed (${first.code}): ${first.stderr}`);
    }
    for (const kind of ['validatingadmissionpolicybinding', 'validatingadmissionpolicy'])
      await kubectlOk(['delete', kind, 'safe-upgrades.gateway.networking.k8s.io', '--ignore-not-found']);
    // The API server enforces a deleted policy until its policy informer sees the deletion.
    const again = await eventually(
      'the older Gateway API CRDs applied once the API server has dropped the deleted policy',
      () => kubectl(gatewayApi),
      (r) => r.code === 0 || !r.stderr.includes('safe-upgrades.gateway.networking.k8s.io'),
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    if (again.code !== 0)
      throw new Error(`kubectl ${gatewayApi.join(' ')} failed (${again.code}): ${again.stderr}`);
  }
  await removeGatewayApiCrdsNotIn(fx.gatewayApiCrds);
  const crds = await helm(4, ['template', 'kgateway-crds', fx.crdsChart]);
  if (!crds.ok) throw new Error(`helm template kgateway-crds failed: ${crds.stderr}`);
  const applied = await kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], crds.stdout);
  const refused = [
    ...applied.stderr.matchAll(
      /CustomResourceDefinition\.apiextensions\.k8s\.io "([^"]+)" is invalid: .*estimated rule cost exceeds budget/g,
    ),
  ].map((m) => m[1] as string);
  await eventually(
    'the GatewayParameters CRD to be established',
    async () =>
      (
        await kubectl([
          'get',
          'crd',
          'gatewayparameters.gateway.kgateway.dev',
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Established")].status}',
        ])
      ).stdout,
    (s) => s === 'True',
  );
  // API discovery lists a new CRD's group a moment after the CRD is established; the operator reads
  // discovery once, at start.
  for (const [path, plural] of [
    ['/apis/gateway.networking.k8s.io/v1', 'gateways'],
    ['/apis/gateway.kgateway.dev/v1alpha1', 'gatewayparameters'],
  ] as const) {
    await eventually(
      `${plural} in API discovery`,
      async () => (await kubectl(['get', '--raw', path])).stdout,
      (text) => text.includes(`"name":"${plural}"`),
    );
  }
  return { fx, refused: refused.sort() };
}

/**
 * The values kgateway's deployer passes its proxy chart for a Gateway (pkg/kgateway/deployer/
 * gateway_parameters.go): the Gateway's name as release, gateway.name and gateway.fullnameOverride
 * (2.4's chart names its objects from the latter only), and the GatewayParameters' deployment and
 * podTemplate fields.
 */
/**
 * kgateway's CRDs and chart (Helm 4, release `kgateway`) in `namespace`, with `replicas` controller
 * pods limited to one CPU each (GOMAXPROCS comes from limits.cpu through the chart's resourceFieldRef;
 * without a limit it would be the kwok node's 32). Returns the fixtures (the controller binary).
 */
export async function installKgatewayController(
  namespace: string,
  replicas: number,
  version: string = KGATEWAY_VERSION,
): Promise<KgatewayFixtures> {
  const fx = (await installKgatewayCrds(version, { controller: true })).fx;
  const r = await helm(4, [
    'install',
    'kgateway',
    fx.chart,
    '-n',
    namespace,
    '--set',
    `controller.replicaCount=${replicas}`,
    '--set',
    'controller.resources.limits.cpu=1',
  ]);
  if (!r.ok) throw new Error(`helm install of kgateway ${version} into ${namespace} failed: ${r.stderr}`);
  return fx;
}

export function deployerValues(
  gateway: string,
  namespace: string,
  kube: Record<string, any>, // eslint-disable-line @typescript-eslint/no-explicit-any
  version: string,
): Record<string, unknown> {
  return {
    gateway: {
      name: gateway,
      fullnameOverride: gateway,
      gatewayName: gateway,
      gatewayNamespace: namespace,
      gatewayClassName: 'kgateway',
      image: { registry: 'cr.kgateway.dev/kgateway-dev', repository: 'envoy-wrapper', tag: version },
      ...(kube.deployment?.replicas !== undefined ? { replicaCount: kube.deployment.replicas } : {}),
      ...(kube.deployment?.strategy ? { strategy: kube.deployment.strategy } : {}),
      ...(kube.podTemplate?.affinity ? { affinity: kube.podTemplate.affinity } : {}),
      ...(kube.podTemplate?.topologySpreadConstraints
        ? { topologySpreadConstraints: kube.podTemplate.topologySpreadConstraints }
        : {}),
    },
  };
}

/**
 * A Gateway of kgateway's class and the GatewayParameters it names, both called `name`: what a user
 * writes for each proxy a KgatewayHA's spec.gateways then makes HA.
 */
export function gatewayWithParameters(namespace: string, name: string): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'gateway.kgateway.dev/v1alpha1',
      kind: 'GatewayParameters',
      metadata: { name, namespace },
      spec: { kube: {} },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name, namespace },
      spec: {
        gatewayClassName: 'kgateway',
        infrastructure: { parametersRef: { group: 'gateway.kgateway.dev', kind: 'GatewayParameters', name } },
        listeners: [{ name: 'http', protocol: 'HTTP', port: 8080 }],
      },
    },
  ];
}

/**
 * kgateway's controller Deployment as the chart of `version` lays it out, for kwok to run: release
 * `kgateway`'s selector labels, the chart's version labels (helm.sh/chart, app.kubernetes.io/version,
 * which the operator checks against 2.3 and newer) and container `controller`. For tests of what the
 * operator decides from the Deployment, not of kgateway's controller (the products lane runs that).
 */
export function kgatewayControllerDeployment(
  namespace: string,
  { version, replicas }: { version: string; replicas: number },
): V1Deployment {
  const selector = controllerSelectorLabels('kgateway');
  return {
    metadata: {
      name: 'kgateway',
      namespace,
      labels: { ...selector, 'helm.sh/chart': `kgateway-${version}`, 'app.kubernetes.io/version': version },
    },
    spec: {
      replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: selector },
        spec: {
          containers: [{ name: 'controller', image: `cr.kgateway.dev/kgateway-dev/kgateway:${version}` }],
        },
      },
    },
  };
}
