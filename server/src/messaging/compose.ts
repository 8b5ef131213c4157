import {
  CLOUD_TEXTS,
  chatIdOfPhone,
  isBsuid,
  isPlainPhoneChatId,
  jidUser,
  MAX_MEDIA_BYTES,
  normaliseMime,
  PHONE_TEXTS,
  type Poll,
  parseDateInput,
  parsePoll,
  parseStoredTemplate,
  parseTemplateValues,
  phoneOrNull,
  pollContent,
  pollLimitProblem,
  pollOfValue,
  SEND_TEXTS,
  type SendBody,
  type StoredPoll,
  type StoredTemplate,
  storedTemplateContent,
  TemplateContent,
} from '@wa/contract';
import { badRequest, tooLarge } from '../errors.ts';
import type { OutgoingMessage } from '../transport/types.ts';
import { mediaToSend } from './media-kind.ts';

export type Audience = 'groups' | 'individuals';

export type ComposedMessage =
  | { type: 'text'; text: string }
  | { type: 'media'; caption: string; mime: string; data: Buffer; fileName: string | null }
  | { type: 'poll'; poll: StoredPoll }
  /** A Cloud API template; the category and names are filled from the account's synced template. */
  | { type: 'template'; template: StoredTemplate };

export type ComposedSend = {
  chatIds: string[];
  message: ComposedMessage;
  scheduledAt: Date | null;
};

/**
 * An individual recipient as a phone chat id (contract/jid.ts chatIdOfPhone; docs/decisions.md,
 * Phone numbers), or a business-scoped user id as it is (docs/people.md).
 * A bare number follows the phone rule ('09800015838' → 919800015838); a JID, or a number the
 * rule does not know, keeps the plain 6–15-digit check the API always had. Null when it is no number.
 */
export function individualChatId(raw: string, defaultCallingCode: string): string | null {
  // A phone chat id as the bulk page sends it is already what the checks below would build.
  if (isPlainPhoneChatId(raw)) return raw;
  // A business-scoped user id is its own chat id (contract/jid.ts).
  if (isBsuid(raw)) return raw;
  if (!raw.includes('@')) {
    const number = phoneOrNull(raw, defaultCallingCode);
    if (number) return chatIdOfPhone(number);
  }
  const digits = jidUser(raw).replace(/[\s\-().+]/g, '');
  if (!/^[0-9]{6,15}$/.test(digits)) return null;
  return chatIdOfPhone(digits);
}

/** Trimmed, blanks dropped, duplicates counted once, first occurrence order kept. */
export function recipientsOf(body: SendBody, audience: Audience, defaultCallingCode: string): string[] {
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

/**
 * `recipientsOf` over a long list in slices, giving the event loop back between them, so that
 * parsing 200,000 numbers never holds other requests (a health check) for more than a slice.
 */
export async function recipientsYielding(
  chatIds: string[],
  audience: Audience,
  defaultCallingCode: string,
  slice = 2000,
): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < chatIds.length; i += slice) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const id of recipientsOf({ chatIds: chatIds.slice(i, i + slice) }, audience, defaultCallingCode))
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

/** The poll of a send: its content as the object or its JSON text; a text that is no JSON is the question. */
function pollOf(content: SendBody['content']): Poll {
  let value: unknown = content;
  if (typeof content === 'string') {
    try {
      value = JSON.parse(content);
    } catch {
      value = { pollName: content };
    }
  }
  return pollOfValue(value) ?? { pollName: '', pollOptions: [], allowMultipleAnswers: false };
}

/** A media message from a body's `data`, `mime` and `fileName` (a send's, or a job edit's new file). */
export function composedMedia(
  body: { data?: string | null; mime?: string | null; fileName?: string | null },
  caption: string,
): Extract<ComposedMessage, { type: 'media' }> {
  if (!body.data) throw badRequest(SEND_TEXTS.noFile);
  const { bytes, mimeFromUrl } = decodeMedia(body.data);
  return {
    type: 'media',
    caption,
    mime: normaliseMime(body.mime || mimeFromUrl),
    data: bytes,
    fileName: body.fileName?.trim() || null,
  };
}

