// desired(glooHA, observedInstall): the pure heart of glooha. From a GlooHA and what the reconciler
// observed of the Gloo install, it computes
//   - owned:   objects glooha owns (PDBs, the leader-election Role and RoleBinding, the Helm values
//              ConfigMap, HPAs it had to create), labelled and owner-referenced; the reconciler applies
//              them and prunes any other object carrying this GlooHA's owner labels;
//   - patches: partial server-side-apply bodies for objects Helm owns (Deployments, the chart's HPAs):
//              only the fields glooha manages, never deleted;
//   - findings: warnings and problems as data.
// No I/O, no clock, no randomness: the same inputs give the same output, byte for byte.

import { ENV_DISABLE_LEADER_ELECTION, GLOO_CONTAINER } from './api.js';
import type { DefaultedGlooHA, DefaultedSpec, GlooHA } from './types.js';
import { installNamespaceOf, type ComponentPlan, type DesiredResult } from '../../controller/product.js';
import { upgradeLegacyValues } from './legacy.js';
import { validateGlooHA } from './validate.js';
import { intentsOf } from './components.js';
import type { ComponentIntent } from '../../core/component.js';
import {
  planComponentOn,
  type ComponentContext,
  type ContainerEnv,
  type EnvVar,
} from '../../core/component-planner.js';
import type { Finding } from '../../core/findings.js';
import {
  GLOO_DEFAULT_RELEASE,
  GLOO_HELM_CHART,
  GLOO_VALUES_NOTES,
  glooChartVersion,
  helmValues,
  type HelmValues,
} from './helm-values.js';
import {
  helmValuesYaml,
  upgradeCommand,
  valuesFileOf,
  type UpgradeTarget,
} from '../../core/helm-values-yaml.js';
import { LEASE_RULES, leaderElectionEnv, parseGoBool } from './leader-election.js';
import type { ObservedContainer, ObservedDeployment } from '../../core/observed.js';
import type { ObservedInstall } from './install.js';
import { names, ownedMetadata, ownerOf, type Owner } from '../../core/ownership.js';
import { renderObject, type KubeObject } from '../../core/templates.js';

/** The name of the ConfigMap holding a GlooHA's Helm values. */
export function helmValuesConfigMapName(owner: Owner): string {
  return `${owner.name}-helm-values`;
}

export function desired(glooHA: GlooHA, observed: ObservedInstall): DesiredResult<HelmValues> {
  const legacy = upgradeLegacyValues(glooHA);
  const validated = validateGlooHA(legacy.glooHA);
  if (!validated.ok) return { ok: false, errors: validated.errors };
  const g = validated.value;
  const spec = g.spec;
  const owner = ownerOf(g);
  const ns = installNamespaceOf(g);
  const upgrade = upgradeTarget(g, ns, observed);
  const ctx: Context = {
    owner,
    ns,
    helmValuesConfigMap: helmValuesConfigMapName(owner),
    helmUpgrade: upgradeCommand(upgrade),
    upgrade,
    observed,
    spec,
    hpas: observed.hpas,
    pdbs: observed.pdbs,
    driftPolicy: spec.driftPolicy,
    containerEnv: (_ctx, c, dep) => (c.role === 'gloo' ? glooEnv(ctx, c, dep) : undefined),
    owned: [],
    patches: [],
    warnings: [],
    problems: [],
  };
  for (const note of legacy.notes) ctx.warnings.push({ code: 'DeprecatedValue', ...note });

  const values = helmValues(g, observed);
  ctx.owned.push(helmValuesConfigMap(ctx, g, values));

  const components = intentsOf(spec).map((c) => planComponent(ctx, c));
  leaderElectionRbac(ctx);
  unmanagedFindings(ctx, spec);
  return {
    ok: true,
    desired: {
      owner,
      installNamespace: ns,
      owned: sortOwned(ctx.owned),
      patches: ctx.patches,
      components,
      helmValues: values,
      helmValuesConfigMap: ctx.helmValuesConfigMap,
      warnings: ctx.warnings,
      problems: ctx.problems,
      needsFinalizer: ctx.owned.some((o) => o.metadata.namespace !== owner.namespace),
      driftPolicy: spec.driftPolicy,
      leaderElection: {
        enabled: spec.gloo.leaderElection.enabled,
        component: 'gloo',
        lease: 'gloo',
        leaderless: 'no gloo replica is writing statuses',
        lostReason: 'GlooLeaderLost',
      },
    },
  };
}

