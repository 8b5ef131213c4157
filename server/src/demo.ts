import { type Config, loadConfig } from './config.ts';
import { loopbackUrl, pointDemoWebhook, startDemoGraphApi } from './demo/cloud-graph.ts';
import { DEMO_USERS, seedDemo } from './demo/seed.ts';
import { ConfigError } from './errors.ts';
import { startServer } from './server.ts';

/**
 * `npm run demo`: the real server on the simulated WhatsApp network, with its own embedded
 * database (DEMO_DATA_DIR, default ./data-demo — never the real data) and demo data seeded on
 * its first start. Its Cloud API account talks to a simulated Graph API on a loopback port
 * (demo/cloud-graph.ts): CLOUD_API_BASE_URL points there, never at Meta.
 */
let base: Config;
try {
  base = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
    process.exit(1);
  }
  throw err;
}

const config: Config = {
  ...base,
  waProvider: 'simulator',
  databaseUrl: undefined,
  dataDir: base.demoDataDir,
  demo: true,
  adminPassword: base.adminPassword ?? 'admin-demo-2026',
  // docs/decisions.md, Sending pace: the demo sends without the anti-ban pause.
  sendDelayMinMs: 0,
  sendDelayMaxMs: 0,
  // The demo runs on one's own machine: a receiver there (http://localhost:…) may be tried
  // (public names do not resolve here and private addresses were refused).
  allowPrivateWebhooks: true,
};

const graph = await startDemoGraphApi();
config.cloudApiBaseUrl = graph.baseUrl;
const server = await startServer(config);
// Meta POSTs the account's statuses to the product's webhook route (here, on this machine).
const webhookBase = loopbackUrl(server.app.server);
await pointDemoWebhook(server.ctx, graph, webhookBase);
const seeded = await seedDemo(server.ctx, { graph, webhookBase });
console.log(
  [
    '',
    '  DEMO MODE: messages go to a simulated WhatsApp network, not to real people.',
    `  Open ${server.url}`,
    `  Data: ${config.dataDir}${seeded ? ' (demo data created now)' : ' (existing demo data)'}`,
    '',
    '  Sign in as:',
    `    admin  username: ${config.adminUsername}  password: ${config.adminPassword}${server.admin || seeded ? '' : ' (unless changed)'}`,
    `    user   username: ${DEMO_USERS.shop.username}  password: ${DEMO_USERS.shop.password}  (multi-session, bulk messaging, a linked account and a Cloud API account)`,
    `    user   username: ${DEMO_USERS.small.username}  password: ${DEMO_USERS.small.password}  (single session, no bulk messaging, 20 credits)`,
    '',
  ].join('\n'),
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server
      .stop()
      .then(() => graph.close())
      .then(() => process.exit(0))
      .catch(() => process.exit(1));
  });
}
