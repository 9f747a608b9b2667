// The CLI's one door to the product registry: every other file of src/cli asks this module which
// products there are, and names none (test/unit/engine/names-no-product.test.ts). Like src/main.ts for
// the operator, it is where the generic code meets the products; the check exempts it by name.
import type { CliProduct, ProductCommand } from './product.js';
import { CLI_PRODUCTS } from '../products/cli.js';
import { renderCommand } from './render.js';
import { RECONCILER_PERMISSIONS } from '../products/index.js';

export { CLI_PRODUCTS, RECONCILER_PERMISSIONS };

/** The product whose kind is `kind`. */
export const productOfKind = (kind: string): CliProduct | undefined =>
  CLI_PRODUCTS.find((p) => p.api.kind === kind);

/** `glooha render` (over every product that renders) and the products' own commands, in the registry's order. */
export const PRODUCT_COMMANDS: readonly ProductCommand[] = [
  renderCommand(CLI_PRODUCTS),
  ...CLI_PRODUCTS.flatMap((p) => p.commands),
];
