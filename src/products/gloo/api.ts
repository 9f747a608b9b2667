// The GlooHA kind of the glooha.io API: its names, how kubectl lists it, its schema and rule table
// (src/api/kind.ts), and the names of Gloo's own that its settings are written into.
import { crdNameOf, type ApiKind, type PrinterColumn } from '../../api/kind.js';
import { GLOO_RULES } from './rules.js';
import { glooHASchema } from './schema.js';

export const KIND = 'GlooHA';
export const LIST_KIND = 'GlooHAList';
export const PLURAL = 'gloohas';
export const SINGULAR = 'glooha';
export const SHORT_NAMES = ['gha'] as const;

/** Gloo's Lease: `gloo` in the gloo pod's namespace (projects/gloo/pkg/bootstrap/leaderelector/kube). */
export const GLOO_LEASE_NAME = 'gloo';
/** The container in the gloo Deployment that reads the leader-election env vars. */
export const GLOO_CONTAINER = 'gloo';

/** Env vars Gloo's kube election factory reads; a value that fails time.ParseDuration falls back silently. */
export const ENV_LEASE_DURATION = 'LEADER_ELECTION_LEASE_DURATION';
export const ENV_RENEW_PERIOD = 'LEADER_ELECTION_RENEW_PERIOD';
export const ENV_RETRY_PERIOD = 'LEADER_ELECTION_RETRY_PERIOD';
/** Set by the chart's `gloo.disableLeaderElection` on the gloo container. */
export const ENV_DISABLE_LEADER_ELECTION = 'DISABLE_LEADER_ELECTION';

/** `kubectl get gha` shows priority 0; `-o wide` adds the rest. */
export const PRINTER_COLUMNS: readonly PrinterColumn[] = [
  {
    name: 'Ready',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    description: 'The Ready condition.',
  },
  {
    name: 'Gloo',
    type: 'integer',
    jsonPath: '.status.components.gloo.readyReplicas',
    description: 'Ready gloo control-plane replicas.',
  },
  {
    name: 'Leader',
    type: 'string',
    jsonPath: '.status.leader.holder',
    description: "Holder of Gloo's gloo Lease.",
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since creation.' },
  {
    name: 'Desired',
    type: 'integer',
    jsonPath: '.status.components.gloo.desiredReplicas',
    description: 'Gloo replicas glooha keeps.',
    priority: 1,
  },
  {
    name: 'Fresh',
    type: 'boolean',
    jsonPath: '.status.leader.fresh',
    description: 'Whether the leader renewed the Lease in time.',
    priority: 1,
  },
  {
    name: 'Drift',
    type: 'string',
    jsonPath: '.spec.driftPolicy',
    description: 'enforce, warn or ignore.',
    priority: 1,
  },
  {
    name: 'Reason',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
    description: 'Reason of the Ready condition.',
    priority: 1,
  },
  {
    name: 'Message',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].message',
    description: 'Message of the Ready condition.',
    priority: 1,
  },
];

export const GLOO_API: ApiKind = {
  kind: KIND,
  listKind: LIST_KIND,
  plural: PLURAL,
  singular: SINGULAR,
  shortNames: SHORT_NAMES,
  // `kubectl get gloo` lists GlooHAs with Gloo's own resources; not `all`, which Kubernetes
  // reserves for workloads (a GlooHA in `kubectl get all` reads as something that runs).
  categories: ['gloo'],
  printerColumns: PRINTER_COLUMNS,
  schema: glooHASchema,
  rules: GLOO_RULES,
};

export const CRD_NAME = crdNameOf(GLOO_API);
