// The KgatewayHA kind of the glooha.io API: its names, how kubectl lists it, its schema and rule
// table (src/api/kind.ts).
import { crdNameOf, type ApiKind, type PrinterColumn } from '../../api/kind.js';
import { PRINTER_COLUMNS } from '../gloo/api.js';
import { KGATEWAY_RULES } from './rules.js';
import { kgatewayHASchema } from './schema.js';

/** The HA settings of one kgateway install (Gloo OSS's successor). */
export const KGATEWAY_KIND = 'KgatewayHA';
export const KGATEWAY_LIST_KIND = 'KgatewayHAList';
export const KGATEWAY_PLURAL = 'kgatewayhas';
export const KGATEWAY_SINGULAR = 'kgatewayha';
export const KGATEWAY_SHORT_NAMES = ['kha'] as const;

/** `kubectl get kha` shows priority 0; `-o wide` adds the rest. */
export const KGATEWAY_PRINTER_COLUMNS: readonly PrinterColumn[] = PRINTER_COLUMNS.map((c) =>
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

export const KGATEWAY_API: ApiKind = {
  kind: KGATEWAY_KIND,
  listKind: KGATEWAY_LIST_KIND,
  plural: KGATEWAY_PLURAL,
  singular: KGATEWAY_SINGULAR,
  shortNames: KGATEWAY_SHORT_NAMES,
  // kgateway's own CRDs carry the category kgateway (`kubectl get kgateway`).
  categories: ['kgateway'],
  printerColumns: KGATEWAY_PRINTER_COLUMNS,
  schema: kgatewayHASchema,
  rules: KGATEWAY_RULES,
};

export const KGATEWAY_CRD_NAME = crdNameOf(KGATEWAY_API);
