import { FAILURE_TEXTS } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  marketingStoppedFor,
  recordMarketingPreference,
} from '../../src/accounts/cloud/marketing-preferences.ts';
import { joinAddresses } from '../../src/contacts/people.ts';
import { queryRows } from '../../src/db/client.ts';
import { parseWebhook } from '../../src/transport/cloud/webhook-events.ts';
import { useCloudApp } from '../fakes/cloud-rig.ts';
import { balanceOf, waitForJobEnd } from '../fakes/messaging.ts';
import { bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * A person who stops marketing messages from a Cloud API business (Meta's `user_preferences`
 * webhook, or error 131050 "User has stopped receipt of marketing messages" on a send) gets none of
 * its marketing templates, uncharged and with the reason in Job Details, until they resume; its
 * utility templates still go.
 */
describe.each(DB_KINDS)('marketing messages stopped by the person on %s', (kind) => {
  const rig = useCloudApp(kind);

  const send = async (
    a: { token: string; accountId: string },
    template: 'diwali_offer' | 'order_update',
    to: string[],
  ) => {
    const content =
      template === 'diwali_offer'
        ? { name: 'diwali_offer', language: 'en', parameters: ['Asha', '30%'] }
        : { name: 'order_update', language: 'en_US', parameters: ['A-1'] };
    const res = await rig.post(a.token, `/api/session/${a.accountId}/sendIndividualMessage`, {
      type: 'template',
      content,
      chatIds: to,
    });
    expect(res.statusCode, res.body).toBe(200);
    const jobId = res.json().jobId as string;
    await waitForJobEnd(rig.t.app, a.token, jobId);
    await rig.fake.flush();
    const details = await rig.t.app.inject({
      method: 'GET',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(a.token),
    });
    const shown = (
      details.json().job.details as Array<{ chatId: string; status: string; error: string | null }>
    )
      .map((d) => [d.chatId.split('@')[0], d.status, d.error])
      .sort();
    return { jobId, shown };
  };
  const preference = async (address: string) =>
    (
      await queryRows<{ stopped: boolean; source: string }>(
        rig.t.db,
        sql`SELECT stopped, source FROM cloud_marketing_preferences WHERE waba_id = ${rig.fake.wabaId} AND address = ${address}`,
      )
    )[0] ?? null;
  const marketingSendsTo = (to: string) =>
    rig.fake.sends.filter((s) => s.to === to && s.body.template?.name === 'diwali_offer').length;

  it('a stop by webhook leaves the person out of marketing templates, uncharged and not retried; utility goes; resume undoes it', async () => {
    const a = await rig.cloudAccount(20);
    rig.fake.setMarketingPreference('919811100031', 'stop');
    await waitFor('the stop recorded', async () => (await preference('919811100031'))?.stopped === true);

    const balance = await balanceOf(rig.t.db, a.user.id);
    const offer = await send(a, 'diwali_offer', ['919811100031', '919811100032']);
    expect(offer.shown).toEqual([
      ['919811100031', 'failed', FAILURE_TEXTS.marketingStopped],
      ['919811100032', 'sent', null],
    ]);
    // Nothing went to Meta for the person, and only the one sent is charged.
    expect(marketingSendsTo('919811100031')).toBe(0);
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(balance - 1);
    // "Retry failed" has nothing to send again.
    const retryable = await rig.t.app.inject({
      method: 'GET',
      url: `/api/message-jobs/${a.user.id}/retryable?jobIds=${offer.jobId}`,
      headers: bearer(a.token),
    });
    expect(retryable.json().retryable).toEqual({ [offer.jobId]: 0 });
    const retry = await rig.post(a.token, `/api/message-jobs-details/${offer.jobId}/retry`, {});
    expect(retry.statusCode).toBe(400);
    expect(marketingSendsTo('919811100031')).toBe(0);

    // A utility template is no marketing message: it goes.
    const update = await send(a, 'order_update', ['919811100031']);
    expect(update.shown).toEqual([['919811100031', 'sent', null]]);

    // The person resumes: the next offer reaches them.
    rig.fake.setMarketingPreference('919811100031', 'resume');
    await waitFor('the resume recorded', async () => (await preference('919811100031'))?.stopped === false);
    const again = await send(a, 'diwali_offer', ['919811100031']);
    expect(again.shown).toEqual([['919811100031', 'sent', null]]);
    expect(marketingSendsTo('919811100031')).toBe(1);
  });

  it('Meta’s 131050 fails the send uncharged with the reason and leaves the person out of the next offer before Meta', async () => {
    const a = await rig.cloudAccount(20);
    // The person stopped while no webhook reached the product: Meta refuses the offer with 131050.
    rig.fake.state.marketingStopped.add('919811100041');
    const balance = await balanceOf(rig.t.db, a.user.id);
    const first = await send(a, 'diwali_offer', ['919811100041']);
    await waitFor(
      'the failed status taken',
      async () => (await preference('919811100041'))?.stopped === true,
    );
    const details = await rig.t.app.inject({
      method: 'GET',
      url: `/api/message-jobs-details/${first.jobId}`,
      headers: bearer(a.token),
    });
    expect(details.json().job.details[0]).toMatchObject({
      status: 'failed',
      error: FAILURE_TEXTS.marketingStopped,
    });
    expect(await preference('919811100041')).toEqual({ stopped: true, source: 'error_131050' });
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(balance);
    expect(marketingSendsTo('919811100041')).toBe(1);

    // The next offer leaves them out without asking Meta.
    const next = await send(a, 'diwali_offer', ['919811100041']);
    expect(next.shown).toEqual([['919811100041', 'failed', FAILURE_TEXTS.marketingStopped]]);
    expect(marketingSendsTo('919811100041')).toBe(1);
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(balance);
    rig.fake.state.marketingStopped.clear();
  });

  it('a stop given under the BSUID leaves out the same person reached by their number', async () => {
    const a = await rig.cloudAccount(20);
    // WhatsApp showed the number and the BSUID together (a webhook naming both): one person.
    await rig.t.db.transaction((tx) =>
      joinAddresses(tx, a.user.id, [
        { kind: 'phone', value: '919811100051' },
        { kind: 'bsuid', value: 'IN.13491208655302741951' },
      ]),
    );
    await recordMarketingPreference(rig.t.db, {
      wabaId: rig.fake.wabaId,
      address: 'IN.13491208655302741951',
      stopped: true,
      at: new Date(),
      source: 'user_preferences',
    });
    const offer = await send(a, 'diwali_offer', ['919811100051', '919811100052']);
    expect(offer.shown).toEqual([
      ['919811100051', 'failed', FAILURE_TEXTS.marketingStopped],
      ['919811100052', 'sent', null],
    ]);
    expect(marketingSendsTo('919811100051')).toBe(0);
  });

  it('questions asked at once go in one batch, each answered as it would be alone', async () => {
    const a = await rig.cloudAccount(20);
    await rig.t.db.transaction((tx) =>
      joinAddresses(tx, a.user.id, [
        { kind: 'phone', value: '919811100061' },
        { kind: 'bsuid', value: 'IN.13491208655302741961' },
      ]),
    );
    for (const address of ['IN.13491208655302741961', '919811100062'])
      await recordMarketingPreference(rig.t.db, {
        wabaId: rig.fake.wabaId,
        address,
        stopped: true,
        at: new Date(),
        source: 'user_preferences',
      });
    const marketing = { name: 'diwali_offer', language: 'en' };
    const utility = { name: 'order_update', language: 'en_US' };
    const asked: Array<[string, { name: string; language: string }, boolean]> = [
      ['919811100061', marketing, true], // stopped under the BSUID the number is joined to
      ['919811100062', marketing, true],
      ['919811100062', utility, false], // a utility template still goes
      ['919811100063', marketing, false], // never stopped
      ['919811100062', { name: 'diwali_offer', language: 'hi' }, false], // no such template synced
    ];
    const answers = await Promise.all(
      asked.map(([to, template]) => marketingStoppedFor(rig.t.db, a.accountId, to, template)),
    );
    expect(answers).toEqual(asked.map(([, , stopped]) => stopped));
    // The template is looked up under the account asked about: none under an unknown account.
    expect(await marketingStoppedFor(rig.t.db, 'no-such-account', '919811100062', marketing)).toBe(false);
  });
});

describe('the user_preferences webhook', () => {
  const envelope = (pref: Record<string, unknown>) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'user_preferences',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
              user_preferences: [
                {
                  detail: 'User requested to stop marketing messages',
                  category: 'marketing_messages',
                  value: 'stop',
                  timestamp: 1739321024,
                  ...pref,
                },
              ],
            },
          },
        ],
      },
    ],
  });

  it('reads a stop by wa_id, or by the business-scoped user_id when there is no wa_id', () => {
    expect(parseWebhook(envelope({ wa_id: '16505551234' }))).toMatchObject({
      ok: true,
      events: [{ kind: 'preference', wabaId: '102290129340398', address: '16505551234', stopped: true }],
    });
    expect(parseWebhook(envelope({ user_id: 'US.13491208655302741918' }))).toMatchObject({
      ok: true,
      events: [{ kind: 'preference', address: 'US.13491208655302741918', stopped: true }],
    });
    expect(parseWebhook(envelope({}))).toMatchObject({ ok: false });
  });
});
