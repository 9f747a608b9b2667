// kgateway as a product: a KgatewayHA keeps a kgateway install available — its controller Deployment
// (kgateway's chart) and the proxies its deployer renders from the GatewayParameters the Gateways name.
import type { V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { GROUP } from '../../api/constants.js';
import { KGATEWAY_API, KGATEWAY_KIND, KGATEWAY_PLURAL } from './api.js';
import type { KgatewayHA } from './types.js';
import { controllerRuntimeHolderPod } from '../../core/dead-holder.js';
import { ownerOf } from '../../core/ownership.js';
import { TARGET_REQUEUE_MS } from '../../controller/plan.js';
import type { KindInfo } from '../../controller/kinds.js';
import { installNamespaceOf, type Product, type RelatedKind } from '../../controller/product.js';
import type { Snapshot } from '../../controller/plan-types.js';
import { kindKey } from '../../kube/list-types.js';
import { KGATEWAY_CHART } from './chart.js';
import { desiredKgateway } from './desired.js';
import {
  CONTROLLER_CONTAINER,
  CONTROLLER_LEASE_NAME,
  CONTROLLER_LEASE_TIMINGS,
  CONTROLLER_POD_SELECTOR,
  GATEWAY_PARAMETERS_API_VERSION,
  GATEWAY_PARAMETERS_GROUP,
  GATEWAY_PARAMETERS_KIND,
  GATEWAY_PARAMETERS_COVER_FIELDS,
  INSTALL_LABEL_SELECTOR,
} from './facts.js';
import { inTarget, observeKgateway } from './observe.js';
import { versionVerdict, type VersionVerdict } from './version.js';

/** The KgatewayHA controller's name, in metrics and logs. */
export const CONTROLLER_NAME = 'kgatewayha';

/** The Gateways a KgatewayHA's spec.gateways names (read only). */
export const GATEWAYS: RelatedKind = {
  kind: 'Gateway',
  group: 'gateway.networking.k8s.io',
  version: 'v1',
  plural: 'gateways',
};

/**
 * The GatewayParameters the Gateways name, into which the proxies' HA fields go (server-side apply;
 * never created or deleted). Their managedFields stay cached: a deletion hands glooha's fields over.
 */
export const GATEWAY_PARAMETERS: RelatedKind = {
  kind: GATEWAY_PARAMETERS_KIND,
  group: GATEWAY_PARAMETERS_GROUP,
  version: 'v1alpha1',
  plural: 'gatewayparameters',
  keepManagedFields: true,
  servedFields: GATEWAY_PARAMETERS_COVER_FIELDS,
};

/**
 * Which of the fields kgateway's deployer renders a proxy's PDB and HPA from
 * (GATEWAY_PARAMETERS.servedFields) the installed GatewayParameters have: the API server's schema of
 * them once it has been read (it is rechecked every 30 s, so a CRD upgrade needs no restart). Until
 * then, a tested line's (version.ts: 2.3 and 2.4 have both); for any other install (untested, or no
 * version label) nothing is known, and a proxy that needs one is reported, not guessed at.
 */
export function gatewayParametersFields(
  servedFields: Snapshot['servedFields'],
  verdict: VersionVerdict['kind'] | undefined,
): readonly string[] | undefined {
  const served = servedFields?.[kindKey(GATEWAY_PARAMETERS_API_VERSION, GATEWAY_PARAMETERS_KIND)];
  if (served) return served;
  return verdict === 'supported' ? GATEWAY_PARAMETERS_COVER_FIELDS : undefined;
}

/**
 * PriorityClasses (cluster-scoped, read only): spec.controller.priorityClassName is written only once
 * its PriorityClass exists (desired.ts, controllerPriorityClass).
 */
export const PRIORITY_CLASSES: KindInfo = {
  kind: 'PriorityClass',
  group: 'scheduling.k8s.io',
  version: 'v1',
  plural: 'priorityclasses',
};

export const KGATEWAY: Product = {
  api: KGATEWAY_API,
  kind: KGATEWAY_KIND,
  plural: KGATEWAY_PLURAL,
  controllerName: CONTROLLER_NAME,
  chart: KGATEWAY_CHART,
  deploymentSelector: INSTALL_LABEL_SELECTOR,
  // kgateway's proxies get their HPAs and PDBs from their users (or `glooha migrate`), unlabelled:
  // every one in scope may cover them.
  leaseName: CONTROLLER_LEASE_NAME,
  // The controller's pods; controller-runtime's identity `<pod name>_<uuid>` names the holder's pod.
  leaderPods: {
    labelSelector: CONTROLLER_POD_SELECTOR,
    podName: controllerRuntimeHolderPod,
    container: CONTROLLER_CONTAINER,
    retryPeriodSeconds: Number.parseInt(CONTROLLER_LEASE_TIMINGS.retryPeriod, 10),
  },
  relatedKinds: [GATEWAYS, GATEWAY_PARAMETERS],
  clusterKinds: [PRIORITY_CLASSES],
  permissions: [
    { group: GROUP, resource: KGATEWAY_PLURAL, verbs: ['get', 'list', 'watch', 'patch'] },
    { group: GROUP, resource: `${KGATEWAY_PLURAL}/status`, verbs: ['get', 'update', 'patch'] },
    { group: GROUP, resource: `${KGATEWAY_PLURAL}/finalizers`, verbs: ['update'] },
    { group: GATEWAYS.group, resource: GATEWAYS.plural, verbs: ['get', 'list', 'watch'] },
    {
      group: GATEWAY_PARAMETERS.group,
      resource: GATEWAY_PARAMETERS.plural,
      verbs: ['get', 'list', 'watch', 'patch'],
    },
    // Cluster-scoped: effective from a ClusterRole only (cluster mode, or rbac.clusterWideReads).
    { group: PRIORITY_CLASSES.group, resource: PRIORITY_CLASSES.plural, verbs: ['get', 'list', 'watch'] },
  ],
  rivalFix: 'give them different spec.target.helmRelease values',
  selfConflictFix:
    "give each Gateway in spec.gateways its own GatewayParameters (the Gateway's spec.infrastructure.parametersRef), or the same settings to Gateways that share one",
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- HAObject to this product's kind: the rule misreads the narrowing (its fix does not compile)
  inTarget: (g, obj) => inTarget(obj, (g as KgatewayHA).spec?.target),
  desired(g, s, ownedOf) {
    const ns = installNamespaceOf(g);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- HAObject to this product's kind: the rule misreads the narrowing (its fix does not compile)
    const k = g as KgatewayHA;
    const observed = observeKgateway(
      {
        namespace: ns,
        deployments: s.deployments,
        hpas: [...s.hpas, ...(ownedOf('HorizontalPodAutoscaler') as V2HorizontalPodAutoscaler[])],
        pdbs: [...s.pdbs, ...ownedOf('PodDisruptionBudget')],
      },
      ownerOf(g),
      k.spec?.target,
      {
        served: s.related !== undefined,
        parameterFields: (controller) =>
          gatewayParametersFields(
            s.servedFields,
            controller && versionVerdict({ ...controller, namespace: ns }).kind,
          ),
        gateways: [...(s.related?.get(GATEWAYS.kind) ?? [])],
        parameters: [...(s.related?.get(GATEWAY_PARAMETERS.kind) ?? [])],
      },
    );
    if (!observed.controller) {
      const release = k.spec?.target?.helmRelease;
      return {
        ok: false,
        stall: {
          reason: 'TargetNotFound',
          message: `no kgateway install found in namespace ${ns}: no Deployment labelled kgateway=kgateway${release ? `,app.kubernetes.io/instance=${release}` : ''}. Install kgateway's chart there or fix spec.target; the operator waits for it`,
        },
        requeueAfterMs: TARGET_REQUEUE_MS,
      };
    }
    const priorityClasses = s.cluster?.get(PRIORITY_CLASSES.kind);
    return desiredKgateway(k, {
      ...observed,
      ...(priorityClasses ? { priorityClasses: priorityClasses.map((p) => p.metadata?.name ?? '') } : {}),
    });
  },
};
