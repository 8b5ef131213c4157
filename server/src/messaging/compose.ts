import {
  MAX_MEDIA_BYTES,
  normaliseMime,
  PHONE_TEXTS,
  phoneOrNull,
  pollLimitProblem,
  SEND_TEXTS,
  type SendBody,
} from '@wa/contract';
import type { StoredPoll } from '../db/schema.ts';
import { badRequest, tooLarge } from '../errors.ts';
import type { OutgoingMessage } from '../transport/types.ts';
import { mediaToSend } from './media-kind.ts';

export type Audience = 'groups' | 'individuals';

export type ComposedMessage =
  | { type: 'text'; text: string }
  | { type: 'media'; caption: string; mime: string; data: Buffer; fileName: string | null }
  | { type: 'poll'; poll: StoredPoll };

export type ComposedSend = {
  chatIds: string[];
  message: ComposedMessage;
  scheduledAt: Date | null;
};

const INDIVIDUAL_SUFFIX = '@s.whatsapp.net';

/**
 * An individual recipient as a chat id: `<digits>@s.whatsapp.net` (DECISIONS.md, Phone numbers).
 * A bare number follows the phone rule ('09800015838' → 919800015838); a JID, or a number the
 * rule does not know, keeps the plain 6–15-digit check the API always had. Null when it is no number.
 */
export function individualChatId(raw: string, defaultCallingCode: string): string | null {
  if (!raw.includes('@')) {
    const number = phoneOrNull(raw, defaultCallingCode);
    if (number) return `${number}${INDIVIDUAL_SUFFIX}`;
  }
  const local = raw.split('@')[0] ?? '';
  const digits = local.replace(/[\s\-().+]/g, '');
  if (!/^[0-9]{6,15}$/.test(digits)) return null;
  return `${digits}${INDIVIDUAL_SUFFIX}`;
}

/** Trimmed, blanks dropped, duplicates counted once, first occurrence order kept. */
function recipientsOf(body: SendBody, audience: Audience, defaultCallingCode: string): string[] {
  const seen = new Set<string>();
  for (const raw of body.chatIds ?? []) {
    const trimmed = raw.trim();
    if (!trimmed) continue;
    let id = trimmed;
    if (audience === 'individuals') {
      const chat = individualChatId(trimmed, defaultCallingCode);
      if (!chat) throw badRequest(PHONE_TEXTS.invalid(trimmed));
      id = chat;
    }
    seen.add(id);
  }
  return [...seen];
}

const DATA_URL = /^data:([^;,]*)(;[^,]*)?,/;

/** Decodes the base64 body (plain or a `data:` URL); refuses files over 16 MB before decoding them. */
export function decodeMedia(data: string): { bytes: Buffer; mimeFromUrl: string | null } {
  let body = data;
  let mimeFromUrl: string | null = null;
  const m = DATA_URL.exec(data);
  if (m) {
    mimeFromUrl = m[1] || null;
    body = data.slice(m[0].length);
  }
  // 4 base64 characters carry 3 bytes: estimate first so a huge string is refused without decoding it.
  const estimate = Math.floor((body.replace(/[\s=]/g, '').length * 3) / 4);
  if (estimate > MAX_MEDIA_BYTES) throw tooLarge(SEND_TEXTS.fileTooLarge);
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length > MAX_MEDIA_BYTES) throw tooLarge(SEND_TEXTS.fileTooLarge);
  if (bytes.length === 0) throw badRequest(SEND_TEXTS.noFile);
  return { bytes, mimeFromUrl };
}

function pollOf(content: SendBody['content']): { pollName: string; pollOptions: string[]; multi: boolean } {
  let value: unknown = content;
  if (typeof content === 'string') {
    try {
      value = JSON.parse(content);
    } catch {
      value = { pollName: content, pollOptions: [] };
    }
  }
  const v = (value ?? {}) as {
    pollName?: unknown;
    pollOptions?: unknown;
    options?: { allowMultipleAnswers?: unknown };
  };
  return {
    pollName: typeof v.pollName === 'string' ? v.pollName : '',
    pollOptions: Array.isArray(v.pollOptions)
      ? v.pollOptions.filter((o): o is string => typeof o === 'string')
      : [],
    multi: v.options?.allowMultipleAnswers === true,
  };
}

