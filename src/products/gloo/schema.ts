// The GlooHA OpenAPI schema: the single definition of field names, types, bounds and defaults. The
// CRD generator emits it (with the CEL rules from rules.ts attached by definition name) and the
// TypeScript validator walks the same object, so `glooha render` and the API server agree.
//
// Bounds (maxLength, maxItems, maxProperties) are there for the API server's CEL cost estimator as
// much as for users: without them a rule over a list or string is costed at the request size limit.

import { DURATION_MAX_LENGTH } from '../../api/duration.js';
import { QUALIFIED_NAME, QUALIFIED_NAME_MAX_LENGTH } from '../../api/names.js';
import {
  OPEN,
  array,
  boolean,
  def,
  integer,
  intOrString,
  map,
  object,
  string,
  type Schema,
} from '../../api/openapi.js';

export const DEFAULTS = {
  glooReplicas: 2,
  discoveryReplicas: 1,
  leaderElection: { enabled: true, leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '2s' },
  antiAffinity: 'preferred',
  driftPolicy: 'enforce',
} as const;

export const MAX_GATEWAY_PROXIES = 16;

/**
 * driftPolicy values. None is a YAML 1.1 boolean word (y/n/yes/no/on/off/true/false): kubectl and
 * Helm read YAML 1.1, so an unquoted `off` reaches the API server as the boolean false.
 */
export const DRIFT_POLICIES = ['enforce', 'warn', 'ignore'] as const;
export const MAX_TOPOLOGY_SPREAD_CONSTRAINTS = 8;

export const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
export const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

const labelMap = (description: string) => map(string({ maxLength: 63 }), { description, maxProperties: 16 });

const labelSelector = (description: string) =>
  object(
    {
      matchLabels: labelMap('Labels the selected objects must have, all of them.'),
      matchExpressions: array(
        def(
          'LabelSelectorRequirement',
          object(
            {
              key: string({ description: 'The label key the requirement applies to.', maxLength: 317 }),
              operator: string({
                description: "How the key's value relates to values: In, NotIn, Exists or DoesNotExist.",
                enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'],
              }),
              values: array(string({ maxLength: 63 }), {
                description: 'Label values: non-empty for In and NotIn, empty for Exists and DoesNotExist.',
                maxItems: 16,
              }),
            },
            { required: ['key', 'operator'] },
          ),
        ),
        {
          description:
            'Label requirements the selected objects must meet, all of them (ANDed with matchLabels).',
          maxItems: 16,
        },
      ),
    },
    { description, 'x-kubernetes-map-type': 'atomic' },
  );

const target = object(
  {
    namespace: string({
      description: "Namespace of the Gloo install. Defaults to the GlooHA's own namespace.",
      maxLength: 63,
      pattern: DNS_LABEL,
    }),
    selector: labelSelector(
      "Only Deployments, HPAs and PDBs matching this selector belong to the install; for a namespace that holds several installs. Gloo's chart labels its Deployments gloo=gloo, gloo=discovery and gloo=gateway-proxy.",
    ),
    helmRelease: string({
      description:
        'Only objects of this Helm release belong to the install (matched on the meta.helm.sh/release-name annotation Helm 3 sets).',
      maxLength: 53,
      pattern: DNS_LABEL,
    }),
  },
  { description: 'Which Gloo install this GlooHA manages.' },
);

const duration = (description: string, dflt: string) =>
  string({
    description: `${description} A Go duration with units h, m, s or ms, such as 15s, 1m30s or 500ms. Default ${dflt}.`,
    maxLength: DURATION_MAX_LENGTH,
    default: dflt,
  });

const leaderElection = def(
  'LeaderElection',
  object(
    {
      enabled: boolean({
        description:
          'Leader election among gloo replicas (one leader writes statuses). Default true. Disabling it requires replicas: 1.',
        default: DEFAULTS.leaderElection.enabled,
      }),
      leaseDuration: duration(
        'How long a non-leader waits after the last renewal before taking over the Lease (LEADER_ELECTION_LEASE_DURATION).',
        DEFAULTS.leaderElection.leaseDuration,
      ),
      renewDeadline: duration(
        'How long the leader keeps retrying to renew before it gives up leadership (LEADER_ELECTION_RENEW_PERIOD).',
        DEFAULTS.leaderElection.renewDeadline,
      ),
      retryPeriod: duration(
        'How often candidates retry acquiring or renewing (LEADER_ELECTION_RETRY_PERIOD).',
        DEFAULTS.leaderElection.retryPeriod,
      ),
    },
    {
      description:
        'Timings of the gloo Lease, written to the gloo container as LEADER_ELECTION_* env vars. client-go requires leaseDuration > renewDeadline > 1.2 × retryPeriod.',
      default: {},
    },
  ),
);

