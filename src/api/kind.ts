// One kind of the glooha.io API as a product describes it (src/products/<product>/api.ts): its names,
// its schema and rule table, how kubectl lists it. The CRD (crd.ts) and the validator (validate.ts)
// are built from it alone, so a new product's kind needs no change here.
import { GROUP } from './constants.js';
import type { Schema } from './openapi.js';
import type { Rule } from './rules.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'boolean' | 'date' | 'number';
  jsonPath: string;
  description: string;
  priority?: number;
}

export interface ApiKind {
  kind: string;
  listKind: string;
  /** Its resource; with the API group, the CRD's name. */
  plural: string;
  singular: string;
  shortNames: readonly string[];
  /** kubectl's categories (`kubectl get <category>` lists the kind with the others in it). */
  categories: readonly string[];
  /** `kubectl get` shows priority 0; `-o wide` adds the rest. */
  printerColumns: readonly PrinterColumn[];
  /** The whole object's schema (apiVersion, kind, metadata, spec, status). */
  schema: Schema;
  /** Its rule table: every rule on a definition of `schema`. */
  rules: readonly Rule[];
}

/** The name of the kind's CustomResourceDefinition: `<plural>.<group>`. */
export const crdNameOf = (api: ApiKind): string => `${api.plural}.${GROUP}`;
