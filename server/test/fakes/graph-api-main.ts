import http from 'node:http';
import { approvedTemplate, startFakeGraphApi } from './graph-api.ts';

/**
 * The fake Graph API as a process of its own, for the browser tests (e2e/playwright.config.ts
 * starts it beside the product, whose CLOUD_API_BASE_URL points at it). FAKE_GRAPH_PORT: the Graph
 * API; FAKE_GRAPH_CONTROL_PORT: a control port where a test says where the webhooks go
 * (`POST /webhook {"url": …}`), as a user registers the callback URL in Meta's App Dashboard.
 */
const fake = await startFakeGraphApi({
  port: Number(process.env.FAKE_GRAPH_PORT),
  // Meta's template management page: name, language, category, status, components.
  templates: [
    approvedTemplate('order_update', 'en_US', 'UTILITY', 'Hello {{1}}, your order {{2}} has shipped.'),
    approvedTemplate('diwali_offer', 'en', 'MARKETING', 'Hello {{1}}, 20% off this Diwali!'),
  ],
});
/** The credentials a test types into 'Connect Cloud API'. */
const credentials = () => ({
  phoneNumberId: fake.phoneNumberId,
  wabaId: fake.wabaId,
  accessToken: fake.accessToken,
  appSecret: fake.appSecret,
});
const control = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (d) => {
    raw += d;
  });
  req.on('end', () => {
    if (req.method === 'POST' && req.url === '/webhook') {
      const { url } = JSON.parse(raw) as { url: string };
      fake.state.webhook = { url, delayMs: 300, retryDelayMs: 200, maxAttempts: 20 };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(credentials()));
      return;
    }
    // GET /: the credentials a test types into 'Connect Cloud API'.
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        ...credentials(),
        sends: fake.sends.length,
      }),
    );
  });
});
control.listen(Number(process.env.FAKE_GRAPH_CONTROL_PORT), '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    control.close();
    void fake.close().finally(() => process.exit(0));
  });
