// The registration lines: the products the operator serves, in the registry's order. A new product is
// a folder beside these and one line here (and its CLI line in cli.ts); everything else (the operator's
// entry point, the CLI, the chart's generated parts, the CRDs) reads this list through index.ts. Its
// own module so that a test can register a product of its own here and nowhere else
// (test/integration/third-product.test.ts registers test/fixtures/products/widget/).
import type { Product } from '../controller/product.js';
import { GLOO } from './gloo/index.js';
import { KGATEWAY } from './kgateway/index.js';

export const PRODUCTS: readonly Product[] = [GLOO, KGATEWAY];
