import type { AppContext } from '../context.ts';
import { takeOptOutReply } from '../messaging/opt-outs.ts';
import type { FakeGraphApi } from '../transport/simulator/graph-api.ts';

/**
 * The demo's people whom WhatsApp shows without a number (docs/people.md): one with a username
 * whose number Meta hides (she wrote to the Cloud API number: only her BSUID and username came),
 * one the Cloud number knows only by BSUID, and one the linked phone knows only by LID.
 */
export const DEMO_PEOPLE = {
  username: { bsuid: 'IN.20260412000000000101', username: 'meera.designs', name: 'Meera' },
  bsuidOnly: 'IN.20260412000000000102',
  lidOnly: '226688000000101@lid',
} as const;

/**
 * Before the Cloud campaign: the username person writes to the Cloud number (Meta's webhook with
 * `user_id` and `username`, no `wa_id`), so Job Details names her `@meera.designs`.
 */
export async function seedUsernamePerson(graph: FakeGraphApi): Promise<void> {
  const { bsuid, username, name } = DEMO_PEOPLE.username;
  graph.sendInbound('', 'Namaste! Is the Diwali offer on silk sarees too?', name, {
    userId: bsuid,
    username,
    hidden: true,
  });
  await graph.flush();
}

/**
 * A STOP from a contact the linked phone knows only by LID, taken as the engine takes one
 * (messaging/opt-outs.ts): the opt-out list shows it by a short form of the id.
 */
export async function seedLidOnlyStop(ctx: AppContext, userId: string, accountId: string): Promise<void> {
  await takeOptOutReply(
    ctx,
    userId,
    { from: DEMO_PEOPLE.lidOnly, text: 'STOP', messageId: '3EB0DEMO0000LIDONLY' },
    accountId,
  );
}
