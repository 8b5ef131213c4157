import { describe, expect, it } from 'vitest';
import { readIncoming } from '../../src/transport/baileys/incoming.ts';

const KEY = Buffer.from('0123456789abcdef0123456789abcdef');

/** What the Inbox reads of rc14's incoming message content (transport/baileys/incoming.ts). */
describe('reading an incoming message for the Inbox', () => {
  it('reads a text, the message it quotes, and a text inside a disappearing-message wrapper', () => {
    expect(readIncoming({ conversation: 'Hello' })).toEqual({ text: 'Hello', type: 'text', answers: null });
    expect(
      readIncoming({
        ephemeralMessage: {
          message: { extendedTextMessage: { text: 'Yes please', contextInfo: { stanzaId: '3EB0SENT' } } },
        },
      }),
    ).toEqual({ text: 'Yes please', type: 'text', answers: '3EB0SENT' });
  });

  it('reads a file with its caption and the reference that downloads it again', () => {
    const read = readIncoming({
      documentWithCaptionMessage: {
        message: {
          documentMessage: {
            mimetype: 'application/pdf',
            fileName: 'bill.pdf',
            caption: 'My bill',
            mediaKey: KEY,
            directPath: '/v/t62/bill',
            url: 'https://mmg.whatsapp.net/v/t62/bill',
          },
        },
      },
    });
    expect(read).toMatchObject({ text: null, type: 'document', caption: 'My bill' });
    expect(read!.media).toMatchObject({ mime: 'application/pdf', fileName: 'bill.pdf' });
    expect(JSON.parse(read!.media!.ref)).toEqual({
      kind: 'document',
      directPath: '/v/t62/bill',
      url: 'https://mmg.whatsapp.net/v/t62/bill',
      mediaKey: KEY.toString('base64'),
    });
  });

  it('reads a poll vote as a vote on the poll it names, and leaves out reactions and protocol messages', () => {
    expect(
      readIncoming({
        pollUpdateMessage: { pollCreationMessageKey: { id: '3EB0POLL', fromMe: true }, vote: {} },
      }),
    ).toEqual({ text: null, type: 'poll_vote', answers: '3EB0POLL' });
    expect(readIncoming({ reactionMessage: { text: '👍', key: { id: '3EB0SENT' } } })).toBeNull();
    expect(readIncoming({ protocolMessage: { type: 0 } })).toBeNull();
    expect(
      readIncoming({ locationMessage: { degreesLatitude: 12.9, degreesLongitude: 77.6, name: 'Shop' } }),
    ).toEqual({ text: null, type: 'location', caption: 'Shop' });
  });
});
