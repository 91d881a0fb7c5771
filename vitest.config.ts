import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Each worker keeps its imported modules across test files: importing viem, Fastify and the service
    // again for each of ~300 files cost ~10 of the suite's ~21 minutes on 2 cores. Tests share no module
    // state (each starts its own service, database and anvil).
    isolate: false,
  },
});
