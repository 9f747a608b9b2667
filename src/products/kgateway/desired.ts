// desiredKgateway(kgatewayHA, observed): the pure core for a kgateway install, as desired() is for a
// Gloo install, and with the same contract: owned objects (the PDB, the Helm values ConfigMap),
// partial server-side-apply bodies for what Helm owns (the controller's Deployment: replicas,
// anti-affinity, topology spread, rollout strategy and the leader-election env), and findings. One
// component today, kgateway's controller; the planning of a component is desired.ts's own
// (planComponentOn), so both products get the same PDB, HPA, rollout and finding rules. No I/O.

import { validateKgatewayHA } from './validate.js';
import type { AntiAffinity } from '../../api/types.js';
import type { DefaultedKgatewayHA, DefaultedKgatewaySpec, KgatewayGatewaySpec, KgatewayHA } from './types.js';
import { floorReplicas, type ComponentIntent } from '../../core/component.js';
import {
  planComponentOn,
  type ComponentContext,
  type ComponentFields,
  type ContainerEnv,
  type RenderedCovers,
} from '../../core/component-planner.js';
import { MANAGER } from '../../api/constants.js';
import {
  installNamespaceOf,
  type ComponentPlan,
  type DesiredResult,
  type NotReady,
} from '../../controller/product.js';
import type { ProblemCode } from '../../core/findings.js';
import {
  helmValuesYaml,
  upgradeCommand,
  valuesFileOf,
  type UpgradeTarget,
} from '../../core/helm-values-yaml.js';
import type { ObservedContainer, ObservedDeployment, ObservedHPA, ObservedPDB } from '../../core/observed.js';
import { ownedMetadata, ownerOf, patchMetadata, type Owner } from '../../core/ownership.js';
import { renderObject, type KubeObject } from '../../core/templates.js';
import { GATEWAY_PARAMETERS_TEMPLATE } from './templates.js';
import {
  CHART_ENV_AFTER_EXTRA_ENV,
  CONTROLLER_CONTAINER,
  CONTROLLER_LEASE_NAME,
  DEFAULT_RELEASE,
  ENV_DISABLE_LEADER_ELECTION,
  GATEWAY_PARAMETERS_GROUP,
  GATEWAY_PARAMETERS_HPA_FIELD,
  GATEWAY_PARAMETERS_KIND,
  GATEWAY_PARAMETERS_PDB_FIELD,
  isDeployerRendered,
  KGATEWAY_HELM_CHART,
  kgatewayChartVersion,
  proxySelectorLabels,
} from './facts.js';
import { kgatewayControllerValues } from './migrate.js';
import { KGATEWAY_DEFAULTS } from './schema.js';
import { versionVerdict, type VersionVerdict } from './version.js';

/** A Gateway of the install's namespace: its name and the parameters it names. */
export interface ObservedGateway {
  name: string;
  parametersRef?: { group?: string; kind?: string; name?: string };
}

/** What the operator found of a kgateway install (from its caches, or a file for tests). */
export interface ObservedKgateway {
  namespace: string;
  /** kgateway's controller Deployment (labels kgateway=kgateway), absent when there is none. */
  controller?: ObservedDeployment;
  hpas: ObservedHPA[];
  pdbs: ObservedPDB[];
  /** Whether the API server serves Gateways and GatewayParameters (the operator watches them then). */
  gatewayApi?: boolean;
  gateways?: ObservedGateway[];
  /** Names of the GatewayParameters in the namespace. */
  gatewayParameters?: string[];
  /** The proxies kgateway's deployer made (Deployments labelled kgateway=kube-gateway). */
  proxies?: ObservedDeployment[];
  /**
   * Which of GATEWAY_PARAMETERS_PDB_FIELD and GATEWAY_PARAMETERS_HPA_FIELD the installed
   * GatewayParameters have (gatewayParametersFields in index.ts: the served schema's, or a tested
   * line's before that schema is read); undefined when that is not known. kgateway's deployer renders
   * a proxy's PDB and HPA from them; glooha creates none of its own beside them, and a proxy whose
   * spec needs one that is missing is reported (GatewayParametersCannotExpress), not guessed at.
   */
  parameterFields?: readonly string[];
  /**
   * Names of the cluster's PriorityClasses; undefined when the operator may not list and watch them
   * (a namespaced install without cluster-wide reads), so it cannot tell whether one exists.
   */
  priorityClasses?: string[];
}

