import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { lidTextStore, numberStore, pruneNumberLookups } from '../../src/transport/number-lookups.ts';
import { createAccount } from '../fakes/accounts.ts';
import { account, bearer, DB_KINDS, testAppFor } from '../helpers.ts';

/**
 * The Baileys transport's shared stores (transport/number-lookups.ts): WhatsApp's answers about
 * numbers, read by every account and node until they expire, the queued numbers a batch asks
 * ahead, and texts from LIDs held for every account of the same user.
 */
describe.each(DB_KINDS)('number lookups and held LID texts on %s', (kind) => {
  const t = testAppFor(kind);

  let phone = 919_600_000_000;
  /** A user with one instance; no runner drives it here, so its recipients stay queued. */
  const withAccount = async (credits = 0) => {
    const a = await account(t, { credits });
    phone += 1;
    return {
      ...a,
      sessionId: await createAccount(t, a.token, { phoneNumber: String(phone), sessionName: 'S' }),
    };
  };

  it('answers are shared and expire; the batch asks the queued numbers with no answer, in order, once each', async () => {
    const a = await withAccount(10);
    const store = numberStore(t.db, a.sessionId);
    await store.write([
      { phone: '919811100001', jid: '919811100001@s.whatsapp.net', ttlMs: 60_000 },
      { phone: '919811100002', jid: null, ttlMs: 60_000 },
      { phone: '919811100003', jid: '919811100003@s.whatsapp.net', ttlMs: -1 },
    ]);
    // Another account's view of the same table.
    const other = numberStore(t.db, 'any-other-session');
    expect(await other.read(['919811100001', '919811100002', '919811100003', '919811100004'])).toEqual(
      new Map([
        ['919811100001', '919811100001@s.whatsapp.net'],
        ['919811100002', null],
      ]),
    );
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${a.sessionId}/sendIndividualMessage`,
      headers: bearer(a.token),
      payload: {
        chatIds: [
          '919811100001',
          '919811100003',
          '919811100004',
          '919811100003',
          '919811100005',
          '919811100006',
        ],
        content: 'Hello',
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    // 01 has an answer; 03's expired; the job lists 03 once (duplicates are removed at acceptance).
    expect(await store.upcoming(3)).toEqual(['919811100003', '919811100004', '919811100005']);
    await store.write([{ phone: '919811100003', jid: null, ttlMs: 60_000 }]);
    expect(await store.upcoming(10)).toEqual(['919811100004', '919811100005', '919811100006']);
    const [row] = await queryRows<{ jid: string | null }>(
      t.db,
      sql`SELECT jid FROM wa_number_lookups WHERE phone = '919811100003'`,
    );
    expect(row?.jid).toBeNull();
  });

  it('a LID text held by one account is taken, once and oldest first, by the same user’s accounts, not by another user', async () => {
    const a = await withAccount();
    const b = await withAccount();
    const first = lidTextStore(t.db, a.sessionId);
    const stranger = lidTextStore(t.db, b.sessionId);
    expect(await first.any()).toBe(false);
    await first.hold({ lid: '123456789012345', messageId: 'M1', text: 'STOP' });
    await first.hold({ lid: '123456789012345', messageId: 'M2', text: 'please' });
    await first.hold({ lid: '999', messageId: 'M3', text: 'other' });
    expect(await first.any()).toBe(true);
    expect(await stranger.any()).toBe(false);
    expect(await stranger.take(['123456789012345'])).toEqual([]);
    expect(await first.take(['123456789012345'])).toEqual([
      { lid: '123456789012345', messageId: 'M1', text: 'STOP' },
      { lid: '123456789012345', messageId: 'M2', text: 'please' },
    ]);
    expect(await first.take(['123456789012345'])).toEqual([]);
    expect(await first.any()).toBe(true);
  });

  it('the hourly prune removes answers past their time and LID texts held over 30 days, nothing else', async () => {
    const a = await withAccount();
    const store = numberStore(t.db, a.sessionId);
    await store.write([
      { phone: '919822200001', jid: null, ttlMs: -1000 },
      { phone: '919822200002', jid: '919822200002@s.whatsapp.net', ttlMs: 60_000 },
    ]);
    const held = lidTextStore(t.db, a.sessionId);
    await held.hold({ lid: '555', messageId: 'OLD', text: 'STOP' });
    await held.hold({ lid: '555', messageId: 'NEW', text: 'STOP' });
    await t.db.execute(
      sql`UPDATE wa_lid_texts SET received_at = now() - interval '31 days' WHERE message_id = 'OLD'`,
    );
    await pruneNumberLookups(t.db);
    const phones = await queryRows<{ phone: string }>(
      t.db,
      sql`SELECT phone FROM wa_number_lookups WHERE phone LIKE '9198222%' ORDER BY phone`,
    );
    expect(phones.map((p) => p.phone)).toEqual(['919822200002']);
    expect((await held.take(['555'])).map((x) => x.messageId)).toEqual(['NEW']);
  });
});
