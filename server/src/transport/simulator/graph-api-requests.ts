import crypto from 'node:crypto';
import { isBsuid } from '@wa/contract';
import { graphError, variables } from './graph-api-payloads.ts';

/**
 * How the fake Graph API (graph-api.ts) reads a request, as Meta's reference pages describe it:
 * a send's validation, a number's fields under its version's names, the template list's pages.
 * Pure functions of the request and the fake's state; the server in graph-api.ts records and
 * answers.
 */

export type FakeTemplate = {
  id?: string;
  name: string;
  language: string;
  category: 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';
  status: string;
  parameter_format?: 'POSITIONAL' | 'NAMED';
  components: { type: string; format?: string; text?: string }[];
};

/** An error Meta gives for one recipient: in the send's answer, or later as a `failed` status webhook. */
export type RecipientError = { code: number; via?: 'response' | 'webhook' };

// biome-ignore lint/suspicious/noExplicitAny: request JSON, read field by field as Meta would
export type Json = any;

export type GraphAnswer = { status: number; body: unknown };

/** A send Meta takes: to whom, its pricing category, and an error Meta will give for it. */
export type TakenSend = { to: string; bsuid: string | null; category: string; error?: RecipientError };

/**
 * POST /{phone-number-id}/messages (Messages reference): validated like Meta. A person may be
 * named by `recipient`, their business-scoped user id, instead of `to` (Meta's "Business-scoped
 * user IDs",
 * https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids/:
 * `to` wins when both are given).
 */
export function checkSend(
  body: Json,
  state: {
    templates: FakeTemplate[];
    marketingStopped: Set<string>;
    recipientErrors: Record<string, RecipientError>;
  },
): { refused: GraphAnswer } | { taken: TakenSend } {
  const refuse = (code: number, details?: string) => ({ refused: graphError(code, details) });
  if (body?.messaging_product !== 'whatsapp')
    return refuse(100, 'The parameter messaging_product is required.');
  const bsuid =
    body.to === undefined && typeof body.recipient === 'string' && isBsuid(body.recipient)
      ? body.recipient
      : null;
  const to = bsuid ?? (typeof body.to === 'string' ? body.to.replace(/^\+/, '') : '');
  if (!bsuid && !/^[0-9]{6,15}$/.test(to)) return refuse(100, `Invalid parameter 'to': ${String(body.to)}`);
  let category = 'service';
  if (body.type === 'template') {
    const t = body.template;
    const template = state.templates.find((x) => x.name === t?.name && x.language === t?.language?.code);
    if (template?.status !== 'APPROVED') {
      return refuse(132001, `template name (${t?.name}) does not exist in ${t?.language?.code}`);
    }
    const bodyComponent = template.components.find((c) => c.type.toUpperCase() === 'BODY');
    const expected = variables(bodyComponent?.text).size;
    const given = (t.components ?? []).find((c: Json) => c.type === 'body')?.parameters?.length ?? 0;
    if (given !== expected) {
      return refuse(
        132000,
        `body: number of localizable_params (${given}) does not match the expected number of params (${expected})`,
      );
    }
    const header = template.components.find((c) => c.type.toUpperCase() === 'HEADER');
    const format = header?.format?.toLowerCase();
    if (format && ['image', 'video', 'document'].includes(format)) {
      const p = (t.components ?? []).find((c: Json) => c.type === 'header')?.parameters?.[0];
      if (p?.type !== format || typeof p[format]?.link !== 'string') {
        return refuse(132012, `header: Format mismatch, expected ${format.toUpperCase()}`);
      }
    }
    category = template.category.toLowerCase();
  } else if (body.type === 'text') {
    if (typeof body.text?.body !== 'string' || body.text.body === '')
      return refuse(100, 'The parameter text.body is required.');
  } else {
    return refuse(100, `Unsupported message type ${String(body.type)}`);
  }
  // Someone who stopped this business's marketing messages: a marketing template is taken, then
  // fails by status webhook with 131050 (error-code page; its webhook reference names the failed
  // status); utility and authentication templates still go.
  const error: RecipientError | undefined =
    category === 'marketing' && state.marketingStopped.has(to)
      ? { code: 131050, via: 'webhook' }
      : state.recipientErrors[to];
  return { taken: { to, bsuid, category, ...(error ? { error } : {}) } };
}

/** The send's answer: contacts + messages[0].id (a BSUID's contact has `user_id` and no `wa_id`). */
export function sendAnswer(body: Json, taken: TakenSend, messageId: string): GraphAnswer {
  return {
    status: 200,
    body: {
      messaging_product: 'whatsapp',
      contacts: [
        taken.bsuid ? { input: taken.bsuid, user_id: taken.bsuid } : { input: body.to, wa_id: taken.to },
      ],
      messages: [{ id: messageId, ...(body.type === 'template' ? { message_status: 'accepted' } : {}) }],
    },
  };
}

/**
 * A number's fields with its messaging limit under the name the version gives it (Messaging
 * Limits page, "Via API": `whatsapp_business_manager_messaging_limit` for v24.0 and newer,
 * `messaging_limit_tier` for v23.0 and older).
 */
export function limitField(number: Record<string, unknown>, version: string): Record<string, unknown> {
  const { whatsapp_business_manager_messaging_limit: current, messaging_limit_tier: older, ...rest } = number;
  const tier = current ?? older;
  if (tier === undefined) return rest;
  const v24 = Number(version.replace(/^v/, '')) >= 24;
  return { ...rest, [v24 ? 'whatsapp_business_manager_messaging_limit' : 'messaging_limit_tier']: tier };
}

/** The fields a `GET /{id}?fields=` asks of `object` (its id always), as the Graph API answers. */
export function fieldsOf(
  object: Record<string, unknown>,
  query: URLSearchParams,
  byDefault: string,
): GraphAnswer {
  const fields = (query.get('fields') ?? byDefault).split(',');
  return {
    status: 200,
    body: Object.fromEntries(['id', ...fields].filter((f) => f in object).map((f) => [f, object[f]])),
  };
}

/** GET /{waba-id}/message_templates with cursor paging (Graph API "Paginated Results"). */
export function listTemplates(
  templates: FakeTemplate[],
  query: URLSearchParams,
  baseUrl: string,
  account: string,
) {
  const limit = Math.min(Number(query.get('limit') ?? 25) || 25, 100);
  const from = query.get('after') ? Number(Buffer.from(query.get('after')!, 'base64url').toString()) : 0;
  const page = templates
    .slice(from, from + limit)
    .map((t, i) => ({ id: t.id ?? String(1_000_000 + from + i), ...t }));
  const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
  const more = from + limit < templates.length;
  return {
    data: page,
    paging: {
      cursors: { before: cursor(from), after: cursor(from + page.length) },
      ...(more
        ? {
            next: `${baseUrl}/${account}/message_templates?limit=${limit}&after=${cursor(from + page.length)}`,
          }
        : {}),
    },
  };
}

/** Media reference, "Retrieve Media URL": where the file of `mediaId` is fetched, with its hash and size. */
export function mediaUrlAnswer(
  bytes: Buffer,
  mime: string,
  mediaId: string,
  attachments: string,
): GraphAnswer {
  const expires = Math.floor(Date.now() / 1000) + 300;
  return {
    status: 200,
    body: {
      messaging_product: 'whatsapp',
      url: `${attachments}?mid=${mediaId}&ext=${expires}&hash=${crypto.randomBytes(6).toString('hex')}`,
      mime_type: mime,
      sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
      file_size: String(bytes.length),
      id: mediaId,
    },
  };
}
