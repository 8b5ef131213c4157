import { type AnyMediaMessageContent, prepareWAMessageMedia, proto } from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import type { OutgoingMessage } from '../types.ts';
import { toBaileysContent } from './content.ts';
import type { BaileysSocket } from './socket.ts';

type Media = Extract<OutgoingMessage, { kind: 'media' }>;

/**
 * Media prepared (encrypted and uploaded) once per file of a job: the engine hands the transport
 * the same file buffer for every recipient of the job (the caption may differ, so it is set per
 * recipient). rc14 caches only `{ url }` media (Utils/messages.js prepareWAMessageMedia), so a
 * Buffer was re-encrypted and re-uploaded per recipient.
 */
export class PreparedMedia {
  private readonly byFile = new WeakMap<Buffer, Map<string, Promise<proto.IMessage>>>();

  constructor(
    private readonly log: FastifyBaseLogger,
    /** The longest an upload may take (rc14's own has no limit). */
    private readonly uploadTimeoutMs: number,
  ) {}

  /** The message content for one recipient: a copy of the prepared file with its own caption. */
  async content(sock: BaileysSocket, message: Media): Promise<proto.IMessage> {
    let forFile = this.byFile.get(message.data);
    if (!forFile) {
      forFile = new Map();
      this.byFile.set(message.data, forFile);
    }
    const key = `${message.as}|${message.mime}|${message.fileName}`;
    let prepared = forFile.get(key);
    if (!prepared) {
      const noCaption = toBaileysContent({ ...message, caption: '' }) as AnyMediaMessageContent;
      prepared = prepareWAMessageMedia(noCaption, {
        upload: sock.waUploadToServer,
        mediaUploadTimeoutMs: this.uploadTimeoutMs,
        logger: this.log.child({ module: 'baileys' }, { level: 'warn' }),
      });
      forFile.set(key, prepared);
      // A failed upload is tried again by the next recipient.
      const failed = prepared;
      failed.catch(() => forFile!.get(key) === failed && forFile!.delete(key));
    }
    // A copy per recipient, with its caption: relaying must not change what the next one gets.
    const content = proto.Message.decode(proto.Message.encode(await prepared).finish());
    const inner = content[`${message.as}Message`];
    if (message.caption && inner && 'caption' in inner) inner.caption = message.caption;
    return content;
  }
}
