import { BufferJSON, generateWAMessageContent, initAuthCreds, proto } from 'baileys';
import { eq } from 'drizzle-orm';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { accounts, waAuthState } from '../../src/db/schema.ts';
import { createDbAuthStore } from '../../src/transport/auth-store.ts';
import { loadDbAuthState } from '../../src/transport/baileys/auth-state.ts';
import { toBaileysContent } from '../../src/transport/baileys/content.ts';
import { buildUser, DB_KINDS, testAppFor } from '../helpers.ts';

describe.each(DB_KINDS)('Baileys auth state in the database on %s', (kind) => {
  const t = testAppFor(kind, { WA_PROVIDER: 'baileys' });
  let n = 0;

  async function newAccount(): Promise<string> {
    const user = await buildUser(t);
    const accountId = `91987654${String(++n).padStart(4, '0')}_abc`;
    await t.db.insert(accounts).values({
      id: accountId,
      accountId,
      userId: user.id,
      phoneNumber: '919876543210',
      name: 'Test',
    });
    return accountId;
  }
  const rowsOf = (accountId: string) =>
    t.db.select().from(waAuthState).where(eq(waAuthState.accountId, accountId));

  it('round-trips real initAuthCreds() with their binary keys', async () => {
    const accountId = await newAccount();
    const store = createDbAuthStore(t.db, accountId);
    const first = await loadDbAuthState(store);
    expect(first.existed).toBe(false);
    const original = first.state.creds;
    original.me = { id: '919876543210:12@s.whatsapp.net', lid: '123456789012345:12@lid', name: 'Shop' };
    await first.saveCreds();

    const again = await loadDbAuthState(createDbAuthStore(t.db, accountId));
    expect(again.existed).toBe(true);
    const creds = again.state.creds;
    expect(JSON.stringify(creds, BufferJSON.replacer)).toBe(JSON.stringify(original, BufferJSON.replacer));
    expect(Buffer.isBuffer(creds.noiseKey.private)).toBe(true);
    expect(
      Buffer.from(creds.signedIdentityKey.public).equals(Buffer.from(original.signedIdentityKey.public)),
    ).toBe(true);
    expect(creds.signedPreKey.keyId).toBe(original.signedPreKey.keyId);
    expect(creds.registrationId).toBe(original.registrationId);
    expect(creds.me?.id).toBe('919876543210:12@s.whatsapp.net');
    // Stored as BufferJSON text, one row.
    const rows = await rowsOf(accountId);
    expect(rows.map((r) => r.key)).toEqual(['creds']);
    expect(rows[0]!.value).toContain('"type":"Buffer"');
  });

  it('stores keys, rehydrates app-state-sync-key as its proto class, deletes on null', async () => {
    const accountId = await newAccount();
    const { state } = await loadDbAuthState(createDbAuthStore(t.db, accountId));
    const creds = initAuthCreds();
    const syncKey = proto.Message.AppStateSyncKeyData.fromObject({
      keyData: Buffer.from('0123456789abcdef0123456789abcdef'),
      fingerprint: { rawId: 7, currentIndex: 2, deviceIndexes: [0, 1] },
      timestamp: 1_700_000_000,
    });
    await state.keys.set({
      'pre-key': { '1': creds.signedIdentityKey, '2': creds.noiseKey },
      session: { '919876543210.0': Buffer.from([1, 2, 3, 4]) },
      'app-state-sync-key': { AAAAAQ: syncKey },
      'lid-mapping': { '919876543210': '123456789012345' },
    });
    const preKeys = await state.keys.get('pre-key', ['1', '2', '3']);
    expect(Object.keys(preKeys).sort()).toEqual(['1', '2']);
    expect(Buffer.from(preKeys['1']!.private).equals(Buffer.from(creds.signedIdentityKey.private))).toBe(
      true,
    );
    const accounts = await state.keys.get('session', ['919876543210.0']);
    expect(Buffer.from(accounts['919876543210.0']!)).toEqual(Buffer.from([1, 2, 3, 4]));
    const sync = await state.keys.get('app-state-sync-key', ['AAAAAQ']);
    expect(sync.AAAAAQ).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
    expect(Buffer.from(sync.AAAAAQ!.keyData!).toString()).toBe('0123456789abcdef0123456789abcdef');
    expect(sync.AAAAAQ!.fingerprint?.rawId).toBe(7);
    expect((await state.keys.get('lid-mapping', ['919876543210']))['919876543210']).toBe('123456789012345');

    await state.keys.set({ 'pre-key': { '1': null } });
    expect(Object.keys(await state.keys.get('pre-key', ['1', '2']))).toEqual(['2']);
    expect((await rowsOf(accountId)).map((r) => r.key).sort()).toEqual([
      'app-state-sync-key-AAAAAQ',
      'lid-mapping-919876543210',
      'pre-key-2',
      'session-919876543210.0',
    ]);
  });

  it('writes nothing of a keys.set whose transaction fails', async () => {
    const accountId = await newAccount();
    const { state } = await loadDbAuthState(createDbAuthStore(t.db, accountId));
    const creds = initAuthCreds();
    await state.keys.set({ 'pre-key': { '1': creds.noiseKey } });
    const before = await rowsOf(accountId);
    // A NUL character cannot be stored in a PostgreSQL text column: the statement fails mid-batch.
    const failed = await Promise.resolve(
      state.keys.set({
        'pre-key': { '1': null, '5': creds.signedIdentityKey, 'bad\u0000id': creds.noiseKey },
        session: { 'x.0': Buffer.from([9]) },
      }),
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(Error);
    const after = await rowsOf(accountId);
    expect(after.map((r) => [r.key, r.value])).toEqual(before.map((r) => [r.key, r.value]));
  });

  it('wipes every key of the session on logout, and only that session', async () => {
    const a = await newAccount();
    const b = await newAccount();
    for (const id of [a, b]) {
      const auth = await loadDbAuthState(createDbAuthStore(t.db, id));
      await auth.saveCreds();
      await auth.state.keys.set({ session: { 'y.0': Buffer.from([1]) } });
    }
    await createDbAuthStore(t.db, a).wipe();
    expect(await rowsOf(a)).toEqual([]);
    expect((await rowsOf(b)).length).toBe(2);
  });
});

describe('messages built with the real library', () => {
  const upload = async () => ({ mediaUrl: 'https://mmg.whatsapp.net/x', directPath: '/v/t62/x' });

  it('text', async () => {
    const m = await generateWAMessageContent(toBaileysContent({ kind: 'text', text: 'Hello & <b>you</b>' }), {
      upload,
    });
    expect(m.conversation ?? m.extendedTextMessage?.text).toBe('Hello & <b>you</b>');
  });

  it('image with caption', async () => {
    const png = await QRCode.toBuffer('https://example.com', { type: 'png' });
    const m = await generateWAMessageContent(
      toBaileysContent({
        kind: 'media',
        as: 'image',
        mime: 'image/png',
        data: png,
        fileName: 'qr.png',
        caption: 'Look',
      }),
      { upload },
    );
    expect(m.imageMessage?.caption).toBe('Look');
    expect(m.imageMessage?.mimetype).toBe('image/png');
    expect(m.imageMessage?.url).toBe('https://mmg.whatsapp.net/x');
    expect(Number(m.imageMessage?.fileLength)).toBe(png.length);
    expect(m.imageMessage?.mediaKey?.length).toBe(32);
  });

  it('a document keeps its true type and file name; audio keeps its true type', async () => {
    const doc = await generateWAMessageContent(
      toBaileysContent({
        kind: 'media',
        as: 'document',
        mime: 'application/pdf',
        data: Buffer.from('%PDF'),
        fileName: 'report.pdf',
        caption: '',
      }),
      { upload },
    );
    expect(doc.documentMessage?.fileName).toBe('report.pdf');
    expect(doc.documentMessage?.mimetype).toBe('application/pdf');
    const audio = toBaileysContent({
      kind: 'media',
      as: 'audio',
      mime: 'audio/mp4',
      data: Buffer.from('m4a'),
      fileName: null,
      caption: '',
    });
    expect(audio).toMatchObject({ mimetype: 'audio/mp4' });
  });

  it('poll: options, and selectable count 1 for single answer, 0 (any) for multiple', async () => {
    const single = await generateWAMessageContent(
      toBaileysContent({
        kind: 'poll',
        name: 'Lunch?',
        options: ['Yes', 'No', 'Maybe'],
        allowMultipleAnswers: false,
      }),
      { upload },
    );
    const poll1 = single.pollCreationMessageV3 ?? single.pollCreationMessage;
    expect(poll1?.name).toBe('Lunch?');
    expect(poll1?.options?.map((o) => o.optionName)).toEqual(['Yes', 'No', 'Maybe']);
    expect(poll1?.selectableOptionsCount).toBe(1);
    expect(single.messageContextInfo?.messageSecret?.length).toBe(32);
    // The job's own secret when it has one: its votes are read with it.
    const secret = Buffer.alloc(32, 7);
    const own = await generateWAMessageContent(
      toBaileysContent({
        kind: 'poll',
        name: 'Lunch?',
        options: ['Yes', 'No'],
        allowMultipleAnswers: false,
        secret,
      }),
      { upload },
    );
    expect(Buffer.from(own.messageContextInfo?.messageSecret ?? []).equals(secret)).toBe(true);

    const multi = await generateWAMessageContent(
      toBaileysContent({ kind: 'poll', name: 'Toppings', options: ['A', 'B'], allowMultipleAnswers: true }),
      { upload },
    );
    expect(multi.pollCreationMessage?.options?.map((o) => o.optionName)).toEqual(['A', 'B']);
    expect(multi.pollCreationMessage?.selectableOptionsCount).toBe(0);
  });
});
