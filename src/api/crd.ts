// The GlooHA CustomResourceDefinition, built from the schema and the rule table. scripts/gen-crd.ts
// writes it to crds/glooha.io_gloohas.yaml; `npm run gen:crd -- --check` fails when that file is stale.

import { CRD_NAME, GROUP, KIND, LIST_KIND, PLURAL, SHORT_NAMES, SINGULAR, VERSION } from './constants.js';
import { emitSchema } from './openapi.js';
import { celRulesFor } from './rules.js';
import { glooHASchema } from './schema.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'boolean' | 'date' | 'number';
  jsonPath: string;
  description: string;
  priority?: number;
}

/** `kubectl get gha` shows priority 0; `-o wide` adds the rest. */
export const PRINTER_COLUMNS: PrinterColumn[] = [
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

export function buildCrd(): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: CRD_NAME,
      labels: { 'app.kubernetes.io/name': 'glooha-operator', 'app.kubernetes.io/part-of': 'glooha-operator' },
    },
    spec: {
      group: GROUP,
      names: {
        kind: KIND,
        listKind: LIST_KIND,
        plural: PLURAL,
        singular: SINGULAR,
        shortNames: [...SHORT_NAMES],
        // `kubectl get gloo` lists GlooHAs with Gloo's own resources; not `all`, which Kubernetes
        // reserves for workloads (a GlooHA in `kubectl get all` reads as something that runs).
        categories: ['gloo'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: PRINTER_COLUMNS,
          schema: { openAPIV3Schema: emitSchema(glooHASchema, celRulesFor) },
        },
      ],
    },
  };
}
