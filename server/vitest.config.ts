import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/reliability/**', 'test/emulator/**'],
    globalSetup: ['test/test-templates.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // The two workers run file after file, each keeping the modules it imported: isolated, every
    // file imported the server's module graph again (about 2 s of CPU a file, 95 files). Each
    // file makes its own apps and databases and closes them; fake timers are put back after use.
    isolate: false,
  },
});
