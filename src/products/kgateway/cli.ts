// kgateway in the `glooha` CLI (src/cli/product.ts): how status, check and helm-values read a kgateway
// install and its KgatewayHAs, whether its controller leads, and `glooha migrate kgateway`, which
// carries a GlooHA's settings over to kgateway.
import type { V1Deployment, V1Lease } from '@kubernetes/client-node';
import { DNS_LABEL, OUTPUTS, UsageError, namespaceFlag, oneOf } from '../../cli/flags.js';
import type { CheckResult, CliProduct, Get, ProductCommand } from '../../cli/product.js';
import { resourcePath } from '../../kube/paths.js';
import { KGATEWAY_API } from './api.js';
import {
  CONTROLLER_CONTAINER,
  CONTROLLER_LEASE_NAME,
  ENV_DISABLE_LEADER_ELECTION,
  KGATEWAY_HELM_CHART,
  KGATEWAY_VERSION,
} from './facts.js';
import { MIGRATE_TARGETS, migrate, type MigrateArgs } from './migrate-command.js';
import { KGATEWAY_RENDER } from './render.js';

const MIGRATE_USAGE = `glooha migrate - carry a GlooHA's HA settings over to kgateway, Gloo OSS's successor

Usage:
  glooha migrate kgateway -f FILE|- [flags]

Gloo OSS reaches end of life on 2026-12-31; kgateway (CNCF) is its successor. For each GlooHA this
prints what makes the kgateway install that replaces it just as available:
  - the values overlay for kgateway's chart: the controller's replicas, leader election, PDB,
    anti-affinity and rollout strategy;
  - the KgatewayHA that keeps the kgateway install so, and per gateway proxy the GatewayParameters
    kgateway's deployer builds the Gateway's proxy from, with the PodDisruptionBudget and HPA.
What kgateway cannot take (leader-election timings, discovery, ...) and the steps left to you are
printed on stderr as notes, and listed in the values' header. docs/migrate-to-kgateway.md walks
through a migration.

Flags:
  -f, --filename FILE   GlooHA YAML ("-" reads stdin); several documents are carried over in turn
  -o, --output WHAT     manifests (default): the KgatewayHA, GatewayParameters, PodDisruptionBudgets
                        and HPAs, for kubectl apply --server-side
                        helm-values: the values overlay for kgateway's chart, for helm -f
                        all: both
      --release NAME    the Helm release name of kgateway's chart (default "kgateway"): the
                        controller's pods carry it in app.kubernetes.io/instance, which its
                        anti-affinity selects
  -n, --namespace NS    namespace for a GlooHA without metadata.namespace (default "default")
  -h, --help            this help

Invalid input exits with status 2 and lists every problem as "path: message".

Examples:
  glooha migrate kgateway -f examples/glooha.yaml -o helm-values > kgateway-values.yaml
  glooha migrate kgateway -f examples/glooha.yaml > kgateway-ha.yaml
  kubectl get gha gloo -n gloo-system -o yaml | glooha migrate kgateway -f - -o all
`;

const MIGRATE: ProductCommand = {
  name: 'migrate',
  flags: { release: { type: 'string', arg: 'NAME' } },
  commandFlags: ['filename', 'output', 'release', 'namespace'],
  outputs: OUTPUTS,
  positionals: { min: 1, max: 1, name: 'TARGET', values: MIGRATE_TARGETS },
  synopsis: `  glooha migrate kgateway -f FILE|- [-o manifests|helm-values|all] [--release NAME] [-n NS]
                                                                                    offline
`,
  usage: MIGRATE_USAGE,
  parse(values, positionals): MigrateArgs {
    const str = (f: string) => values[f] as string | undefined;
    const target = oneOf(positionals[0], 'TARGET', MIGRATE_TARGETS, 'kgateway');
    const filename = str('filename');
    if (!filename) throw new UsageError('missing -f FILE (use -f - to read stdin)');
    const release = str('release') ?? 'kgateway';
    // A Helm release name: lowercase letters, digits and dashes, at most 53 characters.
    if (release.length > 53 || !DNS_LABEL.test(release))
      throw new UsageError(
        `--release must be a Helm release name (at most 53 lowercase letters, digits and dashes), not ${JSON.stringify(release)}`,
      );
    return {
      command: 'migrate',
      target,
      filename,
      output: oneOf(str('output'), '--output', OUTPUTS, 'manifests'),
      release,
      namespace: namespaceFlag(values),
    };
  },
  run: (args, io) => migrate(args as MigrateArgs, io),
};

/**
 * Whether kgateway's controller of Deployment `d` leads: holds and renews its Lease (kgateway-envoy,
 * renewed every 2 s by the leader), by this machine's clock.
 */
async function controllerLeaderCheck(get: Get, d: V1Deployment, now: Date): Promise<CheckResult> {
  const ns = d.metadata?.namespace ?? '';
  const check = 'kgateway leader';
  const container = d.spec?.template.spec?.containers.find((c) => c.name === CONTROLLER_CONTAINER);
  const disabled = container?.env?.find((e) => e.name === ENV_DISABLE_LEADER_ELECTION)?.value === 'true';
  if (disabled) return { verdict: 'ok', check, detail: `${ns}/${d.metadata?.name}: leader election is off` };
  const leaseId = `${ns}/${CONTROLLER_LEASE_NAME}`;
  const lease = await get<V1Lease>(
    `get Lease ${leaseId}`,
    resourcePath(
      { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' },
      ns,
      CONTROLLER_LEASE_NAME,
    ),
  );
  const holder = lease?.spec?.holderIdentity;
  const renew = lease?.spec?.renewTime ? new Date(String(lease.spec.renewTime)) : undefined;
  const age = renew ? Math.max(0, (now.getTime() - renew.getTime()) / 1000) : undefined;
  const duration = lease?.spec?.leaseDurationSeconds ?? 15;
  if (!lease)
    return { verdict: 'FAIL', check, detail: `no Lease ${leaseId}: kgateway's controller has not led` };
  if (!holder) return { verdict: 'FAIL', check, detail: `Lease ${leaseId} has no holder` };
  if (age === undefined || age > duration)
    return {
      verdict: 'FAIL',
      check,
      detail: `${holder} holds Lease ${leaseId} but last renewed it ${age === undefined ? 'never' : `${Math.round(age)}s ago`} (lease duration ${duration}s)`,
    };
  return {
    verdict: 'ok',
    check,
    detail: `${holder}, Lease ${leaseId} renewed ${Math.round(age)}s ago (lease duration ${duration}s; by this machine's clock)`,
  };
}

export const KGATEWAY_CLI: CliProduct = {
  api: KGATEWAY_API,
  name: 'kgateway',
  leaseInProse: `kgateway's ${CONTROLLER_LEASE_NAME}`,
  // kgateway's chart labels its controller Deployment so (kgateway.selectorLabels).
  installSelector: 'kgateway=kgateway',
  statusComponents: [{ key: 'controller' }, { key: 'gateways', each: true }],
  helmValuesSuffix: '-kgateway-helm-values',
  helmValuesExample: `  glooha helm-values kgateway -n kgateway-system --kind KgatewayHA > values-kgatewayha.yaml
  helm upgrade kgateway ${KGATEWAY_HELM_CHART.reference} --version ${KGATEWAY_VERSION} -n kgateway-system --reset-then-reuse-values -f values-kgatewayha.yaml
`,
  installCheck: {
    inProse: `whether kgateway's controller holds and renews its Lease ${CONTROLLER_LEASE_NAME}`,
    run: controllerLeaderCheck,
  },
  render: KGATEWAY_RENDER,
  commands: [MIGRATE],
};
