import { orderChannels } from '../accounts/channel-orders.ts';
import { findAccount } from '../accounts/repository.ts';
import type { AppContext } from '../context.ts';
import { acceptSend } from '../messaging/accept/send.ts';
import type { UserRow } from '../users/repository.ts';

/**
 * The demo's channel: created through the linked account as a user would, and one post
 * to it (a job of one recipient, one credit) that the engine sends at once.
 */
export async function seedChannelDemo(ctx: AppContext, shop: UserRow, accountId: string): Promise<void> {
  const account = await findAccount(ctx.db, accountId);
  if (!account) return;
  const order = await orderChannels(ctx, account, {
    kind: 'create',
    name: 'Sharma Sarees Offers',
    description: 'New arrivals and festival offers, every week',
  });
  await acceptSend(
    ctx,
    shop,
    accountId,
    {
      chatIds: [order.channelId!],
      type: 'string',
      content: 'Diwali collection is in: silk sarees from ₹2,499 this week only.',
    },
    'groups',
  );
}
