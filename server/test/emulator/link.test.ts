import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../wait.ts';
import { productOnEmulator } from './support/emulator-rig.ts';

const OWN = '919800000001';
const CONTACTS = ['919811111111', '919822222222', '919833333333', '919844444444'];
const NOT_ON_WHATSAPP = '919899999999';

/**
 * The product (a real process, WA_PROVIDER=baileys, rc14's own socket) against the emulator:
 * one account through its life, step by step; each step starts where the previous one ended.
 */
describe('the product on the real Baileys socket, against the emulator', () => {
  const { emulator, product, trace } = productOnEmulator((w) => {
    w.account(OWN, 'Emu shop');
    for (const c of CONTACTS) w.account(c);
    w.addGroup({
      subject: 'Admins here',
      creator: OWN,
      members: [
        { phone: OWN, admin: 'superadmin' },
        { phone: CONTACTS[0]!, admin: null },
        { phone: CONTACTS[1]!, admin: 'admin' },
      ],
    });
    w.addGroup({
      subject: 'Member only (LID)',
      creator: CONTACTS[2]!,
      addressingMode: 'lid',
      members: [
        { phone: CONTACTS[2]!, admin: 'superadmin' },
        { phone: OWN, admin: null },
        { phone: CONTACTS[3]!, admin: null },
      ],
    });
  });
  let accountId = '';
  let deviceId = 0;

  it('create an instance → its QR PNG scanned by the phone → CONNECTED, with the groups listed', async () => {
    const created = await product.call('POST', '/api/create-instance', {
      phoneNumber: `+${OWN}`,
      sessionName: 'Emu',
    });
    expect(created.status).toBe(200);
    accountId = created.json.sessionId;

    const png = await waitFor('the QR image', () => product.qrPng(accountId), 120_000, 500);
    deviceId = (await emulator.phone(OWN).scanPng(png)).id;
    await product.waitStatus(accountId, 'CONNECTED');
    expect((await product.call('GET', `/api/${accountId}/status`)).json.connected).toBe(true);

    // The emulator's groups, with admins, invite link (admin only) and members.
    const groups = await waitFor(
      'both groups with the invite link',
      async () => {
        const res = await product.call('GET', `/api/groupChats/${accountId}`);
        const list = res.json.groups as { groupName: string; groupLink: string | null }[] | undefined;
        return list?.length === 2 && list.some((g) => g.groupLink) ? list : null;
      },
      120_000,
      500,
    );
    const [adminGroup] = [...emulator.world.groups.values()];
    const admin = groups.find((g) => g.groupName === 'Admins here') as Record<string, unknown>;
    expect(admin).toMatchObject({
      groupLink: `https://chat.whatsapp.com/${adminGroup!.inviteCode}`,
      participantCount: 3,
      adminCount: 2,
      owner: OWN,
    });
    expect((admin.adminPhone as string[]).sort()).toEqual([OWN, CONTACTS[1]]);
    const member = groups.find((g) => g.groupName === 'Member only (LID)') as Record<string, unknown>;
    expect(member).toMatchObject({ groupLink: null, participantCount: 3, adminCount: 1 });
    // A LID-mode group: the members still show by phone number.
    expect((member.participants as { phoneNumber: string }[]).map((p) => p.phoneNumber).sort()).toEqual(
      [OWN, CONTACTS[2], CONTACTS[3]].sort(),
    );
  });

  it('a text to five numbers: four phones decrypt exactly the text, the fifth is Not on WhatsApp; receipts reach Job Details', async () => {
    const text = 'Namaste 🙏 from the emulator suite — line 1\nline 2';
    const before = await product.credits();
    const send = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [...CONTACTS, NOT_ON_WHATSAPP],
      content: text,
    });
    expect(send.status, JSON.stringify(send.json)).toBe(200);
    const jobId: string = send.json.jobId;
    const job = await waitFor(
      'the job to finish with every read time',
      async () => {
        const j = await product.job(jobId);
        const done = j.details.filter((d) => d.status === 'sent' && d.readAt).length === 4;
        return j.status !== 'processing' && j.status !== 'pending' && done ? j : null;
      },
      180_000,
      500,
    );
    const byNumber = new Map(job.details.map((d) => [d.chatId.replace(/\D/g, ''), d]));
    for (const c of CONTACTS) {
      const d = byNumber.get(c)!;
      expect(d).toMatchObject({ status: 'sent', error: null });
      expect(d.deliveredAt && d.readAt).toBeTruthy();
      const inbox = emulator.world.account(c).inbox;
      expect(inbox.map((m) => [m.kind, m.from, m.text])).toEqual([['chat', OWN, text]]);
    }
    expect(byNumber.get(NOT_ON_WHATSAPP)).toMatchObject({ status: 'failed', error: 'Not on WhatsApp' });
    expect(emulator.world.accounts.has(NOT_ON_WHATSAPP)).toBe(false);
    // Four charged, the fifth refunded.
    expect(await product.credits()).toBe(before - 4);
  });

  it('a poll to a PN group and to a LID group: every member decrypts it (sender key, then skmsg)', async () => {
    const [pnGroup, lidGroup] = [...emulator.world.groups.values()];
    const chatIds = [`${pnGroup!.id}@g.us`, `${lidGroup!.id}@g.us`];
    const send = await product.call('POST', `/api/session/${accountId}/sendBulkMessage`, {
      chatIds,
      type: 'poll',
      content: {
        pollName: 'Lunch?',
        pollOptions: ['Dosa', 'Idli', 'Poha'],
        options: { allowMultipleAnswers: true },
      },
    });
    expect(send.status, JSON.stringify(send.json)).toBe(200);
    const jobId: string = send.json.jobId;
    const job = await waitFor(
      'the poll job to finish',
      async () => {
        const j = await product.job(jobId);
        return j.status === 'completed' || j.status === 'failed' ? j : null;
      },
      180_000,
      500,
    );
    expect(job.details.map((d) => [d.chatId, d.status, d.error]).sort()).toEqual(
      chatIds.map((c) => [c, 'sent', null]).sort(),
    );
    for (const group of [pnGroup!, lidGroup!]) {
      for (const member of group.members.filter((m) => m.phone !== OWN)) {
        const got = await waitFor(
          `${member.phone} to decrypt the poll in ${group.subject}`,
          async () => emulator.world.account(member.phone).inbox.find((m) => m.chat === `${group.id}@g.us`),
          30_000,
        );
        expect(got).toMatchObject({ kind: 'group', from: OWN, text: 'Lunch?' });
        const poll = got.message.pollCreationMessageV3 ?? got.message.pollCreationMessage;
        expect(poll?.options?.map((o) => o.optionName)).toEqual(['Dosa', 'Idli', 'Poha']);
        expect(poll?.selectableOptionsCount).toBe(0);
      }
    }
  });

  it('a captioned image to both groups: every member downloads it from the media host and gets the same bytes and type', async () => {
    const [pnGroup, lidGroup] = [...emulator.world.groups.values()];
    const chatIds = [`${pnGroup!.id}@g.us`, `${lidGroup!.id}@g.us`];
    const image = await QRCode.toBuffer('an image for the emulator', { type: 'png', width: 240 });
    const send = await product.call('POST', `/api/session/${accountId}/sendBulkMessage`, {
      chatIds,
      type: 'media',
      mime: 'image/png',
      fileName: 'qr.png',
      data: image.toString('base64'),
      content: 'Caption ✓',
    });
    expect(send.status, JSON.stringify(send.json)).toBe(200);
    const job = await waitFor(
      'the image job to finish',
      async () => {
        const j = await product.job(send.json.jobId);
        return j.status === 'completed' || j.status === 'failed' ? j : null;
      },
      180_000,
      500,
    );
    expect(job.details.map((d) => [d.status, d.error])).toEqual([
      ['sent', null],
      ['sent', null],
    ]);
    for (const group of [pnGroup!, lidGroup!]) {
      for (const member of group.members.filter((m) => m.phone !== OWN)) {
        const got = await waitFor(
          `${member.phone} to get the image in ${group.subject}`,
          async () =>
            emulator.world
              .account(member.phone)
              .inbox.find((m) => m.chat === `${group.id}@g.us` && m.message.imageMessage),
          30_000,
        );
        expect(got.text).toBe('Caption ✓');
        expect(got.message.imageMessage!.mimetype).toBe('image/png');
        expect((await emulator.media.decrypt(got.message.imageMessage!, 'image')).equals(image)).toBe(true);
      }
    }
  });

  it('a restart of the product logs in again from the stored credentials: no QR, no new device', async () => {
    await product.stop();
    // This time the server reports the empty offline queue with `success`, before rc14's login
    // queries are answered and it emits 'open': the product used to ignore that and stay
    // PENDING until its 30 s fallback.
    emulator.offlineTiming = 'with-success';
    const logins = emulator.nextNode((c, n) => c.device?.id === deviceId && n.tag === 'iq', 120_000);
    await product.start();
    const loggedIn = await logins.then(() => Date.now());
    await product.waitStatus(accountId, 'CONNECTED');
    expect(Date.now() - loggedIn).toBeLessThan(25_000);
    emulator.offlineTiming = 'after-digest';
    await logins;
    expect([...emulator.world.account(OWN).devices.keys()]).toEqual([deviceId]);
    expect(await product.qrPng(accountId)).toBeNull();
  });

  it('the phone unlinks the device (401): credentials wiped, DISCONNECTED; a restart needs a new QR', async () => {
    expect(emulator.phone(OWN).unlink()).toBe(1);
    await product.waitStatus(accountId, 'DISCONNECTED');
    const restarted = await product.call('POST', `/api/session/${accountId}/restart`);
    expect(restarted.status).toBe(200);
    const again = await waitFor('a new QR after the unlink', () => product.qrPng(accountId), 120_000, 500);
    expect(again.length).toBeGreaterThan(0);
  });

  it('left no iq unanswered and no message undecrypted', () => {
    expect(emulator.gaps).toEqual([]);
    expect(trace.filter((l) => l.includes('FAILED'))).toEqual([]);
  });
});
