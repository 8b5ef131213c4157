import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts, waGroups } from '../../src/db/schema.ts';
import { connectedAccount } from '../fakes/accounts.ts';
import { waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, buildUser, DB_KINDS, loginToken } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const REASON = 'WhatsApp restricted this account (error 463). Sending is paused.';

describe.each(DB_KINDS)('resuming a session paused by WhatsApp’s limits on %s', (kind) => {
  const { t } = appWithEngine(kind, { SESSION_WAIT_MS: '60000', SIMULATOR_LINK_AFTER_MS: '3600000' });

  it('holds the queue while paused, shows why, and sends once the user resumes', async () => {
    const user = await buildUser(t, { credits: 10 });
    const token = await loginToken(t.app, user.username);
    const accountId = await connectedAccount(t, token, '919700001234');
    await t.db
      .update(accounts)
      .set({ sendPaused: true, statusReason: REASON })
      .where(eq(accounts.accountId, accountId));

    const sessions = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) });
    expect(sessions.json().sessions[0]).toMatchObject({
      sessionId: accountId,
      sendPaused: true,
      statusReason: REASON,
    });

    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: ['919811112222', '919811113333'], content: 'Held until resumed' },
    });
    const jobId = sent.json().jobId as string;
    // A group message sent after it goes (the pause holds one-to-one chats only): the account's
    // loop claimed past the held numbers, which are due before it.
    const [group] = await waitFor('groups cached', async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
      return rows.find((g) => !g.announce) ? rows.filter((g) => !g.announce) : null;
    });
    const toGroup = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendBulkMessage`,
      headers: bearer(token),
      payload: { chatIds: [group!.groupId], type: 'string', content: 'Groups go on' },
    });
    expect((await waitForJobEnd(t.app, token, toGroup.json().jobId as string)).status).toBe('completed');
    const held = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(token),
    });
    expect(held.json().job.results).toMatchObject({ success: 0, failed: 0 });

    // Another user cannot lift the pause.
    const other = await buildUser(t);
    const otherToken = await loginToken(t.app, other.username);
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/resume`,
      headers: bearer(otherToken),
    });
    expect(refused.statusCode).toBe(404);

    const resumed = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/resume`,
      headers: bearer(token),
    });
    expect(resumed.json()).toEqual({ success: true, message: 'Sending resumed' });
    const job = await waitForJobEnd(t.app, token, jobId);
    expect(job.status).toBe('completed');
    expect(job.results).toMatchObject({ success: 2, failed: 0 });
    const after = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) });
    expect(after.json().sessions[0]).toMatchObject({ sendPaused: false, statusReason: null });

    const again = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/resume`,
      headers: bearer(token),
    });
    expect(again.json()).toEqual({ success: true, message: 'Sending is not paused' });
  });
});
