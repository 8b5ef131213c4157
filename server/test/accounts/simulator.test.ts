import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AccountRunner, startAccountRunner } from '../../src/accounts/runner.ts';
import { createLogger } from '../../src/logger.ts';
import type { AuthStore } from '../../src/transport/auth-store.ts';
import { ANNOUNCE_ONLY_NAME, readsMessages, simulatedGroups } from '../../src/transport/simulator/network.ts';
import { SimulatorTransport } from '../../src/transport/simulator/transport.ts';
import { type ConnectionUpdate, type ReceiptUpdate, SendError } from '../../src/transport/types.ts';
import { connectedAccount } from '../fakes/accounts.ts';
import {
  bearer,
  buildUser,
  createTestApp,
  DB_KINDS,
  loginToken,
  type TestApp,
  testConfig,
} from '../helpers.ts';
import { waitFor } from '../wait.ts';

describe.each(DB_KINDS)('simulated network on %s', (kind) => {
  let t: TestApp;
  let runner: AccountRunner;
  let token: string;
  let accountId: string;
  const outboxFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-')), 'outbox.jsonl');
  beforeAll(async () => {
    t = await createTestApp(kind, {
      SIMULATOR_OUTBOX_FILE: outboxFile,
      SIMULATOR_SEND_LATENCY_MS: '150',
      SESSION_LEASE_MS: '3000',
    });
    runner = await startAccountRunner(t.ctx);
    const user = await buildUser(t);
    token = await loginToken(t.app, user.username);
    accountId = await connectedAccount(t, token, '919876511111');
  });
  afterAll(async () => {
    await runner.stop();
    await t.close();
  });

  const transport = () => {
    const tr = runner.transportFor(accountId);
    if (!tr) throw new Error('not connected');
    return tr;
  };
  const groups = () => simulatedGroups(accountId, '919876511111', 12);

  it('sends text, media and poll with latency; each send returns its outbox record, and the file has it', async () => {
    const started = Date.now();
    const text = await transport().send('919812345678@s.whatsapp.net', {
      kind: 'text',
      text: 'Hello <world> & "you"',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(text.messageId).toMatch(/^3EB0[0-9A-F]{16}$/);
    const group = groups()[0]!;
    const media = await transport().send(group.id, {
      kind: 'media',
      as: 'image',
      mime: 'image/jpeg',
      data: Buffer.from('jpeg-bytes'),
      fileName: 'photo.jpg',
      caption: 'A caption',
    });
    const poll = await transport().send(group.id, {
      kind: 'poll',
      name: 'Lunch?',
      options: ['Yes', 'No'],
      allowMultipleAnswers: false,
    });

    // Each send's copy for the outbox (SendResult.kept): the engine stores it with the outcome,
    // and the outbox route lists it (messaging-engine.test.ts).
    const [keptText, keptMedia, keptPoll] = [text, media, poll].map((r) => JSON.parse(r.kept!));
    expect(keptText).toMatchObject({
      messageId: text.messageId,
      chatId: '919812345678@s.whatsapp.net',
      type: 'text',
      text: 'Hello <world> & "you"',
    });
    expect(keptMedia).toMatchObject({
      messageId: media.messageId,
      chatId: group.id,
      type: 'media',
      caption: 'A caption',
      mime: 'image/jpeg',
      fileName: 'photo.jpg',
      size: 10,
    });
    expect(keptPoll).toMatchObject({
      messageId: poll.messageId,
      type: 'poll',
      poll: { name: 'Lunch?', options: ['Yes', 'No'], allowMultipleAnswers: false },
    });
    const lines = fs
      .readFileSync(outboxFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.messageId)).toEqual([text.messageId, media.messageId, poll.messageId]);
    expect(lines[0]).toMatchObject({
      sessionId: accountId,
      chatId: '919812345678@s.whatsapp.net',
      text: 'Hello <world> & "you"',
    });
  });

  it('refuses numbers not on WhatsApp and the announce-only group', async () => {
    const notOn = await transport()
      .send('919800000000@s.whatsapp.net', { kind: 'text', text: 'hi' })
      .catch((e) => e);
    expect(notOn).toBeInstanceOf(SendError);
    expect(notOn).toMatchObject({
      code: 'not-on-whatsapp',
      message: 'Not on WhatsApp',
      pausesAccount: false,
    });
    const announce = groups().find((g) => g.subject === ANNOUNCE_ONLY_NAME)!;
    const refused = await transport()
      .send(announce.id, { kind: 'text', text: 'hi' })
      .catch((e) => e);
    expect(refused).toMatchObject({
      code: 'not-admin',
      message: 'Only admins can send messages to this group',
    });
    const onWa = await transport().onWhatsApp(['919800000000', '919812345678']);
    expect(onWa.get('919800000000')).toBeNull();
    expect(onWa.get('919812345678')).toBe('919812345678@s.whatsapp.net');
  });

  it('delivers after about 1 s and reads after about 5 s for half of the chats', async () => {
    const receipts: Array<ReceiptUpdate & { after: number }> = [];
    const started = Date.now();
    const listener = (r: ReceiptUpdate) => receipts.push({ ...r, after: Date.now() - started });
    transport().on('receipt', listener);
    const sent: string[] = [];
    const readers: string[] = [];
    for (let i = 0; i < 8; i++) {
      const chatId = `9198765${String(i).padStart(5, '1')}@s.whatsapp.net`;
      const { messageId } = await transport().send(chatId, { kind: 'text', text: `m${i}` });
      sent.push(messageId);
      if (readsMessages(chatId)) readers.push(messageId);
    }
    const lastSent = Date.now();
    // Every receipt there is to come: each delivery, the reads of the chats that read, and the
    // time any other read would have come by.
    await waitFor(
      'the receipts',
      async () => {
        const got = (status: string) =>
          new Set(receipts.filter((r) => r.status === status).map((r) => r.messageId));
        const delivered = got('delivered');
        const read = got('read');
        return (
          sent.every((id) => delivered.has(id)) &&
          readers.every((id) => read.has(id)) &&
          Date.now() - lastSent >= 5000
        );
      },
      15_000,
    );
    transport().off('receipt', listener);
    const ours = receipts.filter((r) => sent.includes(r.messageId));
    const delivered = ours.filter((r) => r.status === 'delivered');
    const read = ours.filter((r) => r.status === 'read');
    expect(delivered.map((r) => r.messageId).sort()).toEqual([...sent].sort());
    for (const r of delivered) expect(r.after).toBeGreaterThanOrEqual(1000 - 50);
    expect(read.length).toBeGreaterThan(0);
    expect(read.length).toBeLessThan(8);
    for (const r of read) expect(r.after).toBeGreaterThanOrEqual(5000 - 50);
  }, 20_000);

  it('exposes the simulator routes only with WA_PROVIDER=simulator', async () => {
    const other = await createTestApp('pglite', { WA_PROVIDER: 'baileys' });
    try {
      const user = await buildUser(other);
      const tok = await loginToken(other.app, user.username);
      const res = await other.app.inject({
        method: 'POST',
        url: `/api/simulator/sessions/${accountId}/link`,
        headers: bearer(tok),
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().success).toBe(false);
    } finally {
      await other.close();
    }
    const noToken = await t.app.inject({ method: 'GET', url: `/api/simulator/sessions/${accountId}/outbox` });
    expect(noToken.statusCode).toBe(401);
  });
});

describe('simulator timings (fake clock)', () => {
  function memoryAuth(): AuthStore {
    const m = new Map<string, string>();
    return {
      accountId: 's',
      read: async (k) => m.get(k) ?? null,
      readMany: async (keys) => new Map(keys.filter((k) => m.has(k)).map((k) => [k, m.get(k)!])),
      write: async (entries) => {
        for (const e of entries) {
          if (e.value === null) m.delete(e.key);
          else m.set(e.key, e.value);
        }
      },
      wipe: async () => m.clear(),
    };
  }
  afterEach(() => vi.useRealTimers());

  it('renews the QR every 20 s and links 8 s (the default) after the first QR was served', async () => {
    vi.useFakeTimers();
    const config = testConfig({ SIMULATOR_LINK_AFTER_MS: '' });
    expect(config.simulator.linkAfterMs).toBe(8000);
    const auth = memoryAuth();
    const sim = new SimulatorTransport(
      { accountId: '919876543210_abc', phoneNumber: '919876543210' },
      {
        auth,
        log: createLogger(config),
        linkAfterMs: config.simulator.linkAfterMs,
        groups: 12,
        sendLatencyMs: 0,
        outboxFile: undefined,
      },
    );
    const updates: ConnectionUpdate[] = [];
    sim.on('connection', (u) => updates.push(u));
    await sim.connect();
    const qrs = () => updates.filter((u) => u.state === 'qr').map((u) => (u as { qr: string }).qr);
    expect(qrs()).toHaveLength(1);
    expect(qrs()[0]).toMatch(/^2@[A-Za-z0-9+/=]+,[A-Za-z0-9+/=]+,[A-Za-z0-9+/=]+,[A-Za-z0-9+/=]+$/);
    await vi.advanceTimersByTimeAsync(19_999);
    expect(qrs()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(qrs()).toHaveLength(2);
    expect(qrs()[1]).not.toBe(qrs()[0]);
    // Not linked while nobody looked at the QR.
    expect(sim.state).toBe('qr');

    sim.qrServed(new Date());
    await vi.advanceTimersByTimeAsync(7_999);
    expect(sim.state).toBe('qr');
    await vi.advanceTimersByTimeAsync(1);
    expect(sim.state).toBe('open');
    expect(updates.at(-1)).toEqual({
      state: 'open',
      jid: '919876543210@s.whatsapp.net',
      lid: expect.stringMatching(/^\d{15}@lid$/),
    });
    expect(JSON.parse((await auth.read('creds'))!).me.id).toBe('919876543210:1@s.whatsapp.net');
    // A new connection reuses the stored credentials: no QR.
    await sim.close();
    const before = qrs().length;
    await sim.connect();
    await vi.advanceTimersByTimeAsync(1000);
    expect(sim.state).toBe('open');
    expect(qrs()).toHaveLength(before);
    await sim.close();
  });

  it('seeds groups by session id', () => {
    const a = simulatedGroups('919876543210_abc', '919876543210', 12);
    expect(simulatedGroups('919876543210_abc', '919876543210', 12)).toEqual(a);
    const b = simulatedGroups('919876543210_def', '919876543210', 12);
    expect(b.map((g) => g.id)).not.toEqual(a.map((g) => g.id));
    expect(a.filter((g) => g.ownRole === 'superadmin').length).toBeGreaterThan(0);
    expect(a.filter((g) => g.ownRole === 'admin').length).toBeGreaterThan(0);
    expect(a.filter((g) => g.ownRole === null).length).toBeGreaterThan(0);
    expect(a.filter((g) => g.announce && g.ownRole === null)).toHaveLength(1);
    for (const g of a) expect(g.creation! * 1000).toBeLessThan(Date.now());
  });
});
