import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cloudAccounts } from '../../src/db/schema.ts';
import { connectBody } from '../fakes/cloud-account.ts';
import { useCloudApp } from '../fakes/cloud-rig.ts';
import { jobRow, recipientsOf } from '../fakes/messaging.ts';
import { account, bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/** Connecting a Cloud API account: Meta's checks of the credentials, the synced templates, and a token that stops working. */
describe.each(DB_KINDS)('Connecting a Cloud API account on %s', (kind) => {
  const rig = useCloudApp(kind);

  it('refuses wrong credentials with Meta’s text, and connects good ones as kind cloud with quality and tier', async () => {
    const { t, fake, post } = rig;
    const a = await account(t, { credits: 0 });
    const wrong = await post(
      a.token,
      '/api/cloud-instances',
      connectBody(fake, { accessToken: 'EAAJB-wrong' }),
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toMatch(/^Error validating access token: Session has expired/);
    const unknownId = await post(
      a.token,
      '/api/cloud-instances',
      connectBody(fake, { phoneNumberId: '999' }),
    );
    expect(unknownId.statusCode).toBe(400);
    expect(unknownId.json().message).toContain("Object with ID '999' does not exist");

    const ok = await post(a.token, '/api/cloud-instances', connectBody(fake));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ success: true, sessionId: expect.stringMatching(/^919800015838_/) });
    const accountId = ok.json().sessionId;
    await waitFor('connected', async () => {
      const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(a.token) });
      return list.json().sessions[0]?.status === 'CONNECTED';
    });
    const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(a.token) });
    expect(list.json().sessions[0]).toMatchObject({
      sessionId: accountId,
      kind: 'cloud',
      phoneNumber: '919800015838',
      qualityRating: 'GREEN',
      messagingLimitTier: 'TIER_2K',
      verifiedName: 'Lucky Shrub',
    });
    // The secrets are sealed at rest (SECRET_KEY), never stored as typed.
    const [row] = await t.db.select().from(cloudAccounts).where(eq(cloudAccounts.accountId, accountId));
    for (const v of [row!.accessToken, row!.appSecret, row!.verifyToken]) expect(v).toMatch(/^enc1:/);
    expect(row!.accessToken).not.toContain(fake.accessToken);
    // One number is one account.
    const again = await post(a.token, '/api/cloud-instances', connectBody(fake, { sessionName: 'Again' }));
    expect(again.statusCode).toBe(409);

    // Templates, as synced from Meta.
    const templates = await t.app.inject({
      method: 'GET',
      url: `/api/session/${accountId}/templates`,
      headers: bearer(a.token),
    });
    expect(templates.json()).toEqual({
      success: true,
      templates: [
        expect.objectContaining({
          name: 'diwali_offer',
          language: 'en',
          category: 'MARKETING',
          status: 'APPROVED',
          bodyText: 'Hello {{1}}, {{2}} off this Diwali!',
          parameterCount: 2,
        }),
        expect.objectContaining({ name: 'new_launch', status: 'PENDING', parameterCount: 0 }),
        expect.objectContaining({ name: 'order_update', category: 'UTILITY', parameterCount: 1 }),
      ],
    });
    // At most once a minute: a second call within the minute does not ask Meta again.
    const asked = fake.calls.filter((c) => c.path.endsWith('/message_templates')).length;
    await t.app.inject({
      method: 'GET',
      url: `/api/session/${accountId}/templates`,
      headers: bearer(a.token),
    });
    expect(fake.calls.filter((c) => c.path.endsWith('/message_templates')).length).toBe(asked);
  });

  it('goes DISCONNECTED with Meta’s reason when the token stops working, and counts an inbound reply', async () => {
    const { t, fake, post, cloudAccount } = rig;
    const a = await cloudAccount(10);
    const res = await post(a.token, `/api/session/${a.accountId}/sendIndividualMessage`, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
      chatIds: ['919811100031'],
    });
    const jobId = res.json().jobId as string;
    await waitFor('delivered', async () => (await jobRow(t.db, jobId))?.deliveredCount === 1);
    fake.sendInbound('919811100031', 'Thanks, got it');
    await waitFor(
      'the reply',
      async () => (await recipientsOf(t.db, jobId))[0]?.replyText === 'Thanks, got it',
    );
    expect((await jobRow(t.db, jobId))?.repliedCount).toBe(1);

    fake.rotateToken();
    const next = await post(a.token, `/api/session/${a.accountId}/sendIndividualMessage`, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-8'] },
      chatIds: ['919811100032'],
    });
    expect(next.statusCode).toBe(200);
    const session = await waitFor('disconnected', async () => {
      const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(a.token) });
      const s = list.json().sessions[0];
      return s?.status === 'DISCONNECTED' ? s : null;
    });
    expect(session.statusReason).toMatch(/^Meta: Error validating access token/);
    // Nothing was sent: the recipient goes back to wait for the account, its credit reserved.
    // The refused send marks the account first and puts its recipient back after (account
    // loop): on PostgreSQL the list can show DISCONNECTED while the row is still 'sending'.
    const r = await waitFor('the recipient back in the queue', async () => {
      const [x] = await recipientsOf(t.db, next.json().jobId);
      return x && x.status !== 'sending' ? x : null;
    });
    expect(r.status).toBe('queued');
    await t.app.inject({
      method: 'DELETE',
      url: `/api/message-jobs-details/${next.json().jobId}`,
      headers: bearer(a.token),
    });
  });
});
