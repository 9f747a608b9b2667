// The CustomResourceDefinition of a kind, built from its description (kind.ts): its schema and its
// rule table. scripts/gen-crd.ts writes each product's to crds/; `npm run gen:crd -- --check` fails
// when one is stale.

import { GROUP, VERSION } from './constants.js';
import { crdNameOf, type ApiKind } from './kind.js';
import { emitSchema } from './openapi.js';
import { celRulesFor } from './rules.js';

export function buildCrd(api: ApiKind): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: crdNameOf(api),
      labels: { 'app.kubernetes.io/name': 'glooha-operator', 'app.kubernetes.io/part-of': 'glooha-operator' },
    },
    spec: {
      group: GROUP,
      names: {
        kind: api.kind,
        listKind: api.listKind,
        plural: api.plural,
        singular: api.singular,
        shortNames: [...api.shortNames],
        categories: [...api.categories],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: api.printerColumns,
          schema: { openAPIV3Schema: emitSchema(api.schema, (defName) => celRulesFor(api.rules, defName)) },
        },
      ],
    },
  };
}
