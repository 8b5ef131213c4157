import {
  type Contact,
  type ContactListSummary,
  type ContactsQuery,
  CSV_BOM,
  csvLine,
  displayAddress,
  isBsuid,
  PHONE_TEXTS,
  parsePhone,
  TEXTS,
} from '@wa/contract';
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record.ts';
import { type Db, queryRows } from '../db/client.ts';
import { consentGrants, contactLists, contacts } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { groupsOf } from '../groups/repository.ts';
import { participantPhone } from '../groups/service.ts';
import { newId } from '../ids.ts';
import { type Actor, authorizeAccount, authorizeContactList } from '../policy/access.ts';
import { countGrant, insertGrant, presentGrant } from './consent.ts';
import { lockListsOf } from './list-lock.ts';
import { knownOfChatIds, optedOutSendable } from './people.ts';

export const CONTACT_MESSAGES = {
  notATable: TEXTS.notATable,
  nameRequired: 'List name is required',
  nameTooLong: 'List name must be at most 200 characters',
  invalidNumber: PHONE_TEXTS.invalid,
  optOutNotFound: 'Number is not on the opt-out list',
  groupNotFound: 'Group not found',
} as const;

const BATCH = 5000;

// ---------------------------------------------------------------------------------------------
// Contact lists

const optedOutOf = (userId: string) =>
  // Written out: drizzle leaves a column in sql`` unqualified inside the subquery.
  sql<boolean>`contacts.phone_number IN (${optedOutSendable(userId)})`;

export async function summaries(db: Db, userId: string, listId?: string): Promise<ContactListSummary[]> {
  const rows = await db
    .select({
      id: contactLists.id,
      name: contactLists.name,
      fields: contactLists.fields,
      createdAt: contactLists.createdAt,
      count: sql<number>`(select count(*)::int from ${contacts} c where c.list_id = contact_lists.id)`,
      optedOut: sql<number>`(select count(*)::int from ${contacts} c where c.list_id = contact_lists.id and c.phone_number in (${optedOutSendable(userId)}))`,
    })
    .from(contactLists)
    .where(listId ? eq(contactLists.id, listId) : eq(contactLists.userId, userId))
    .orderBy(desc(contactLists.createdAt));
  const grants =
    rows.length === 0
      ? []
      : await db
          .select()
          .from(consentGrants)
          .where(
            inArray(
              consentGrants.listId,
              rows.map((r) => r.id),
            ),
          );
  const grantOf = new Map(grants.map((g) => [g.listId, presentGrant(g)]));
  return rows.map((r) => ({
    ...r,
    count: Number(r.count),
    optedOut: Number(r.optedOut),
    createdAt: r.createdAt.toISOString(),
    consent: grantOf.get(r.id) ?? null,
  }));
}

export const listContactLists = (db: Db, actor: Actor) => summaries(db, actor.id);

export async function contactsOfList(
  db: Db,
  actor: Actor,
  listId: string,
  query: ContactsQuery,
): Promise<{ contacts: Contact[]; total: number }> {
  const list = await authorizeContactList(db, actor, 'read', listId);
  const search = query.search?.trim();
  const digits = search?.replace(/[^0-9]/g, '') ?? '';
  const like = (v: string) => `%${v.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const where = search
    ? and(
        eq(contacts.listId, listId),
        or(
          digits ? sql`${contacts.phoneNumber} like ${like(digits)}` : undefined,
          sql`${contacts.fields}->>'name' ilike ${like(search)}`,
          sql`${search} = any(${contacts.tags})`,
        ),
      )
    : eq(contacts.listId, listId);
  const [rows, [total]] = await Promise.all([
    db
      .select({
        phoneNumber: contacts.phoneNumber,
        fields: contacts.fields,
        tags: contacts.tags,
        optedOut: optedOutOf(list.userId),
      })
      .from(contacts)
      .where(where)
      .orderBy(contacts.position)
      .limit(query.limit)
      .offset(query.offset),
    db.select({ n: sql<number>`count(*)::int` }).from(contacts).where(where),
  ]);
  const known = await knownOfChatIds(
    db,
    list.userId,
    rows.filter((r) => isBsuid(r.phoneNumber)).map((r) => r.phoneNumber),
  );
  return {
    contacts: rows.map((r) => ({
      phoneNumber: r.phoneNumber,
      ...(isBsuid(r.phoneNumber)
        ? {
            display: displayAddress(r.phoneNumber, {
              phone: known.get(r.phoneNumber)?.phone ?? null,
              username: known.get(r.phoneNumber)?.username ?? r.fields.username?.replace(/^@/, '') ?? null,
            }),
          }
        : {}),
      name: r.fields.name ?? '',
      fields: r.fields,
      tags: r.tags,
      optedOut: Boolean(r.optedOut),
    })),
    total: Number(total?.n ?? 0),
  };
}

export async function deleteContactList(db: Db, actor: Actor, listId: string): Promise<void> {
  await authorizeContactList(db, actor, 'act', listId);
  await db.delete(contactLists).where(eq(contactLists.id, listId));
}

/**
 * The list as CSV (phone_number, then its fields, then `tags` when a contact has any, joined by
 * ` ::: ` as they were imported), produced in pages so a big list streams.
 */
export async function* exportContactList(db: Db, actor: Actor, listId: string): AsyncGenerator<string> {
  const list = await authorizeContactList(db, actor, 'read', listId);
  const [tagged] = await queryRows<{ any: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM contacts WHERE list_id = ${listId} AND cardinality(tags) > 0) AS any`,
  );
  const withTags = Boolean(tagged?.any);
  yield `${CSV_BOM}${csvLine(['phone_number', ...list.fields, ...(withTags ? ['tags'] : [])])}`;
  let after = -1;
  for (;;) {
    const rows = await db
      .select({
        position: contacts.position,
        phoneNumber: contacts.phoneNumber,
        fields: contacts.fields,
        tags: contacts.tags,
      })
      .from(contacts)
      .where(and(eq(contacts.listId, listId), sql`${contacts.position} > ${after}`))
      .orderBy(contacts.position)
      .limit(BATCH);
    if (rows.length === 0) return;
    yield rows
      .map((r) =>
        csvLine([
          r.phoneNumber,
          ...list.fields.map((f) => r.fields[f] ?? ''),
          ...(withTags ? [r.tags.join(' ::: ')] : []),
        ]),
      )
      .join('');
    after = rows[rows.length - 1]!.position;
  }
}

