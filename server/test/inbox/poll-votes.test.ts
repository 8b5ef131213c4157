import { WEBHOOK_PAYLOADS } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { keepIncoming } from '../../src/messaging/inbox/incoming.ts';
import { sentPolls } from '../../src/transport/sent-polls.ts';
import { connectedAccount } from '../fakes/accounts.ts';
import { waitForJobEnd } from '../fakes/messaging.ts';
import { account, appWithEngine, bearer, DB_KINDS } from '../helpers.ts';

/**
 * What the product keeps to read votes on the polls it sends (each poll job's own message secret,
 * found by a sent message's id, never shown), and what a vote leaves in the Inbox and the
 * message.received webhook: its options, or that a vote came when they are not known.
 */
describe.each(DB_KINDS)('poll votes on %s', (kind) => {
  const { t } = appWithEngine(kind, { ALLOW_PRIVATE_WEBHOOKS: 'true' });
  let phoneSeq = 919811300000;

  it("keeps a poll job's own secret, finds it by a sent message's id, and never shows it", async () => {
    const a = await account(t, { credits: 10 });
    phoneSeq += 1;
    const accountId = await connectedAccount(t, a.token, String(phoneSeq));
    const send = (chatIds: string[]) =>
      t.app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/sendIndividualMessage`,
        headers: bearer(a.token),
        payload: {
          chatIds,
          type: 'poll',
          content: {
            pollName: 'Which colour?',
            pollOptions: ['Red', 'Green'],
            options: { allowMultipleAnswers: false },
          },
        },
      });
    const first = await send(['919811300101', '919811300102']);
    const second = await send(['919811300103']);
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    for (const res of [first, second]) await waitForJobEnd(t.app, a.token, res.json().jobId);

    const rows = await queryRows<{ job_id: string; message_id: string; poll_secret: Uint8Array }>(
      t.db,
      sql`SELECT r.job_id, r.message_id, j.poll_secret FROM message_job_recipients r
          JOIN message_jobs j ON j.id = r.job_id WHERE r.session_id = ${accountId} ORDER BY r.id`,
    );
    expect(rows).toHaveLength(3);
    const secrets = rows.map((r) => Buffer.from(r.poll_secret).toString('hex'));
    // 32 bytes each; one per job (both recipients of the first share it), another for the second.
    expect(secrets.map((s) => s.length)).toEqual([64, 64, 64]);
    expect(secrets[0]).toBe(secrets[1]);
    expect(secrets[2]).not.toBe(secrets[0]);

    const lookup = sentPolls(t.db, accountId);
    const found = await lookup(rows[2]!.message_id);
    expect(found && { options: found.options, secret: found.secret.toString('hex') }).toEqual({
      options: ['Red', 'Green'],
      secret: secrets[2],
    });
    expect(await lookup('3EB0NOSUCHMESSAGE')).toBeNull();
    expect(await sentPolls(t.db, 'another_session')(rows[2]!.message_id)).toBeNull();

    // Neither the job's details nor the jobs list show it, in any encoding.
    const shown = [
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/message-jobs-details/${first.json().jobId}`,
          headers: bearer(a.token),
        })
      ).body,
      (await t.app.inject({ method: 'GET', url: '/api/message-jobs', headers: bearer(a.token) })).body,
    ].join('\n');
    expect(shown).toContain('Which colour?');
    for (const s of secrets.slice(1))
      for (const form of [s, Buffer.from(s, 'hex').toString('base64')]) expect(shown).not.toContain(form);
  });

  it('a vote is kept with the options it chose; a vote on an unknown poll with none; the webhook says which', async () => {
    const a = await account(t);
    phoneSeq += 1;
    const accountId = await connectedAccount(t, a.token, String(phoneSeq));
    const hook = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: bearer(a.token),
      payload: { url: 'http://127.0.0.1:9/hook', events: ['message.received'] },
    });
    expect(hook.statusCode, hook.body).toBe(200);
    const acct = { accountId, userId: a.user.id };
    const from = '919811300201@s.whatsapp.net';
    const at = (s: number) => new Date(Date.UTC(2026, 2, 2, 10, 0, s));
    await keepIncoming(t.ctx, acct, {
      from,
      messageId: 'VOTE1',
      text: null,
      type: 'poll_vote',
      votes: ['Red', 'Blue'],
      at: at(1),
    });
    await keepIncoming(t.ctx, acct, {
      from,
      messageId: 'VOTE2',
      text: null,
      type: 'poll_vote',
      votes: [],
      at: at(2),
    });
    const personId = await keepIncoming(t.ctx, acct, {
      from,
      messageId: 'VOTE3',
      text: null,
      type: 'poll_vote',
      votes: null,
      at: at(3),
    });

    const thread = await t.app.inject({
      method: 'GET',
      url: `/api/inbox/${personId}`,
      headers: bearer(a.token),
    });
    expect(thread.json().messages.map((m: { type: string; text: string }) => [m.type, m.text])).toEqual([
      ['poll_vote', 'Red, Blue'],
      ['poll_vote', ''],
      ['poll_vote', ''],
    ]);
    const events = await queryRows<{ data: unknown }>(
      t.db,
      sql`SELECT d.data FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE w.user_id = ${a.user.id} AND d.event = 'message.received' ORDER BY d.id`,
    );
    const payloads = events.map((e) => WEBHOOK_PAYLOADS['message.received'].parse(e.data));
    expect(payloads.map((p) => [p.messageId, p.type, p.text, p.options])).toEqual([
      ['VOTE1', 'poll_vote', 'Red, Blue', ['Red', 'Blue']],
      ['VOTE2', 'poll_vote', '', []],
      ['VOTE3', 'poll_vote', '', null],
    ]);
  });
});
