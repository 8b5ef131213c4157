import { defineConfig } from 'vitest/config';

/** `npm run test:emulator`: the product on the real Baileys socket against the wire-level emulator (wa-emulator/). */
export default defineConfig({
  test: {
    include: ['test/emulator/**/*.test.ts'],
    globalSetup: ['test/emulator/support/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
