// The GlooHA as a values overlay for Gloo's chart (install/helm/gloo), so `helm upgrade -f` renders
// the same replicas, env, PDBs, affinity and HPA bounds the operator applies and neither undoes the
// other. Paths checked against the chart's values reference (docs/content/reference/values.txt) and
// templates:
//
//   gloo.deployment.replicas / .customEnv / .affinity      gloo.podDisruptionBudget.{minAvailable|maxUnavailable}
//   gloo.disableLeaderElection                             discovery.deployment.replicas
//   gatewayProxies.<key>.kind.deployment.replicas          gatewayProxies.<key>.podDisruptionBudget
//   gatewayProxies.<key>.antiAffinity / .affinity          gatewayProxies.<key>.topologySpreadConstraints
//   gatewayProxies.<key>.horizontalPodAutoscaler.{apiVersion,minReplicas,maxReplicas}
//
// Every value renders what is live, so a `helm upgrade` fed these values changes nothing, with Helm 3
// (three-way merge: a field in the manifest is reset to it, a field dropped from it is deleted) and with
// Helm 4 (server-side apply: a value equal to the live one conflicts with no other field manager):
//  - customEnv lists the lease env in the order the operator applies it, where the chart renders
//    customEnv (before POD_NAMESPACE; see anchoredEnv in desired.ts): same order, same pod template;
//  - an autoscaled proxy gets replicas = its current count (clamped to the HPA's bounds), never null:
//    dropping `replicas` from the manifest makes Helm 3 delete it and the Deployment fall to 1 under a
//    running HPA; the HPA's own count is what Helm 4 finds owned by the HPA controller.
//
// What the chart cannot express is reported by helmValuesNotes().

import { defaultSpec } from './validate.js';
import type { GlooHA } from './types.js';
import { budgetOf, type ComponentIntent } from '../../core/component.js';
import { intentsOf } from './components.js';
import type { Finding } from '../../core/findings.js';
import { leaderElectionEnv } from './leader-election.js';
import { chartLabels, type ObservedInstall } from './install.js';
import { podAntiAffinity, topologySpreadConstraints } from '../../core/scheduling.js';
import type { HelmChart } from '../../core/helm-values-yaml.js';
import type { ObservedDeployment } from '../../core/observed.js';
import { GLOO_CONTAINER } from './api.js';

export type HelmValues = Record<string, unknown>;

/**
 * The overlay for `glooHA`. `observed` (the live install) supplies an autoscaled proxy's current
 * replica count; without it (offline render) the HPA's minimum stands in.
 */
export function helmValues(glooHA: GlooHA, observed?: ObservedInstall): HelmValues {
  const spec = defaultSpec(glooHA.spec);
  const values: HelmValues = {};
  for (const c of intentsOf(spec)) {
    if (c.role === 'gloo') {
      const le = spec.gloo.leaderElection;
      const affinity = podAntiAffinity(c.antiAffinity, { matchLabels: chartLabels.gloo });
      values.gloo = {
        // Set both ways: a previous `true` in the user's own values would otherwise survive.
        disableLeaderElection: !le.enabled,
        deployment: {
          replicas: c.replicas,
          ...(le.enabled ? { customEnv: leaderElectionEnv(le) } : {}),
          ...(affinity ? { affinity: { podAntiAffinity: affinity } } : {}),
        },
        ...budgetValues(c),
      };
    } else if (c.role === 'discovery') {
      values.discovery = { deployment: { replicas: c.replicas } };
    } else {
      const proxies = (values.gatewayProxies ??= {}) as Record<string, unknown>;
      proxies[c.key as string] = proxyValues(c, observed);
    }
  }
  return values;
}

function budgetValues(c: ComponentIntent): Record<string, unknown> {
  const budget = budgetOf(c);
  if (!budget) return {};
  return {
    podDisruptionBudget:
      budget.minAvailable !== undefined
        ? { minAvailable: budget.minAvailable }
        : { maxUnavailable: budget.maxUnavailable },
  };
}

/** What `helm upgrade` should render for an autoscaled proxy's replicas: the live count within the HPA's bounds. */
export function autoscaledReplicas(c: ComponentIntent, observed?: ObservedInstall): number | undefined {
  if (!c.autoscaling) return undefined;
  const { minReplicas, maxReplicas } = c.autoscaling;
  const live = observed?.gatewayProxies.find((d) => d.name === c.deploymentName)?.replicas;
  return Math.min(maxReplicas, Math.max(minReplicas, live ?? minReplicas));
}

function proxyValues(c: ComponentIntent, observed?: ObservedInstall): Record<string, unknown> {
  const selector = { matchLabels: chartLabels.gatewayProxy(c.key as string) };
  const affinity = podAntiAffinity(c.antiAffinity, selector);
  const spread = topologySpreadConstraints(c.topologySpreadConstraints, selector);
  return {
    kind: {
      deployment: {
        replicas: c.autoscaling ? autoscaledReplicas(c, observed) : c.replicas,
      },
    },
    // The chart's antiAffinity: true renders a rule over every proxy's pods (gloo: gateway-proxy);
    // glooha's rule selects this proxy's pods only, through `affinity`, so turn the chart's off.
    antiAffinity: false,
    ...(affinity ? { affinity: { podAntiAffinity: affinity } } : {}),
    ...(spread ? { topologySpreadConstraints: spread } : {}),
    ...(c.autoscaling
      ? {
          horizontalPodAutoscaler: {
            apiVersion: 'autoscaling/v2',
            minReplicas: c.autoscaling.minReplicas,
            maxReplicas: c.autoscaling.maxReplicas,
          },
        }
      : {}),
    ...budgetValues(c),
  };
}

