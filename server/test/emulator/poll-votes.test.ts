import { randomBytes } from 'node:crypto';
import { receivedPoll, vote } from '@wa/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../fakes/webhook-receiver.ts';
import { waitFor } from '../wait.ts';
import { productOnEmulator } from './support/emulator-rig.ts';

const OWN = '919800000061';
const VOTER = '919811111161';
const OTHER = '919822222261';

type Message = { type: string; text: string; jobId: string | null; direction: string };

/**
 * Poll votes on the real Baileys socket: the product sends a poll with its job's secret, the
 * person's phone votes as a WhatsApp client does (wa-emulator poll-vote.ts), rc14 hands the vote
 * over encrypted and the product reads the options chosen: the Inbox thread and the
 * `message.received` webhook show them.
 */
describe('poll votes, against the emulator', () => {
  const { emulator, product, trace } = productOnEmulator(
    (w) => {
      w.account(OWN, 'Emu shop');
      w.account(VOTER);
      w.account(OTHER);
    },
    { ALLOW_PRIVATE_WEBHOOKS: 'true' },
  );
  let receiver: Receiver;
  let accountId = '';
  beforeAll(async () => {
    receiver = await startReceiver();
    accountId = (await product.link(OWN, 'Polls')).accountId;
    const hook = await product.call('POST', '/api/webhooks', {
      url: `${receiver.url}/hook`,
      events: ['message.received'],
    });
    expect(hook.status, JSON.stringify(hook.json)).toBe(200);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** Sends a poll to `phone` and waits for it on the phone: the job and the poll's message id. */
  const sendPoll = async (phone: string, allowMultipleAnswers: boolean) => {
    const send = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [phone],
      type: 'poll',
      content: {
        pollName: 'Which colour?',
        pollOptions: ['Red', 'Green', 'Blue'],
        options: { allowMultipleAnswers },
      },
    });
    expect(send.status, JSON.stringify(send.json)).toBe(200);
    const poll = await waitFor(
      'the poll on the phone',
      async () => emulator.world.account(phone).inbox.find((m) => m.text === 'Which colour?') ?? null,
      60_000,
      100,
    );
    return { jobId: send.json.jobId as string, pollId: poll.id };
  };

  /**
   * The person's thread once it holds `count` incoming messages: its row in the list (read after
   * the messages, so that it is as new as they are) and the messages.
   */
  const threadWith = async (phone: string, count: number) =>
    waitFor(
      `${count} messages in the thread of ${phone}`,
      async () => {
        const find = async () => (await product.call('GET', `/api/inbox?q=${phone}`)).json.threads?.[0];
        const personId: string | undefined = (await find())?.personId;
        if (!personId) return null;
        const thread = await product.call('GET', `/api/inbox/${personId}`);
        const messages = (thread.json.messages as Message[]).filter((m) => m.direction === 'in');
        return messages.length >= count ? { list: await find(), messages } : null;
      },
      60_000,
      250,
    );

  /** The `message.received` events delivered to the receiver, in order. */
  const received = () =>
    receiver.calls
      .filter((c) => c.json?.event === 'message.received')
      .flatMap((c) => (Array.isArray(c.json.data) ? c.json.data : [c.json.data]));

  it('a vote shows the options chosen in the thread and the webhook; a changed vote shows the new choice', async () => {
    const { jobId, pollId } = await sendPoll(VOTER, true);
    const poll = receivedPoll(emulator.world.account(VOTER), pollId, emulator.world.account(OWN));
    // The poll came to the person's number: the client votes naming the account by its number and
    // itself by its LID (whatsmeow EncryptPollVote).
    expect(poll.creatorJid).toBe(`${OWN}@s.whatsapp.net`);
    const first = await vote(emulator.phone(VOTER), OWN, poll, ['Red', 'Blue']);

    const once = await threadWith(VOTER, 1);
    expect(once.messages.map((m) => [m.type, m.text, m.jobId])).toEqual([['poll_vote', 'Red, Blue', jobId]]);
    expect(once.list.lastMessage).toMatchObject({ text: 'Red, Blue', type: 'poll_vote', direction: 'in' });

    // The person changes their mind, from a chat moved to LIDs: the vote names only Green now.
    const lidChat = { ...poll, creatorJid: `${emulator.world.account(OWN).lid}@lid` };
    const second = await vote(emulator.phone(VOTER), OWN, lidChat, ['Green'], { fromLid: true });
    const twice = await threadWith(VOTER, 2);
    expect(twice.messages.map((m) => m.text)).toEqual(['Red, Blue', 'Green']);
    expect(twice.list.lastMessage.text).toBe('Green');

    const events = await waitFor(
      'both webhook events',
      async () => {
        const votes = received().filter((d) => d.messageId === first || d.messageId === second);
        return votes.length === 2 ? votes : null;
      },
      30_000,
      250,
    );
    expect(events.map((d) => [d.type, d.text, d.options, d.jobId])).toEqual([
      ['poll_vote', 'Red, Blue', ['Red', 'Blue'], jobId],
      ['poll_vote', 'Green', ['Green'], jobId],
    ]);
  });

  it('a vote made with the numbers (as rc14 reads them) is read too; taking it back leaves no option', async () => {
    const { pollId } = await sendPoll(OTHER, false);
    const poll = receivedPoll(emulator.world.account(OTHER), pollId, emulator.world.account(OWN));
    await vote(emulator.phone(OTHER), OWN, { ...poll, creatorJid: `${OWN}@s.whatsapp.net` }, ['Blue'], {
      voterAs: 'pn',
    });
    const withdrawn = await vote(emulator.phone(OTHER), OWN, poll, []);
    const thread = await threadWith(OTHER, 2);
    expect(thread.messages.map((m) => [m.type, m.text])).toEqual([
      ['poll_vote', 'Blue'],
      ['poll_vote', ''],
    ]);
    const event = await waitFor(
      'the withdrawn vote webhook',
      async () => received().find((d) => d.messageId === withdrawn) ?? null,
      30_000,
      250,
    );
    expect(event.options).toEqual([]);
  });

  it('a vote on a poll the product did not send still shows that a vote came', async () => {
    const unknown = await vote(
      emulator.phone(VOTER),
      OWN,
      {
        id: '3EB0C0FFEE0000000001',
        secret: randomBytes(32),
        creatorJid: `${OWN}@s.whatsapp.net`,
      },
      ['Yes'],
    );
    const thread = await threadWith(VOTER, 3);
    // (It answers the account's latest send to the person, as any message without a known quote does.)
    expect(thread.messages.at(-1)).toMatchObject({ type: 'poll_vote', text: '' });
    const event = await waitFor(
      'the unknown vote webhook',
      async () => received().find((d) => d.messageId === unknown) ?? null,
      30_000,
      250,
    );
    expect(event).toMatchObject({ type: 'poll_vote', text: '', options: null });
  });

  it('left no iq unanswered and no message undecrypted', () => {
    expect(emulator.gaps).toEqual([]);
    expect(trace.filter((l) => l.includes('FAILED'))).toEqual([]);
  });
});
