import { defineConfig } from 'vitest/config';

/** `npm run test:reliability`: faults, races, hostile input; prints a table of figures at the end. */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    globalSetup: ['test/reliability/support/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
