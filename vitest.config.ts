import { defineConfig } from 'vitest/config';

// The lanes, each a set of projects named after what it needs (test/env/binaries.ts LANE_NEEDS; each
// project's GLOOHA_LANE makes a test that reaches for more fail at once, naming its lane):
//  - unit: pure TypeScript. No Go, no control plane, no network.
//  - charts: Helm 4 and 3 and the products' charts (build-helm.sh, build-kgateway.sh without
//    --controller): the unit-level tests that render or package a chart or run helm.
//  - integration: the test control plane (build-testbin.sh), one per `vitest run` (global setup):
//     - integration-helm: helm-coexistence and the docs' Helm commands, Helm installs and upgrades of
//       Gloo's chart (~200 s, mostly waiting on the API server and kwok);
//     - integration: every other file that neither measures time nor runs a product's controller;
//     - integration-timing, integration-timing-ha: the files that measure failover, fencing windows,
//       lease expiry and steady-state request counts, which CPU-bound lanes beside them would distort;
//       operator-ha (its operators as processes) in a lane of its own.
//  - products: the products' real controllers (build-kgateway.sh --controller, build-gloo.sh):
//     - products: kgateway's controller under the operator;
//     - products-timing-kgateway, products-timing-gloo: the files that time a product's leader handover,
//       one lane per product, beside the integration-timing lanes.
// scripts/test-lanes.ts runs them (npm test: all; --only <lane>). Within each project the files run
// one at a time: they share its control plane.
const CHARTS = [
  'chart/chart',
  'chart/floor-coverage',
  'chart/observability',
  'chart/products-parts',
  'chart/release',
  'chart/sync',
  'cli/cli',
  'kgateway/controller-values',
  'kgateway/migrate',
].map((f) => `test/unit/${f}.test.ts`);
// The timing files in two lanes side by side, a control plane each: operator-ha's processes alone, the others.
const TIMING_HA = ['test/integration/operator-ha.test.ts'];
const TIMING = ['leader-election', 'fencing', 'api-requests'].map((f) => `test/integration/${f}.test.ts`);
const HELM = ['test/integration/helm-coexistence.test.ts', 'test/integration/docs-helm-commands.test.ts'];
const PRODUCTS = [
  'kgateway-ha',
  'kgateway-autoscale',
  'kgateway-controller-autoscale',
  'kgateway-upgrade',
].map((f) => `test/integration/${f}.test.ts`);
// A product's handover, and its controller's own timing file, per product: two lanes side by side.
const PRODUCTS_TIMING_KGATEWAY = ['product-handover-kgateway', 'kgateway-controller'].map(
  (f) => `test/integration/${f}.test.ts`,
);
const PRODUCTS_TIMING_GLOO = ['product-handover-gloo', 'gloo-controller'].map(
  (f) => `test/integration/${f}.test.ts`,
);

const integration = (name: string, lane: string, include: string[], exclude: string[] = []) => ({
  test: {
    name,
    include,
    exclude,
    env: { GLOOHA_LANE: lane },
    globalSetup: ['test/env/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: CHARTS,
          env: { GLOOHA_LANE: 'unit' },
          // Some unit tests spawn the CLI (tsx); beside the integration lanes (npm test) they take several
          // times as long as alone.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'charts',
          include: CHARTS,
          env: { GLOOHA_LANE: 'charts' },
          // These spawn helm or the CLI; beside two integration lanes (npm test) they take several
          // times as long as alone (a chart test: 0.7 s alone, 4–10 s beside them).
          testTimeout: 30_000,
        },
      },
      integration(
        'integration',
        'integration',
        ['test/integration/**/*.test.ts'],
        [...TIMING, ...TIMING_HA, ...HELM, ...PRODUCTS, ...PRODUCTS_TIMING_KGATEWAY, ...PRODUCTS_TIMING_GLOO],
      ),
      integration('integration-helm', 'integration', HELM),
      integration('integration-timing', 'integration', TIMING),
      integration('integration-timing-ha', 'integration', TIMING_HA),
      integration('products', 'products', PRODUCTS),
      integration('products-timing-kgateway', 'products', PRODUCTS_TIMING_KGATEWAY),
      integration('products-timing-gloo', 'products', PRODUCTS_TIMING_GLOO),
    ],
  },
});