interface Context extends ComponentContext {
  upgrade: UpgradeTarget;
  observed: ObservedInstall;
  spec: DefaultedSpec;
}

const KIND_ORDER = ['ConfigMap', 'Role', 'RoleBinding', 'PodDisruptionBudget', 'HorizontalPodAutoscaler'];

function sortOwned(objects: KubeObject[]): KubeObject[] {
  return [...objects].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
}

function observedDeployment(observed: ObservedInstall, c: ComponentIntent): ObservedDeployment | undefined {
  if (c.role === 'gloo') return observed.gloo;
  if (c.role === 'discovery') return observed.discovery;
  return observed.gatewayProxies.find((d) => d.name === c.deploymentName);
}

function planComponent(ctx: Context, c: ComponentIntent): ComponentPlan {
  const dep = observedDeployment(ctx.observed, c);
  if (!dep) ctx.problems.push(notFound(ctx, c));
  return planComponentOn(ctx, c, dep);
}

function notFound(ctx: Context, c: ComponentIntent): Finding {
  if (c.role === 'gatewayProxy') {
    return {
      code: 'GatewayProxyNotFound',
      component: c.id,
      path: c.specPath,
      message: `the install in namespace ${ctx.ns} has no Deployment ${c.deploymentName} for gatewayProxies.${c.key}; check the key against gatewayProxies in Gloo's Helm values, or set deploymentName`,
    };
  }
  return {
    code: 'DeploymentNotFound',
    component: c.id,
    path: c.specPath,
    message: `the install in namespace ${ctx.ns} has no ${c.role} Deployment (label gloo=${c.role}); check spec.target${
      c.role === 'discovery' ? ', or remove spec.discovery when discovery is disabled' : ''
    }`,
  };
}

function glooEnv(ctx: Context, c: ComponentIntent, dep: ObservedDeployment): ContainerEnv | undefined {
  const container = dep.containers.find((k) => k.name === GLOO_CONTAINER);
  if (!container) {
    ctx.problems.push({
      code: 'GlooContainerNotFound',
      component: c.id,
      path: 'spec.gloo.leaderElection',
      message: `Deployment ${dep.name} has no container named ${GLOO_CONTAINER} (it has ${dep.containers.map((k) => k.name).join(', ') || 'none'}), so glooha cannot set the leader-election env vars; Gloo keeps its defaults (15s/10s/2s)`,
    });
    return undefined;
  }
  const le = ctx.spec.gloo.leaderElection;
  const disabledBy = container.env?.find(
    (e) => e.name === ENV_DISABLE_LEADER_ELECTION && parseGoBool(e.value) === true,
  );
  if (le.enabled && disabledBy) {
    ctx.problems.push({
      code: 'LeaderElectionDisabledByHelm',
      component: c.id,
      path: 'spec.gloo.leaderElection.enabled',
      message: `the gloo container sets ${ENV_DISABLE_LEADER_ELECTION}=${disabledBy.value} (gloo.disableLeaderElection, or gloo.deployment.customEnv, in the Helm values; Gloo reads it as Go's strconv.ParseBool does), so every gloo replica acts as leader; remove it from the Helm values (see ${ctx.helmValuesConfigMap})`,
    });
  }
  return { container: GLOO_CONTAINER, env: anchoredEnv(leaderElectionEnv(le), container) };
}

/**
 * The chart renders gloo.deployment.customEnv right before POD_NAMESPACE. Server-side apply puts an
 * applier's new list items before the first item it shares with the live list, so naming the chart's
 * POD_NAMESPACE entry last places the lease env exactly where the chart puts customEnv. The exported
 * values then render the live order, and a `helm upgrade` with them changes no pod template (a
 * reordered env list is a new template: every pod would be replaced). Only the entry's key is applied:
 * owning its valueFrom (an atomic struct the API server defaults) would conflict with Helm 4's apply.
 */
