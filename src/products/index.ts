// The products the operator serves (registered.ts lists them) and what follows from the list: the only
// place the engine's users (the operator's entry point, the CLI, the chart's generated parts) learn which
// exist.
import { ENGINE_PERMISSIONS, type Permission } from '../controller/permissions.js';
import type { Rule } from '../api/rules.js';
import { PRODUCTS } from './registered.js';

export { PRODUCTS };

/** Every product's rules, each once (the rules of shared definitions sit in more than one table). */
export const RULES: readonly Rule[] = [...new Set(PRODUCTS.flatMap((p) => p.api.rules))];

/**
 * The operator's Kubernetes API use in every namespace it reconciles: every (API group, resource,
 * verb) the reconcilers call, and nothing else — the engine's own and each product's. Read by
 * `glooha check` (which asks the API server whether the operator's ServiceAccount may do each) and by
 * the chart's tests (the rendered (Cluster)Roles must grant exactly this: test/unit/chart/expected-rbac.ts).
 * The products' part reaches the chart generated (scripts/gen-chart-parts.ts → templates/_products.tpl);
 * change the engine's together with charts/glooha-operator/templates/_helpers.tpl and the chart README's table.
 */
export const RECONCILER_PERMISSIONS: readonly Permission[] = [
  ...ENGINE_PERMISSIONS,
  ...PRODUCTS.flatMap((p) => p.permissions),
];
