// Planning one component of an install, whichever product it belongs to: replicas or HPA bounds, its
// PDB (unless another already covers its pods), the partial apply of its Deployment (anti-affinity,
// topology spread, rollout strategy, the product's container env, the replicas-floor annotations),
// and its HA findings. Each product's desired state calls planComponentOn per component, so all get
// the same PDB, HPA, rollout and finding rules. Pure: no I/O.

import {
  ANNOTATION_HELM_UPGRADE,
  ANNOTATION_HELM_VALUES,
  ANNOTATION_MIN_REPLICAS,
  ANNOTATION_OWNER,
  ANNOTATION_OWNER_KIND,
} from '../api/constants.js';
import { scaledValue } from '../api/intstr.js';
import type { DriftPolicy, PodDisruptionBudgetSpec } from '../api/types.js';
import type { ComponentPlan } from '../controller/product.js';
import { budgetOf, floorReplicas, type ComponentIntent } from './component.js';
import { describeComponent, type Finding } from './findings.js';
import type { ObservedDeployment, ObservedHPA, ObservedPDB } from './observed.js';
import { names, ownedMetadata, patchMetadata, type Owner } from './ownership.js';
import { keptRolloutStrategy, type RollingUpdateStrategy } from './rollout-strategy.js';
import { podAntiAffinity, topologySpreadConstraints } from './scheduling.js';
import { copySelector, podLabelsOf, selects } from './selectors.js';
import { renderObject, type KubeObject } from './templates.js';

/** An env entry a product keeps on a container (a name alone anchors the entries before it). */
export interface EnvVar {
  name: string;
  value: string;
}

/** What planning one component needs, and where its results go. */
export interface ComponentContext {
  owner: Owner;
  ns: string;
  /** The name of the owner's Helm values ConfigMap (findings point at it). */
  helmValuesConfigMap: string;
  /**
   * The values-path command for the owner's install (upgradeCommand, core/helm-values-yaml.ts): the
   * replicas floor's refusal prints it from the Deployment's ANNOTATION_HELM_UPGRADE.
   */
  helmUpgrade?: string;
  /** HPAs and PDBs in the install's namespace. */
  hpas: ObservedHPA[];
  pdbs: ObservedPDB[];
  driftPolicy: DriftPolicy;
  /**
   * Where a component's fields go instead of a Deployment patch: the body to apply, null for nothing,
   * undefined for the Deployment (the default).
   */
  fieldsTarget?: (c: ComponentIntent, fields: ComponentFields) => KubeObject | null | undefined;
  /**
   * The component's PDB and HPA are rendered by the product from fields glooha writes to where the
   * fields go (fieldsTarget: ComponentFields.podDisruptionBudget and autoscaling) instead of being
   * glooha's own objects; undefined: glooha's own (the default).
   */
  renderedCovers?: (c: ComponentIntent, dep: ObservedDeployment) => RenderedCovers | undefined;
  /** The container env glooha keeps on a component's Deployment (leader election), if any. */
  containerEnv?: (
    ctx: ComponentContext,
    c: ComponentIntent,
    dep: ObservedDeployment,
  ) => ContainerEnv | undefined;
  /**
   * Further pod-spec fields glooha keeps on a component's pods (kgateway's controller's
   * priorityClassName), if any.
   */
  podSpecFields?: (c: ComponentIntent) => Record<string, unknown> | undefined;
  owned: KubeObject[];
  patches: KubeObject[];
  warnings: Finding[];
  problems: Finding[];
}

/** A PDB and HPA the product renders for a component from the fields glooha writes (see ComponentContext). */
export interface RenderedCovers {
  /** The names the product gives them. */
  pdbName: string;
  hpaName: string;
  /** Whether an observed PDB or HPA is the product's rendering (not another's, which stands in as before). */
  isRendered(o: ObservedPDB | ObservedHPA): boolean;
}

/** One container's env entries for a Deployment patch. */
export interface ContainerEnv {
  container: string;
  env: (EnvVar | { name: string })[];
}

/**
 * The plan for one component whose Deployment is `dep` (undefined: not found, and the caller has said
 * so): replicas or HPA bounds, its PDB, the Deployment patch, and its HA findings.
 */
