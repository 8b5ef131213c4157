import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../wait.ts';
import { productOnEmulator } from './support/emulator-rig.ts';

const OWN = '919800000051';
const REPLIER = '919811111151';
const QUIET = '919822222251';

/**
 * Replies on the real Baileys socket: a contact's phone encrypts a text to the product's linked
 * device (Signal pkmsg), rc14 decrypts it and reports it; an opt-out keyword puts the contact's
 * number on the user's opt-out list and fails its queued recipient.
 */
describe('replies to the product, against the emulator', () => {
  const { emulator, product, trace } = productOnEmulator((w) => {
    w.account(OWN, 'Emu shop');
    w.account(REPLIER);
    w.account(QUIET);
  });
  let accountId = '';

  beforeAll(async () => {
    accountId = (await product.link(OWN, 'Replies')).accountId;
  });

  const optOuts = async () =>
    (await product.call('GET', '/api/opt-outs')).json.optOuts as { phoneNumber: string; source: string }[];

  it('a contact writes STOP: the number is on the opt-out list (reply) and its queued recipient fails Opted out, refunded', async () => {
    const send = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [REPLIER, QUIET],
      content: 'Tomorrow’s offer',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(send.status, JSON.stringify(send.json)).toBe(200);
    const jobId: string = send.json.jobId;
    const credits = await product.credits();

    // A text that is not a keyword changes nothing.
    await emulator.phone(QUIET).say(OWN, 'Who is this?');
    await emulator.phone(REPLIER).say(OWN, 'Stop');
    const list = await waitFor(
      'the opt-out',
      async () => {
        const rows = await optOuts();
        return rows.length > 0 ? rows : null;
      },
      60_000,
      250,
    );
    expect(list.map((r) => [r.phoneNumber, r.source])).toEqual([[REPLIER, 'reply']]);
    const job = await product.job(jobId);
    const byNumber = Object.fromEntries(
      job.details.map((d) => [d.chatId.replace(/\D/g, ''), [d.status, d.error]]),
    );
    expect(byNumber).toEqual({ [REPLIER]: ['failed', 'Opted out'], [QUIET]: ['queued', null] });
    expect(await product.credits()).toBe(credits + 1);
  });

  it('a message to a one-to-one chat disappears with the chat: its timer from the history or the contact’s latest message', async () => {
    const [timed, plain, fromHistory, witness] = [
      '919833333251',
      '919844444251',
      '919855555251',
      '919866666251',
    ];
    for (const p of [timed, plain, fromHistory, witness]) emulator.world.account(p);
    /** The disappearing timer of the latest message the phone received (0: none). */
    const expirationOf = (phone: string) =>
      emulator.world.account(phone).inbox.at(-1)?.message?.extendedTextMessage?.contextInfo?.expiration ?? 0;
    const sendTo = async (chatIds: string[], content: string) => {
      const res = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
        chatIds,
        content,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      const jobId: string = res.json.jobId;
      return waitFor(
        'the send',
        async () => {
          const job = await product.job(jobId);
          return job.details.every((d) => d.status === 'sent') ? { jobId, job } : null;
        },
        60_000,
        250,
      );
    };
    // The account's history: a chat whose messages disappear after a day.
    await emulator
      .phone(OWN)
      .sendBootstrap([
        { phone: fromHistory, lid: emulator.world.account(fromHistory).lid, ephemeralExpiration: 86_400 },
      ]);
    // A contact writes in a chat whose messages disappear after 7 days; a STOP after it is read after it.
    await emulator.phone(timed).say(OWN, 'Is the offer still on?', { expiration: 604_800 });
    await emulator.phone(witness).say(OWN, 'STOP');
    await waitFor(
      'the later opt-out',
      async () => (await optOuts()).some((o) => o.phoneNumber === witness),
      30_000,
      250,
    );

    const first = await sendTo([timed, plain, fromHistory], 'It is, till Sunday');
    expect(expirationOf(timed)).toBe(604_800);
    expect(expirationOf(fromHistory)).toBe(86_400);
    // A chat with no timer known gets a message that keeps.
    expect(expirationOf(plain)).toBe(0);

    // The contact turns it off: its next message carries no timer (read once it marks the reply),
    // and neither does ours.
    await emulator.phone(timed).say(OWN, 'Thanks');
    await waitFor(
      'the reply',
      async () => {
        const job = await product.job(first.jobId);
        const d = job.details.find((x) => x.chatId.startsWith(timed)) as { repliedAt?: string | null };
        return !!d?.repliedAt;
      },
      30_000,
      250,
    );
    await sendTo([timed], 'You are welcome');
    expect(emulator.world.account(timed).inbox.at(-1)?.text).toBe('You are welcome');
    expect(expirationOf(timed)).toBe(0);
  });

  it('what comes while the account is down (a STOP, a delivery receipt) is handed over at its next login: the person opted out, the message delivered', async () => {
    const [receiver, stopper] = ['919877777251', '919888888251'];
    for (const p of [receiver, stopper]) emulator.world.account(p);
    // The receiver's phone confirms 3 s after the message, by when the account is down.
    emulator.setReceiptTiming({ deliveredAfterMs: 3000, readAfterMs: 3500 });
    const send = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [receiver],
      content: 'Before the outage',
    });
    expect(send.status, JSON.stringify(send.json)).toBe(200);
    const jobId: string = send.json.jobId;
    await waitFor(
      'the message at the receiver',
      async () => emulator.world.account(receiver).inbox.some((m) => m.text === 'Before the outage'),
      30_000,
      50,
    );
    // The network drops the account, and its first login after is refused: it stays down a while.
    emulator.failNextLogin(OWN, 503);
    expect(emulator.drop(OWN)).toBe(1);
    await emulator.phone(stopper).say(OWN, 'STOP');
    expect(emulator.connectionsOf(OWN)).toEqual([]);
    const device = [...emulator.world.account(OWN).devices.values()][0]!;
    await waitFor(
      'the receipt kept for the device',
      async () => device.offline.some((n) => n.tag === 'receipt'),
      10_000,
      50,
    );
    expect(emulator.connectionsOf(OWN)).toEqual([]);

    // At the next login the server hands them over: the STOP opts the person out, the receipt delivers.
    const list = await waitFor(
      'the opt-out after the reconnect',
      async () => {
        const rows = await optOuts();
        return rows.some((o) => o.phoneNumber === stopper) ? rows : null;
      },
      60_000,
      250,
    );
    expect(list.find((o) => o.phoneNumber === stopper)?.source).toBe('reply');
    const delivered = await waitFor(
      'the delivery after the reconnect',
      async () => (await product.job(jobId)).details.find((d) => d.deliveredAt) ?? null,
      60_000,
      250,
    );
    expect(delivered.chatId.startsWith(receiver)).toBe(true);
    expect(device.offline).toEqual([]);
    emulator.setReceiptTiming({ deliveredAfterMs: 100, readAfterMs: 400 });
  });

  it('left no iq unanswered and no message undecrypted', () => {
    expect(emulator.gaps).toEqual([]);
    expect(trace.filter((l) => l.includes('FAILED'))).toEqual([]);
  });
});
