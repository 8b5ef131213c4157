import { MAX_MEDIA_BYTES, type SendBody } from '@wa/contract';
import type { StoredPoll } from '../db/schema.ts';
import { badRequest, tooLarge } from '../errors.ts';
import type { OutgoingMessage } from '../transport/types.ts';

/** The exact validation texts of spec section 5, in the order the spec checks them. */
export const SEND_MESSAGES = {
  noRecipients: 'Please select at least one group',
  noText: 'Please enter a message',
  noFile: 'Please select a file to send',
  noPollQuestion: 'Please enter a poll question',
  fewPollOptions: 'Please add at least two poll options',
  badScheduleTime: 'Please select a valid future date and time',
  fileTooLarge: 'File is too large (max 16 MB)',
} as const;

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
 * An individual recipient as a chat id: `<digits>@s.whatsapp.net` (DECISIONS.md). Accepts the
 * bare number or any `<number>@<suffix>` form the page may send; returns null when it is no number.
 */
export function individualChatId(raw: string): string | null {
  const local = raw.split('@')[0] ?? '';
  const digits = local.replace(/[\s\-().+]/g, '');
  if (!/^[0-9]{6,15}$/.test(digits)) return null;
  return `${digits}${INDIVIDUAL_SUFFIX}`;
}

/** Trimmed, blanks dropped, duplicates counted once, first occurrence order kept. */
function recipientsOf(body: SendBody, audience: Audience): string[] {
  const seen = new Set<string>();
  for (const raw of body.chatIds ?? []) {
    const trimmed = raw.trim();
    if (!trimmed) continue;
    let id = trimmed;
    if (audience === 'individuals') {
      const chat = individualChatId(trimmed);
      if (!chat) throw badRequest(`Invalid phone number: ${trimmed}`);
      id = chat;
    }
    seen.add(id);
  }
  return [...seen];
}

/**
 * Media normalisation of spec section 5 and DECISIONS.md: images are sent as jpeg unless png or
 * gif, videos as mp4, audio as mp3 (`audio/mpeg`), anything else as a document of a generic type.
 */
export function normaliseMime(mime: string | null | undefined): string {
  const m = (mime ?? '').trim().toLowerCase().split(';')[0] ?? '';
  if (m.startsWith('image/')) return m === 'image/png' || m === 'image/gif' ? m : 'image/jpeg';
  if (m.startsWith('video/')) return 'video/mp4';
  if (m.startsWith('audio/')) return 'audio/mpeg';
  return 'application/octet-stream';
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
  if (estimate > MAX_MEDIA_BYTES) throw tooLarge(SEND_MESSAGES.fileTooLarge);
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length > MAX_MEDIA_BYTES) throw tooLarge(SEND_MESSAGES.fileTooLarge);
  if (bytes.length === 0) throw badRequest(SEND_MESSAGES.noFile);
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
export function composeSend(body: SendBody, audience: Audience, now = new Date()): ComposedSend {
  const chatIds = recipientsOf(body, audience);
  if (chatIds.length === 0) throw badRequest(SEND_MESSAGES.noRecipients);

  const type = body.type ?? (body.data ? 'media' : 'string');
  let message: ComposedMessage;
  if (type === 'string' || type === 'text') {
    const text = typeof body.content === 'string' ? body.content : '';
    if (!text.trim()) throw badRequest(SEND_MESSAGES.noText);
    message = { type: 'text', text };
  } else if (type === 'media') {
    if (!body.data) throw badRequest(SEND_MESSAGES.noFile);
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
    if (!pollName.trim()) throw badRequest(SEND_MESSAGES.noPollQuestion);
    const options = pollOptions.map((o) => o.trim()).filter((o) => o.length > 0);
    if (options.length < 2) throw badRequest(SEND_MESSAGES.fewPollOptions);
    message = {
      type: 'poll',
      poll: { pollName: pollName.trim(), pollOptions: options, options: { allowMultipleAnswers: multi } },
    };
  }

  let scheduledAt: Date | null = null;
  if (body.scheduleTime != null && body.scheduleTime.trim() !== '') {
    const at = new Date(body.scheduleTime);
    if (Number.isNaN(at.getTime()) || at.getTime() <= now.getTime()) {
      throw badRequest(SEND_MESSAGES.badScheduleTime);
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
export function outgoingMessage(
  job: {
    messageType: string;
    content: string;
    poll: StoredPoll | null;
    mediaMime: string | null;
    fileName: string | null;
  },
  file: { mime: string; bytes: Buffer } | undefined,
): OutgoingMessage | null {
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
    mime: job.mediaMime ?? file.mime,
    data: file.bytes,
    fileName: job.fileName,
    caption: job.content,
  };
}
