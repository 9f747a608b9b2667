import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs nothing; `integration` starts one real control plane per run
// (test/env/global-setup.ts) and runs its files one at a time, because they share that control plane
// and some of them measure timing (failover, lease expiry) that parallel CPU load would distort.
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/env/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
