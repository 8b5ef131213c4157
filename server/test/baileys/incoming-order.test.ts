import { EventEmitter } from 'node:events';
import type { WAMessage } from 'baileys';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ChatEvents } from '../../src/transport/baileys/chats.ts';
import type { TransportEventMap } from '../../src/transport/types.ts';
import { waitFor } from '../wait.ts';

const PHONE = '919811400001@s.whatsapp.net';

/** A message of the person's chat: a text, or a vote on the poll `POLL` (rc14 hands it over encrypted). */
const text = (id: string, body: string): WAMessage => ({
  key: { id, remoteJid: PHONE, fromMe: false },
  message: { conversation: body },
});
const vote = (id: string): WAMessage => ({
  key: { id, remoteJid: PHONE, fromMe: false },
  message: { pollUpdateMessage: { pollCreationMessageKey: { id: 'POLL', remoteJid: PHONE, fromMe: true } } },
});

/**
 * The messages a person writes are reported in the order they came, though a vote's options are
 * read asynchronously (the poll's secret looked up): a changed vote is never reported before the
 * vote it changes, nor a text before a vote sent ahead of it.
 */
describe('incoming messages of a linked phone', () => {
  it('are reported in the order they came while a vote is still being read', async () => {
    const out = new EventEmitter<TransportEventMap>();
    const reported: string[] = [];
    out.on('incoming-other', (m) => reported.push(`${m.messageId} ${m.votes?.join(', ') ?? '?'}`));
    out.on('incoming-text', (m) => reported.push(`${m.messageId} ${m.text}`));
    /** The first vote's reading is slow (its poll's secret from the database); the second's is not. */
    const readings: Record<string, { ms: number; votes: string[] }> = {
      V1: { ms: 80, votes: ['Blue'] },
      V2: { ms: 0, votes: [] },
    };
    const chats = new ChatEvents(out, {
      accountId: 'order',
      groups: async () => undefined,
      log: pino({ level: 'silent' }),
      groupRefetchDelayMs: 1000,
      holdLidText: async () => {},
      readVote: async (m) => {
        const r = readings[m.key.id!]!;
        await new Promise((resolve) => setTimeout(resolve, r.ms));
        return r.votes;
      },
      current: () => ({ sock: null, generation: 1 }),
    });
    chats.incomingText(1, vote('V1'));
    chats.incomingText(1, vote('V2'));
    chats.incomingText(1, text('T3', 'Any news?'));
    await waitFor('three messages reported', async () => reported.length === 3);
    expect(reported).toEqual(['V1 Blue', 'V2 ', 'T3 Any news?']);

    // With nothing being read, a text is reported at once.
    chats.incomingText(1, text('T4', 'Hello'));
    expect(reported.at(-1)).toBe('T4 Hello');
  });
});