export const podDisruptionBudget = def(
  'PodDisruptionBudget',
  object(
    {
      minAvailable: intOrString({
        description:
          'Pods that must stay available during voluntary disruptions: an integer or a percentage such as 50%.',
        maxLength: 4,
      }),
      maxUnavailable: intOrString({
        description:
          'Pods that may be unavailable during voluntary disruptions: an integer or a percentage such as 25%.',
        maxLength: 4,
      }),
    },
    {
      description:
        'The PodDisruptionBudget for the component: exactly one of minAvailable or maxUnavailable. Default maxUnavailable: 1 when the component runs more than one replica; none for a single replica.',
    },
  ),
);

export const antiAffinity = string({
  description:
    "Pod anti-affinity across nodes (kubernetes.io/hostname) among the component's own pods: none, preferred (scheduler spreads when it can) or required (never two on one node; pods stay Pending when nodes run out). Default preferred.",
  enum: ['none', 'preferred', 'required'],
  default: DEFAULTS.antiAffinity,
});

export const topologySpreadConstraints = array(
  def(
    'TopologySpreadConstraint',
    object(
      {
        maxSkew: integer({
          description: 'Maximum difference in pod count between topology domains.',
          minimum: 1,
        }),
        topologyKey: string({
          description: 'Node label that defines a domain, e.g. topology.kubernetes.io/zone.',
          maxLength: QUALIFIED_NAME_MAX_LENGTH,
          pattern: QUALIFIED_NAME,
        }),
        whenUnsatisfiable: string({
          description:
            'What the scheduler does with a pod that would break maxSkew: DoNotSchedule (leave it Pending) or ScheduleAnyway (prefer less skew).',
          enum: ['DoNotSchedule', 'ScheduleAnyway'],
        }),
        minDomains: integer({
          description:
            'Minimum number of eligible domains; fewer count as having zero matching pods. Only with whenUnsatisfiable: DoNotSchedule.',
          minimum: 1,
        }),
        nodeAffinityPolicy: string({
          description:
            "Whether the pod's nodeAffinity and nodeSelector limit the nodes counted: Honor (default) or Ignore.",
          enum: ['Honor', 'Ignore'],
        }),
        nodeTaintsPolicy: string({
          description: 'Whether node taints limit the nodes counted: Honor or Ignore (default).',
          enum: ['Honor', 'Ignore'],
        }),
        matchLabelKeys: array(string({ maxLength: QUALIFIED_NAME_MAX_LENGTH, pattern: QUALIFIED_NAME }), {
          description:
            "Pod label keys whose values further narrow the pods counted (e.g. pod-template-hash); not a key of the Deployment's selector (gloo, gateway-proxy-id in Gloo's chart).",
          maxItems: 8,
          'x-kubernetes-list-type': 'atomic',
        }),
      },
      { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] },
    ),
  ),
  {
    description:
      "Topology spread constraints for the component's pods; glooha fills in the labelSelector from the Deployment's own selector.",
    maxItems: 8,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['topologyKey', 'whenUnsatisfiable'],
  },
);

const gloo = def(
  'Gloo',
  object(
    {
      replicas: integer({
        description: `Replicas of the gloo control plane (at least 1; more than 1 needs leader election). Default ${DEFAULTS.glooReplicas}.`,
        default: DEFAULTS.glooReplicas,
      }),
      leaderElection,
      podDisruptionBudget,
      antiAffinity,
      topologySpreadConstraints,
    },
    { description: 'The gloo control-plane Deployment (label gloo=gloo).', default: {} },
  ),
);

const discovery = def(
  'Discovery',
  object(
    {
      replicas: integer({
        description: `Replicas of discovery (UDS/FDS): 0 or 1. Discovery has no leader election, so it cannot run more than one. Default ${DEFAULTS.discoveryReplicas}.`,
        default: DEFAULTS.discoveryReplicas,
      }),
    },
    { description: 'The discovery Deployment (label gloo=discovery). Omit it to leave discovery alone.' },
  ),
);

export const autoscaling = def(
  'Autoscaling',
  object(
    {
      minReplicas: integer({ description: 'Lower bound of the HorizontalPodAutoscaler (at least 1).' }),
      maxReplicas: integer({ description: 'Upper bound of the HorizontalPodAutoscaler.' }),
    },
    {
      description:
        "Autoscaled replicas: glooha sets minReplicas/maxReplicas on the HPA that targets the proxy (creating one at 80% CPU when none exists) and leaves the Deployment's replicas to it.",
      required: ['minReplicas', 'maxReplicas'],
    },
  ),
);

