// The KgatewayHA OpenAPI schema: the high-availability settings of one kgateway install, kgateway being
// Gloo OSS's successor. A kind of its own rather than a field of GlooHA (docs/api.md says why): its
// parts, its leader election and its Helm chart are kgateway's, not Gloo's. The definitions both kinds
// share (PodDisruptionBudget, TopologySpreadConstraint, the status blocks) come from schema.ts, so the
// rule table validates them once for both.

import {
  DEFAULTS as GLOO_DEFAULTS,
  DNS_LABEL,
  DNS_SUBDOMAIN,
  MAX_GATEWAY_PROXIES,
  autoscaling,
  UNRECONCILED_STATUS,
  antiAffinity,
  componentStatus,
  conditionsSchema,
  driftPolicySchema,
  lastHandledReconcileAtSchema,
  leaderStatusSchema,
  podDisruptionBudget,
  suspendSchema,
  topologySpreadConstraints,
  warningsSchema,
} from '../gloo/schema.js';
import { KGATEWAY_CONTROLLER_REPLICAS } from './rules.js';
import { OPEN, boolean, def, integer, map, object, string, type Schema } from '../../api/openapi.js';

export const KGATEWAY_DEFAULTS = {
  controllerReplicas: KGATEWAY_CONTROLLER_REPLICAS,
  leaderElection: { enabled: true },
  antiAffinity: GLOO_DEFAULTS.antiAffinity,
  driftPolicy: GLOO_DEFAULTS.driftPolicy,
} as const;

const target = object(
  {
    namespace: string({
      description:
        "Namespace of the kgateway install (its controller's). Defaults to the KgatewayHA's own namespace.",
      maxLength: 63,
      pattern: DNS_LABEL,
    }),
    helmRelease: string({
      description:
        "The Helm release of kgateway's chart (its pods carry it as app.kubernetes.io/instance). Needed only when one namespace holds several kgateway releases.",
      maxLength: 53,
      pattern: DNS_LABEL,
    }),
  },
  { description: 'Which kgateway install this KgatewayHA manages.' },
);

const leaderElection = def(
  'KgatewayLeaderElection',
  object(
    {
      enabled: boolean({
        description:
          'Leader election among the controller replicas (kgateway sets KGW_DISABLE_LEADER_ELECTION to turn it off). Default true. Disabling it requires replicas: 1.',
        default: KGATEWAY_DEFAULTS.leaderElection.enabled,
      }),
    },
    {
      description:
        "kgateway's controller elects a leader with controller-runtime on the Lease kgateway-envoy in its namespace, with controller-runtime's timings (15s lease, 10s renew deadline, 2s retry); kgateway has no setting for them, so there are none here.",
      default: {},
    },
  ),
);

const controller = def(
  'KgatewayController',
  object(
    {
      // No schema default: with one, "replicas or autoscaling" could not be told apart from a defaulted
      // replicas. The default applies in code (controllerReplicas) when neither is set; objects stored
      // before autoscaling existed carry replicas: 2 from the old default, and stay valid.
      replicas: integer({
        description: `Fixed replicas of kgateway's controller (at least 1; more than 1 needs leader election). Set this or autoscaling; default ${KGATEWAY_DEFAULTS.controllerReplicas} when neither is set.`,
      }),
      autoscaling,
      priorityClassName: string({
        description:
          "PriorityClass of the controller's pods (the pod template's priorityClassName). glooha writes it only once the PriorityClass exists: the API server refuses pods naming a missing one, while the rollout would already have removed an old pod. Reading PriorityClasses needs a cluster-wide read (cluster mode, or rbac.clusterWideReads in namespaced mode).",
        maxLength: 253,
        pattern: DNS_SUBDOMAIN,
      }),
      leaderElection,
      podDisruptionBudget,
      antiAffinity,
      topologySpreadConstraints,
    },
    {
      description:
        "kgateway's controller Deployment, as kgateway's chart installs it (labels kgateway=kgateway and app.kubernetes.io/name=kgateway).",
      default: {},
    },
  ),
);

const gateway = def(
  'KgatewayGateway',
  object(
    {
      replicas: integer({ description: 'Fixed replicas (at least 1). Set this or autoscaling.' }),
      autoscaling,
      podDisruptionBudget,
      antiAffinity,
      topologySpreadConstraints,
    },
    {
      description:
        "One Gateway's proxy. glooha writes replicas, the rollout strategy, anti-affinity and topology spread into the GatewayParameters the Gateway names (spec.infrastructure.parametersRef), from which kgateway's deployer renders the proxy Deployment; it owns the proxy's PodDisruptionBudget, and an HPA when autoscaled (GatewayParameters has neither).",
    },
  ),
);

const gateways = def(
  'KgatewayGateways',
  map(gateway, {
    description:
      "Gateway proxies keyed by Gateway name, in the install's namespace (kgateway names each proxy Deployment after its Gateway). Gateways not listed are left alone.",
    maxProperties: MAX_GATEWAY_PROXIES,
  }),
);

export const kgatewaySpecSchema: Schema = object(
  { target, controller, gateways, driftPolicy: driftPolicySchema, suspend: suspendSchema },
  { description: 'High-availability settings for one kgateway install.', default: {} },
);

export const kgatewayStatusSchema: Schema = object(
  {
    observedGeneration: integer({
      format: 'int64',
      description:
        'The metadata.generation this status describes; 0 until glooha-operator first reconciles the KgatewayHA (operator not running, or not watching this namespace).',
      default: 0,
    }),
    conditions: conditionsSchema,
    components: object(
      {
        controller: componentStatus("kgateway's controller, as last observed."),
        gateways: map(componentStatus("One Gateway's proxy, as last observed."), {
          description: 'The proxies of spec.gateways, by the same keys.',
        }),
      },
      { description: 'Replicas and disruption budget of each managed component.' },
    ),
    leader: leaderStatusSchema({
      lease: 'kgateway-envoy',
      holder: "a kgateway controller pod's name and a suffix",
      product: "kgateway's controller",
    }),
    warnings: warningsSchema('controller or gateways.<name>'),
    helmValuesConfigMap: string({
      description: "ConfigMap holding the equivalent Helm values for kgateway's chart (key values.yaml).",
    }),
    lastHandledReconcileAt: lastHandledReconcileAtSchema,
  },
  {
    description: 'Observed state, written by glooha-operator.',
    default: {
      ...UNRECONCILED_STATUS,
      conditions: UNRECONCILED_STATUS.conditions.map((c) => ({
        ...c,
        message: c.message.replace('this GlooHA', 'this KgatewayHA'),
      })),
    },
  },
);

export const kgatewayHASchema: Schema = def(
  'KgatewayHA',
  object(
    {
      apiVersion: string({
        description: 'The versioned schema of this representation of an object: glooha.io/v1alpha1.',
      }),
      kind: string({ description: 'The REST resource this object represents: KgatewayHA.' }),
      metadata: { type: 'object', properties: { name: { type: 'string' } }, [OPEN]: true },
      spec: kgatewaySpecSchema,
      status: kgatewayStatusSchema,
    },
    {
      description:
        "KgatewayHA declares the high-availability settings of one kgateway install (Gloo OSS's successor): its controller's replicas, leader election, PodDisruptionBudget, anti-affinity and topology spread.",
    },
  ),
);