/** What the Helm values cannot carry, or carry with side effects: shown by render and in docs. */
export function helmValuesNotes(glooHA: GlooHA): Finding[] {
  const spec = defaultSpec(glooHA.spec);
  const notes: Finding[] = [];
  if (spec.gloo.leaderElection.enabled) {
    notes.push({
      code: 'HelmListReplaced',
      component: 'gloo',
      path: 'gloo.deployment.customEnv',
      message:
        'gloo.deployment.customEnv is a list, and Helm replaces lists instead of merging them: add any customEnv entries of your own values file to this list',
    });
  }
  if (spec.gloo.topologySpreadConstraints?.length) {
    notes.push({
      code: 'HelmCannotExpress',
      component: 'gloo',
      path: 'spec.gloo.topologySpreadConstraints',
      message:
        "Gloo's chart has no topologySpreadConstraints for the gloo Deployment: only the operator applies them (a helm upgrade does not remove them, since Helm never set them)",
    });
  }
  for (const c of intentsOf(spec)) {
    if (c.podDisruptionBudget?.minAvailable === 0) {
      notes.push({
        code: 'HelmCannotExpress',
        component: c.id,
        path: `${c.specPath}.podDisruptionBudget.minAvailable`,
        message:
          "the chart renders minAvailable only when it is truthy, so minAvailable: 0 yields a PDB with neither field; use maxUnavailable: '100%' for the same effect",
      });
    }
  }
  for (const c of intentsOf(spec)) {
    if (c.antiAffinity === 'required') {
      notes.push({
        code: 'HelmCannotExpress',
        component: c.id,
        path: `${c.specPath}.antiAffinity`,
        message:
          "Gloo's chart has no rollout strategy values: only the operator sets maxSurge 0 / maxUnavailable 1 so that rollouts under required anti-affinity never wedge (a helm upgrade does not remove it, since Helm never set it)",
      });
    }
  }
  const intents = intentsOf(spec).filter((c) => c.role === 'gatewayProxy');
  const base = intents.find((c) => c.key === 'gatewayProxy');
  for (const c of intents) {
    if (c.autoscaling) {
      notes.push({
        code: 'HelmReplicasFollowHPA',
        component: c.id,
        path: `gatewayProxies.${c.key}.kind.deployment.replicas`,
        message:
          "replicas is the HPA's current count (the ConfigMap follows it): a manifest without replicas would make Helm 3 delete the field and the Deployment fall to 1 replica under its HPA; an older count makes Helm set that count until the HPA corrects it, and Helm 4 report a conflict with the HPA controller: re-read the ConfigMap right before upgrading",
      });
    }
    if (c.topologySpreadConstraints?.length) {
      notes.push({
        code: 'HelmListReplaced',
        component: c.id,
        path: `gatewayProxies.${c.key}.topologySpreadConstraints`,
        message:
          'topologySpreadConstraints is a list: Helm replaces it, so merge any constraints of your own values file into it',
      });
    }
    if (base && c !== base) notes.push(...inheritedFromGatewayProxy(base, c));
  }
  return notes;
}

/**
 * The chart's PDB and HPA templates merge gatewayProxies.gatewayProxy into every other proxy before
 * rendering, so another proxy inherits whatever of those gatewayProxy sets and it does not.
 */
function inheritedFromGatewayProxy(base: ComponentIntent, c: ComponentIntent): Finding[] {
  const keyOf = (b: { minAvailable?: unknown }) =>
    b.minAvailable !== undefined ? 'minAvailable' : 'maxUnavailable';
  const baseBudget = budgetOf(base);
  const ownBudget = budgetOf(c);
  const clashes: string[] = [];
  if (baseBudget && ownBudget && keyOf(baseBudget) !== keyOf(ownBudget)) {
    clashes.push(
      `gatewayProxy's podDisruptionBudget.${keyOf(baseBudget)} next to its own ${keyOf(ownBudget)} (the API server rejects a PDB with both)`,
    );
  }
  if (base.autoscaling && !c.autoscaling)
    clashes.push("gatewayProxy's horizontalPodAutoscaler although it has fixed replicas");
  return clashes.map((what) => ({
    code: 'HelmProxyDefaultsInherited' as const,
    component: c.id,
    message: `Gloo's chart merges gatewayProxies.gatewayProxy into gatewayProxies.${c.key} when it renders PDBs and HPAs, so ${c.key} would inherit ${what}; give both proxies the same kind of setting, or leave this one to the operator`,
  }));
}

/** Gloo's chart as printed upgrade commands name it: the repository its docs add (`helm repo add gloo`). */
export const GLOO_HELM_CHART: HelmChart = {
  inProse: "Gloo's chart (install/helm/gloo)",
  variable: 'GLOO_CHART',
  reference: 'gloo/gloo',
};

/** The release Gloo's docs install as, for an install whose Deployment names none. */
export const GLOO_DEFAULT_RELEASE = 'gloo';

/** The header's own line for a GlooHA's values. */
export const GLOO_VALUES_NOTES = [
  'Keep your own gloo.deployment.customEnv entries before the ones below (Helm replaces lists).',
] as const;

/**
 * The installed chart version: Gloo's chart tags its images with its own version (image.tag defaults
 * to the chart's version: quay.io/solo-io/gloo:1.22.1 from chart 1.22.1); undefined when the gloo
 * container's tag is not a version (a digest, an override).
 */
export function glooChartVersion(gloo: ObservedDeployment | undefined): string | undefined {
  const image = gloo?.containers.find((c) => c.name === GLOO_CONTAINER)?.image;
  const tag = /:([^:/@]+)$/.exec(image ?? '')?.[1];
  return tag && /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/.test(tag) ? tag : undefined;
}
