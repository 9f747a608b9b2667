// The CustomResourceDefinitions of both kinds, built from their schemas and the one rule table.
// scripts/gen-crd.ts writes them to crds/glooha.io_gloohas.yaml and crds/glooha.io_kgatewayhas.yaml;
// `npm run gen:crd -- --check` fails when either file is stale.

import {
  CRD_NAME,
  GROUP,
  KGATEWAY_CRD_NAME,
  KGATEWAY_KIND,
  KGATEWAY_LIST_KIND,
  KGATEWAY_PLURAL,
  KGATEWAY_SHORT_NAMES,
  KGATEWAY_SINGULAR,
  KIND,
  LIST_KIND,
  PLURAL,
  SHORT_NAMES,
  SINGULAR,
  VERSION,
} from './constants.js';
import { kgatewayHASchema } from '../products/kgateway/schema.js';
import { emitSchema, type Schema } from './openapi.js';
import { celRulesFor } from './rules.js';
import { glooHASchema } from '../products/gloo/schema.js';

export type HAKind = typeof KIND | typeof KGATEWAY_KIND;

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

/** `kubectl get kha` shows priority 0; `-o wide` adds the rest. */
export const KGATEWAY_PRINTER_COLUMNS: PrinterColumn[] = PRINTER_COLUMNS.map((c) =>
  c.name === 'Gloo'
    ? {
        ...c,
        name: 'Controller',
        jsonPath: '.status.components.controller.readyReplicas',
        description: "Ready replicas of kgateway's controller.",
      }
    : c.name === 'Desired'
      ? {
          ...c,
          jsonPath: '.status.components.controller.desiredReplicas',
          description: 'Controller replicas glooha keeps.',
        }
      : c.name === 'Leader'
        ? { ...c, description: "Holder of kgateway's kgateway-envoy Lease." }
        : c,
);

interface KindNames {
  crdName: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  categories: string[];
  columns: PrinterColumn[];
  schema: Schema;
}

const KINDS: Record<HAKind, KindNames> = {
  GlooHA: {
    crdName: CRD_NAME,
    kind: KIND,
    listKind: LIST_KIND,
    plural: PLURAL,
    singular: SINGULAR,
    shortNames: SHORT_NAMES,
    // `kubectl get gloo` lists GlooHAs with Gloo's own resources; not `all`, which Kubernetes
    // reserves for workloads (a GlooHA in `kubectl get all` reads as something that runs).
    categories: ['gloo'],
    columns: PRINTER_COLUMNS,
    schema: glooHASchema,
  },
  KgatewayHA: {
    crdName: KGATEWAY_CRD_NAME,
    kind: KGATEWAY_KIND,
    listKind: KGATEWAY_LIST_KIND,
    plural: KGATEWAY_PLURAL,
    singular: KGATEWAY_SINGULAR,
    shortNames: KGATEWAY_SHORT_NAMES,
    // kgateway's own CRDs carry the category kgateway (`kubectl get kgateway`).
    categories: ['kgateway'],
    columns: KGATEWAY_PRINTER_COLUMNS,
    schema: kgatewayHASchema,
  },
};

export function buildCrd(kind: HAKind = KIND): Record<string, unknown> {
  const k = KINDS[kind];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: k.crdName,
      labels: { 'app.kubernetes.io/name': 'glooha-operator', 'app.kubernetes.io/part-of': 'glooha-operator' },
    },
    spec: {
      group: GROUP,
      names: {
        kind: k.kind,
        listKind: k.listKind,
        plural: k.plural,
        singular: k.singular,
        shortNames: [...k.shortNames],
        categories: k.categories,
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: k.columns,
          schema: { openAPIV3Schema: emitSchema(k.schema, celRulesFor) },
        },
      ],
    },
  };
}