/**
 * The name of the ConfigMap holding a KgatewayHA's Helm values: a GlooHA and a KgatewayHA of one name
 * may share a namespace (during a migration), and their values differ.
 */
export function helmValuesConfigMapName(owner: Owner): string {
  return `${owner.name}-kgateway-helm-values`;
}

export function controllerIntent(spec: DefaultedKgatewaySpec, deploymentName: string): ComponentIntent {
  const { autoscaling } = spec.controller;
  return {
    id: 'controller',
    role: 'controller',
    specPath: 'spec.controller',
    deploymentName,
    // The schema has no default for replicas (see schema.ts): neither set means the default count.
    ...(autoscaling
      ? { autoscaling }
      : { replicas: spec.controller.replicas ?? KGATEWAY_DEFAULTS.controllerReplicas }),
    podDisruptionBudget: spec.controller.podDisruptionBudget,
    antiAffinity: spec.controller.antiAffinity,
    topologySpreadConstraints: spec.controller.topologySpreadConstraints,
  };
}

export function desiredKgateway(k: KgatewayHA, observed: ObservedKgateway): DesiredResult | NotReady {
  const validated = validateKgatewayHA(k);
  if (!validated.ok) return { ok: false, errors: validated.errors };
  const g = validated.value;
  const spec = g.spec;
  const owner = ownerOf(g);
  const ns = installNamespaceOf(g);
  const verdict: VersionVerdict | undefined =
    observed.controller && versionVerdict({ ...observed.controller, namespace: ns });
  // Before 2.3 neither the chart nor GatewayParameters take what glooha writes: nothing is written.
  if (verdict?.kind === 'unsupported')
    return { ok: false, stall: { reason: 'UnsupportedVersion', message: verdict.message } };
  const upgrade = upgradeTarget(g, ns, observed.controller);
  const ctx: ComponentContext = {
    owner,
    ns,
    helmValuesConfigMap: helmValuesConfigMapName(owner),
    helmUpgrade: upgradeCommand(upgrade),
    hpas: observed.hpas,
    pdbs: observed.pdbs,
    driftPolicy: spec.driftPolicy,
    // Only the controller has leader election; a proxy's Deployment is the deployer's.
    containerEnv: (c, intent, dep) =>
      intent.role === 'controller' ? leaderElectionEnv(c, spec, dep) : undefined,
    owned: [],
    patches: [],
    warnings: verdict?.kind === 'untested' || verdict?.kind === 'unknown' ? [verdict.warning] : [],
    problems: [],
  };
  const dep = observed.controller;
  const priorityClassName = controllerPriorityClass(ctx, spec, observed);
  if (priorityClassName)
    ctx.podSpecFields = (c) => (c.role === 'controller' ? { priorityClassName } : undefined);
  const intent = controllerIntent(spec, dep?.name ?? DEFAULT_RELEASE);
  const clash = Object.keys(spec.gateways ?? {}).find((name) => name === intent.deploymentName);
  if (clash !== undefined) return gatewayNamedAsController(ns, clash);
  if (!dep) {
    ctx.problems.push({
      code: 'DeploymentNotFound',
      component: 'controller',
      path: 'spec.controller',
      message: `the kgateway install in namespace ${ns} has no controller Deployment (labels kgateway=kgateway${spec.target?.helmRelease ? `, app.kubernetes.io/instance=${spec.target.helmRelease}` : ''}); check spec.target`,
    });
  }
  const component = planComponentOn(ctx, intent, dep);
  const keepReplicas: string[] = [];
  const proxies = Object.entries(spec.gateways ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, gw]) => planGateway(ctx, observed, name, gw, keepReplicas));
  const helmValues = kgatewayControllerValues(
    intent,
    spec.controller.leaderElection.enabled,
    upgrade.release,
    {
      // Only what the operator applies: a PriorityClass not known to exist is not exported either.
      priorityClassName,
      liveReplicas: dep?.replicas,
    },
  );
  ctx.owned.push(helmValuesConfigMap(owner, g, helmValues, upgrade));
  return {
    ok: true,
    desired: {
      owner,
      installNamespace: ns,
      owned: ctx.owned,
      patches: ctx.patches,
      components: [component, ...proxies],
      helmValues,
      helmValuesConfigMap: ctx.helmValuesConfigMap,
      warnings: ctx.warnings,
      problems: ctx.problems,
      // A hand-over in progress waits for the deployer's next apply, which changes only the
      // Deployment's managedFields: no watch event reports it (the informers drop such updates).
      ...(keepReplicas.length > 0 ? { keepReplicas, requeueAfterMs: HANDOFF_REQUEUE_MS } : {}),
      needsFinalizer: ctx.owned.some((o) => o.metadata.namespace !== owner.namespace),
      driftPolicy: spec.driftPolicy,
      leaderElection: {
        enabled: spec.controller.leaderElection.enabled,
        component: 'controller',
        lease: CONTROLLER_LEASE_NAME,
        leaderless: 'no kgateway controller replica runs the deployer or writes Gateway statuses',
        lostReason: 'KgatewayLeaderLost',
      },
    },
  };
}

