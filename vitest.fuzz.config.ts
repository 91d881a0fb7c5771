import { defineConfig } from 'vitest/config';

/** `npm run test:fuzz`: the 10,000-case fuzz (FUZZ_RUNS, FUZZ_SEED), kept out of `npm test`. */
export default defineConfig({
  test: {
    include: ['test/fuzz/**/*.fuzz.ts'],
    testTimeout: 15 * 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
  },
});
