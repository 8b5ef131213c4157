import { createCloudAccount } from '../accounts/cloud/service.ts';
import type { AppContext } from '../context.ts';
import { acceptSend } from '../messaging/accept/send.ts';
import type { FakeGraphApi } from '../transport/simulator/graph-api.ts';
import type { UserRow } from '../users/repository.ts';
import { DEMO_CLOUD, DEMO_MARKETING_STOPPED, DEMO_UNDELIVERABLE, pointDemoWebhook } from './cloud-graph.ts';
import { DEMO_PEOPLE, seedUsernamePerson } from './people-seed.ts';

/** The demo's simulated Meta and where this server answers its webhooks (demo/cloud-graph.ts). */
export type DemoCloud = { graph: FakeGraphApi; webhookBase: string };

/**
 * Credits the Cloud campaign keeps: one a regular customer (7, the list less its opted-out
 * number) and one each of the two people known only by BSUID (people-seed.ts); the credits of
 * the undeliverable number and of the customer who stopped marketing messages are refunded when
 * Meta's `failed` statuses arrive.
 */
export const CLOUD_CAMPAIGN_KEPT = 9;

/**
 * The demo's Cloud API account, made as a user makes one: connected with the ids and
 * secrets from Meta's App Dashboard (the product asks the simulated Meta for the number and its
 * templates), its callback URL registered, then a marketing template sent to the regular
 * customers, `{{1}}` their name, to two people known only by BSUID (one with a username, who
 * wrote first with her number hidden), to one number Meta cannot deliver to and to one customer
 * who stopped the shop's marketing messages (131050). The engine sends it
 * as the demo starts; Meta's status webhooks move each recipient sent → delivered → read and
 * carry the category that prices it (MIS: marketing and its cost).
 */
export async function seedCloudDemo(
  ctx: AppContext,
  shop: UserRow,
  cloud: DemoCloud,
  regularsListId: string,
): Promise<string> {
  const { accountId } = await createCloudAccount(ctx, shop, {
    sessionName: DEMO_CLOUD.sessionName,
    phoneNumberId: DEMO_CLOUD.phoneNumberId,
    wabaId: DEMO_CLOUD.wabaId,
    accessToken: DEMO_CLOUD.accessToken,
    appSecret: DEMO_CLOUD.appSecret,
    verifyToken: DEMO_CLOUD.verifyToken,
  });
  if (!(await pointDemoWebhook(ctx, cloud.graph, cloud.webhookBase)))
    throw new Error('demo seed: the Cloud API account was not stored');
  await seedUsernamePerson(cloud.graph);
  await acceptSend(
    ctx,
    shop,
    accountId,
    {
      type: 'template',
      content: { name: 'diwali_offer', language: 'en', parameters: ['{{name|there}}'] },
      contactListIds: [regularsListId],
      chatIds: [
        DEMO_UNDELIVERABLE,
        DEMO_MARKETING_STOPPED,
        DEMO_PEOPLE.username.bsuid,
        DEMO_PEOPLE.bsuidOnly,
      ],
    },
    'individuals',
  );
  return accountId;
}