/**
 * The priorityClassName to keep on the controller's pods, after checking that its PriorityClass
 * exists: the API server refuses a pod naming a missing one, and a rollout to such a template would
 * already have removed an old pod before its new one is refused. Missing, or not readable: a problem
 * (Stalled, naming the field and the fix), and nothing new is written: a value the pods already run
 * with is kept (dropping it would roll the pods too), any other is not applied until the class exists,
 * which the PriorityClass informer reports at once.
 */
function controllerPriorityClass(
  ctx: ComponentContext,
  spec: DefaultedKgatewaySpec,
  observed: ObservedKgateway,
): string | undefined {
  const name = spec.controller.priorityClassName;
  if (!name) return undefined;
  const running = observed.controller?.priorityClassName === name ? name : undefined;
  const path = 'spec.controller.priorityClassName';
  if (!observed.priorityClasses) {
    ctx.problems.push({
      code: 'PriorityClassesUnreadable',
      component: 'controller',
      path,
      message: `glooha cannot tell whether PriorityClass ${name} exists: it may not list and watch priorityclasses (scheduling.k8s.io, cluster-scoped), which a namespaced install grants only with the chart's rbac.clusterWideReads: true; grant that (or get/list/watch on priorityclasses in a ClusterRole; glooha notices within its --rbac-recheck-period, 1m by default, no restart needed), or remove ${path}. Until then priorityClassName is not written`,
    });
    return running;
  }
  if (!observed.priorityClasses.includes(name)) {
    ctx.problems.push({
      code: 'PriorityClassNotFound',
      component: 'controller',
      path,
      message: `PriorityClass ${name} does not exist, and the API server refuses pods naming a missing one (a rollout would already have removed an old controller pod), so glooha does not write it: create it (kubectl create priorityclass ${name} --value=<priority>) or fix ${path}; glooha writes it as soon as it exists`,
    });
    return running;
  }
  return name;
}

/**
 * kgateway's deployer names a proxy's Deployment (and its PDB and HPA) after its Gateway, in the
 * controller's namespace: a Gateway named like the controller's Deployment would take that
 * Deployment's name, and every name derived from it.
 */
function gatewayNamedAsController(ns: string, name: string): NotReady {
  return {
    ok: false,
    stall: {
      reason: 'GatewayNamedAsController',
      message: `spec.gateways[${name}]: Gateway ${ns}/${name} has the name of kgateway's controller Deployment ${ns}/${name}, and kgateway's deployer names a proxy's Deployment after its Gateway, so the proxy and the controller would be one Deployment (and their PodDisruptionBudgets one object). Rename the Gateway (or install the controller under another Helm release name) and update spec.gateways; nothing was written`,
    },
  };
}

/**
 * One Gateway's proxy. Its HA fields go into the GatewayParameters the Gateway names, from which
 * kgateway's deployer renders (and force-applies) the proxy Deployment: patching the Deployment would
 * fight the deployer. Its PDB and HPA bounds go there too, and kgateway renders both. When the
 * installed GatewayParameters lack a field the proxy needs (observed.parameterFields: an install
 * newer than the tested lines that moved it, or a schema not read yet on an untested one), nothing
 * is written for the proxy and the problem GatewayParametersCannotExpress names the field: glooha
 * neither guesses where it went nor makes a PDB or HPA of its own that kgateway's deployer would
 * then have to live beside.
 */
