// The products the `glooha` CLI serves, in the registry's order (src/products/registered.ts): what the CLI
// asks of each (src/cli/product.ts). Apart from the operator's list so that the operator does not load
// the CLI's commands. A new product adds its line here too.
import type { CliProduct } from '../cli/product.js';
import { GLOO_CLI } from './gloo/cli.js';
import { KGATEWAY_CLI } from './kgateway/cli.js';

export const CLI_PRODUCTS: readonly CliProduct[] = [GLOO_CLI, KGATEWAY_CLI];