function anchoredEnv(env: EnvVar[], container: ObservedContainer): (EnvVar | { name: string })[] {
  const anchor = container.env?.find((e) => e.name === CHART_ENV_AFTER_CUSTOM_ENV);
  if (!anchor || anchor.value !== undefined || env.some((e) => e.name === ENV_DISABLE_LEADER_ELECTION))
    return env;
  return [...env, { name: CHART_ENV_AFTER_CUSTOM_ENV }];
}

/** The env entry Gloo's chart renders right after customEnv (install/helm/gloo 1-gloo-deployment.yaml). */
export const CHART_ENV_AFTER_CUSTOM_ENV = 'POD_NAMESPACE';

function leaderElectionRbac(ctx: Context): void {
  const gloo = ctx.observed.gloo;
  if (!ctx.spec.gloo.leaderElection.enabled || !gloo) return;
  const name = names.leaderElectionRole(ctx.owner);
  ctx.owned.push(
    renderObject('role', { metadata: ownedMetadata(ctx.owner, name, ctx.ns, 'gloo'), rules: LEASE_RULES }),
    renderObject('role-binding', {
      metadata: ownedMetadata(ctx.owner, name, ctx.ns, 'gloo'),
      roleName: name,
      serviceAccountName: gloo.serviceAccountName ?? 'default',
      serviceAccountNamespace: ctx.ns,
    }),
  );
}

/** Where a GlooHA's exported values go: its install's release, at the installed chart version. */
export function upgradeTarget(g: GlooHA, ns: string, observed: ObservedInstall): UpgradeTarget {
  const owner = ownerOf(g);
  return {
    chart: GLOO_HELM_CHART,
    // The release Helm recorded on the gloo Deployment; `gloo`, the name Gloo's docs install as.
    release: g.spec?.target?.helmRelease ?? observed.gloo?.helmRelease ?? GLOO_DEFAULT_RELEASE,
    namespace: ns,
    chartVersion: glooChartVersion(observed.gloo),
    valuesFile: valuesFileOf(g.kind),
    configMap: { namespace: owner.namespace, name: helmValuesConfigMapName(owner) },
  };
}

function helmValuesConfigMap(ctx: Context, g: DefaultedGlooHA, values: HelmValues): KubeObject {
  return renderObject('helm-values-configmap', {
    metadata: ownedMetadata(ctx.owner, ctx.helmValuesConfigMap, ctx.owner.namespace, 'helm-values'),
    valuesYaml: helmValuesYaml(values, {
      source: `${g.kind} ${g.metadata.namespace ?? 'default'}/${g.metadata.name}`,
      target: ctx.upgrade,
      notes: GLOO_VALUES_NOTES,
    }),
  });
}

function unmanagedFindings(ctx: Context, spec: DefaultedSpec): void {
  const managed = new Set(intentsOf(spec).map((c) => c.deploymentName));
  for (const d of ctx.observed.gatewayProxies) {
    if (managed.has(d.name)) continue;
    ctx.warnings.push({
      code: 'UnmanagedGatewayProxy',
      component: `deployment/${d.name}`,
      message: `gateway proxy Deployment ${d.name} is not in spec.gatewayProxies, so glooha leaves it alone${
        d.replicas !== undefined ? ` (it runs ${d.replicas} replica${d.replicas === 1 ? '' : 's'})` : ''
      }; add it to manage its availability`,
    });
  }
  const discovery = ctx.observed.discovery;
  if (!spec.discovery && discovery?.replicas !== undefined && discovery.replicas > 1) {
    ctx.warnings.push({
      code: 'DiscoveryReplicas',
      component: 'discovery',
      message: `discovery runs ${discovery.replicas} replicas, but it has no leader election and the replicas overwrite each other's Upstreams; set spec.discovery.replicas: 1`,
    });
  }
}
