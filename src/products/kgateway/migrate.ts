// A GlooHA's HA settings carried over to kgateway, Gloo OSS's successor: the values overlay for
// kgateway's controller chart (install/helm/kgateway), and per gateway proxy the GatewayParameters
// kgateway's deployer builds the proxy from, plus the PodDisruptionBudget and HPA GatewayParameters
// cannot express. What kgateway cannot take is reported, never silently dropped. Pure: no I/O.
//
// The mapping (kgateway 2.3 and newer, tested with v2.3.6 and v2.4.2; src/products/kgateway/facts.ts
// says where each fact is in its code):
//
//   spec.gloo.replicas                       controller.replicaCount
//   spec.gloo.leaderElection.enabled         controller.extraEnv.KGW_DISABLE_LEADER_ELECTION ("false"/"true")
//   spec.gloo.leaderElection timings         not carried over: kgateway runs controller-runtime's 15s/10s/2s
//   spec.gloo.podDisruptionBudget            controller.podDisruptionBudget (glooha's default when unset)
//   spec.gloo.antiAffinity                   controller.affinity.podAntiAffinity
//   (required anti-affinity)                 controller.strategy: maxSurge 0, maxUnavailable 1 (rollout-strategy.ts)
//   spec.gloo.topologySpreadConstraints      controller.topologySpreadConstraints
//   (no autoscaling, no priorityClassName)   GlooHA's spec.gloo has neither: a KgatewayHA's spec.controller
//                                            .autoscaling / .priorityClassName are set there by hand
//   spec.discovery                           not carried over: kgateway has no discovery Deployment
//   spec.gatewayProxies.<key>                GatewayParameters <gateway>: spec.kube.deployment.{replicas,strategy},
//                                            spec.kube.podTemplate.{affinity,topologySpreadConstraints};
//                                            PodDisruptionBudget <gateway>; HPA <gateway> when autoscaled
//
// <gateway> is the proxy's Deployment name (the kebab-case of the key, or its deploymentName): the
// Gateway that replaces the proxy should carry that name, which kgateway gives its proxy Deployment.

import { API_VERSION } from '../../api/constants.js';
import { KGATEWAY_KIND } from './api.js';
import type { DefaultedGlooHA } from '../gloo/types.js';
import type { KgatewayHA } from './types.js';
import type { PodDisruptionBudgetSpec } from '../../api/types.js';
import { budgetOf, type ComponentIntent } from '../../core/component.js';
import { intentsOf } from '../gloo/components.js';
import { installNamespaceOf } from '../../controller/product.js';
import type { Finding } from '../../core/findings.js';
import { rolloutStrategy } from '../../core/rollout-strategy.js';
import { podAntiAffinity, topologySpreadConstraints } from '../../core/scheduling.js';
import { renderObject, type KubeObject } from '../../core/templates.js';
import { GATEWAY_PARAMETERS_TEMPLATE } from './templates.js';
import {
  CONTROLLER_LEASE_TIMINGS,
  DEFAULT_RELEASE,
  ENV_DISABLE_LEADER_ELECTION,
  GATEWAY_PARAMETERS_KIND,
  controllerSelectorLabels,
  proxySelectorLabels,
} from './facts.js';

export interface KgatewayMigration {
  /** Where kgateway's controller and the Gateways go: the Gloo install's namespace. */
  namespace: string;
  /** The KgatewayHA that keeps the controller's settings once kgateway is installed. */
  kgatewayHA: KgatewayHA;
  /** The overlay for kgateway's controller chart. */
  helmValues: Record<string, unknown>;
  /** GatewayParameters, PodDisruptionBudgets and HPAs for the gateway proxies, in the order to apply them. */
  objects: KubeObject[];
  /** Settings that do not carry over, and what the user must still do. */
  notes: Finding[];
}

export interface MigrateOptions {
  /** The Helm release name of kgateway's controller chart: its pods' labels carry it. */
  release: string;
}

export function migrateToKgateway(g: DefaultedGlooHA, options: MigrateOptions): KgatewayMigration {
  const namespace = installNamespaceOf(g);
  const notes: Finding[] = [];
  const objects: KubeObject[] = [];
  let helmValues: Record<string, unknown> = {};
  for (const c of intentsOf(g.spec)) {
    if (c.role === 'gloo') helmValues = controllerValues(g, c, options, notes);
    else if (c.role === 'discovery') notes.push(noDiscovery(c));
    else objects.push(...proxyObjects(c, namespace, notes));
  }
  return { namespace, kgatewayHA: kgatewayHAOf(g, namespace, options), helmValues, objects, notes };
}