export function planComponentOn(
  ctx: ComponentContext,
  c: ComponentIntent,
  dep: ObservedDeployment | undefined,
): ComponentPlan {
  const plan: ComponentPlan = {
    id: c.id,
    deploymentName: c.deploymentName,
    found: false,
    desiredReplicas: floorReplicas(c),
    managesReplicas: false,
  };
  if (!dep) return plan;
  plan.found = true;
  plan.deploymentName = dep.name;
  const covers = ctx.renderedCovers?.(c, dep);
  const rendered: RenderedFields = {};
  plan.managesReplicas = planReplicas(ctx, c, dep, plan, covers, rendered);
  plan.podDisruptionBudget = planBudget(ctx, c, dep, covers, rendered);
  deploymentPatch(ctx, c, dep, plan, rendered);
  haFindings(ctx, c, plan);
  return plan;
}

/** The cover fields a product renders its PDB and HPA from (see RenderedCovers). */
type RenderedFields = Pick<ComponentFields, 'podDisruptionBudget' | 'autoscaling'>;

/**
 * HPAs: adopt the bounds on an existing one, else create one (or, with `covers`, have the product
 * render it); returns whether glooha sets replicas.
 */
function planReplicas(
  ctx: ComponentContext,
  c: ComponentIntent,
  dep: ObservedDeployment,
  plan: ComponentPlan,
  covers: RenderedCovers | undefined,
  rendered: RenderedFields,
): boolean {
  const hpas = ctx.hpas.filter((h) => h.targetName === dep.name && !h.ours && !covers?.isRendered(h));
  if (c.autoscaling) {
    const { minReplicas, maxReplicas } = c.autoscaling;
    if (hpas.length > 1) {
      ctx.problems.push({
        code: 'MultipleHorizontalPodAutoscalers',
        component: c.id,
        message: `HPAs ${hpas.map((h) => h.name).join(', ')} all target Deployment ${dep.name}; the HPA controller refuses to scale a Deployment targeted by more than one (AmbiguousSelector): delete all but one`,
      });
    }
    for (const h of hpas) {
      ctx.patches.push(
        renderObject('horizontal-pod-autoscaler-patch', {
          metadata: patchMetadata(h.name, ctx.ns),
          minReplicas,
          maxReplicas,
        }),
      );
    }
    const first = hpas[0];
    const name = names.hpa(dep.name);
    // Ours stays until the product's rendering of it is there: never a moment without an HPA.
    const keepOurs = () =>
      !ctx.hpas.some((h) => h.targetName === dep.name && covers?.isRendered(h)) &&
      ctx.hpas.some((h) => h.ours && h.name === name);
    if (first) {
      plan.autoscaling = { hpaName: first.name, owned: false, minReplicas, maxReplicas };
    } else if (covers && !keepOurs()) {
      rendered.autoscaling = { minReplicas, maxReplicas };
      plan.autoscaling = { hpaName: covers.hpaName, owned: false, minReplicas, maxReplicas };
    } else {
      if (covers) rendered.autoscaling = { minReplicas, maxReplicas };
      ctx.owned.push(
        renderObject('horizontal-pod-autoscaler', {
          metadata: ownedMetadata(ctx.owner, name, ctx.ns, componentLabel(c)),
          targetName: dep.name,
          minReplicas,
          maxReplicas,
        }),
      );
      plan.autoscaling = { hpaName: name, owned: true, minReplicas, maxReplicas };
    }
    return false;
  }
  if (hpas.length > 0) {
    ctx.problems.push({
      code: 'HorizontalPodAutoscalerConflict',
      component: c.id,
      path: `${c.specPath}.replicas`,
      message: `HPA ${hpas.map((h) => h.name).join(', ')} targets Deployment ${dep.name}, but the spec sets fixed replicas (${c.replicas}); glooha leaves replicas to the HPA. Use autoscaling in the spec, or delete the HPA`,
    });
    return false;
  }
  return true;
}

function sameBudget(a: PodDisruptionBudgetSpec, b: PodDisruptionBudgetSpec): boolean {
  return (
    String(a.minAvailable) === String(b.minAvailable) && String(a.maxUnavailable) === String(b.maxUnavailable)
  );
}

/**
 * glooha's PDB (or, with `covers`, the product's rendering of it), unless another PDB already covers
 * the pods (two PDBs make the eviction API refuse).
 */
