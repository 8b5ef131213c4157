import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { type StoredLastMessage, type StoredParticipant, waGroups } from '../db/schema.ts';

export type GroupRow = typeof waGroups.$inferSelect;

export type GroupCacheEntry = {
  groupId: string;
  subject: string;
  owner: string | null;
  createdAt: Date | null;
  participants: StoredParticipant[];
  isAdmin: boolean;
  announce: boolean;
  addressingMode?: 'pn' | 'lid' | null;
  ephemeralDuration?: number | null;
  lastMessage?: StoredLastMessage | null;
};

export async function listGroups(db: Db, accountId: string): Promise<GroupRow[]> {
  return db
    .select()
    .from(waGroups)
    .where(eq(waGroups.accountId, accountId))
    .orderBy(asc(waGroups.subject), asc(waGroups.groupId));
}

/**
 * Upserts groups into the cache. Invite codes are kept while the account stays admin; with
 * `replaceAll` the groups the account left are removed, in the same transaction.
 */
export async function upsertGroups(
  db: Db,
  accountId: string,
  groups: GroupCacheEntry[],
  options: { replaceAll: boolean },
): Promise<void> {
  const now = new Date();
  await db.transaction(async (tx) => {
    for (let i = 0; i < groups.length; i += 200) {
      const rows = groups.slice(i, i + 200).map((g) => ({
        accountId,
        groupId: g.groupId,
        subject: g.subject,
        owner: g.owner,
        createdAt: g.createdAt,
        participants: g.participants,
        isAdmin: g.isAdmin,
        announce: g.announce,
        addressingMode: g.addressingMode ?? null,
        ephemeralDuration: g.ephemeralDuration ?? null,
        lastMessage: g.lastMessage ?? null,
        fetchedAt: now,
        updatedAt: now,
      }));
      await tx
        .insert(waGroups)
        .values(rows)
        .onConflictDoUpdate({
          target: [waGroups.accountId, waGroups.groupId],
          set: {
            subject: sql`excluded.subject`,
            owner: sql`excluded.owner`,
            createdAt: sql`coalesce(excluded.created_at, ${waGroups.createdAt})`,
            participants: sql`excluded.participants`,
            isAdmin: sql`excluded.is_admin`,
            announce: sql`excluded.announce`,
            addressingMode: sql`excluded.addressing_mode`,
            ephemeralDuration: sql`excluded.ephemeral_duration`,
            // A code is only valid while the account is admin.
            inviteCode: sql`CASE WHEN excluded.is_admin THEN ${waGroups.inviteCode} ELSE NULL END`,
            // Keep the newer of the stored and the fetched last message.
            lastMessage: sql`CASE WHEN excluded.last_message IS NULL THEN ${waGroups.lastMessage}
              WHEN ${waGroups.lastMessage} IS NULL THEN excluded.last_message
              WHEN (excluded.last_message->>'timestamp')::bigint >= (${waGroups.lastMessage}->>'timestamp')::bigint
                THEN excluded.last_message ELSE ${waGroups.lastMessage} END`,
            fetchedAt: sql`excluded.fetched_at`,
            updatedAt: sql`excluded.updated_at`,
          },
        });
    }
    // Every group of this fetch now carries its time: the older rows are groups the account left.
    if (options.replaceAll) {
      await tx.delete(waGroups).where(and(eq(waGroups.accountId, accountId), lt(waGroups.fetchedAt, now)));
    }
  });
}

export async function updateGroup(
  db: Db,
  accountId: string,
  groupId: string,
  patch: Partial<
    Pick<
      GroupRow,
      'subject' | 'announce' | 'participants' | 'isAdmin' | 'owner' | 'addressingMode' | 'ephemeralDuration'
    >
  >,
): Promise<void> {
  await db
    .update(waGroups)
    .set({ ...patch, updatedAt: new Date() })
    .where(and(eq(waGroups.accountId, accountId), eq(waGroups.groupId, groupId)));
}

export async function setInviteCode(
  db: Db,
  accountId: string,
  groupId: string,
  code: string | null,
): Promise<void> {
  await db
    .update(waGroups)
    .set({ inviteCode: code, inviteCodeFetchedAt: new Date() })
    .where(and(eq(waGroups.accountId, accountId), eq(waGroups.groupId, groupId)));
}

/** Stores a chat's last message unless the cache already holds a newer one. */
export async function setLastMessage(
  db: Db,
  accountId: string,
  groupId: string,
  message: StoredLastMessage,
): Promise<void> {
  await db
    .update(waGroups)
    .set({ lastMessage: message })
    .where(
      and(
        eq(waGroups.accountId, accountId),
        eq(waGroups.groupId, groupId),
        sql`(${waGroups.lastMessage} IS NULL OR (${waGroups.lastMessage}->>'timestamp')::bigint <= ${message.timestamp})`,
      ),
    );
}

export async function groupsOf(db: Db, accountId: string, groupIds: string[]): Promise<GroupRow[]> {
  if (groupIds.length === 0) return [];
  return db
    .select()
    .from(waGroups)
    .where(and(eq(waGroups.accountId, accountId), inArray(waGroups.groupId, groupIds)));
}
/** Subjects of the cached groups among `chatIds`, to store each recipient's chat name. */
export async function groupSubjects(
  db: Db,
  accountId: string,
  chatIds: string[],
): Promise<Map<string, string>> {
  const rows = await db
    .select({ groupId: waGroups.groupId, subject: waGroups.subject })
    .from(waGroups)
    .where(eq(waGroups.accountId, accountId));
  const wanted = new Set(chatIds);
  return new Map(rows.filter((r) => wanted.has(r.groupId)).map((r) => [r.groupId, r.subject]));
}

export async function groupFigures(db: Db, accountId: string): Promise<{ groups: number; members: number }> {
  const [row] = await queryRows<{ groups: number; members: number }>(
    db,
    sql`SELECT count(*)::int AS groups, coalesce(sum(jsonb_array_length(participants)), 0)::int AS members
        FROM wa_groups WHERE session_id = ${accountId}`,
  );
  return { groups: row?.groups ?? 0, members: row?.members ?? 0 };
}
