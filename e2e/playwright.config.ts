import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

// Debian's chromium-headless-shell where it is installed (.ci/run installs it): the same Blink as
// its chromium, without the full browser under --headless. a11y.spec and shell.spec (32 tests):
// 114 s and 121 CPU-s with chromium, 89 s and 90 CPU-s with the shell (load 4-6).
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
export const CHROMIUM =
  process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) {
  const msg = `Chromium not found at ${CHROMIUM}: browser tests cannot run (apt-get install chromium).`;
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(msg);
  console.warn(`\n*** SKIPPING BROWSER TESTS *** ${msg}\n`);
}

const PORT = Number(process.env.E2E_PORT ?? 3100);
export const BASE_URL = `http://localhost:${PORT}`;
/** The fake Graph API (server/test/fakes/graph-api-main.ts) the product's Cloud API accounts talk to, and its control port. */
export const FAKE_GRAPH_PORT = PORT + 500;
export const FAKE_GRAPH_CONTROL_URL = `http://127.0.0.1:${PORT + 501}`;
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
  // Two workers, a spec file each (its tests in order): each test makes its own users, and much
  // of a test's time is waiting on the app. All 189 tests: one worker 11.4-12.1 min (625 CPU-s,
  // load 4-8), two 7.9 min (651 CPU-s, load 9-12 with an emulator suite beside). E2E_WORKERS=1
  // for a run in one line.
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
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
    ? [
        {
          command: 'npx tsx server/test/fakes/graph-api-main.ts',
          cwd: repoRoot,
          url: `${FAKE_GRAPH_CONTROL_URL}/`,
          timeout: 60_000,
          reuseExistingServer: false,
          stdout: 'ignore',
          stderr: 'pipe',
          env: { FAKE_GRAPH_PORT: String(FAKE_GRAPH_PORT), FAKE_GRAPH_CONTROL_PORT: String(PORT + 501) },
        },
        {
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
            // proxy.spec tests a proxy on this host (loopback): refused without it.
            ALLOW_PRIVATE_PROXIES: 'true',
            SEND_DELAY_MIN_MS: '0',
            SEND_DELAY_MAX_MS: '0',
            // The simulated phone scans 1 s after the QR is served (at 1 s): linked at about 2 s,
            // before the modal's first status poll at 3 s. At 2 s it linked just after that poll,
            // and each QR link waited for the next one (3 s more).
            SIMULATOR_LINK_AFTER_MS: '1000',
            SIMULATOR_SEND_LATENCY_MS: '20',
            // Account health is scored every 3 s (health.spec: the breaker pauses an account it can see).
            HEALTH_CHECK_MS: '3000',
            // A sent message with no delivery receipt is undelivered after 15 s, not a day
            // (delivery-truth.spec: the simulator's numbers ending 0001 never confirm delivery).
            UNDELIVERED_AFTER_MS: '15000',
            ADMIN_USERNAME: 'admin',
            ADMIN_PASSWORD: 'admin-e2e-password',
            LOGIN_RATE_LIMIT: '1000',
            LOGIN_IP_FAILURE_LIMIT: '100000',
            SIGNUP_ENABLED: 'true',
            LOG_LEVEL: 'warn',
            CLOUD_API_BASE_URL: `http://127.0.0.1:${FAKE_GRAPH_PORT}/v24.0`,
          },
        },
      ]
    : undefined,
});
