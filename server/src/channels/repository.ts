import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { waChannelOrders, waChannels } from '../db/schema.ts';

export type ChannelRow = typeof waChannels.$inferSelect;
export type ChannelOrderRow = typeof waChannelOrders.$inferSelect;
export type ChannelEntry = Omit<ChannelRow, 'accountId' | 'fetchedAt'>;

export function listChannels(db: Db, accountId: string): Promise<ChannelRow[]> {
  return db
    .select()
    .from(waChannels)
    .where(eq(waChannels.accountId, accountId))
    .orderBy(asc(waChannels.name), asc(waChannels.channelId));
}

export async function findChannel(
  db: Db,
  accountId: string,
  channelId: string,
): Promise<ChannelRow | undefined> {
  const [row] = await db
    .select()
    .from(waChannels)
    .where(and(eq(waChannels.accountId, accountId), eq(waChannels.channelId, channelId)));
  return row;
}

/** The names of these channels of the account (the ones it knows). */
export async function channelNames(db: Db, accountId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ channelId: waChannels.channelId, name: waChannels.name })
    .from(waChannels)
    .where(and(eq(waChannels.accountId, accountId), inArray(waChannels.channelId, ids)));
  return new Map(rows.map((r) => [r.channelId, r.name]));
}

export async function upsertChannel(db: Db, accountId: string, c: ChannelEntry): Promise<ChannelRow> {
  const now = new Date();
  const [row] = await db
    .insert(waChannels)
    .values({ ...c, accountId, fetchedAt: now })
    .onConflictDoUpdate({
      target: [waChannels.accountId, waChannels.channelId],
      set: {
        name: c.name,
        description: c.description,
        followers: c.followers,
        role: c.role,
        invite: c.invite,
        fetchedAt: now,
      },
    })
    .returning();
  return row!;
}

export async function deleteChannel(db: Db, accountId: string, channelId: string): Promise<void> {
  await db
    .delete(waChannels)
    .where(and(eq(waChannels.accountId, accountId), eq(waChannels.channelId, channelId)));
}

export async function insertChannelOrder(
  db: Db,
  order: Pick<ChannelOrderRow, 'id' | 'accountId' | 'kind' | 'name' | 'description' | 'invite' | 'members'>,
): Promise<void> {
  await db.insert(waChannelOrders).values(order);
}

/** The account's orders not carried out yet, oldest first. */
export function pendingChannelOrders(db: Db, accountId: string): Promise<ChannelOrderRow[]> {
  return db
    .select()
    .from(waChannelOrders)
    .where(and(eq(waChannelOrders.accountId, accountId), isNull(waChannelOrders.doneAt)))
    .orderBy(asc(waChannelOrders.requestedAt));
}

export async function finishChannelOrder(
  db: Db,
  id: string,
  outcome: { error: string | null; channelId: string | null },
): Promise<void> {
  await db
    .update(waChannelOrders)
    .set({ ...outcome, doneAt: new Date() })
    .where(and(eq(waChannelOrders.id, id), isNull(waChannelOrders.doneAt)));
}

export async function findChannelOrder(db: Db, id: string): Promise<ChannelOrderRow | undefined> {
  const [row] = await db.select().from(waChannelOrders).where(eq(waChannelOrders.id, id));
  return row;
}

/** Withdraws an order not taken yet (the API gave up waiting); false when it was carried out or is being carried out. */
export async function withdrawChannelOrder(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .delete(waChannelOrders)
    .where(and(eq(waChannelOrders.id, id), isNull(waChannelOrders.doneAt), isNull(waChannelOrders.takenAt)))
    .returning({ id: waChannelOrders.id });
  return rows.length > 0;
}

/** The driving node takes the order: it is no longer withdrawn. False when it was withdrawn or taken. */
export async function takeChannelOrder(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .update(waChannelOrders)
    .set({ takenAt: new Date() })
    .where(and(eq(waChannelOrders.id, id), isNull(waChannelOrders.takenAt)))
    .returning({ id: waChannelOrders.id });
  return rows.length > 0;
}
