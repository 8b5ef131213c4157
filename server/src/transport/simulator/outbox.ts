import crypto from 'node:crypto';
import fs from 'node:fs';
import type { MediaKind, OutgoingMessage } from '../types.ts';

/**
 * A message id in WhatsApp Web's shape (3EB0 and 16 hex digits), from a UUID: Node draws those
 * from a pooled buffer, where 8 fresh random bytes cost a system call per message.
 */
export const simulatedMessageId = () =>
  `3EB0${crypto.randomUUID().replace(/-/g, '').slice(-16).toUpperCase()}`;
/** What the simulator records for every message it accepted (the outbox). */
export type SimulatedMessage = {
  sessionId: string;
  messageId: string;
  chatId: string;
  type: 'text' | 'media' | 'poll';
  text: string | null;
  caption: string | null;
  /** The file's true type, and how it went (image, video, audio, document). */
  mime: string | null;
  mediaAs: MediaKind | null;
  fileName: string | null;
  size: number | null;
  poll: { name: string; options: string[]; allowMultipleAnswers: boolean } | null;
  sentAt: string;
};

/**
 * The outbox line of a message the simulator accepted, as JSON: it is also the copy the
 * transport keeps (SendResult.kept), which the simulator's outbox API reads back.
 */
export function outboxRecord(
  accountId: string,
  messageId: string,
  chatId: string,
  message: Exclude<OutgoingMessage, { kind: 'template' }>,
): string {
  const record: SimulatedMessage = {
    sessionId: accountId,
    messageId,
    chatId,
    type: message.kind,
    text: message.kind === 'text' ? message.text : null,
    caption: message.kind === 'media' ? message.caption : null,
    mime: message.kind === 'media' ? message.mime : null,
    mediaAs: message.kind === 'media' ? message.as : null,
    fileName: message.kind === 'media' ? message.fileName : null,
    size: message.kind === 'media' ? message.data.length : null,
    poll:
      message.kind === 'poll'
        ? { name: message.name, options: message.options, allowMultipleAnswers: message.allowMultipleAnswers }
        : null,
    sentAt: new Date().toISOString(),
  };
  return JSON.stringify(record);
}

/** Written synchronously so that a reader (a benchmark, a test) sees the line as soon as send returns. */
export function appendToOutbox(file: string, record: string): void {
  fs.appendFileSync(file, `${record}\n`);
}
