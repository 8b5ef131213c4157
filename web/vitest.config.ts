import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test-setup.ts'],
    maxWorkers: 2,
    // CI runs these beside the browser suite, at a load of 6-8 on two cores, where one test's
    // role queries over a Mantine table (jsdom computes each row's accessible name) took 5.3 s
    // against vitest's default limit of 5 s. A hang still fails, at 30 s.
    testTimeout: 30_000,
  },
});