/** A poll message checked as a send checks it (a question, two options, WhatsApp's limits). */
export function composedPoll(content: SendBody['content']): Extract<ComposedMessage, { type: 'poll' }> {
  const { pollName, pollOptions, allowMultipleAnswers: multi } = pollOf(content);
  if (!pollName.trim()) throw badRequest(SEND_TEXTS.noPollQuestion);
  const options = pollOptions.map((o) => o.trim()).filter((o) => o.length > 0);
  if (options.length < 2) throw badRequest(SEND_TEXTS.fewPollOptions);
  const limit = pollLimitProblem(pollName, options);
  if (limit) throw badRequest(limit);
  return {
    type: 'poll',
    poll: { pollName: pollName.trim(), pollOptions: options, options: { allowMultipleAnswers: multi } },
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
  } else if (type === 'template') {
    const parsed = TemplateContent.safeParse(body.content);
    if (!parsed.success) throw badRequest(CLOUD_TEXTS.templateBody);
    const { name, language, parameters } = parsed.data;
    const empty = parameters.findIndex((p) => !p.trim());
    if (empty >= 0) throw badRequest(CLOUD_TEXTS.emptyParameter(name, empty + 1));
    message = { type: 'template', template: { name, language, category: '', parameters } };
  } else if (type === 'media') {
    message = composedMedia(body, typeof body.content === 'string' ? body.content : '');
  } else {
    message = composedPoll(body.content);
  }

  return { chatIds, message, scheduledAt: scheduleTimeOf(body.scheduleTime, now) };
}

/**
 * A schedule time (sends, Status posts, a job's edit or move): null when none is given, else a
 * date after `now` (parseDateInput's bounds), or the send's 400.
 */
export function scheduleTimeOf(raw: string | null | undefined, now = new Date()): Date | null {
  if (raw == null || raw.trim() === '') return null;
  const at = parseDateInput(raw);
  if (!at || at.getTime() <= now.getTime()) throw badRequest(SEND_TEXTS.badScheduleTime);
  return at;
}

/** What the job stores as its content: the text, the caption, or the poll's JSON text. */
export function storedContent(message: ComposedMessage): string {
  if (message.type === 'text') return message.text;
  if (message.type === 'media') return message.caption;
  if (message.type === 'template') return storedTemplateContent(message.template);
  return pollContent(message.poll);
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
    pollSecret?: Buffer | null;
    mediaMime: string | null;
    fileName: string | null;
  },
  file: { mime: string; bytes: Buffer } | undefined,
): Promise<OutgoingMessage | null> {
  if (job.messageType === 'text') return { kind: 'text', text: job.content };
  if (job.messageType === 'template') {
    const t = parseStoredTemplate(job.content);
    if (!t) throw new Error(`job content is no stored template: ${job.content.slice(0, 80)}`);
    return {
      kind: 'template',
      name: t.name,
      language: t.language,
      parameters: t.parameters,
      ...(t.parameterNames ? { parameterNames: t.parameterNames } : {}),
    };
  }
  if (job.messageType === 'poll') {
    const poll = pollOfValue(job.poll) ?? parsePoll(job.content);
    if (!poll) throw new Error(`job content is no stored poll: ${job.content.slice(0, 80)}`);
    return {
      kind: 'poll',
      name: poll.pollName,
      options: poll.pollOptions,
      allowMultipleAnswers: poll.allowMultipleAnswers,
      secret: job.pollSecret ?? null,
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
  // A template's body values, rendered for this recipient.
  if (message.kind === 'template') {
    const parameters = parseTemplateValues(content);
    if (!parameters) throw new Error(`recipient content is no template values: ${content.slice(0, 80)}`);
    return { ...message, parameters };
  }
  return { ...message, name: content };
}
