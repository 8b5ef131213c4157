import QRCode from 'qrcode';

/**
 * QR images of group links, generated in the browser (docs/decisions.md, Groups: no third-party service;
 * size 200, error correction M, colours configurable).
 */
export type QrOptions = { size?: number; dark?: string; light?: string };

export const QR_DEFAULTS = {
  size: 200,
  errorCorrectionLevel: 'M',
  dark: '#000000',
  light: '#ffffff',
} as const;

const cache = new Map<string, string>();
const CACHE_LIMIT = 500;

/** An SVG data URL of the QR code of `text`; the same text and options give the same URL. */
export function qrDataUrl(text: string, options: QrOptions = {}): string {
  const size = options.size ?? QR_DEFAULTS.size;
  const dark = options.dark ?? QR_DEFAULTS.dark;
  const light = options.light ?? QR_DEFAULTS.light;
  const key = `${size}|${dark}|${light}|${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let svg = '';
  // With a callback the library renders synchronously.
  QRCode.toString(
    text,
    {
      type: 'svg',
      width: size,
      margin: 1,
      errorCorrectionLevel: QR_DEFAULTS.errorCorrectionLevel,
      color: { dark, light },
    },
    (err, out) => {
      if (err) throw err;
      svg = out;
    },
  );
  const url = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, url);
  return url;
}
