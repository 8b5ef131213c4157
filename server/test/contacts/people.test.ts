import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { readSignals } from '../../src/accounts/health/repository.ts';
import { erasures, optOuts, people, personAddresses } from '../../src/db/schema.ts';
import { connectedAccount } from '../fakes/accounts.ts';
import { postSignedWebhook, useCloudApp } from '../fakes/cloud-rig.ts';
import { messagesEnvelope } from '../fakes/graph-api-payloads.ts';
import { balanceOf, recipientsOf } from '../fakes/messaging.ts';
import { account, bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * One person, reached by a linked phone (which sees them by LID) and by a Cloud API number (which
 * sees them by business-scoped user id): what WhatsApp shows to belong together is one person, and
 * a STOP by any address is honoured on both kinds of account.
 */
describe.each(DB_KINDS)('One person, many addresses on %s', (kind) => {
  const rig = useCloudApp(kind);
  let lastPhone = 919_711_000_000;

  /** A user with a Cloud API number and a linked phone (the simulator), both connected. */
  async function twoKinds() {
    const a = await account(rig.t, {
      credits: 100,
      track: rig.users,
      isMultisessionSupported: true,
      isBulkMessagingEnabled: true,
    });
    const cloud = await rig.connect(a.token);
    lastPhone += 1;
    const linked = await connectedAccount(rig.t, a.token, String(lastPhone));
    return { ...a, cloud, linked };
  }

  /** A signed message webhook to the Cloud number: `phone` left out when Meta hides it. */
  async function cloudMessage(
    accountId: string,
    person: { phone?: string; bsuid?: string; username?: string },
    text: string,
  ) {
    const { fake, t } = rig;
    const id = `wamid.in.${crypto.randomUUID()}`;
    const body = JSON.stringify(
      messagesEnvelope(
        fake.wabaId,
        { id: fake.phoneNumberId, display: '919800015838' },
        {
          contacts: [
            {
              profile: { name: 'Asha', ...(person.username ? { username: person.username } : {}) },
              ...(person.phone ? { wa_id: person.phone } : {}),
              ...(person.bsuid ? { user_id: person.bsuid } : {}),
            },
          ],
          messages: [
            {
              ...(person.phone ? { from: person.phone } : {}),
              ...(person.bsuid ? { from_user_id: person.bsuid } : {}),
              id,
              timestamp: String(Math.floor(Date.now() / 1000)),
              type: 'text',
              text: { body: text },
            },
          ],
        },
      ),
    );
    const res = await postSignedWebhook(t, accountId, body, fake.appSecret);
    expect(res.statusCode, res.body).toBe(200);
  }

  /** A text to the linked phone from `from` (a LID JID), with the number WhatsApp gives beside it when it does. */
  async function linkedMessage(
    token: string,
    accountId: string,
    from: string,
    text: string,
    senderPn?: string,
  ) {
    const res = await rig.post(token, `/api/simulator/sessions/${accountId}/inbound`, {
      from,
      text,
      ...(senderPn ? { senderPn } : {}),
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  const template = {
    type: 'template',
    content: { name: 'order_update', language: 'en_US', parameters: ['A-1'] },
  };
  const later = () => new Date(Date.now() + 3_600_000).toISOString();

  async function addressesOf(userId: string) {
    const rows = await rig.t.db.select().from(personAddresses).where(eq(personAddresses.userId, userId));
    return rows.map((r) => [r.kind, r.value, r.personId] as const).sort();
  }

  it('a STOP from the LID on the linked phone leaves the person out of the Cloud number’s sends, by number and by BSUID', async () => {
    const a = await twoKinds();
    const phone = '919811100041';
    const bsuid = 'IN.13491208655302741918';
    const lid = '204800000000041';
    // The Cloud webhook names the number and the BSUID together; the linked phone's stanza gives
    // the number beside the LID (sender_pn).
    await cloudMessage(a.cloud, { phone, bsuid }, 'hi');
    await linkedMessage(a.token, a.linked, `${lid}@lid`, 'hello', phone);
    await waitFor('LID joined', async () => (await addressesOf(a.user.id)).length === 3);
    const [person] = await rig.t.db.select().from(people).where(eq(people.userId, a.user.id));
    expect(await addressesOf(a.user.id)).toEqual(
      [
        ['bsuid', bsuid, person!.id],
        ['lid', lid, person!.id],
        ['phone', phone, person!.id],
      ].sort(),
    );

    // Job Details shows the person written to by BSUID by their number (a BSUID-only one by a short id).
    const shown = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      ...template,
      chatIds: [bsuid, 'IN.13491208655302741942'],
      scheduleTime: later(),
    });
    const details = await rig.t.app.inject({
      method: 'GET',
      url: `/api/message-jobs-details/${shown.json().jobId}`,
      headers: bearer(a.token),
    });
    expect(details.statusCode, details.body).toBe(200);
    expect(details.json().job.details.map((d: { chatName: string }) => d.chatName)).toEqual([
      phone,
      'IN.134…1942',
    ]);

    // Later the LID writes STOP with no number beside it: the LID itself is opted out.
    await linkedMessage(a.token, a.linked, `${lid}@lid`, 'STOP');
    await waitFor('LID opted out', async () => {
      const rows = await rig.t.db.select().from(optOuts).where(eq(optOuts.userId, a.user.id));
      return rows.some((r) => r.addressKind === 'lid' && r.phoneNumber === lid);
    });

    const balance = await balanceOf(rig.t.db, a.user.id);
    const res = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      ...template,
      chatIds: [phone, bsuid, '919811100042'],
      scheduleTime: later(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json();
    expect(answer.skipped).toEqual({ optedOut: [phone, bsuid] });
    expect(answer.totalChats).toBe(1);
    const recipients = await recipientsOf(rig.t.db, answer.jobId);
    expect(recipients.map((r) => r.chatId)).toEqual(['919811100042@s.whatsapp.net']);
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(balance - answer.creditsCharged);

    // The opt-out list shows the person by their number, with the address the STOP came by.
    const list = await rig.t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(a.token) });
    expect(list.json().optOuts).toMatchObject([
      { phoneNumber: phone, address: { kind: 'lid', value: lid }, source: 'reply' },
    ]);
    // The user takes the number off the list: the person may be messaged again, by every address.
    const removed = await rig.t.app.inject({
      method: 'DELETE',
      url: `/api/opt-outs/${phone}`,
      headers: bearer(a.token),
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await rig.t.db.select().from(optOuts).where(eq(optOuts.userId, a.user.id))).toEqual([]);
  });

  it('a STOP from a BSUID without wa_id makes no second person and is honoured by the linked phone; a BSUID is refused there, uncharged', async () => {
    const a = await twoKinds();
    const phone = '919811100051';
    const bsuid = 'IN.13491208655302741951';
    await cloudMessage(a.cloud, { phone, bsuid, username: 'asha.k' }, 'hi');
    await waitFor('joined', async () => (await addressesOf(a.user.id)).length === 3);

    // Meta hides the number now (a username, no recent chat): only the BSUID comes.
    await cloudMessage(a.cloud, { bsuid, username: 'asha.k' }, 'STOP');
    const out = await rig.t.db.select().from(optOuts).where(eq(optOuts.userId, a.user.id));
    expect(out.map((o) => [o.addressKind, o.phoneNumber, o.source])).toEqual([['bsuid', bsuid, 'reply']]);
    expect(await rig.t.db.select().from(people).where(eq(people.userId, a.user.id))).toHaveLength(1);
    const addresses = await addressesOf(a.user.id);
    expect(addresses.map(([k, v]) => [k, v])).toEqual([
      ['bsuid', bsuid],
      ['phone', phone],
      ['username', 'asha.k'],
    ]);
    expect(new Set(addresses.map(([, , p]) => p)).size).toBe(1);

    // The linked phone's send to the number leaves the person out, before anything is charged.
    const balance = await balanceOf(rig.t.db, a.user.id);
    const res = await rig.post(a.token, `/api/session/${a.linked}/sendIndividualMessage`, {
      content: 'Offer',
      chatIds: [phone, '919811100052'],
      scheduleTime: later(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().skipped).toEqual({ optedOut: [phone] });
    expect((await recipientsOf(rig.t.db, res.json().jobId)).map((r) => r.chatId)).toEqual([
      '919811100052@s.whatsapp.net',
    ]);
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(balance - 1);

    // A linked phone cannot write to a BSUID: left out with that reason; alone, the send is refused.
    const other = 'IN.13491208655302741952';
    const mixed = await rig.post(a.token, `/api/session/${a.linked}/sendIndividualMessage`, {
      content: 'Offer',
      chatIds: [other, '919811100053'],
      scheduleTime: later(),
    });
    expect(mixed.statusCode, mixed.body).toBe(200);
    expect(mixed.json().skipped).toEqual({ optedOut: [], needsCloudNumber: [other] });
    const alone = await rig.post(a.token, `/api/session/${a.linked}/sendIndividualMessage`, {
      content: 'Offer',
      chatIds: [other],
    });
    expect(alone.statusCode).toBe(400);
    expect(alone.json().message).toBe(
      'A linked phone cannot send to a business-scoped user ID: send it from a Cloud API number',
    );
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(balance - 2);
  });

  it('when WhatsApp later shows a STOP’s LID to be a queued number’s, that recipient fails Opted out and is refunded', async () => {
    const a = await twoKinds();
    const phone = '919811100081';
    const lid = '204800000000081';
    const balance = await balanceOf(rig.t.db, a.user.id);
    const res = await rig.post(a.token, `/api/session/${a.linked}/sendIndividualMessage`, {
      content: 'Offer',
      chatIds: [phone],
      scheduleTime: later(),
    });
    expect(res.statusCode, res.body).toBe(200);
    // A STOP from a LID no number is known for: nothing tells it is this recipient yet.
    await linkedMessage(a.token, a.linked, `${lid}@lid`, 'STOP');
    await waitFor('LID opted out', async () =>
      (await rig.t.db.select().from(optOuts)).some((o) => o.phoneNumber === lid),
    );
    expect((await recipientsOf(rig.t.db, res.json().jobId))[0]).toMatchObject({ status: 'queued' });
    // The next message carries the number beside the LID.
    await linkedMessage(a.token, a.linked, `${lid}@lid`, 'sorry', phone);
    await waitFor(
      'failed',
      async () => (await recipientsOf(rig.t.db, res.json().jobId))[0]?.status === 'failed',
    );
    expect((await recipientsOf(rig.t.db, res.json().jobId))[0]).toMatchObject({ error: 'Opted out' });
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(balance);
  });

  it('a job names a person once: their number and their BSUID are one recipient, and a reply by BSUID marks it', async () => {
    const a = await twoKinds();
    const phone = '919811100091';
    const bsuid = 'IN.13491208655302741991';
    await cloudMessage(a.cloud, { phone, bsuid }, 'hi');
    await waitFor('joined', async () => (await addressesOf(a.user.id)).length === 2);
    const balance = await balanceOf(rig.t.db, a.user.id);
    const res = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      ...template,
      chatIds: [phone, bsuid, '919811100092'],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ totalChats: 2 });
    expect(res.json().skipped).toBeUndefined();
    const jobId = res.json().jobId;
    expect((await recipientsOf(rig.t.db, jobId)).map((r) => r.chatId)).toEqual([
      `${phone}@s.whatsapp.net`,
      '919811100092@s.whatsapp.net',
    ]);
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(balance - res.json().creditsCharged);
    await waitFor('sent', async () => (await recipientsOf(rig.t.db, jobId))[0]?.status === 'sent');
    // The person answers with their number hidden: the send to their number has its reply.
    await cloudMessage(a.cloud, { bsuid }, 'Thanks!');
    expect((await recipientsOf(rig.t.db, jobId))[0]).toMatchObject({ replyText: 'Thanks!' });
  });

  it('account health counts people: one reached again by their BSUID is no new contact, a BSUID-only one is', async () => {
    const a = await twoKinds();
    const phone = '919811100101';
    const bsuid = 'IN.13491208655302741101';
    const first = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      ...template,
      chatIds: [phone],
    });
    await waitFor(
      'sent',
      async () => (await recipientsOf(rig.t.db, first.json().jobId))[0]?.status === 'sent',
    );
    const since = new Date(Date.now() + 5);
    await new Promise((r) => setTimeout(r, 20));
    await cloudMessage(a.cloud, { phone, bsuid }, 'hi');
    const second = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      ...template,
      chatIds: [bsuid, '919811100102', 'IN.13491208655302741102'],
    });
    const jobId = second.json().jobId;
    await waitFor('sent', async () =>
      (await recipientsOf(rig.t.db, jobId)).every((r) => r.status === 'sent'),
    );
    // New: the other number and the BSUID-only person; not the person first reached by number.
    expect((await readSignals(rig.t.db, a.cloud, since)).newContacts).toBe(2);
  });

  it('a contact import takes bsuid and username columns beside phone: the row’s addresses are one person', async () => {
    const a = await twoKinds();
    const form = new FormData();
    form.append('name', 'Usernames');
    const csv = [
      'phone,bsuid,username,name',
      '9811100111,IN.13491208655302741111,@asha.k,Asha',
      ',IN.13491208655302741112,,Ravi',
      ',,meera,Meera',
    ].join('\n');
    form.append('file', new Blob([csv]), 'people.csv');
    const res = await rig.t.app.inject({
      method: 'POST',
      url: '/api/contact-lists/import',
      headers: bearer(a.token),
      payload: form,
    });
    expect(res.statusCode, res.body).toBe(200);
    // The username-only row names no one WhatsApp lets the account write to.
    expect(res.json()).toMatchObject({ imported: 2, skipped: { invalid: 0, duplicates: 0, empty: 1 } });
    const listId = res.json().list.id as string;
    const addresses = await addressesOf(a.user.id);
    expect(addresses.map(([k, v]) => [k, v])).toEqual([
      ['bsuid', 'IN.13491208655302741111'],
      ['phone', '919811100111'],
      ['username', 'asha.k'],
    ]);
    expect(new Set(addresses.map(([, , p]) => p)).size).toBe(1);
    // The contacts page shows the BSUID-only contact by a short form of the id.
    const listed = await rig.t.app.inject({
      method: 'GET',
      url: `/api/contact-lists/${listId}/contacts`,
      headers: bearer(a.token),
    });
    expect(
      listed
        .json()
        .contacts.map((c: { phoneNumber: string; display?: string }) => [c.phoneNumber, c.display]),
    ).toEqual([
      ['919811100111', undefined],
      ['IN.13491208655302741112', 'IN.134…1112'],
    ]);

    // A STOP by the first person's BSUID, with the number hidden: the list counts them opted out,
    // and a send to the list leaves their number out and writes to the BSUID-only contact.
    await cloudMessage(a.cloud, { bsuid: 'IN.13491208655302741111' }, 'STOP');
    const lists = await rig.t.app.inject({
      method: 'GET',
      url: '/api/contact-lists',
      headers: bearer(a.token),
    });
    expect(lists.json().lists.find((l: { id: string }) => l.id === listId)).toMatchObject({
      count: 2,
      optedOut: 1,
    });
    const send = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      ...template,
      contactListIds: [listId],
      scheduleTime: later(),
    });
    expect(send.statusCode, send.body).toBe(200);
    expect(send.json().skipped).toEqual({ optedOut: ['919811100111'] });
    expect((await recipientsOf(rig.t.db, send.json().jobId)).map((r) => r.chatId)).toEqual([
      'IN.13491208655302741112',
    ]);
  });

  it('a message naming the number and the BSUID opens the service window for both: a text may go to the BSUID', async () => {
    const a = await twoKinds();
    const phone = '919811100121';
    const bsuid = 'IN.13491208655302741121';
    await cloudMessage(a.cloud, { phone, bsuid }, 'Is the shop open today?');
    const res = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      content: 'Yes, till 9 pm.',
      chatIds: [bsuid],
    });
    expect(res.statusCode, res.body).toBe(200);
    await waitFor('sent', async () => (await recipientsOf(rig.t.db, res.json().jobId))[0]?.status === 'sent');
    expect(rig.fake.sends.filter((s) => s.to === bsuid).map((s) => s.body.text?.body)).toEqual([
      'Yes, till 9 pm.',
    ]);
  });

  it('an opt-out by a LID no number is known for is taken off the list by the address the list gives', async () => {
    const a = await twoKinds();
    const lid = '204800000000131';
    await linkedMessage(a.token, a.linked, `${lid}@lid`, 'STOP');
    const listed = await waitFor('listed', async () => {
      const res = await rig.t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(a.token) });
      return res.json().optOuts.length === 1 ? res.json().optOuts : null;
    });
    expect(listed).toMatchObject([{ phoneNumber: 'LID 204800…0131', address: { kind: 'lid', value: lid } }]);
    const removed = await rig.t.app.inject({
      method: 'DELETE',
      url: `/api/opt-outs/${listed[0].address.value}`,
      headers: bearer(a.token),
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await rig.t.db.select().from(optOuts).where(eq(optOuts.userId, a.user.id))).toEqual([]);
  });

  it('a STOP from a person with a username and no number shown is listed by the username', async () => {
    const a = await twoKinds();
    await cloudMessage(a.cloud, { bsuid: 'IN.13491208655302741141', username: 'ravi.k' }, 'STOP');
    const res = await rig.t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(a.token) });
    expect(res.json().optOuts).toMatchObject([
      { phoneNumber: '@ravi.k', address: { kind: 'bsuid', value: 'IN.13491208655302741141' } },
    ]);
  });

  it('the Cloud number writes to a person known only by BSUID in Meta’s recipient field', async () => {
    const a = await twoKinds();
    const bsuid = 'IN.13491208655302741961';
    const res = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      ...template,
      chatIds: [bsuid],
    });
    expect(res.statusCode, res.body).toBe(200);
    await waitFor(
      'delivered',
      async () => !!(await recipientsOf(rig.t.db, res.json().jobId))[0]?.deliveredAt,
    );
    const sent = rig.fake.sends.filter((s) => s.to === bsuid);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.recipient).toBe(bsuid);
    expect(sent[0]!.body.to).toBeUndefined();
  });

  it('a data request and an erasure by number cover the LID and the BSUID of the person', async () => {
    const a = await twoKinds();
    const phone = '919811100071';
    const bsuid = 'IN.13491208655302741971';
    const lid = '204800000000071';
    await cloudMessage(a.cloud, { phone, bsuid }, 'hi');
    await linkedMessage(a.token, a.linked, `${lid}@lid`, 'hello', phone);
    await waitFor('joined', async () => (await addressesOf(a.user.id)).length === 3);
    // A message to the BSUID, then a STOP by it.
    const sent = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      ...template,
      chatIds: [bsuid],
    });
    expect(sent.statusCode, sent.body).toBe(200);
    await waitFor(
      'sent',
      async () => (await recipientsOf(rig.t.db, sent.json().jobId))[0]?.status === 'sent',
    );
    await cloudMessage(a.cloud, { bsuid }, 'STOP');

    const data = await rig.t.app.inject({
      method: 'GET',
      url: `/api/contacts/by-phone/${phone}?format=json`,
      headers: bearer(a.token),
    });
    expect(data.statusCode, data.body).toBe(200);
    const held = data.json();
    expect(held.addresses).toEqual([
      { kind: 'phone', value: phone },
      { kind: 'bsuid', value: bsuid },
      { kind: 'lid', value: lid },
    ]);
    expect(held.optOut).toMatchObject({ source: 'reply', keyword: 'STOP' });
    expect(held.messages.map((m: { jobId: string }) => m.jobId)).toEqual([sent.json().jobId]);

    const erase = await rig.t.app.inject({
      method: 'DELETE',
      url: `/api/contacts/by-phone/${phone}`,
      headers: bearer(a.token),
    });
    expect(erase.statusCode, erase.body).toBe(200);
    expect(erase.json().messages).toBe(1);
    expect(await rig.t.db.select().from(optOuts).where(eq(optOuts.userId, a.user.id))).toEqual([]);
    expect(await addressesOf(a.user.id)).toEqual([]);
    expect(await rig.t.db.select().from(people).where(eq(people.userId, a.user.id))).toEqual([]);
    expect(await rig.t.db.select().from(erasures).where(eq(erasures.userId, a.user.id))).toHaveLength(3);
    const [recipient] = await recipientsOf(rig.t.db, sent.json().jobId);
    expect(recipient!.chatId).toMatch(/@erased$/);
    // Erased stays left out, by the BSUID too.
    const again = await rig.post(a.token, `/api/session/${a.cloud}/sendIndividualMessage`, {
      ...template,
      chatIds: [bsuid],
    });
    expect(again.statusCode).toBe(400);
    const stored = await rig.t.db
      .select()
      .from(optOuts)
      .where(and(eq(optOuts.userId, a.user.id), eq(optOuts.phoneNumber, bsuid)));
    expect(stored).toEqual([]);
  });
});
