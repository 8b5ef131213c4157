import { createHash } from 'node:crypto';
import { WaEmulator } from '@wa/emulator';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../wait.ts';
import { Product } from './support/product.ts';

const OWN = '919811100201';
const OTHER = '919811100202';

/**
 * Channels through the product on the real rc14 socket: a channel is created
 * (Socket/newsletter.js newsletterCreate), added by its link and re-read with its follower count
 * (newsletterMetadata), and posted to as a job of one recipient (relayMessage's plaintext branch).
 */
describe('channels, against the emulator', () => {
  let emulator: WaEmulator;
  let product: Product;
  let accountId: string;

  beforeAll(async () => {
    emulator = await WaEmulator.start();
    product = new Product(emulator);
    await product.start();
    accountId = (await product.link(OWN, 'Channels')).accountId;
  }, 180_000);

  afterAll(async () => {
    await product?.dispose();
    await emulator?.stop();
  });

  const post = async (payload: object) => {
    const res = await product.call('POST', `/api/session/${accountId}/sendBulkMessage`, payload);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const jobId = res.json.jobId as string;
    return waitFor(
      'the post sent',
      async () => {
        const job = await product.job(jobId);
        return job.status === 'completed' || job.status === 'failed' ? job : null;
      },
      60_000,
      200,
    );
  };

  it('creates a channel, lists it with its followers, refreshes and posts text, image and poll', async () => {
    const created = await product.call('POST', `/api/session/${accountId}/channels`, {
      name: 'Daily Deals',
      description: 'Offers every morning',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const channelId = created.json.channel.channelId as string;
    expect(created.json.channel).toMatchObject({ name: 'Daily Deals', followers: 0, role: 'OWNER' });
    const inWorld = emulator.world.channels.get(channelId.split('@')[0]!)!;
    expect(inWorld).toMatchObject({ name: 'Daily Deals', description: 'Offers every morning', owner: OWN });
    expect(created.json.channel.inviteLink).toBe(`https://whatsapp.com/channel/${inWorld.invite}`);

    // People follow it; a refresh reads the count again.
    inWorld.followers = 1234;
    const refreshed = await product.call('POST', `/api/session/${accountId}/channels/refresh`);
    expect(refreshed.status, JSON.stringify(refreshed.json)).toBe(200);
    expect(refreshed.json.channels).toEqual([expect.objectContaining({ channelId, followers: 1234 })]);

    // Another account's channel: added by its link only where this account is admin.
    emulator.world.account(OTHER);
    emulator.world.channels.set('120363555000111222', {
      id: '120363555000111222',
      name: 'Partner News',
      description: '',
      owner: OTHER,
      admins: new Set(),
      followers: 77,
      invite: 'PartnerNews0001',
      createdAt: new Date(),
      posts: [],
    });
    const guest = await product.call('POST', `/api/session/${accountId}/channels/add`, {
      invite: 'https://whatsapp.com/channel/PartnerNews0001',
    });
    expect(guest.status).toBe(400);
    expect(guest.json.message).toBe('This account is not an admin of that channel');
    emulator.world.channels.get('120363555000111222')!.admins.add(OWN);
    const added = await product.call('POST', `/api/session/${accountId}/channels/add`, {
      invite: 'PartnerNews0001',
    });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
    expect(added.json.channel).toMatchObject({ name: 'Partner News', followers: 77, role: 'ADMIN' });
    const list = await product.call('GET', `/api/session/${accountId}/channels`);
    expect(list.json.channels.map((c: { name: string; followers: number }) => [c.name, c.followers])).toEqual(
      [
        ['Daily Deals', 1234],
        ['Partner News', 77],
      ],
    );

    const PNG = await QRCode.toBuffer('channel post', { type: 'png', width: 120 });
    const credits = await product.credits();
    const text = await post({ chatIds: [channelId], type: 'string', content: 'Good morning' });
    expect(text.details).toEqual([expect.objectContaining({ chatId: channelId, status: 'sent' })]);
    await post({
      chatIds: [channelId],
      type: 'media',
      data: PNG.toString('base64'),
      mime: 'image/png',
      fileName: 'deal.png',
      content: 'Today only',
    });
    await post({
      chatIds: [channelId],
      type: 'poll',
      content: {
        pollName: 'Tea or coffee?',
        pollOptions: ['Tea', 'Coffee'],
        options: { allowMultipleAnswers: true },
      },
    });
    expect(await product.credits()).toBe(credits - 3);

    const posts = inWorld.posts;
    expect(posts).toHaveLength(3);
    expect(posts.every((p) => p.from === OWN)).toBe(true);
    expect(posts[0]!.message.extendedTextMessage?.text ?? posts[0]!.message.conversation).toBe(
      'Good morning',
    );
    const image = posts[1]!.message.imageMessage!;
    expect(image.caption).toBe('Today only');
    // rc14 uploads a channel's media raw (Utils/messages.js prepareWAMessageMedia, newsletter branch).
    const upload = emulator.media.uploads.get(image.directPath!.split('?')[0]!)!;
    expect(upload.body.equals(PNG)).toBe(true);
    expect(Buffer.from(image.fileSha256!).equals(createHash('sha256').update(PNG).digest())).toBe(true);
    expect(image.mediaKey ?? null).toBeNull();
    const poll = posts[2]!.message.pollCreationMessage ?? posts[2]!.message.pollCreationMessageV3;
    expect(poll?.name).toBe('Tea or coffee?');
    expect(poll?.options?.map((o) => o.optionName)).toEqual(['Tea', 'Coffee']);
  }, 180_000);
});