/**
 * Validates a send payload with the spec's messages in the spec's order and returns what will be
 * stored. Individuals may omit `type`: media when `data` is present, otherwise text.
 */
export function composeSend(
  body: SendBody,
  audience: Audience,
  defaultCallingCode: string,
  now = new Date(),
): ComposedSend {
  const chatIds = recipientsOf(body, audience, defaultCallingCode);
  if (chatIds.length === 0) throw badRequest(SEND_TEXTS.noRecipients);

  const type = body.type ?? (body.data ? 'media' : 'string');
  let message: ComposedMessage;
  if (type === 'string' || type === 'text') {
    const text = typeof body.content === 'string' ? body.content : '';
    if (!text.trim()) throw badRequest(SEND_TEXTS.noText);
    message = { type: 'text', text };
  } else if (type === 'media') {
    if (!body.data) throw badRequest(SEND_TEXTS.noFile);
    const { bytes, mimeFromUrl } = decodeMedia(body.data);
    const caption = typeof body.content === 'string' ? body.content : '';
    const fileName = body.fileName?.trim() || null;
    message = {
      type: 'media',
      caption,
      mime: normaliseMime(body.mime || mimeFromUrl),
      data: bytes,
      fileName,
    };
  } else {
    const { pollName, pollOptions, multi } = pollOf(body.content);
    if (!pollName.trim()) throw badRequest(SEND_TEXTS.noPollQuestion);
    const options = pollOptions.map((o) => o.trim()).filter((o) => o.length > 0);
    if (options.length < 2) throw badRequest(SEND_TEXTS.fewPollOptions);
    const limit = pollLimitProblem(pollName, options);
    if (limit) throw badRequest(limit);
    message = {
      type: 'poll',
      poll: { pollName: pollName.trim(), pollOptions: options, options: { allowMultipleAnswers: multi } },
    };
  }

  let scheduledAt: Date | null = null;
  if (body.scheduleTime != null && body.scheduleTime.trim() !== '') {
    const at = new Date(body.scheduleTime);
    if (Number.isNaN(at.getTime()) || at.getTime() <= now.getTime()) {
      throw badRequest(SEND_TEXTS.badScheduleTime);
    }
    scheduledAt = at;
  }
  return { chatIds, message, scheduledAt };
}

/** What the job stores as its content: the text, the caption, or the poll's JSON text (spec section 3). */
export function storedContent(message: ComposedMessage): string {
  if (message.type === 'text') return message.text;
  if (message.type === 'media') return message.caption;
  return JSON.stringify(message.poll);
}

/**
 * The inverse of `storedContent`: the message to hand to the transport, rebuilt from the job row
 * (and its stored file for media). Null when the file is gone.
 */
export async function outgoingMessage(
  job: {
    messageType: string;
    content: string;
    poll: StoredPoll | null;
    mediaMime: string | null;
    fileName: string | null;
  },
  file: { mime: string; bytes: Buffer } | undefined,
): Promise<OutgoingMessage | null> {
  if (job.messageType === 'text') return { kind: 'text', text: job.content };
  if (job.messageType === 'poll') {
    const poll = job.poll ?? (JSON.parse(job.content) as StoredPoll);
    return {
      kind: 'poll',
      name: poll.pollName,
      options: poll.pollOptions,
      allowMultipleAnswers: poll.options?.allowMultipleAnswers === true,
    };
  }
  if (!file) return null;
  return {
    kind: 'media',
    ...(await mediaToSend(file.bytes, { mime: file.mime, fileName: job.fileName })),
    data: file.bytes,
    caption: job.content,
  };
}

/** The message with a recipient's own text (personalised at acceptance) in place of the job's. */
export function withContent(message: OutgoingMessage, content: string | null): OutgoingMessage {
  if (content === null) return message;
  if (message.kind === 'text') return { ...message, text: content };
  if (message.kind === 'media') return { ...message, caption: content };
  return { ...message, name: content };
}