function planGateway(
  ctx: ComponentContext,
  observed: ObservedKgateway,
  name: string,
  gw: KgatewayGatewaySpec & { antiAffinity: AntiAffinity },
  keepReplicas: string[],
): ComponentPlan {
  const intent: ComponentIntent = {
    id: `gateways.${name}`,
    role: 'gatewayProxy',
    key: name,
    specPath: `spec.gateways[${name}]`,
    deploymentName: name,
    replicas: gw.replicas,
    autoscaling: gw.autoscaling,
    podDisruptionBudget: gw.podDisruptionBudget,
    antiAffinity: gw.antiAffinity,
    topologySpreadConstraints: gw.topologySpreadConstraints,
  };
  const parameters = gatewayParametersOf(ctx, observed, intent);
  const dep = observed.proxies?.find((d) => d.name === name);
  const notFound: ComponentPlan = {
    id: intent.id,
    deploymentName: name,
    found: false,
    desiredReplicas: floorReplicas(intent),
    managesReplicas: false,
  };
  if (!parameters) return notFound;
  const handoff = replicasHandoff(intent, dep);
  const covers: RenderedCovers = {
    pdbName: name,
    hpaName: name,
    isRendered: (o) => isDeployerRendered(o, name),
  };
  let missing: string[] = [];
  // Before the deployer's first render there is no Deployment yet: plan against the labels it will
  // have, so the GatewayParameters are right when it renders.
  const planned = planComponentOn(
    {
      ...ctx,
      renderedCovers: () => covers,
      fieldsTarget: (_c, fields) => {
        missing = inexpressible(fields, observed.parameterFields);
        if (missing.length > 0) return null;
        return gatewayParametersPatch(
          ctx.ns,
          parameters,
          handoff.parameters === undefined ? fields : { ...fields, replicas: handoff.parameters },
        );
      },
    },
    intent,
    dep ?? deployerLayout(name),
  );
  if (missing.length > 0) {
    ctx.problems.push(cannotExpress(ctx.ns, intent, parameters, missing, observed.parameterFields));
    return { ...planned, found: dep !== undefined };
  }
  if (dep && handoff.deployment !== undefined) {
    ctx.patches.push(
      renderObject('deployment-patch', {
        metadata: patchMetadata(name, ctx.ns),
        replicas: { set: true, value: handoff.deployment },
        strategy: { set: false, value: null },
        podSpec: { set: false, value: null },
      }),
    );
    keepReplicas.push(name);
  }
  return { ...planned, found: dep !== undefined };
}

/**
 * The spec fields of a proxy that kgateway's deployer renders from a GatewayParameters field: the
 * field, and the object rendered from it (as messages name them).
 */
const COVERS = [
  { spec: 'podDisruptionBudget', field: GATEWAY_PARAMETERS_PDB_FIELD, object: 'PodDisruptionBudget' },
  { spec: 'autoscaling', field: GATEWAY_PARAMETERS_HPA_FIELD, object: 'HPA' },
] as const;

/** The GatewayParameters fields `fields` needs that `served` (undefined: not known) does not have. */
export function inexpressible(
  fields: Pick<ComponentFields, 'podDisruptionBudget' | 'autoscaling'>,
  served: readonly string[] | undefined,
): string[] {
  return COVERS.filter((c) => fields[c.spec] && !served?.includes(c.field)).map((c) => c.field);
}

function cannotExpress(
  ns: string,
  c: ComponentIntent,
  parameters: string,
  missing: string[],
  served: readonly string[] | undefined,
) {
  const covers = COVERS.filter((cover) => missing.includes(cover.field));
  const what = missing.join(' and ');
  const why =
    served === undefined
      ? `glooha cannot tell whether GatewayParameters ${ns}/${parameters} can carry ${what}: the API server has not served their schema yet, and the installed kgateway is not a tested line whose GatewayParameters are known to have ${missing.length > 1 ? 'them' : 'it'}`
      : `the GatewayParameters the API server serves lack ${what}, from which kgateway's deployer would render this proxy's ${covers.map((cover) => cover.object).join(' and ')}`;
  return {
    code: 'GatewayParametersCannotExpress' as const,
    component: c.id,
    path: c.specPath,
    message: `${why}. glooha writes nothing for gateway ${c.deploymentName} rather than guess (and makes no PDB or HPA of its own beside kgateway's deployer): upgrade kgateway's CRDs to the installed kgateway's (the kgateway-crds chart; upgrading the controller's chart leaves them as they were), or take ${covers.map((cover) => cover.spec).join(' and ')} out of ${c.specPath}`,
  };
}

/** How often a proxy's replicas hand-over in progress is looked at again (see replicasHandoff). */
export const HANDOFF_REQUEUE_MS = 2_000;

