import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { qrDataUrl } from './qr.ts';

const svgOf = (url: string) => {
  expect(url.startsWith('data:image/svg+xml;charset=utf-8,')).toBe(true);
  return decodeURIComponent(url.slice(url.indexOf(',') + 1));
};

describe('qrDataUrl', () => {
  it('draws a 200 px QR code of the link with error correction M', async () => {
    const link = 'https://chat.whatsapp.com/AbCdEf123456';
    const svg = svgOf(qrDataUrl(link));
    expect(svg).toContain('width="200"');
    expect(svg).toContain('height="200"');
    const at = (level: 'L' | 'M') =>
      QRCode.toString(link, { type: 'svg', width: 200, margin: 1, errorCorrectionLevel: level });
    // The format bits differ between levels, so only the M code matches.
    expect(svg).toBe(await at('M'));
    expect(svg).not.toBe(await at('L'));
  });

  it('takes size and colours', () => {
    const svg = svgOf(
      qrDataUrl('https://chat.whatsapp.com/x', { size: 120, dark: '#112233', light: '#fafafa' }),
    );
    expect(svg).toContain('width="120"');
    expect(svg).toContain('#112233');
    expect(svg).toContain('#fafafa');
  });

  it('gives different images for different links and the same for the same link', () => {
    const a = qrDataUrl('https://chat.whatsapp.com/a');
    expect(qrDataUrl('https://chat.whatsapp.com/a')).toBe(a);
    expect(qrDataUrl('https://chat.whatsapp.com/b')).not.toBe(a);
  });
});