function planBudget(
  ctx: ComponentContext,
  c: ComponentIntent,
  dep: ObservedDeployment,
  covers: RenderedCovers | undefined,
  rendered: RenderedFields,
): ComponentPlan['podDisruptionBudget'] {
  const budget = budgetOf(c);
  const podLabels = podLabelsOf(dep);
  const foreign = ctx.pdbs.filter((p) => !p.ours && !covers?.isRendered(p) && selects(p.selector, podLabels));
  if (foreign.length > 1) {
    ctx.problems.push({
      code: 'MultiplePodDisruptionBudgets',
      component: c.id,
      message: `PDBs ${foreign.map((p) => p.name).join(', ')} all select the pods of ${dep.name}; the eviction API refuses to evict a pod covered by more than one PDB, so node drains fail: delete all but one`,
    });
    return undefined;
  }
  const existing = foreign[0];
  if (existing) {
    if (budget && !sameBudget(budget, existing)) {
      ctx.problems.push({
        code: 'ForeignPodDisruptionBudget',
        component: c.id,
        path: `${c.specPath}.podDisruptionBudget`,
        message: `PDB ${existing.name} (not glooha's) already covers the pods of ${dep.name} with ${describeBudget(existing)}, not ${describeBudget(budget)}; glooha does not add a second PDB. ${foreignBudgetFix(ctx, existing, budget)}`,
      });
    }
    return {
      name: existing.name,
      owned: false,
      minAvailable: existing.minAvailable,
      maxUnavailable: existing.maxUnavailable,
    };
  }
  if (!budget) return undefined;
  const name = names.pdb(dep.name);
  if (covers) {
    rendered.podDisruptionBudget = budget;
    // Ours goes once the product's PDB is there, not before: a moment of two PDBs only refuses
    // evictions (drains retry), a moment of none would let a drain take every pod.
    const keepOurs =
      !ctx.pdbs.some((p) => covers.isRendered(p)) && ctx.pdbs.some((p) => p.ours && p.name === name);
    if (!keepOurs) return { name: covers.pdbName, owned: false, ...budget };
  }
  ctx.owned.push(
    renderObject('pod-disruption-budget', {
      metadata: ownedMetadata(ctx.owner, name, ctx.ns, componentLabel(c)),
      selector: copySelector(dep.selector),
      minAvailable: { set: budget.minAvailable !== undefined, value: budget.minAvailable ?? null },
      maxUnavailable: { set: budget.minAvailable === undefined, value: budget.maxUnavailable ?? null },
    }),
  );
  return { name, owned: true, ...budget };
}

/**
 * How to make a PDB that is not glooha's match the spec, in the terms of what made it: a Helm
 * release's PDB through the release's values (a kubectl edit would be undone by the next upgrade),
 * any other (kubectl create pdb, a manifest) with kubectl. Either way, deleting it lets glooha own one.
 */
function foreignBudgetFix(
  ctx: ComponentContext,
  existing: ObservedPDB,
  budget: PodDisruptionBudgetSpec,
): string {
  const del = `or delete it so glooha manages the PDB (kubectl -n ${ctx.ns} delete pdb ${existing.name})`;
  if (existing.helmRelease)
    return `It belongs to Helm release ${existing.helmRelease}: set it through that release's values (glooha's suggestion is in ConfigMap ${ctx.helmValuesConfigMap}), ${del}`;
  const [set, unset] =
    budget.minAvailable !== undefined
      ? [`"minAvailable":${JSON.stringify(budget.minAvailable)}`, '"maxUnavailable":null']
      : [`"maxUnavailable":${JSON.stringify(budget.maxUnavailable)}`, '"minAvailable":null'];
  return `It was not made by Helm: change it with kubectl -n ${ctx.ns} patch pdb ${existing.name} --type=merge -p '{"spec":{${set},${unset}}}', ${del}`;
}

function describeBudget(b: PodDisruptionBudgetSpec): string {
  return b.minAvailable !== undefined
    ? `minAvailable ${b.minAvailable}`
    : `maxUnavailable ${String(b.maxUnavailable)}`;
}

function componentLabel(c: ComponentIntent): string {
  return c.key ?? c.role;
}

/** What glooha keeps on a component's pods and replicas, wherever it writes them. */
export interface ComponentFields {
  replicas?: number;
  strategy?: RollingUpdateStrategy;
  /** affinity, topologySpreadConstraints and containers (env), as a pod spec holds them. */
  podSpec: Record<string, unknown>;
  /** The PDB the product renders (only with ComponentContext.renderedCovers). */
  podDisruptionBudget?: PodDisruptionBudgetSpec;
  /** The bounds of the HPA the product renders (only with ComponentContext.renderedCovers). */
  autoscaling?: { minReplicas: number; maxReplicas: number };
}

