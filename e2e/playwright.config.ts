import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) {
  const msg = `Chromium not found at ${CHROMIUM}: browser tests cannot run (apt-get install chromium).`;
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(msg);
  console.warn(`\n*** SKIPPING BROWSER TESTS *** ${msg}\n`);
}

const PORT = Number(process.env.E2E_PORT ?? 3100);
export const BASE_URL = `http://localhost:${PORT}`;
// Set once in the runner; workers evaluate this file again and inherit the same directories.
process.env.E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'wa-e2e-'));
const dataDir = process.env.E2E_DATA_DIR;
// Each run builds the web app into its own directory: runs in parallel (other ports) must not
// replace the files a running server is serving.
process.env.E2E_WEB_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'wa-e2e-web-'));
const webDir = process.env.E2E_WEB_DIR;
const repoRoot = path.resolve(import.meta.dirname, '..');

export default defineConfig({
  testDir: 'tests',
  testIgnore: hasChromium ? [] : ['**/*'],
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  outputDir: path.join(os.tmpdir(), PORT === 3100 ? 'wa-e2e-results' : `wa-e2e-results-${PORT}`),
  use: {
    baseURL: BASE_URL,
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: hasChromium
    ? {
        command: `npm run build -w web -- --outDir ${JSON.stringify(webDir)} --emptyOutDir && npx tsx server/src/main.ts`,
        cwd: repoRoot,
        url: `${BASE_URL}/api/docs/json`,
        timeout: 180_000,
        reuseExistingServer: false,
        stdout: 'ignore',
        stderr: 'pipe',
        env: {
          PORT: String(PORT),
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          WEB_DIST_DIR: webDir,
          WA_PROVIDER: 'simulator',
          SEND_DELAY_MIN_MS: '0',
          SEND_DELAY_MAX_MS: '0',
          SIMULATOR_LINK_AFTER_MS: '2000',
          SIMULATOR_SEND_LATENCY_MS: '20',
          ADMIN_USERNAME: 'admin',
          ADMIN_PASSWORD: 'admin-e2e-password',
          LOGIN_RATE_LIMIT: '1000',
          LOGIN_IP_FAILURE_LIMIT: '100000',
          SIGNUP_ENABLED: 'true',
          LOG_LEVEL: 'warn',
        },
      }
    : undefined,
});
