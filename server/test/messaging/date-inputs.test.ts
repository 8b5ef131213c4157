import { describe, expect, it } from 'vitest';
import { connectedAccount } from '../fakes/accounts.ts';
import { postSignedWebhook, useCloudApp } from '../fakes/cloud-rig.ts';
import { messagesEnvelope } from '../fakes/graph-api-payloads.ts';
import { account, bearer, DB_KINDS } from '../helpers.ts';

/** A year JavaScript reads and PostgreSQL does not: every date input answers 400 to it, never 500. */
const FAR = '+010000-01-01T00:00:00Z';
const BAD_TIME = 'Please select a valid future date and time';

describe.each(DB_KINDS)('date inputs out of bounds on %s', (kind) => {
  const rig = useCloudApp(kind, { SIMULATOR_LINK_AFTER_MS: '3600000' });
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  it('send routes, repeat.until, Status and a job edit or move answer 400 with their text', async () => {
    const { t } = rig;
    const a = await account(t, { credits: 10, track: rig.users });
    const phone = await connectedAccount(t, a.token, '919740020001');
    const call = (method: 'POST' | 'PATCH', url: string, payload: object) =>
      t.app.inject({ method, url, headers: bearer(a.token), payload });
    const refused = [
      await call('POST', `/api/session/${phone}/sendIndividualMessage`, {
        chatIds: ['919811300001'],
        content: 'Hi',
        scheduleTime: FAR,
      }),
      await call('POST', `/api/session/${phone}/sendBulkMessage`, {
        chatIds: ['120363000000000001@g.us'],
        content: 'Hi',
        scheduleTime: FAR,
      }),
      await call('POST', `/api/session/${phone}/sendStatus`, {
        type: 'text',
        content: 'Hi',
        scheduleTime: FAR,
        audience: { everyoneMessaged: true },
      }),
    ];
    for (const res of refused) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe(BAD_TIME);
    }
    const until = await call('POST', `/api/session/${phone}/sendIndividualMessage`, {
      chatIds: ['919811300001'],
      content: 'Hi',
      scheduleTime: inAnHour(),
      repeat: { every: 'day', until: FAR },
    });
    expect(until.statusCode, until.body).toBe(400);
    expect(until.json().message).toBe('repeat.until must be a date and time after scheduleTime');

    const sent = await call('POST', `/api/session/${phone}/sendIndividualMessage`, {
      chatIds: ['919811300001'],
      content: 'Hi',
      scheduleTime: inAnHour(),
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const jobUrl = `/api/message-jobs-details/${sent.json().jobId}`;
    for (const payload of [{ scheduleTime: FAR }, { scheduleTime: FAR, content: 'New' }]) {
      const res = await call('PATCH', jobUrl, payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe(BAD_TIME);
    }
  });

  it('a signed Cloud status with timestamp 1e300 is taken as not Meta’s shape (200), never a 500', async () => {
    const { t, fake, cloudAccount } = rig;
    const a = await cloudAccount();
    const body = JSON.stringify(
      messagesEnvelope(
        fake.wabaId,
        { id: fake.phoneNumberId, display: '919800015838' },
        {
          statuses: [
            { id: 'wamid.far.1', status: 'delivered', timestamp: '1e300', recipient_id: '919811300002' },
          ],
        },
      ),
    );
    const res = await postSignedWebhook(t, a.accountId, body, fake.appSecret);
    expect(res.statusCode, res.body).toBe(200);
  });
});