const gatewayProxy = def(
  'GatewayProxy',
  object(
    {
      deploymentName: string({
        description:
          "The proxy's Deployment. Default: the kebab-case of the key, as Gloo's chart names it (gatewayProxy → gateway-proxy).",
        maxLength: 240,
        pattern: DNS_SUBDOMAIN,
      }),
      replicas: integer({ description: 'Fixed replicas (at least 1). Set this or autoscaling.' }),
      autoscaling,
      podDisruptionBudget,
      antiAffinity,
      topologySpreadConstraints,
    },
    { description: 'One gateway proxy (Envoy) Deployment.' },
  ),
);

const gatewayProxies = def(
  'GatewayProxies',
  map(gatewayProxy, {
    description:
      "Gateway proxies keyed by their name under gatewayProxies in Gloo's Helm values (e.g. gatewayProxy). Proxies not listed are left alone.",
    maxProperties: MAX_GATEWAY_PROXIES,
  }),
);

export const driftPolicySchema = string({
  description:
    'What to do when someone changes a managed field: enforce (revert it), warn (report it in the Drifted condition only) or ignore. Default enforce.',
  enum: [...DRIFT_POLICIES],
  default: DEFAULTS.driftPolicy,
});

export const suspendSchema = boolean({
  description:
    'While true the operator writes nothing to the install (no applies, prunes or events) and only reports in status what it would change, drift included. Set it back to false (or remove it) to resume. Default false.',
});

export const specSchema: Schema = object(
  {
    target,
    gloo,
    discovery,
    gatewayProxies,
    driftPolicy: driftPolicySchema,
    suspend: suspendSchema,
  },
  { description: 'High-availability settings for one Gloo install.', default: {} },
);

export const time = (description: string) => string({ description, format: 'date-time' });

/** The status of a GlooHA no operator has reconciled yet (the CRD's default; see statusSchema). */
export const UNRECONCILED_STATUS = {
  observedGeneration: 0,
  conditions: [
    {
      type: 'Ready',
      status: 'Unknown',
      reason: 'Pending',
      message:
        'waiting for glooha-operator to reconcile this GlooHA; if this stays, check that the operator runs and watches this namespace (watchNamespaces)',
      lastTransitionTime: '1970-01-01T00:00:00Z',
    },
  ],
} as const;