/**
 * The hand-over of an autoscaled proxy's spec.replicas from the deployer to the HPA, without a dip.
 * The deployer renders spec.replicas only while the GatewayParameters set deployment.replicas, and its
 * forced server-side apply removes a field it stops rendering if it alone owns it: the Deployment then
 * falls back to 1 replica until the HPA's next sync (3 → 1 → 3 on a switch from fixed 3 to autoscaled
 * {min 3}). So the field changes hands one step at a time, each step taken on what the Deployment's
 * managedFields show:
 *   1. the deployer owns it: glooha applies the same count to the Deployment (co-owner), and the
 *      GatewayParameters keep it;
 *   2. both own it: the GatewayParameters drop it; the deployer's next apply leaves it to glooha;
 *   3. glooha alone owns it: glooha stops applying it, and the engine removes glooha's ownership with
 *      the value kept (replicas-ownership.ts): nobody owns it, the HPA scales it from there.
 * The count held is the Deployment's own, within the HPA's bounds. A proxy the deployer has not
 * rendered yet starts at minReplicas (not at 1), and goes through the same steps. Fixed replicas need
 * none of this: the GatewayParameters set them.
 */
export function replicasHandoff(
  c: ComponentIntent,
  dep: ObservedDeployment | undefined,
): { parameters?: number; deployment?: number } {
  if (!c.autoscaling) return {};
  const { minReplicas, maxReplicas } = c.autoscaling;
  if (!dep) return { parameters: minReplicas };
  const appliers = dep.replicasAppliers ?? [];
  const deployerOwns = appliers.some((m) => m !== MANAGER);
  const glooha = appliers.includes(MANAGER);
  const held = Math.min(Math.max(dep.replicas ?? 1, minReplicas), maxReplicas);
  if (deployerOwns && !glooha) return { parameters: held, deployment: held };
  if (deployerOwns) return { deployment: held };
  return {};
}

/** The GatewayParameters the Gateway names, or undefined after reporting why there are none. */
function gatewayParametersOf(
  ctx: ComponentContext,
  observed: ObservedKgateway,
  c: ComponentIntent,
): string | undefined {
  const problem = (code: ProblemCode, message: string) => {
    ctx.problems.push({ code, component: c.id, path: c.specPath, message });
    return undefined;
  };
  if (!observed.gatewayApi)
    return problem(
      'GatewayAPINotServed',
      `the API server serves no Gateways or GatewayParameters, so glooha cannot manage gateway ${c.deploymentName}: install Gateway API's and kgateway's CRDs, then restart the operator`,
    );
  const gateway = observed.gateways?.find((g) => g.name === c.deploymentName);
  if (!gateway)
    return problem(
      'GatewayNotFound',
      `there is no Gateway ${ctx.ns}/${c.deploymentName}: spec.gateways is keyed by the names of Gateways in the install's namespace; create it or fix the key`,
    );
  const ref = gateway.parametersRef;
  if (!ref?.name || ref.group !== GATEWAY_PARAMETERS_GROUP || ref.kind !== GATEWAY_PARAMETERS_KIND)
    return problem(
      'GatewayParametersRefMissing',
      `Gateway ${ctx.ns}/${c.deploymentName} names no GatewayParameters: add spec.infrastructure.parametersRef {group: ${GATEWAY_PARAMETERS_GROUP}, kind: ${GATEWAY_PARAMETERS_KIND}, name: <name>} (glooha migrate kgateway prints GatewayParameters ${c.deploymentName}); glooha writes the HA fields into it, and does not edit Gateways`,
    );
  if (!observed.gatewayParameters?.includes(ref.name))
    return problem(
      'GatewayParametersNotFound',
      `Gateway ${ctx.ns}/${c.deploymentName} names GatewayParameters ${ref.name}, which does not exist: create it (it may be empty: glooha fills in the HA fields)`,
    );
  return ref.name;
}

/** A proxy Deployment as kgateway's deployer lays it out, before it exists. */
function deployerLayout(gateway: string): ObservedDeployment {
  const labels = proxySelectorLabels(gateway);
  return { name: gateway, selector: { matchLabels: labels }, podLabels: { ...labels }, containers: [] };
}

