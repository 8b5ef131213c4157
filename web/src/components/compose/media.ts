import { MAX_MEDIA_BYTES } from '@wa/contract';

export const FILE_TOO_LARGE = 'File is too large (max 16 MB)';

/**
 * Media normalisation (spec section 5, DECISIONS.md): images become jpeg unless png or gif,
 * videos mp4, audio mp3 (sent as `audio/mpeg`), anything else a generic binary type.
 */
export function normaliseMime(type: string): string {
  const m = type.trim().toLowerCase().split(';')[0] ?? '';
  if (m.startsWith('image/')) return m === 'image/png' || m === 'image/gif' ? m : 'image/jpeg';
  if (m.startsWith('video/')) return 'video/mp4';
  if (m.startsWith('audio/')) return 'audio/mpeg';
  return 'application/octet-stream';
}

export const isImage = (file: File): boolean => file.type.toLowerCase().startsWith('image/');

/** Null when the file may be sent, else the text that refuses it. */
export function checkFileSize(file: File): string | null {
  return file.size > MAX_MEDIA_BYTES ? FILE_TOO_LARGE : null;
}

/** The file body as plain base64 (the payload's `data`). */
export function readFileBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result ?? '');
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error('Error reading the file'));
    reader.readAsDataURL(file);
  });
}
