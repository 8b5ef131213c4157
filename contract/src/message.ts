import { templateBodyText } from './cloud.ts';
import type { MessageJob } from './jobs.ts';
import { parsePoll } from './poll.ts';

/**
 * A job's message as it is stored (a job row's `message_type` and `content`) and read back, one
 * home for each kind: text, media (the caption), poll (its JSON), template (its JSON), Status
 * (the text or caption), and a channel post (a text or media job to a channel). The server
 * stores and sends from these; every screen, the CSV and the print view show `messageText`, so
 * no one sees a stored message as its JSON.
 */

/** A Cloud API template send as the job stores it: its values unrendered, as the user wrote them. */
export type StoredTemplate = {
  name: string;
  language: string;
  /** Meta's category (MARKETING, UTILITY, AUTHENTICATION), which sets Meta's charge. */
  category: string;
  parameters: string[];
  /** A NAMED template's variable names, in the order of `parameters`. */
  parameterNames?: string[];
  /** The template's body, `{{1}}` or `{{name}}` where a value goes. */
  bodyText?: string;
};

const strings = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;

/** A template job's content read back; null when it is no stored template. */
export function parseStoredTemplate(content: string): StoredTemplate | null {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(content) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object' || typeof v.name !== 'string' || typeof v.language !== 'string')
    return null;
  const parameters = strings(v.parameters) ?? [];
  const names = strings(v.parameterNames);
  return {
    name: v.name,
    language: v.language,
    category: typeof v.category === 'string' ? v.category : '',
    parameters,
    ...(names ? { parameterNames: names } : {}),
    ...(typeof v.bodyText === 'string' ? { bodyText: v.bodyText } : {}),
  };
}

/** A template job's content: the JSON text that parseStoredTemplate reads back. */
export const storedTemplateContent = (t: StoredTemplate): string => JSON.stringify(t);

/**
 * A recipient's own values of a template (rendered for them at acceptance), as its row keeps them
 * in place of a text: the JSON array that parseTemplateValues reads back.
 */
export const templateValuesContent = (values: string[]): string => JSON.stringify(values);

/** A recipient's own template values read back; null when the content is no array of texts. */
export function parseTemplateValues(content: string): string[] | null {
  try {
    return strings(JSON.parse(content));
  } catch {
    return null;
  }
}

/** The template's text with the job's values in place: 'diwali_sale: Hello {{name}}, 20% off'. */
export function templateText(t: StoredTemplate): string {
  if (t.bodyText) return `${t.name}: ${templateBodyText(t.bodyText, t.parameters, t.parameterNames)}`;
  const values = t.parameters.map((p, i) => `{{${t.parameterNames?.[i] ?? i + 1}}} = ${p}`);
  return values.length ? `${t.name} (${t.language}): ${values.join(', ')}` : `${t.name} (${t.language})`;
}

/**
 * The words one recipient got of a job's message, as a conversation shows them: the text or
 * caption (the recipient's own when it was personalised), the poll's question, or the template's
 * body filled with the recipient's values (their own, rendered at acceptance, else the job's), as
 * the person reads it. `own` is the recipient's content: a text; a Cloud recipient's template
 * values (a JSON array); or, for a linked phone sharing a template job, the body it sent as text.
 * A template whose body is not kept shows its name and values (templateText).
 */
export function sentText(messageType: string, content: string, own: string | null = null): string {
  if (messageType === 'poll') return parsePoll(content)?.pollName ?? '';
  if (messageType !== 'template') return own ?? content;
  const t = parseStoredTemplate(content);
  if (!t) return own ?? '';
  const values = own === null ? t.parameters : parseTemplateValues(own);
  if (values === null) return own!;
  return t.bodyText
    ? templateBodyText(t.bodyText, values, t.parameterNames)
    : templateText({ ...t, parameters: values });
}

type Stored = Pick<MessageJob, 'messageType' | 'messageContent'> & { fileName?: string | null };

/**
 * The words of a job's message for a screen, the CSV and the print view: the text, the caption
 * (else the file's name), the poll's question, or the template's name and filled text.
 */
export function messageText(job: Stored): string {
  if (job.messageType === 'poll') return parsePoll(job.messageContent)?.pollName ?? job.messageContent;
  if (job.messageType === 'template') {
    const t = parseStoredTemplate(job.messageContent);
    return t ? templateText(t) : job.messageContent;
  }
  return job.messageContent || (job.fileName ?? '');
}

/** What a kind of message is called on a screen. */
export const MESSAGE_KIND_LABEL: Record<MessageJob['messageType'], string> = {
  text: 'Text',
  media: 'Media',
  poll: 'Poll',
  template: 'Template',
  status: 'Status',
};

/** Meta's charge category of a template job, as its pricing names it ('utility'); null for other kinds. */
export function metaCategoryOf(job: Pick<MessageJob, 'messageType' | 'messageContent'>): string | null {
  if (job.messageType !== 'template') return null;
  return parseStoredTemplate(job.messageContent)?.category.toLowerCase() ?? '';
}