/**
 * 'Save members as a contact list': a new list of the user's own, holding the group's
 * members as the account last fetched them, in the group's order, admins with the field
 * `role`. The account's own number is left out; members known only by a hidden id (`@lid`) or
 * not valid as a number are counted as skipped.
 */
export async function saveGroupMembersAsList(
  db: Db,
  actor: Actor,
  input: { sessionId: string; groupId: string; name?: string; purpose?: string },
  defaultCallingCode: string,
  by: { id: string; username: string },
): Promise<{ list: ContactListSummary; imported: number; skipped: number }> {
  const account = await authorizeAccount(db, actor, 'act', input.sessionId);
  const [group] = await groupsOf(db, input.sessionId, [input.groupId]);
  if (!group) throw notFound(CONTACT_MESSAGES.groupNotFound);
  const name = (input.name ?? '').trim() || group.subject.trim() || group.groupId;
  const own = account.phoneNumber.replace(/[^0-9]/g, '');
  const seen = new Set<string>();
  const rows: (typeof contacts.$inferInsert)[] = [];
  const listId = newId();
  let skipped = 0;
  for (const p of group.participants) {
    const phone = participantPhone(p);
    const parsed = /^[0-9]+$/.test(phone) ? parsePhone(`+${phone}`, defaultCallingCode) : null;
    if (!parsed || !('number' in parsed)) {
      skipped++;
      continue;
    }
    if (parsed.number === own || seen.has(parsed.number)) continue;
    seen.add(parsed.number);
    const role = p.admin === 'superadmin' ? 'Super Admin' : p.admin === 'admin' ? 'Admin' : 'Member';
    rows.push({ listId, position: rows.length + 1, phoneNumber: parsed.number, fields: { role } });
  }
  await db.transaction(async (tx) => {
    await lockListsOf(tx, account.userId);
    // The list belongs to the account's owner (an ADMIN acting on a managed user's account saves it there).
    await tx.insert(contactLists).values({ id: listId, userId: account.userId, name, fields: ['role'] });
    // Where these numbers came from: the group, and the purpose when the user gave one.
    const purpose = input.purpose?.trim() || null;
    const consentGrantId = await insertGrant(tx, {
      userId: account.userId,
      source: 'group',
      purpose,
      listId,
      groupId: group.groupId,
      groupName: group.subject,
      accountId: input.sessionId,
      actor: by,
    });
    await countGrant(tx, consentGrantId, rows.length);
    for (let i = 0; i < rows.length; i += BATCH)
      await tx.insert(contacts).values(rows.slice(i, i + BATCH).map((r) => ({ ...r, consentGrantId })));
    await recordAudit(tx, {
      actor: by,
      action: 'consent.grant',
      targetUserId: account.userId,
      details: {
        grantId: consentGrantId,
        source: 'group',
        purpose,
        groupId: group.groupId,
        sessionId: input.sessionId,
        listId,
        numbers: rows.length,
      },
    });
  });
  const [list] = await summaries(db, account.userId, listId);
  return { list: list!, imported: rows.length, skipped };
}
