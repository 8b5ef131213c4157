import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { cloudAccounts } from '../db/schema.ts';
import { type FakeGraphApi, type FakeTemplate, startFakeGraphApi } from '../transport/simulator/graph-api.ts';

/**
 * The demo's Cloud API number and the simulated Graph API it lives on. `npm run demo`
 * starts that API on a loopback port and points CLOUD_API_BASE_URL at it, so the demo's Cloud
 * account runs the product's own Cloud code: the connect checks the number and reads the
 * templates (`GET /{phone-number-id}`, `GET /{waba-id}/message_templates`), sends are `POST
 * /{phone-number-id}/messages`, and Meta's signed status webhooks come back to the product's
 * webhook route. Only Meta's side is simulated (transport/simulator/graph-api.ts).
 */

/** What the user would type into 'Connect Cloud API' from Meta's App Dashboard. */
export const DEMO_CLOUD = {
  sessionName: 'Asha Sarees (Cloud API)',
  phoneNumberId: '110245789033561',
  wabaId: '104372856612947',
  accessToken: 'EAAGdemo-asha-sarees-cloud-api',
  appSecret: 'demo-app-secret-asha-sarees',
  verifyToken: 'asha-demo-verify',
} as const;

/** A number the simulated Meta cannot deliver to: 131026, "Message undeliverable" (as in the linked phone's history). */
export const DEMO_UNDELIVERABLE = '919811110000';

/**
 * A customer who stopped the shop's marketing messages in WhatsApp before the product heard of it:
 * Meta takes the offer, then fails it with 131050 (error-code page), and the product leaves them out
 * of the shop's later offers.
 */
export const DEMO_MARKETING_STOPPED = '919811110001';

/**
 * The account's templates, all APPROVED, as `GET /{waba-id}/message_templates` lists them
 * (template management page,
 * developers.facebook.com/documentation/business-messaging/whatsapp/templates/template-management).
 */
export const DEMO_TEMPLATES: FakeTemplate[] = [
  {
    name: 'diwali_offer',
    language: 'en',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [
      {
        type: 'BODY',
        text: 'Hello {{1}}, our Diwali sale is on: 30% off all silk sarees until Sunday. Visit us at MG Road.',
      },
      { type: 'FOOTER', text: 'Reply STOP to opt out' },
    ],
  },
  {
    name: 'order_shipped',
    language: 'en',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [
      { type: 'BODY', text: 'Hi {{1}}, your order {{2}} has been shipped and will reach you in 2-3 days.' },
    ],
  },
  {
    name: 'store_hours',
    language: 'en',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Asha Sarees is open 10 am to 9 pm, Monday to Saturday.' }],
  },
];

/** The simulated Graph API of the demo's number, on a free loopback port. */
export async function startDemoGraphApi(): Promise<FakeGraphApi> {
  const graph = await startFakeGraphApi({
    phoneNumberId: DEMO_CLOUD.phoneNumberId,
    wabaId: DEMO_CLOUD.wabaId,
    accessToken: DEMO_CLOUD.accessToken,
    appSecret: DEMO_CLOUD.appSecret,
    // Phone number API reference: what Meta says of the number.
    phone: {
      display_phone_number: '+91 98765 43211',
      verified_name: 'Asha Sarees',
      quality_rating: 'GREEN',
      whatsapp_business_manager_messaging_limit: 'TIER_2K',
    },
    templates: DEMO_TEMPLATES,
    recipientErrors: { [DEMO_UNDELIVERABLE]: { code: 131026, via: 'webhook' } },
  });
  graph.state.marketingStopped.add(DEMO_MARKETING_STOPPED);
  return graph;
}

/** The URL at which this process's own server answers on this machine (where Meta's webhooks are POSTed). */
export function loopbackUrl(server: { address(): string | AddressInfo | null }): string {
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the server is not listening on a port');
  const host = ['0.0.0.0', '::', '127.0.0.1'].includes(address.address)
    ? '127.0.0.1'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * Registers the account's callback URL at the simulated Meta, as a user does in the App
 * Dashboard: the product's webhook route of the account that holds the demo's number. False
 * when no account holds it (not seeded yet).
 */
export async function pointDemoWebhook(ctx: AppContext, graph: FakeGraphApi, base: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ accountId: cloudAccounts.accountId })
    .from(cloudAccounts)
    .where(eq(cloudAccounts.phoneNumberId, graph.phoneNumberId));
  if (!row) return false;
  // Statuses a little apart, so that sent → delivered → read can be watched; retried as Meta
  // retries a delivery the receiver did not take (a status may race the send's own record).
  graph.state.webhook = {
    url: `${base}/api/cloud/webhook/${row.accountId}`,
    delayMs: 700,
    retryDelayMs: 500,
    maxAttempts: 20,
  };
  return true;
}
