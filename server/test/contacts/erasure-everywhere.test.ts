import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type Db, queryRows } from '../../src/db/client.ts';
import { keepIncoming } from '../../src/messaging/inbox/incoming.ts';
import { joinPerson } from '../../src/messaging/opt-outs.ts';
import { appWithEngine, bearer, DB_KINDS, linkedAccount } from '../helpers.ts';

const NUMBER = '919800027001';

/** Every text, JSON and array column of the database's tables, with the rows whose value holds `needle`. */
async function columnsHolding(db: Db, needle: string): Promise<string[]> {
  const columns = await queryRows<{ table_name: string; column_name: string }>(
    db,
    sql`SELECT c.table_name, c.column_name FROM information_schema.columns c
        JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
          AND (c.data_type IN ('text', 'character varying', 'json', 'jsonb') OR c.data_type = 'ARRAY')
        ORDER BY 1, 2`,
  );
  expect(columns.length).toBeGreaterThan(50);
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const [row] = await queryRows<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM ${sql.identifier(table_name)}
          WHERE ${sql.identifier(column_name)}::text LIKE ${`%${needle}%`}`,
    );
    if (row!.n > 0) found.push(`${table_name}.${column_name}: ${row!.n}`);
  }
  return found;
}

/**
 * After an erasure no column of any table holds the number: besides the user's lists, jobs and
 * logs, the shared answer of whether it is on WhatsApp and the user's stored groups (a member, the
 * group's owner, the sender of its last message).
 */
describe.each(DB_KINDS)('erasure leaves the number nowhere on %s', (kind) => {
  const { t } = appWithEngine(kind, { SECRET_KEY: 'cd'.repeat(32), ALLOW_PRIVATE_WEBHOOKS: 'true' });

  it('no table holds the erased number; the group keeps its members and counts', async () => {
    const { token, accountId } = await linkedAccount(t, { credits: 10 });
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: {
        chatIds: [NUMBER, '919800027002'],
        content: 'Offer',
        scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    // What the transport stores: WhatsApp's answer for the number, and a group it is in.
    await t.db.execute(
      sql`INSERT INTO wa_number_lookups (phone, jid, expires_at)
          VALUES (${NUMBER}, ${`${NUMBER}@s.whatsapp.net`}, now() + interval '1 day')`,
    );
    const participants = [
      { id: `${NUMBER}@s.whatsapp.net`, phoneNumber: NUMBER, lid: '81234567@lid', admin: 'superadmin' },
      { id: '919800027002@s.whatsapp.net', phoneNumber: '919800027002', lid: null, admin: null },
    ];
    await t.db.execute(
      sql`INSERT INTO wa_groups (session_id, group_id, subject, owner, participants, addressing_mode, last_message)
          VALUES (${accountId}, '120363000000000001@g.us', 'Shop', ${`${NUMBER}@s.whatsapp.net`},
                  ${JSON.stringify(participants)}::jsonb, 'pn',
                  ${JSON.stringify({ sender: `${NUMBER}@s.whatsapp.net`, timestamp: 1_700_000_000, body: 'Hi' })}::jsonb)`,
    );
    // The person wrote to the account (the Inbox keeps it, and a message.received event names them)
    // by the number and by a LID WhatsApp showed to be theirs; the account answered them.
    const hooked = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: bearer(token),
      payload: { url: 'http://127.0.0.1:9/hook', events: ['message.received'] },
    });
    expect(hooked.statusCode, hooked.body).toBe(200);
    const userId = (
      await queryRows<{ user_id: string }>(
        t.db,
        sql`SELECT user_id FROM wa_sessions WHERE session_id = ${accountId}`,
      )
    )[0]!.user_id;
    await joinPerson(t.ctx, userId, [
      { kind: 'phone', value: NUMBER },
      { kind: 'lid', value: '81234567' },
    ]);
    const account = { accountId, userId };
    await keepIncoming(t.ctx, account, {
      from: `${NUMBER}@s.whatsapp.net`,
      text: `Call me on ${NUMBER}`,
      messageId: 'ER1',
    });
    await keepIncoming(t.ctx, account, {
      from: '81234567@lid',
      text: 'Hello again',
      messageId: 'ER2',
      name: 'Meera',
    });
    expect(await columnsHolding(t.db, NUMBER)).toEqual(
      expect.arrayContaining([
        'inbox_messages.chat_id: 1',
        'inbox_messages.text: 1',
        'webhook_deliveries.data: 1',
        'wa_number_lookups.phone: 1',
        'wa_groups.participants: 1',
        'wa_groups.owner: 1',
        'wa_groups.last_message: 1',
      ]),
    );

    const erased = await t.app.inject({
      method: 'DELETE',
      url: `/api/contacts/by-phone/${NUMBER}`,
      headers: bearer(token),
    });
    expect(erased.statusCode, erased.body).toBe(200);
    const erasure = erased.json().token as string;
    expect(await columnsHolding(t.db, NUMBER)).toEqual([]);
    // The person's Inbox went with them, by either address.
    expect(await columnsHolding(t.db, '81234567@lid')).toEqual([]);
    expect(await queryRows(t.db, sql`SELECT person_id FROM inbox_threads`)).toEqual([]);
    // The other number is untouched.
    expect(await columnsHolding(t.db, '919800027002')).not.toEqual([]);

    // The group list shows the token in the member's place; a send reads the group from WhatsApp again.
    const groups = await t.app.inject({
      method: 'GET',
      url: `/api/groupsList/${accountId}`,
      headers: bearer(token),
    });
    expect(groups.statusCode, groups.body).toBe(200);
    expect(groups.body).not.toContain(NUMBER);
    expect(groups.body).toContain(erasure);
    const [row] = await queryRows<{ participants: typeof participants; addressing_mode: string | null }>(
      t.db,
      sql`SELECT participants, addressing_mode FROM wa_groups WHERE session_id = ${accountId}`,
    );
    expect(row!.addressing_mode).toBeNull();
    expect(row!.participants.map((p) => p.phoneNumber)).toEqual([erasure, '919800027002']);
  });
});