export const condition = object(
  {
    type: string({
      description: 'Ready, Reconciling, Stalled, Drifted or Degraded (see docs/health.md).',
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    }),
    status: string({ description: 'True, False or Unknown.', enum: ['True', 'False', 'Unknown'] }),
    observedGeneration: integer({
      description: 'The metadata.generation the condition was set from.',
      format: 'int64',
      minimum: 0,
    }),
    lastTransitionTime: time('When the condition last changed status.'),
    reason: string({
      description: 'CamelCase cause of the current status, e.g. Reconciled, TargetNotFound, Suspended.',
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    }),
    message: string({
      description: 'What a person should know, and do, about the condition.',
      maxLength: 32768,
    }),
  },
  { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
);

const pdbStatus = object(
  {
    name: string({ description: "The PodDisruptionBudget's name, in the install's namespace." }),
    owned: boolean({
      description: "True when the PDB is glooha's; false when an existing one (e.g. the chart's) stands in.",
    }),
    minAvailable: intOrString({ description: 'The minAvailable the PDB has (set by glooha, or found).' }),
    maxUnavailable: intOrString({ description: 'The maxUnavailable the PDB has (set by glooha, or found).' }),
    currentHealthy: integer({ description: "The PDB's status.currentHealthy: pods healthy now." }),
    desiredHealthy: integer({ description: "The PDB's status.desiredHealthy: pods that must stay healthy." }),
    disruptionsAllowed: integer({
      description: "The PDB's status.disruptionsAllowed: evictions allowed now (0 blocks node drains).",
    }),
  },
  {
    description: 'The PodDisruptionBudget that protects the component, as last observed.',
    required: ['name'],
  },
);

export const componentStatus = (description: string) =>
  object(
    {
      deploymentName: string({ description: "The component's Deployment, in the install's namespace." }),
      desiredReplicas: integer({
        description: 'Replicas glooha wants (the HPA minimum for an autoscaled proxy).',
      }),
      replicas: integer({ description: "The Deployment's status.replicas: pods it runs, of any template." }),
      readyReplicas: integer({ description: "The Deployment's status.readyReplicas." }),
      availableReplicas: integer({
        description: "The Deployment's status.availableReplicas (ready for minReadySeconds).",
      }),
      autoscaling: object(
        {
          hpaName: string({ description: 'The HorizontalPodAutoscaler that scales the Deployment.' }),
          minReplicas: integer({ description: 'The minReplicas glooha keeps on it.' }),
          maxReplicas: integer({ description: 'The maxReplicas glooha keeps on it.' }),
          currentReplicas: integer({ description: "The HPA's status.currentReplicas." }),
        },
        {
          description: 'The HorizontalPodAutoscaler of an autoscaled component.',
          required: ['hpaName', 'minReplicas', 'maxReplicas'],
        },
      ),
      podDisruptionBudget: pdbStatus,
    },
    { description },
  );

/** The conditions list of either kind's status. */
export const conditionsSchema = array(condition, {
  description: 'Ready (summary), Reconciling, Stalled, Drifted, Degraded.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  maxItems: 16,
});

/** A product's current leader, from its Lease: `what` names the Lease and its holder. */
export const leaderStatusSchema = (what: { lease: string; holder: string; product: string }) =>
  object(
    {
      holder: string({
        description: `holderIdentity of the ${what.lease} Lease (${what.holder}); empty when nobody holds it.`,
      }),
      fresh: boolean({
        description: 'Whether the Lease was renewed within leaseDuration, as the operator observed it.',
      }),
      acquireTime: time('acquireTime of the Lease.'),
      leaseDurationSeconds: integer({ description: "The Lease's spec.leaseDurationSeconds." }),
      leaseTransitions: integer({
        description: "The Lease's spec.leaseTransitions: leader changes so far.",
      }),
      lastTransitionTime: time('When the operator last saw the holder change.'),
    },
    { description: `${what.product}'s current leader, from the ${what.lease} Lease.` },
  );

/** HA findings of either kind's status. */
export const warningsSchema = (components: string) =>
  array(
    object(
      {
        code: string({ description: 'CamelCase identifier, e.g. SingleReplica.' }),
        message: string({ description: 'The weakness and how to fix it.' }),
        component: string({ description: `${components}, when it is about one.` }),
        path: string({ description: 'The spec field it is about, when there is one.' }),
      },
      { required: ['code', 'message'] },
    ),
    { description: 'HA findings that are not errors (single replica, no PDB, ...).', maxItems: 64 },
  );

export const lastHandledReconcileAtSchema = string({
  description:
    'The value of the glooha.io/reconcile-requested-at annotation the operator last handled: set the annotation to a new value (e.g. `date +%s`) and wait for this field to show it.',
});

export const statusSchema: Schema = object(
  {
    observedGeneration: integer({
      format: 'int64',
      description:
        'The metadata.generation this status describes; 0 until glooha-operator first reconciles the GlooHA (operator not running, or not watching this namespace).',
      default: 0,
    }),
    conditions: conditionsSchema,
    components: object(
      {
        gloo: componentStatus('The gloo control plane, as last observed.'),
        discovery: componentStatus('Discovery, as last observed (only when spec.discovery is set).'),
        gatewayProxies: map(componentStatus('One gateway proxy, as last observed.'), {
          description: 'The gateway proxies of spec.gatewayProxies, by the same keys.',
        }),
      },
      { description: 'Replicas, autoscaler and disruption budget of each managed component.' },
    ),
    leader: leaderStatusSchema({ lease: 'gloo', holder: "a gloo pod's name", product: 'Gloo' }),
    warnings: warningsSchema('gloo, discovery or gatewayProxies.<key>'),
    helmValuesConfigMap: string({
      description: "ConfigMap holding the equivalent Helm values for Gloo's chart (key values.yaml).",
    }),
    lastHandledReconcileAt: lastHandledReconcileAtSchema,
  },
  // The API server applies defaults on every read, so a GlooHA no operator has written (operator
  // down, namespace not watched) reads observedGeneration 0 < generation — in progress for kstatus
  // (Flux, kpt) and Argo CD, never a healthy-looking empty status — and `kubectl get gha` shows
  // Ready Unknown with the reason. Gateway API's CRDs default their status the same way.
  { description: 'Observed state, written by glooha-operator.', default: UNRECONCILED_STATUS },
);

export const glooHASchema: Schema = def(
  'GlooHA',
  object(
    {
      apiVersion: string({
        description: 'The versioned schema of this representation of an object: glooha.io/v1alpha1.',
      }),
      kind: string({ description: 'The REST resource this object represents: GlooHA.' }),
      // A CRD may only constrain metadata.name and generateName; declaring name makes it a valid
      // fieldPath for the root rule that bounds its length.
      // The API server accepts nothing but name and generateName under metadata (no description
      // either); `kubectl explain gloohas.metadata` shows ObjectMeta's own documentation.
      metadata: { type: 'object', properties: { name: { type: 'string' } }, [OPEN]: true },
      spec: specSchema,
      status: statusSchema,
    },
    {
      description:
        'GlooHA declares the high-availability settings of one Gloo install: replicas, leader election, PodDisruptionBudgets, anti-affinity and autoscaling.',
    },
  ),
);
