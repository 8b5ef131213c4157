/** What the 'Show Media' popup can show for a job's file (spec section 2, MIS Report). */
export type MediaView =
  | { kind: 'none' }
  | { kind: 'invalid' }
  | { kind: 'image' | 'video' | 'audio' | 'other'; mime: string; bytes: Uint8Array<ArrayBuffer> };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Reads the job's base64 body (a `data:` URL is accepted too) and picks how to show it. */
export function mediaView(data: string | null | undefined, mime: string | null | undefined): MediaView {
  if (!data) return { kind: 'none' };
  let body = data;
  let type = mime ?? '';
  const dataUrl = /^data:([^;,]*)(;[^,]*)?,/.exec(body);
  if (dataUrl) {
    if (!dataUrl[2]?.includes('base64')) return { kind: 'invalid' };
    type = type || dataUrl[1]!;
    body = body.slice(dataUrl[0].length);
  }
  body = body.replace(/\s+/g, '');
  if (body.length === 0 || body.length % 4 !== 0 || !BASE64.test(body)) return { kind: 'invalid' };
  let binary: string;
  try {
    binary = atob(body);
  } catch {
    return { kind: 'invalid' };
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const family = type.split('/')[0];
  const kind = family === 'image' || family === 'video' || family === 'audio' ? family : 'other';
  return { kind, mime: type || 'application/octet-stream', bytes };
}
