import { defineConfig } from 'vitest/config';

// `unit` needs nothing. The integration files are split into three projects so that npm test
// (scripts/test-lanes.ts) can run the first two side by side, each in its own `vitest run` with its own
// control plane (test/env/global-setup.ts), and the third alone afterwards:
//  - integration-helm: helm-coexistence, Helm installs and upgrades of Gloo's chart (~200 s, mostly
//    waiting on the API server and kwok);
//  - integration: every other file that does not measure time;
//  - integration-timing: the files that measure failover (the operator's and kgateway's real
//    controller's), fencing windows, lease expiry and steady-state request counts, which parallel CPU
//    load would distort.
// Within each project the files run one at a time: they share its control plane.
const TIMING = [
  'operator-ha',
  'leader-election',
  'fencing',
  'api-requests',
  'kgateway-controller',
  'gloo-controller',
  'product-handover',
].map((f) => `test/integration/${f}.test.ts`);
const HELM = ['test/integration/helm-coexistence.test.ts', 'test/integration/docs-helm-commands.test.ts'];

const integration = (name: string, include: string[], exclude: string[] = []) => ({
  test: {
    name,
    include,
    exclude,
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
          // Some unit tests spawn helm or the CLI; beside two integration lanes (npm test) they take
          // several times as long as alone (a chart test: 0.7 s alone, 4–10 s beside them).
          testTimeout: 30_000,
        },
      },
      integration('integration', ['test/integration/**/*.test.ts'], [...TIMING, ...HELM]),
      integration('integration-helm', HELM),
      integration('integration-timing', TIMING),
    ],
  },
});
