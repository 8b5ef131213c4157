import { CSV_BOM, csvLine, type PersonalData, parsePhone } from '@wa/contract';
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { consentGrants, contactLists, contacts, optOuts } from '../db/schema.ts';
import { badRequest } from '../errors.ts';
import { presentGrant } from './consent.ts';
import { erasedAmong } from './erasure-token.ts';
import { addressesOfPerson, chatIdsOf } from './people.ts';
import { CONTACT_MESSAGES } from './service.ts';

/** A number as the user typed it, in the stored form (docs/decisions.md, Phone numbers). */
export function phoneOf(cell: string, defaultCallingCode: string): string {
  const parsed = parsePhone(cell, defaultCallingCode);
  if (!('number' in parsed)) throw badRequest(CONTACT_MESSAGES.invalidNumber(cell));
  return parsed.number;
}

/**
 * Everything the user holds about the person of one number (a data request under the DPDP Act):
 * every address of theirs (docs/people.md), the number's list entries with their fields and
 * consent, their opt-out by any address, and every message of the user's jobs to any of their
 * addresses with the person's reply. Messages are found through the user's jobs (recipients have no index by chat id).
 */
export async function personalData(
  db: Db,
  secretKey: Buffer | undefined,
  userId: string,
  phone: string,
): Promise<PersonalData> {
  const entries = await db
    .select({
      listId: contactLists.id,
      name: contactLists.name,
      fields: contacts.fields,
      tags: contacts.tags,
      grantId: contacts.consentGrantId,
    })
    .from(contacts)
    .innerJoin(contactLists, eq(contactLists.id, contacts.listId))
    .where(and(eq(contactLists.userId, userId), eq(contacts.phoneNumber, phone)))
    .orderBy(contactLists.createdAt);
  const grantIds = [...new Set(entries.map((e) => e.grantId).filter((id): id is string => id !== null))];
  const grants =
    grantIds.length === 0
      ? []
      : await db.select().from(consentGrants).where(inArray(consentGrants.id, grantIds));
  const grantOf = new Map(grants.map((g) => [g.id, presentGrant(g)]));
  const addresses = await addressesOfPerson(db, userId, { kind: 'phone', value: phone });
  // The person's first opt-out, by whichever address it came.
  const [opt] = await db
    .select()
    .from(optOuts)
    .where(
      and(
        eq(optOuts.userId, userId),
        or(...addresses.map((a) => and(eq(optOuts.addressKind, a.kind), eq(optOuts.phoneNumber, a.value)))),
      ),
    )
    .orderBy(optOuts.createdAt)
    .limit(1);
  const messages = await queryRows<{
    job_id: string;
    session_id: string;
    message_type: string;
    created_at: Date | string;
    status: string;
    content: string | null;
    job_content: string | null;
    sent_at: Date | string | null;
    delivered_at: Date | string | null;
    read_at: Date | string | null;
    error: string | null;
    reply_text: string | null;
    replied_at: Date | string | null;
  }>(
    db,
    sql`SELECT r.job_id, r.session_id, j.message_type, j.created_at, r.status, r.content,
               j.content AS job_content, r.sent_at, r.delivered_at, r.read_at, r.error,
               r.reply_text, r.replied_at
        FROM message_jobs j JOIN message_job_recipients r ON r.job_id = j.id
        WHERE j.user_id = ${userId} AND r.chat_id = ANY(${sql.param(chatIdsOf(addresses))}::text[])
        ORDER BY j.created_at, r.id`,
  );
  // What the person wrote to the user's accounts and the answers, under any person of theirs.
  const inbox = await queryRows<{
    direction: 'in' | 'out';
    session_id: string;
    at: Date | string;
    type: string;
    text: string;
    job_id: string | null;
  }>(
    db,
    sql`SELECT m.direction, m.session_id, m.at, m.type, m.text, m.job_id FROM inbox_messages m
        WHERE m.user_id = ${userId} AND m.person_id IN (
          SELECT pa.person_id FROM person_addresses pa
          JOIN unnest(${sql.param(addresses.map((a) => a.kind))}::text[], ${sql.param(addresses.map((a) => a.value))}::text[])
            AS x(kind, value) ON pa.kind = x.kind AND pa.value = x.value
          WHERE pa.user_id = ${userId})
        ORDER BY m.at, m.id`,
  );
  const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());
  return {
    success: true,
    phone,
    addresses,
    generatedAt: new Date().toISOString(),
    lists: entries.map((e) => ({
      listId: e.listId,
      name: e.name,
      fields: e.fields,
      tags: e.tags,
      consent: e.grantId ? (grantOf.get(e.grantId) ?? null) : null,
    })),
    optOut: opt
      ? {
          source: opt.source,
          keyword: opt.keyword,
          language: opt.language,
          message: opt.message,
          at: opt.createdAt.toISOString(),
        }
      : null,
    messages: messages.map((m) => ({
      jobId: m.job_id,
      sessionId: m.session_id,
      messageType: m.message_type,
      createdAt: iso(m.created_at)!,
      status: m.status,
      content: m.content ?? m.job_content,
      sentAt: iso(m.sent_at),
      deliveredAt: iso(m.delivered_at),
      readAt: iso(m.read_at),
      error: m.error,
      reply: m.replied_at === null ? null : { text: m.reply_text, at: iso(m.replied_at)! },
    })),
    inbox: inbox.map((m) => ({
      direction: m.direction,
      sessionId: m.session_id,
      at: iso(m.at)!,
      type: m.type,
      text: m.text,
      jobId: m.job_id,
    })),
    erased: (await erasedAmong(db, secretKey, userId, [phone])).size > 0,
  };
}