/** The GlooHA's controller settings as a KgatewayHA of the same name, for the operator to keep. */
function kgatewayHAOf(g: DefaultedGlooHA, namespace: string, options: MigrateOptions): KgatewayHA {
  const gloo = g.spec.gloo;
  return {
    apiVersion: API_VERSION,
    kind: KGATEWAY_KIND,
    metadata: { name: g.metadata.name, namespace: g.metadata.namespace ?? namespace },
    spec: {
      ...(namespace !== g.metadata.namespace || options.release !== DEFAULT_RELEASE
        ? {
            target: {
              ...(namespace !== g.metadata.namespace ? { namespace } : {}),
              ...(options.release !== DEFAULT_RELEASE ? { helmRelease: options.release } : {}),
            },
          }
        : {}),
      controller: {
        replicas: gloo.replicas,
        leaderElection: { enabled: gloo.leaderElection.enabled },
        ...(gloo.podDisruptionBudget ? { podDisruptionBudget: gloo.podDisruptionBudget } : {}),
        antiAffinity: gloo.antiAffinity,
        ...(gloo.topologySpreadConstraints
          ? { topologySpreadConstraints: gloo.topologySpreadConstraints }
          : {}),
      },
      driftPolicy: g.spec.driftPolicy,
      ...(g.spec.suspend ? { suspend: true } : {}),
    },
  };
}

function controllerValues(
  g: DefaultedGlooHA,
  c: ComponentIntent,
  options: MigrateOptions,
  notes: Finding[],
): Record<string, unknown> {
  const le = g.spec.gloo.leaderElection;
  const timings = {
    leaseDuration: le.leaseDuration,
    renewDeadline: le.renewDeadline,
    retryPeriod: le.retryPeriod,
  };
  if (le.enabled && JSON.stringify(timings) !== JSON.stringify(CONTROLLER_LEASE_TIMINGS)) {
    notes.push({
      code: 'KgatewayCannotExpress',
      component: c.id,
      path: 'spec.gloo.leaderElection',
      message: `kgateway's controller has no setting for its leader-election timings: it runs controller-runtime's ${CONTROLLER_LEASE_TIMINGS.leaseDuration}/${CONTROLLER_LEASE_TIMINGS.renewDeadline}/${CONTROLLER_LEASE_TIMINGS.retryPeriod}, not ${timings.leaseDuration}/${timings.renewDeadline}/${timings.retryPeriod}`,
    });
  }
  return kgatewayControllerValues(c, le.enabled, options.release, {});
}

/** What the controller's chart values depend on besides the component. */
export interface ControllerValuesOptions {
  /** spec.controller.priorityClassName (the chart's controller.priorityClassName). */
  priorityClassName?: string;
  /** The controller Deployment's spec.replicas now: an autoscaled controller's replicaCount. */
  liveReplicas?: number;
}

/**
 * kgateway's chart values for its controller (install/helm/kgateway): what `glooha migrate kgateway`
 * prints and what the operator exports for a KgatewayHA, so both render what the operator applies.
 *
 * An autoscaled controller gets replicaCount = its live count within the HPA's bounds, as Gloo's
 * autoscaled proxies do (products/gloo/helm-values.ts), and not controller.horizontalPodAutoscaler:
 * with that value set the 2.3+ chart renders no spec.replicas at all, and Helm removes a field its new
 * manifest drops (Helm 3's three-way patch; Helm 4's apply, when no one else owns it), so the
 * Deployment would fall to 1 replica under the HPA. The HPA stays the operator's (an HPA the chart
 * renders anyway is adopted, with its bounds set).
 */