/** The partial GatewayParameters body for server-side apply: only the fields glooha keeps. */
function gatewayParametersPatch(ns: string, name: string, fields: ComponentFields): KubeObject | null {
  const deployment = {
    ...(fields.replicas !== undefined ? { replicas: fields.replicas } : {}),
    ...(fields.strategy ? { strategy: fields.strategy } : {}),
  };
  const { affinity, topologySpreadConstraints } = fields.podSpec;
  const podTemplate = {
    ...(affinity ? { affinity } : {}),
    ...(topologySpreadConstraints ? { topologySpreadConstraints } : {}),
  };
  const budget = fields.podDisruptionBudget;
  // The same PDB glooha's own would be (src/templates/pod-disruption-budget.yaml.hbs).
  const podDisruptionBudget = budget && {
    spec: {
      ...(budget.minAvailable !== undefined
        ? { minAvailable: budget.minAvailable }
        : { maxUnavailable: budget.maxUnavailable }),
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    },
  };
  const horizontalPodAutoscaler = fields.autoscaling && { spec: { ...fields.autoscaling } };
  if (
    Object.keys(deployment).length === 0 &&
    Object.keys(podTemplate).length === 0 &&
    !podDisruptionBudget &&
    !horizontalPodAutoscaler
  )
    return null;
  return renderObject(GATEWAY_PARAMETERS_TEMPLATE, {
    metadata: patchMetadata(name, ns),
    deployment: { set: Object.keys(deployment).length > 0, value: deployment },
    podTemplate: { set: Object.keys(podTemplate).length > 0, value: podTemplate },
    podDisruptionBudget: { set: podDisruptionBudget !== undefined, value: podDisruptionBudget ?? null },
    horizontalPodAutoscaler: {
      set: horizontalPodAutoscaler !== undefined,
      value: horizontalPodAutoscaler ?? null,
    },
  });
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
  const anchor = chartEnvAnchor(container);
  // Already in the list (Helm's extraEnv, or our earlier apply): its place is kept.
  return anchor && !chartSetsIt ? [...env, { name: anchor }] : env;
}

/**
 * The env entry of the controller container that kgateway's chart renders right after
 * controller.extraEnv: the first of CHART_ENV_AFTER_EXTRA_ENV in the container's order (2.3 renders
 * both), or undefined on a chart that renders neither.
 */
export function chartEnvAnchor(container: Pick<ObservedContainer, 'env'>): string | undefined {
  return container.env?.find((e) => CHART_ENV_AFTER_EXTRA_ENV.includes(e.name))?.name;
}

/** Where a KgatewayHA's exported values go: its install's release, at the installed chart version. */
export function upgradeTarget(
  g: KgatewayHA,
  ns: string,
  controller: ObservedDeployment | undefined,
): UpgradeTarget {
  const owner = ownerOf(g);
  return {
    chart: KGATEWAY_HELM_CHART,
    release: releaseOf(g, controller),
    namespace: ns,
    chartVersion: kgatewayChartVersion(controller?.labels),
    valuesFile: valuesFileOf(g.kind),
    configMap: { namespace: owner.namespace, name: helmValuesConfigMapName(owner) },
  };
}

/** The controller's Helm release: spec.target.helmRelease, the one its labels name, or kgateway's docs' own. */
const releaseOf = (g: KgatewayHA, controller: ObservedDeployment | undefined): string =>
  g.spec?.target?.helmRelease ?? controller?.labels?.['app.kubernetes.io/instance'] ?? DEFAULT_RELEASE;

/** The header's own lines for a KgatewayHA's values: what the chart's values leave to the operator. */
export function kgatewayValuesNotes(g: DefaultedKgatewayHA): string[] {
  return g.spec.controller.autoscaling
    ? [
        "spec.controller.autoscaling is the operator's HPA: controller.horizontalPodAutoscaler is left out because with it the chart renders no spec.replicas, which Helm then removes (the Deployment would fall to 1 replica under the HPA); replicaCount holds the live count within the HPA's bounds.",
      ]
    : [];
}

function helmValuesConfigMap(
  owner: Owner,
  g: DefaultedKgatewayHA,
  values: Record<string, unknown>,
  target: UpgradeTarget,
): KubeObject {
  return renderObject('helm-values-configmap', {
    metadata: ownedMetadata(owner, helmValuesConfigMapName(owner), owner.namespace, 'helm-values'),
    valuesYaml: helmValuesYaml(values, {
      source: `${g.kind} ${g.metadata.namespace ?? 'default'}/${g.metadata.name}`,
      target,
      notes: kgatewayValuesNotes(g),
    }),
  });
}
