// desiredKgateway(kgatewayHA, observed): the pure core for a kgateway install, as desired() is for a
// Gloo install, and with the same contract: owned objects (the PDB, the Helm values ConfigMap),
// partial server-side-apply bodies for what Helm owns (the controller's Deployment: replicas,
// anti-affinity, topology spread, rollout strategy and the leader-election env), and findings. One
// component today, kgateway's controller; the planning of a component is desired.ts's own
// (planComponentOn), so both products get the same PDB, HPA, rollout and finding rules. No I/O.

import { validateKgatewayHA } from '../api/validate.js';
import type { DefaultedKgatewayHA, DefaultedKgatewaySpec, KgatewayHA } from '../api/types.js';
import type { ComponentIntent } from '../core/components.js';
import {
  installNamespaceOf,
  planComponentOn,
  type ComponentContext,
  type ContainerEnv,
  type DesiredResult,
} from '../core/desired.js';
import { stringifyKubeYaml } from '../api/kube-yaml.js';
import type { ObservedContainer, ObservedDeployment, ObservedHPA, ObservedPDB } from '../core/observed.js';
import { names, ownedMetadata, ownerOf, type Owner } from '../core/ownership.js';
import { renderObject, type KubeObject } from '../core/templates.js';
import {
  CHART_ENV_AFTER_EXTRA_ENV,
  CONTROLLER_CONTAINER,
  CONTROLLER_LEASE_NAME,
  DEFAULT_RELEASE,
  ENV_DISABLE_LEADER_ELECTION,
  KGATEWAY_VERSION,
} from './facts.js';
import { kgatewayControllerValues } from './migrate.js';

/** What the operator found of a kgateway install (from its caches, or a file for tests). */
export interface ObservedKgateway {
  namespace: string;
  /** kgateway's controller Deployment (labels kgateway=kgateway), absent when there is none. */
  controller?: ObservedDeployment;
  hpas: ObservedHPA[];
  pdbs: ObservedPDB[];
}

export function controllerIntent(spec: DefaultedKgatewaySpec, deploymentName: string): ComponentIntent {
  return {
    id: 'controller',
    role: 'controller',
    specPath: 'spec.controller',
    deploymentName,
    replicas: spec.controller.replicas,
    podDisruptionBudget: spec.controller.podDisruptionBudget,
    antiAffinity: spec.controller.antiAffinity,
    topologySpreadConstraints: spec.controller.topologySpreadConstraints,
  };
}

export function desiredKgateway(k: KgatewayHA, observed: ObservedKgateway): DesiredResult {
  const validated = validateKgatewayHA(k);
  if (!validated.ok) return { ok: false, errors: validated.errors };
  const g = validated.value;
  const spec = g.spec;
  const owner = ownerOf(g);
  const ns = installNamespaceOf(g);
  const ctx: ComponentContext = {
    owner,
    ns,
    hpas: observed.hpas,
    pdbs: observed.pdbs,
    driftPolicy: spec.driftPolicy,
    containerEnv: (c, _i, dep) => leaderElectionEnv(c, spec, dep),
    owned: [],
    patches: [],
    warnings: [],
    problems: [],
  };
  const dep = observed.controller;
  const intent = controllerIntent(spec, dep?.name ?? DEFAULT_RELEASE);
  if (!dep) {
    ctx.problems.push({
      code: 'DeploymentNotFound',
      component: 'controller',
      path: 'spec.controller',
      message: `the kgateway install in namespace ${ns} has no controller Deployment (labels kgateway=kgateway${spec.target?.helmRelease ? `, app.kubernetes.io/instance=${spec.target.helmRelease}` : ''}); check spec.target`,
    });
  }
  const component = planComponentOn(ctx, intent, dep);
  const release = spec.target?.helmRelease ?? dep?.labels?.['app.kubernetes.io/instance'] ?? DEFAULT_RELEASE;
  const helmValues = kgatewayControllerValues(intent, spec.controller.leaderElection.enabled, release);
  ctx.owned.push(helmValuesConfigMap(owner, g, helmValues, release, ns));
  return {
    ok: true,
    desired: {
      owner,
      installNamespace: ns,
      owned: ctx.owned,
      patches: ctx.patches,
      components: [component],
      helmValues,
      warnings: ctx.warnings,
      problems: ctx.problems,
      needsFinalizer: ctx.owned.some((o) => o.metadata.namespace !== owner.namespace),
      driftPolicy: spec.driftPolicy,
      leaderElection: {
        enabled: spec.controller.leaderElection.enabled,
        component: 'controller',
        lease: CONTROLLER_LEASE_NAME,
        leaderless: 'no kgateway controller replica runs the deployer or writes Gateway statuses',
      },
    },
  };
}

/**
 * KGW_DISABLE_LEADER_ELECTION on the controller container, set both ways ("false" keeps a "true" from
 * Helm's controller.extraEnv from turning election off behind the spec's back), anchored where the
 * chart renders extraEnv so that `helm upgrade` with the exported values renders the same env order.
 */
function leaderElectionEnv(
  ctx: ComponentContext,
  spec: DefaultedKgatewaySpec,
  dep: ObservedDeployment,
): ContainerEnv | undefined {
  const container = dep.containers.find((c) => c.name === CONTROLLER_CONTAINER);
  if (!container) {
    ctx.problems.push({
      code: 'GlooContainerNotFound',
      component: 'controller',
      path: 'spec.controller.leaderElection',
      message: `Deployment ${dep.name} has no container named ${CONTROLLER_CONTAINER} (it has ${dep.containers.map((k) => k.name).join(', ') || 'none'}), so glooha cannot set ${ENV_DISABLE_LEADER_ELECTION}`,
    });
    return undefined;
  }
  const env = [{ name: ENV_DISABLE_LEADER_ELECTION, value: String(!spec.controller.leaderElection.enabled) }];
  return { container: CONTROLLER_CONTAINER, env: anchored(env, container) };
}

function anchored(env: { name: string; value: string }[], container: ObservedContainer) {
  const chartSetsIt = container.env?.some((e) => e.name === ENV_DISABLE_LEADER_ELECTION);
  const anchor = container.env?.some((e) => e.name === CHART_ENV_AFTER_EXTRA_ENV);
  // Already in the list (Helm's extraEnv, or our earlier apply): its place is kept.
  return anchor && !chartSetsIt ? [...env, { name: CHART_ENV_AFTER_EXTRA_ENV }] : env;
}

function helmValuesConfigMap(
  owner: Owner,
  g: DefaultedKgatewayHA,
  values: Record<string, unknown>,
  release: string,
  ns: string,
): KubeObject {
  const source = `${g.metadata.namespace ?? 'default'}/${g.metadata.name}`;
  const header = [
    `# Helm values for kgateway's chart (install/helm/kgateway, ${KGATEWAY_VERSION}), generated by glooha-operator from KgatewayHA ${source}.`,
    '# They render what the operator applied, so an upgrade with them changes no replica count and restarts no pod.',
    `# helm upgrade ${release} oci://cr.kgateway.dev/kgateway-dev/charts/kgateway -n ${ns} --reset-then-reuse-values -f values.yaml`,
    ...(g.spec.controller.topologySpreadConstraints?.length
      ? [
          "# spec.controller.topologySpreadConstraints are the operator's alone: kgateway's chart has no value for them.",
        ]
      : []),
  ];
  return renderObject('helm-values-configmap', {
    metadata: ownedMetadata(owner, names.helmValuesConfigMap(owner), owner.namespace, 'helm-values'),
    valuesYaml: `${header.join('\n')}\n${stringifyKubeYaml(values)}`,
  });
}
