import type { MediaKind } from '../transport/types.ts';

/**
 * The formats WhatsApp plays inline, by their true (sniffed) type, and the type to announce for
 * them (WhatsApp's media types: JPEG and PNG images, MP4 and 3GPP video, AAC / MP4 / MPEG / AMR /
 * Opus audio). Anything else goes as a document with its true type and file name.
 */
const PLAYABLE: Record<string, { as: Exclude<MediaKind, 'document'>; mime: string }> = {
  'image/jpeg': { as: 'image', mime: 'image/jpeg' },
  'image/png': { as: 'image', mime: 'image/png' },
  'video/mp4': { as: 'video', mime: 'video/mp4' },
  'video/3gpp': { as: 'video', mime: 'video/3gpp' },
  'audio/mpeg': { as: 'audio', mime: 'audio/mpeg' },
  'audio/aac': { as: 'audio', mime: 'audio/aac' },
  'audio/x-m4a': { as: 'audio', mime: 'audio/mp4' },
  'audio/mp4': { as: 'audio', mime: 'audio/mp4' },
  'audio/amr': { as: 'audio', mime: 'audio/amr' },
  'audio/ogg; codecs=opus': { as: 'audio', mime: 'audio/ogg; codecs=opus' },
};

export type MediaToSend = { as: MediaKind; mime: string; fileName: string | null };

/**
 * How a file goes out, decided from its bytes (docs/decisions.md, Media): the label the web showed
 * (`labelMime`) and the type the upload claimed only count when the bytes say nothing.
 */
export async function mediaToSend(
  bytes: Buffer,
  claimed: { mime: string; fileName: string | null },
): Promise<MediaToSend> {
  // file-type (and the tokenizers it reads with) loads with the first file sent, not at start.
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(bytes).catch(() => undefined);
  const mime = sniffed?.mime ?? (claimed.mime || 'application/octet-stream');
  const playable = PLAYABLE[mime];
  if (playable) return { as: playable.as, mime: playable.mime, fileName: claimed.fileName };
  return {
    as: 'document',
    mime,
    fileName: claimed.fileName ?? (sniffed ? `file.${sniffed.ext}` : 'file'),
  };
}
