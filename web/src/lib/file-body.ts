import { FILE_TOO_LARGE, MAX_MEDIA_BYTES } from '@wa/contract';

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
