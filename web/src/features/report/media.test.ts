import { describe, expect, it } from 'vitest';
import { blobTypeOf, documentType, fileSize, mediaView } from './media.ts';

describe('a job file in the browser', () => {
  it('keeps its type when shown inline, and is only bytes when offered as a download', () => {
    const html = btoa('<script>alert(document.cookie)</script>');
    const view = mediaView(html, 'text/html');
    expect(view).toMatchObject({ kind: 'other', mime: 'text/html' });
    expect(blobTypeOf('text/html', false)).toBe('application/octet-stream');
    expect(blobTypeOf('image/svg+xml', false)).toBe('application/octet-stream');
    expect(blobTypeOf('image/png', true)).toBe('image/png');
  });
});

const bytes = (text: string) => new TextEncoder().encode(text);

describe('a document the popup cannot show', () => {
  it('is named by its bytes, else by its extension, else by its type', () => {
    expect(documentType('scan', bytes('%PDF-1.7 ...'), 'application/octet-stream')).toBe('PDF document');
    expect(documentType('rates.XLSX', bytes('PK\u0003\u0004'), 'application/octet-stream')).toBe(
      'Excel spreadsheet',
    );
    expect(documentType('blob.bin', bytes('??'), 'application/octet-stream')).toBe(
      'application/octet-stream',
    );
  });

  it('gives its size in bytes, KB or MB', () => {
    expect(fileSize(1)).toBe('1 byte');
    expect(fileSize(19)).toBe('19 bytes');
    expect(fileSize(2560)).toBe('2.5 KB');
    expect(fileSize(3 * 1024 * 1024)).toBe('3.0 MB');
  });
});