/** The same as one CSV file: a row per list entry, opt-out, message and reply. */
export function personalDataCsv(data: PersonalData): string {
  const lines = [csvLine(['record', 'id', 'name', 'detail', 'status', 'at'])];
  for (const l of data.lists) {
    const fields = Object.entries(l.fields).map(([k, v]) => `${k}=${v}`);
    if (l.tags.length > 0) fields.push(`tags=${l.tags.join(' ::: ')}`);
    lines.push(csvLine(['list', l.listId, l.name, fields.join('; '), '', '']));
    if (l.consent)
      lines.push(
        csvLine([
          'consent',
          l.consent.grantId,
          l.consent.source === 'import' ? (l.consent.fileName ?? '') : (l.consent.groupName ?? ''),
          l.consent.purpose ?? '',
          `by ${l.consent.by}`,
          l.consent.at,
        ]),
      );
  }
  for (const a of data.addresses ?? []) lines.push(csvLine(['address', a.value, a.kind, '', '', '']));
  if (data.optOut)
    lines.push(
      csvLine([
        'opt-out',
        '',
        data.optOut.keyword ?? '',
        data.optOut.message ?? '',
        data.optOut.source,
        data.optOut.at,
      ]),
    );
  for (const m of data.messages)
    lines.push(
      csvLine([
        'message',
        m.jobId,
        m.messageType,
        m.content ?? '',
        m.error ? `${m.status}: ${m.error}` : m.status,
        m.sentAt ?? m.createdAt,
      ]),
      ...(m.reply ? [csvLine(['reply', m.jobId, '', m.reply.text ?? '', 'replied', m.reply.at])] : []),
    );
  for (const m of data.inbox ?? [])
    lines.push(
      csvLine([
        m.direction === 'in' ? 'inbox' : 'inbox-answer',
        m.jobId ?? '',
        m.type,
        m.text,
        m.sessionId,
        m.at,
      ]),
    );
  if (data.erased) lines.push(csvLine(['erased', '', '', '', 'erased', '']));
  return `${CSV_BOM}${lines.join('')}`;
}