export function kgatewayControllerValues(
  c: ComponentIntent,
  leaderElection: boolean,
  release: string,
  options: ControllerValuesOptions,
): Record<string, unknown> {
  const budget = budgetOf(c);
  const strategy = rolloutStrategy(c, budget).strategy;
  const selector = { matchLabels: controllerSelectorLabels(release) };
  const affinity = podAntiAffinity(c.antiAffinity, selector);
  const spread = topologySpreadConstraints(c.topologySpreadConstraints, selector);
  const replicaCount = c.autoscaling
    ? Math.min(c.autoscaling.maxReplicas, Math.max(c.autoscaling.minReplicas, options.liveReplicas ?? 0))
    : c.replicas;
  return {
    controller: {
      replicaCount,
      // Set both ways: a "true" in the user's own values would otherwise survive the overlay.
      extraEnv: { [ENV_DISABLE_LEADER_ELECTION]: String(!leaderElection) },
      ...(budget ? { podDisruptionBudget: budgetValue(budget) } : {}),
      ...(strategy ? { strategy } : {}),
      ...(affinity ? { affinity: { podAntiAffinity: affinity } } : {}),
      ...(spread ? { topologySpreadConstraints: spread } : {}),
      ...(options.priorityClassName ? { priorityClassName: options.priorityClassName } : {}),
    },
  };
}

function budgetValue(b: PodDisruptionBudgetSpec): Record<string, unknown> {
  return b.minAvailable !== undefined
    ? { minAvailable: b.minAvailable }
    : { maxUnavailable: b.maxUnavailable };
}

function noDiscovery(c: ComponentIntent): Finding {
  return {
    code: 'KgatewayCannotExpress',
    component: c.id,
    path: 'spec.discovery',
    message:
      'kgateway has no discovery Deployment (its Backends are written, not discovered): nothing to carry over',
  };
}

function proxyObjects(c: ComponentIntent, namespace: string, notes: Finding[]): KubeObject[] {
  const gateway = c.deploymentName;
  const selector = { matchLabels: proxySelectorLabels(gateway) };
  const budget = budgetOf(c);
  const strategy = rolloutStrategy(c, budget).strategy;
  const affinity = podAntiAffinity(c.antiAffinity, selector);
  const spread = topologySpreadConstraints(c.topologySpreadConstraints, selector);
  // With an HPA, replicas stay unset: the deployer then leaves them to the HPA (GatewayParameters'
  // own advice: "If you are using an HPA, make sure to not explicitly define this").
  const deployment = {
    ...(c.replicas !== undefined ? { replicas: c.replicas } : {}),
    ...(strategy ? { strategy } : {}),
  };
  const podTemplate = {
    ...(affinity ? { affinity: { podAntiAffinity: affinity } } : {}),
    ...(spread ? { topologySpreadConstraints: spread } : {}),
  };
  const metadata = { name: gateway, namespace };
  const objects = [
    renderObject(GATEWAY_PARAMETERS_TEMPLATE, {
      metadata,
      deployment: { set: Object.keys(deployment).length > 0, value: deployment },
      podTemplate: { set: Object.keys(podTemplate).length > 0, value: podTemplate },
      // The PDB and HPA are printed as objects of their own, which stand in for kgateway's: they
      // need no Gateway yet, and cover the proxy from its first render.
      podDisruptionBudget: { set: false, value: null },
      horizontalPodAutoscaler: { set: false, value: null },
    }),
  ];
  if (budget) {
    objects.push(
      renderObject('pod-disruption-budget', {
        metadata,
        selector,
        minAvailable: { set: budget.minAvailable !== undefined, value: budget.minAvailable ?? null },
        maxUnavailable: { set: budget.minAvailable === undefined, value: budget.maxUnavailable ?? null },
      }),
    );
  }
  if (c.autoscaling) {
    objects.push(
      renderObject('horizontal-pod-autoscaler', {
        metadata,
        targetName: gateway,
        minReplicas: c.autoscaling.minReplicas,
        maxReplicas: c.autoscaling.maxReplicas,
      }),
    );
  }
  notes.push({
    code: 'KgatewayGatewayReference',
    component: c.id,
    message: `the Gateway that replaces this proxy must be ${namespace}/${gateway} and name its parameters: spec.infrastructure.parametersRef {group: gateway.kgateway.dev, kind: ${GATEWAY_PARAMETERS_KIND}, name: ${gateway}} (kgateway looks them up in the Gateway's namespace, and names the proxy Deployment after the Gateway${selectedBy(budget !== undefined, c.autoscaling !== undefined)})`,
  });
  return objects;
}

/** ", which the PodDisruptionBudget and the HPA select", or as much of it as applies. */
function selectedBy(pdb: boolean, hpa: boolean): string {
  const objects = [...(pdb ? ['the PodDisruptionBudget'] : []), ...(hpa ? ['the HPA'] : [])];
  if (objects.length === 0) return '';
  return `, which ${objects.join(' and ')} select${objects.length === 1 ? 's' : ''}`;
}
