import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { mediaToSend } from '../../src/messaging/media-kind.ts';

/** An ISO base-media file's first box (ftyp) with its brand: MP4, QuickTime, M4A and 3GP begin so. */
const ftyp = (brand: string) => {
  const b = Buffer.alloc(64);
  b.writeUInt32BE(32, 0);
  b.write('ftyp', 4);
  b.write(brand, 8);
  b.write(brand, 16);
  return b;
};
const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64)]);
const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 '), Buffer.alloc(64)]);

describe('what a file is sent as: decided from its bytes (file-type), not from its label', () => {
  it.each([
    // [what, bytes, the type the upload claimed, file name, expected]
    ['a JPEG', jpeg, 'image/jpeg', 'a.jpg', { as: 'image', mime: 'image/jpeg', fileName: 'a.jpg' }],
    ['an MP4', ftyp('isom'), 'video/mp4', 'v.mp4', { as: 'video', mime: 'video/mp4', fileName: 'v.mp4' }],
    // WhatsApp does not show these inline: documents with their true type.
    [
      'a WebP labelled JPEG',
      webp,
      'image/jpeg',
      'w.webp',
      { as: 'document', mime: 'image/webp', fileName: 'w.webp' },
    ],
    [
      'a MOV labelled MP4',
      ftyp('qt  '),
      'video/mp4',
      'clip.mov',
      { as: 'document', mime: 'video/quicktime', fileName: 'clip.mov' },
    ],
    // An M4A labelled audio/mpeg plays as the MP4 audio it is.
    [
      'an M4A labelled MP3',
      ftyp('M4A '),
      'audio/mpeg',
      'voice.m4a',
      { as: 'audio', mime: 'audio/mp4', fileName: 'voice.m4a' },
    ],
    [
      'a PDF labelled octet-stream',
      Buffer.from('%PDF-1.4 test'),
      'application/octet-stream',
      null,
      { as: 'document', mime: 'application/pdf', fileName: 'file.pdf' },
    ],
    // Bytes that say nothing (CSV): the claimed type stays.
    [
      'a CSV',
      Buffer.from('phone\n919800000001\n'),
      'text/csv',
      'list.csv',
      { as: 'document', mime: 'text/csv', fileName: 'list.csv' },
    ],
  ] as const)('%s', async (_what, bytes, mime, fileName, expected) => {
    expect(await mediaToSend(bytes, { mime, fileName })).toEqual(expected);
  });

  it('a PNG is an image', async () => {
    const png = await QRCode.toBuffer('https://example.com', { type: 'png' });
    expect(await mediaToSend(png, { mime: 'application/octet-stream', fileName: null })).toEqual({
      as: 'image',
      mime: 'image/png',
      fileName: null,
    });
  });
});
