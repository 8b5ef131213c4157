import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../wait.ts';
import { productOnEmulator } from './emulator-rig.ts';

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
  let sessionId = '';

  beforeAll(async () => {
    sessionId = (await product.link(OWN, 'Replies')).sessionId;
  });

  const optOuts = async () =>
    (await product.call('GET', '/api/opt-outs')).json.optOuts as { phoneNumber: string; source: string }[];

  it('a contact writes STOP: the number is on the opt-out list (reply) and its queued recipient fails Opted out, refunded', async () => {
    const send = await product.call('POST', `/api/session/${sessionId}/sendIndividualMessage`, {
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

  it('left no iq unanswered and no message undecrypted', () => {
    expect(emulator.gaps).toEqual([]);
    expect(trace.filter((l) => l.includes('FAILED'))).toEqual([]);
  });
});