function deploymentPatch(
  ctx: ComponentContext,
  c: ComponentIntent,
  dep: ObservedDeployment,
  plan: ComponentPlan,
  rendered: RenderedFields,
): void {
  const podSpec: Record<string, unknown> = {};
  const antiAffinity = podAntiAffinity(c.antiAffinity, dep.selector);
  if (antiAffinity) podSpec.affinity = { podAntiAffinity: antiAffinity };
  const spread = selectorKeysInMatchLabelKeys(ctx, c, dep)
    ? undefined
    : topologySpreadConstraints(c.topologySpreadConstraints, dep.selector);
  if (spread) podSpec.topologySpreadConstraints = spread;
  Object.assign(podSpec, ctx.podSpecFields?.(c));
  const env = ctx.containerEnv?.(ctx, c, dep);
  if (env) podSpec.containers = [{ name: env.container, env: env.env }];
  const setReplicas = plan.managesReplicas && c.replicas !== undefined;
  // The count the Deployment runs after this apply: ours, our HPA's minimum (the floor), else whatever
  // sets it now (Helm, a foreign HPA).
  const running = setReplicas ? c.replicas : plan.autoscaling ? undefined : dep.replicas;
  const rollout = keptRolloutStrategy(c, ctx.driftPolicy, plan.podDisruptionBudget, running);
  ctx.warnings.push(...rollout.findings);
  const fields: ComponentFields = {
    ...(setReplicas ? { replicas: c.replicas } : {}),
    ...(rollout.strategy ? { strategy: rollout.strategy } : {}),
    podSpec,
    ...rendered,
  };
  // Where the fields go: the Deployment itself, unless the product writes them elsewhere (kgateway's
  // proxies: the GatewayParameters its deployer renders them from).
  const elsewhere = ctx.fieldsTarget?.(c, fields);
  if (elsewhere !== undefined) {
    if (elsewhere) ctx.patches.push(elsewhere);
    return;
  }
  const setPodSpec = Object.keys(podSpec).length > 0;
  const floor = replicasFloor(ctx, plan);
  if (!setReplicas && !setPodSpec && !rollout.strategy && !floor) return;
  ctx.patches.push(
    renderObject('deployment-patch', {
      metadata: { ...patchMetadata(dep.name, ctx.ns), ...(floor ? { annotations: floor } : {}) },
      replicas: { set: setReplicas, value: c.replicas ?? null },
      strategy: { set: rollout.strategy !== undefined, value: rollout.strategy ?? null },
      podSpec: { set: setPodSpec, value: podSpec },
    }),
  );
}

/**
 * The replicas-floor annotations (see ANNOTATION_MIN_REPLICAS) when glooha keeps this Deployment's
 * replica count: fixed replicas it sets, or an HPA's minReplicas. Only under driftPolicy enforce: with
 * warn or ignore the user has said others may change the Deployment, and admission must not refuse
 * what the operator itself would let stand.
 */
function replicasFloor(ctx: ComponentContext, plan: ComponentPlan): Record<string, string> | undefined {
  if (ctx.driftPolicy !== 'enforce') return undefined;
  const floor = plan.autoscaling?.minReplicas ?? (plan.managesReplicas ? plan.desiredReplicas : undefined);
  if (floor === undefined) return undefined;
  return {
    [ANNOTATION_MIN_REPLICAS]: String(floor),
    [ANNOTATION_OWNER]: `${ctx.owner.namespace}/${ctx.owner.name}`,
    [ANNOTATION_HELM_VALUES]: ctx.helmValuesConfigMap,
    // The replicas-floor policy's message names the kind, and the product's own upgrade command.
    [ANNOTATION_OWNER_KIND]: ctx.owner.kind,
    ...(ctx.helmUpgrade ? { [ANNOTATION_HELM_UPGRADE]: ctx.helmUpgrade } : {}),
  };
}

/**
 * matchLabelKeys naming a key of the Deployment's selector: Kubernetes would accept the Deployment
 * and then refuse its pods, and the component would wait for ever. Admission rejects the chart's
 * selector keys; an install with other selectors is caught here, and the constraints are not applied.
 */
