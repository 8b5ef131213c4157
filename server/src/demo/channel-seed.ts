import type { AppContext } from '../context.ts';
import { acceptSend } from '../messaging/accept/send.ts';
import { orderChannels } from '../sessions/channel-orders.ts';
import { findSession } from '../sessions/repository.ts';
import type { UserRow } from '../users/repository.ts';

/**
 * The demo's channel: created through the linked account as a user would, and one post
 * to it (a job of one recipient, one credit) that the engine sends at once.
 */
export async function seedChannelDemo(ctx: AppContext, shop: UserRow, sessionId: string): Promise<void> {
  const session = await findSession(ctx.db, sessionId);
  if (!session) return;
  const order = await orderChannels(ctx, session, {
    kind: 'create',
    name: 'Sharma Sarees Offers',
    description: 'New arrivals and festival offers, every week',
  });
  await acceptSend(
    ctx,
    shop,
    sessionId,
    {
      chatIds: [order.channelId!],
      type: 'string',
      content: 'Diwali collection is in: silk sarees from ₹2,499 this week only.',
    },
    'groups',
  );
}
