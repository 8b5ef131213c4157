import { MAX_MEDIA_BYTES, normaliseMime } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { checkFileSize, readFileBase64 } from './file-body.ts';

describe('normaliseMime', () => {
  it('keeps png and gif, makes other images jpeg', () => {
    expect(normaliseMime('image/png')).toBe('image/png');
    expect(normaliseMime('image/gif')).toBe('image/gif');
    expect(normaliseMime('image/webp')).toBe('image/jpeg');
    expect(normaliseMime('IMAGE/JPEG')).toBe('image/jpeg');
  });
  it('makes videos mp4 and audio mp3 (audio/mpeg)', () => {
    expect(normaliseMime('video/quicktime')).toBe('video/mp4');
    expect(normaliseMime('audio/ogg; codecs=opus')).toBe('audio/mpeg');
  });
  it('sends anything else as a generic binary type', () => {
    expect(normaliseMime('application/pdf')).toBe('application/octet-stream');
    expect(normaliseMime('')).toBe('application/octet-stream');
  });
});

describe('checkFileSize', () => {
  it('refuses files over 16 MB', () => {
    const big = { size: MAX_MEDIA_BYTES + 1 } as File;
    const ok = { size: MAX_MEDIA_BYTES } as File;
    expect(checkFileSize(big)).toBe('File is too large (max 16 MB)');
    expect(checkFileSize(ok)).toBeNull();
  });
});

describe('readFileBase64', () => {
  it('gives the body as plain base64', async () => {
    expect(await readFileBase64(new File(['hello'], 'a.txt', { type: 'text/plain' }))).toBe('aGVsbG8=');
  });
});