function selectorKeysInMatchLabelKeys(
  ctx: ComponentContext,
  c: ComponentIntent,
  dep: ObservedDeployment,
): boolean {
  const selectorKeys = new Set([
    ...Object.keys(dep.selector.matchLabels ?? {}),
    ...(dep.selector.matchExpressions ?? []).map((e) => e.key),
  ]);
  const clashes = (c.topologySpreadConstraints ?? []).flatMap((t, i) =>
    (t.matchLabelKeys ?? []).filter((k) => selectorKeys.has(k)).map((k) => ({ i, k })),
  );
  const first = clashes[0];
  if (!first) return false;
  ctx.problems.push({
    code: 'MatchLabelKeyInSelector',
    component: c.id,
    path: `${c.specPath}.topologySpreadConstraints[${first.i}].matchLabelKeys`,
    message: `matchLabelKeys ${clashes.map((x) => x.k).join(', ')} ${clashes.length > 1 ? 'are keys' : 'is a key'} of Deployment ${dep.name}'s selector, which glooha already uses as the labelSelector; Kubernetes would then refuse to create its pods, so the topology spread constraints are not applied. Remove ${clashes.length > 1 ? 'them' : 'it'} from matchLabelKeys`,
  });
  return true;
}

function haFindings(ctx: ComponentContext, c: ComponentIntent, plan: ComponentPlan): void {
  if (c.singleReplica) return;
  const who = describeComponent(c.id);
  const floor = floorReplicas(c);
  if (floor === 1) {
    ctx.warnings.push({
      code: 'SingleReplica',
      component: c.id,
      path: c.autoscaling ? `${c.specPath}.autoscaling.minReplicas` : `${c.specPath}.replicas`,
      message: c.autoscaling
        ? `the HPA of ${who} may scale it down to a single replica: a node drain or crash then stops it (Polaris hpaMinAvailability); set autoscaling.minReplicas to 2 or more`
        : `${who} runs a single replica: a node drain or crash stops it (Polaris deploymentMissingReplicas); set replicas to 2 or more`,
    });
  }
  const pdb = plan.podDisruptionBudget;
  if (!pdb) {
    ctx.warnings.push({
      code: 'NoPodDisruptionBudget',
      component: c.id,
      path: `${c.specPath}.podDisruptionBudget`,
      message: `${who} has no PodDisruptionBudget, so a node drain may evict all its pods at once (Polaris missingPodDisruptionBudget); run 2 or more replicas and glooha adds one`,
    });
  } else {
    budgetFindings(ctx, c, pdb, floor, who);
  }
  if (floor > 1 && c.antiAffinity === 'none') {
    ctx.warnings.push({
      code: 'NoAntiAffinity',
      component: c.id,
      path: `${c.specPath}.antiAffinity`,
      message: `${who} has no pod anti-affinity, so its replicas may share a node and fail together (kube-score deployment-has-host-podantiaffinity); set antiAffinity: preferred`,
    });
  }
}

/** Checks the PDB that will be in force (glooha's or an existing one) against the replica floor. */
function budgetFindings(
  ctx: ComponentContext,
  c: ComponentIntent,
  pdb: NonNullable<ComponentPlan['podDisruptionBudget']>,
  floor: number,
  who: string,
) {
  const source = pdb.owned ? 'its PDB' : `PDB ${pdb.name}`;
  if (pdb.minAvailable !== undefined) {
    const min = scaledValue(pdb.minAvailable, floor);
    if (min >= floor && c.autoscaling) {
      ctx.warnings.push({
        code: 'HPAMinReplicasBelowPDBMinAvailable',
        component: c.id,
        message: `${source} needs ${min} pods available but the HPA of ${who} may scale to ${floor}: at minReplicas every node drain blocks (Polaris pdbMinAvailableGreaterThanHPAMinReplicas)`,
      });
    } else if (min >= floor) {
      ctx.warnings.push({
        code: 'PDBAllowsFullOutage',
        component: c.id,
        message: `${source} needs ${min} of ${floor} pods available, so no pod can be evicted and every node drain blocks (Polaris pdbDisruptionsIsZero)`,
      });
    } else if (min === 0) {
      ctx.warnings.push({
        code: 'PDBProtectsNothing',
        component: c.id,
        message: `${source} has minAvailable ${String(pdb.minAvailable)}, which lets a drain evict every pod of ${who} at once`,
      });
    }
  } else if (pdb.maxUnavailable !== undefined) {
    const max = scaledValue(pdb.maxUnavailable, floor);
    if (max >= floor) {
      ctx.warnings.push({
        code: 'PDBAllowsFullOutage',
        component: c.id,
        message: `${source} allows ${max} of ${floor} pods of ${who} to be unavailable, so a drain may evict all of them at once; use maxUnavailable: 1`,
      });
    } else if (max === 0) {
      ctx.warnings.push({
        code: 'PDBProtectsNothing',
        component: c.id,
        message: `${source} allows no disruption, so every node drain blocks (Polaris pdbDisruptionsIsZero)`,
      });
    }
  }
}
