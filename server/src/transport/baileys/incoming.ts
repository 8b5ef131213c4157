import type { Readable } from 'node:stream';
import { downloadContentFromMessage, type MediaType, normalizeMessageContent, type proto } from 'baileys';
import type { IncomingDetail, IncomingMedia } from '../types.ts';
import { type ProxySettings, proxiedFetchOptions } from './proxy.ts';

/** The kinds of file rc14 downloads by its media key (Utils/messages-media.js MEDIA_HKDF_KEY_MAPPING). */
const MEDIA_KINDS = ['image', 'video', 'audio', 'document', 'sticker'] as const;
type MediaKind = (typeof MEDIA_KINDS)[number];

/** What a file's reference holds: what rc14's downloadContentFromMessage needs, and no more. */
type MediaRef = { kind: MediaKind; directPath: string | null; url: string | null; mediaKey: string };

/**
 * A one-to-one message as the Inbox reads it: its text (a text message only), its type and
 * caption, its file's reference, and the message of the account it quotes or votes on. Null for
 * what is no message of the chat: protocol messages (deletions, edits), reactions, stubs. Content
 * is unwrapped as rc14 unwraps it (normalizeMessageContent: ephemeral, view-once, captioned
 * documents).
 */
export function readIncoming(
  message: proto.IMessage | null | undefined,
): (IncomingDetail & { text: string | null; type: string }) | null {
  const content = normalizeMessageContent(message);
  if (!content || content.protocolMessage || content.reactionMessage || content.senderKeyDistributionMessage)
    return null;
  const text = content.conversation ?? content.extendedTextMessage?.text ?? null;
  if (text)
    return { text, type: 'text', answers: content.extendedTextMessage?.contextInfo?.stanzaId ?? null };
  for (const kind of MEDIA_KINDS) {
    const m = content[`${kind}Message`];
    if (!m) continue;
    const media: IncomingMedia | null = m.mediaKey
      ? {
          mime: m.mimetype ?? 'application/octet-stream',
          fileName: kind === 'document' ? ((m as proto.Message.IDocumentMessage).fileName ?? null) : null,
          ref: JSON.stringify({
            kind,
            directPath: m.directPath ?? null,
            url: m.url ?? null,
            mediaKey: Buffer.from(m.mediaKey).toString('base64'),
          } satisfies MediaRef),
        }
      : null;
    const caption = 'caption' in m ? (m.caption ?? null) : null;
    return { text: null, type: kind, caption, media, answers: m.contextInfo?.stanzaId ?? null };
  }
  // A vote on a poll the account sent: rc14 hands it over encrypted; poll-votes.ts reads the
  // options it chose when the poll is one the product sent.
  if (content.pollUpdateMessage)
    return {
      text: null,
      type: 'poll_vote',
      answers: content.pollUpdateMessage.pollCreationMessageKey?.id ?? null,
    };
  if (content.locationMessage || content.liveLocationMessage)
    return { text: null, type: 'location', caption: content.locationMessage?.name ?? null };
  if (content.contactMessage || content.contactsArrayMessage)
    return { text: null, type: 'contact', caption: content.contactMessage?.displayName ?? null };
  const button =
    content.buttonsResponseMessage?.selectedDisplayText ??
    content.listResponseMessage?.title ??
    content.templateButtonReplyMessage?.selectedDisplayText;
  if (button) return { text: button, type: 'text' };
  return { text: null, type: 'other' };
}

/**
 * The file of an incoming message, downloaded from WhatsApp's media servers and decrypted with its
 * key (rc14 Utils/messages-media.js downloadContentFromMessage, which downloadMediaMessage calls).
 * WhatsApp keeps a file for a limited time; after that the download fails (rc14 then asks the
 * sender's phone to upload it again, which needs the account's live socket: not done here).
 */
export async function downloadIncomingMedia(ref: string, proxy: ProxySettings | null): Promise<Readable> {
  const r = JSON.parse(ref) as MediaRef;
  if (!MEDIA_KINDS.includes(r.kind)) throw new Error('Not a media reference');
  return downloadContentFromMessage(
    { mediaKey: Buffer.from(r.mediaKey, 'base64'), directPath: r.directPath, url: r.url },
    r.kind as MediaType,
    proxy ? { options: proxiedFetchOptions(proxy) } : {},
  );
}
