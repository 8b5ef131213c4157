import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isBsuid } from '@wa/contract';
import {
  escapedUnicodeJson,
  graphError,
  messagesEnvelope,
  signature,
  statusesOf,
  variables,
} from './graph-api-payloads.ts';

/**
 * A simulated Meta Graph API for Cloud API accounts: a real HTTP server on 127.0.0.1 (random
 * port) that answers the documented requests with the documented answers, and POSTs signed status
 * webhooks as Meta does. Each behaviour names the Meta page it copies. It signs with its own HMAC
 * code (not the product's), so a test of the product's check can fail.
 *
 * It sits at the transport's lowest boundary: the product's Cloud code (graph-client.ts, the
 * webhook route) talks to it exactly as to graph.facebook.com, through CLOUD_API_BASE_URL. The
 * tests start it (test/fakes re-exports it), the browser tests run it as a process
 * (test/fakes/graph-api-main.ts) and `npm run demo` starts one for its Cloud API account
 * (demo/cloud-graph.ts). Never imported by the product's own code.
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

export type FakeWebhookOptions = {
  url: string;
  /** Pause before each status (ms). */
  delayMs?: number;
  /** read, delivered, sent instead of sent, delivered, read (Meta does not promise order). */
  outOfOrder?: boolean;
  /** Each status POSTed this many times (Meta delivers at least once). */
  repeat?: number;
  /** Whether a `read` follows `delivered` (a user with read receipts off sends none). */
  read?: boolean;
  retryDelayMs?: number;
  maxAttempts?: number;
};

export type FakeGraphOptions = {
  version?: string;
  phoneNumberId?: string;
  /**
   * More numbers of the same WhatsApp Business Account (a business may register several; they
   * share its messaging limit): each answers `GET /{id}` and sends, with its own display number.
   */
  morePhoneNumbers?: Array<{ id: string; display_phone_number: string }>;
  wabaId?: string;
  accessToken?: string;
  appSecret?: string;
  phone?: Record<string, unknown>;
  templates?: FakeTemplate[];
  /** How long the messages endpoint takes to answer (ms). */
  latencyMs?: number;
  recipientErrors?: Record<string, RecipientError>;
  webhook?: FakeWebhookOptions;
  /** The port on 127.0.0.1 (default: any free one). */
  port?: number;
};

// biome-ignore lint/suspicious/noExplicitAny: request JSON, read field by field as Meta would
type Json = any;

export type FakeSend = {
  to: string;
  body: Json;
  /** When the request arrived (performance.now(), ms). */
  at: number;
  messageId: string | null;
};

export async function startFakeGraphApi(options: FakeGraphOptions = {}) {
  const version = options.version ?? 'v24.0';
  const phoneNumberId = options.phoneNumberId ?? '106540352242922';
  const wabaId = options.wabaId ?? '102290129340398';
  const appSecret = options.appSecret ?? 'fake-app-secret';
  const state = {
    accessToken: options.accessToken ?? 'EAAJB-fake-token',
    latencyMs: options.latencyMs ?? 0,
    templates: options.templates ?? [],
    recipientErrors: { ...(options.recipientErrors ?? {}) },
    webhook: options.webhook,
    /** The people (wa_id) who stopped marketing messages from this business (`setMarketingPreference`). */
    marketingStopped: new Set<string>(),
    /** Files people sent to the business, by media id, and the number they were sent to (`sendInboundMedia`). */
    media: new Map<string, { mime: string; bytes: Buffer; phoneNumberId: string }>(),
  };
  // Phone number API reference: GET /{phone-number-id} answers these fields. The messaging limit
  // (a tier name, given as either field) is answered as the version names it (limitField).
  const { messaging_limit_tier: olderTier, ...given } = options.phone ?? {};
  const phone: Record<string, unknown> = {
    id: phoneNumberId,
    display_phone_number: '+91 98000 15838',
    verified_name: 'Lucky Shrub',
    quality_rating: 'GREEN',
    throughput: { level: 'STANDARD' },
    code_verification_status: 'VERIFIED',
    platform_type: 'CLOUD_API',
    ...given,
    whatsapp_business_manager_messaging_limit:
      given.whatsapp_business_manager_messaging_limit ?? olderTier ?? 'TIER_2K',
  };
  const calls: { method: string; path: string; query: URLSearchParams; authorization: string | undefined }[] =
    [];
  const sends: FakeSend[] = [];
  const webhookDeliveries: { body: string; status: number | 'error' }[] = [];
  const pending = new Set<Promise<void>>();
  let sequence = 0;

  /** Every number of the account by id: what `GET /{phone-number-id}` answers for it. */
  const numbers = new Map<string, Record<string, unknown>>([
    [phoneNumberId, phone],
    ...(options.morePhoneNumbers ?? []).map((n) => [n.id, { ...phone, ...n }] as const),
  ]);
  const webhookPayload = (value: Record<string, unknown>, from = phoneNumberId) =>
    messagesEnvelope(
      wabaId,
      { id: from, display: String(numbers.get(from)?.display_phone_number).replace(/[^0-9]/g, '') },
      value,
    );

  /** POSTs a payload signed with X-Hub-Signature-256, retried while the receiver does not answer 2xx (Meta retries failed deliveries). */
  async function deliver(payload: unknown): Promise<void> {
    const hook = state.webhook;
    if (!hook) return;
    const body = escapedUnicodeJson(payload);
    for (let attempt = 1; attempt <= (hook.maxAttempts ?? 5); attempt++) {
      try {
        const res = await fetch(hook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature(body, appSecret) },
          body,
        });
        webhookDeliveries.push({ body, status: res.status });
        await res.arrayBuffer();
        if (res.ok) return;
      } catch {
        webhookDeliveries.push({ body, status: 'error' });
      }
      await new Promise((r) => setTimeout(r, hook.retryDelayMs ?? 50));
    }
  }

  function track(work: Promise<void>) {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  }

  /** The statuses of one accepted message, as the status webhook reference describes them. */
  function scheduleStatuses(
    from: string,
    messageId: string,
    to: string,
    category: string,
    failure: number | null,
  ) {
    const hook = state.webhook;
    if (!hook) return;
    const statuses = statusesOf(
      { id: messageId, to, category },
      failure,
      Math.floor(Date.now() / 1000),
      hook.read !== false,
    );
    if (hook.outOfOrder) statuses.reverse();
    track(
      (async () => {
        for (const status of statuses) {
          await new Promise((r) => setTimeout(r, hook.delayMs ?? 0));
          for (let i = 0; i < (hook.repeat ?? 1); i++)
            await deliver(webhookPayload({ statuses: [status] }, from));
        }
      })(),
    );
  }

  /**
   * POST /{phone-number-id}/messages (Messages reference): validate like Meta, answer contacts +
   * messages[0].id. A person may be named by `recipient`, their business-scoped user id, instead of
   * `to` (Meta's "Business-scoped user IDs",
   * https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids/:
   * `to` wins when both are given; the answer's contact then has `user_id` and no `wa_id`).
   */
  function sendMessage(from: string, body: Json): { status: number; body: unknown } {
    if (body?.messaging_product !== 'whatsapp')
      return graphError(100, 'The parameter messaging_product is required.');
    const bsuid =
      body.to === undefined && typeof body.recipient === 'string' && isBsuid(body.recipient)
        ? body.recipient
        : null;
    const to = bsuid ?? (typeof body.to === 'string' ? body.to.replace(/^\+/, '') : '');
    if (!bsuid && !/^[0-9]{6,15}$/.test(to))
      return graphError(100, `Invalid parameter 'to': ${String(body.to)}`);
    let category = 'service';
    if (body.type === 'template') {
      const t = body.template;
      const template = state.templates.find((x) => x.name === t?.name && x.language === t?.language?.code);
      if (template?.status !== 'APPROVED') {
        return graphError(132001, `template name (${t?.name}) does not exist in ${t?.language?.code}`);
      }
      const bodyComponent = template.components.find((c) => c.type.toUpperCase() === 'BODY');
      const expected = variables(bodyComponent?.text).size;
      const given = (t.components ?? []).find((c: Json) => c.type === 'body')?.parameters?.length ?? 0;
      if (given !== expected) {
        return graphError(
          132000,
          `body: number of localizable_params (${given}) does not match the expected number of params (${expected})`,
        );
      }
      const header = template.components.find((c) => c.type.toUpperCase() === 'HEADER');
      const format = header?.format?.toLowerCase();
      if (format && ['image', 'video', 'document'].includes(format)) {
        const p = (t.components ?? []).find((c: Json) => c.type === 'header')?.parameters?.[0];
        if (p?.type !== format || typeof p[format]?.link !== 'string') {
          return graphError(132012, `header: Format mismatch, expected ${format.toUpperCase()}`);
        }
      }
      category = template.category.toLowerCase();
    } else if (body.type === 'text') {
      if (typeof body.text?.body !== 'string' || body.text.body === '')
        return graphError(100, 'The parameter text.body is required.');
    } else {
      return graphError(100, `Unsupported message type ${String(body.type)}`);
    }
    // Someone who stopped this business's marketing messages: a marketing template is taken, then
    // fails by status webhook with 131050 (error-code page; its webhook reference names the failed
    // status); utility and authentication templates still go.
    const error: RecipientError | undefined =
      category === 'marketing' && state.marketingStopped.has(to)
        ? { code: 131050, via: 'webhook' }
        : state.recipientErrors[to];
    if (error && (error.via ?? 'response') === 'response') {
      sends.push({ to, body, at: performance.now(), messageId: null });
      return graphError(error.code);
    }
    const messageId = `wamid.${Buffer.from(`${to}:${++sequence}:${crypto.randomBytes(6).toString('hex')}`).toString('base64')}`;
    sends.push({ to, body, at: performance.now(), messageId });
    scheduleStatuses(from, messageId, to, category, error ? error.code : null);
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [bsuid ? { input: bsuid, user_id: bsuid } : { input: body.to, wa_id: to }],
        messages: [{ id: messageId, ...(body.type === 'template' ? { message_status: 'accepted' } : {}) }],
      },
    };
  }

  /**
   * A number's fields with its messaging limit under the name the version gives it (Messaging
   * Limits page, "Via API": `whatsapp_business_manager_messaging_limit` for v24.0 and newer,
   * `messaging_limit_tier` for v23.0 and older).
   */
  function limitField(number: Record<string, unknown>): Record<string, unknown> {
    const {
      whatsapp_business_manager_messaging_limit: current,
      messaging_limit_tier: older,
      ...rest
    } = number;
    const tier = current ?? older;
    if (tier === undefined) return rest;
    const v24 = Number(version.replace(/^v/, '')) >= 24;
    return { ...rest, [v24 ? 'whatsapp_business_manager_messaging_limit' : 'messaging_limit_tier']: tier };
  }

  /** GET /{waba-id}/message_templates with cursor paging (Graph API "Paginated Results"). */
  function listTemplates(query: URLSearchParams, baseUrl: string) {
    const limit = Math.min(Number(query.get('limit') ?? 25) || 25, 100);
    const from = query.get('after') ? Number(Buffer.from(query.get('after')!, 'base64url').toString()) : 0;
    const page = state.templates
      .slice(from, from + limit)
      .map((t, i) => ({ id: t.id ?? String(1_000_000 + from + i), ...t }));
    const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
    const more = from + limit < state.templates.length;
    return {
      data: page,
      paging: {
        cursors: { before: cursor(from), after: cursor(from + page.length) },
        ...(more
          ? {
              next: `${baseUrl}/${wabaId}/message_templates?limit=${limit}&after=${cursor(from + page.length)}`,
            }
          : {}),
      },
    };
  }

  let url = '';
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', async () => {
      const u = new URL(req.url ?? '/', 'http://fake');
      calls.push({
        method: req.method ?? '',
        path: u.pathname,
        query: u.searchParams,
        authorization: req.headers.authorization,
      });
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      // Graph API errors: an expired or wrong token is code 190 (OAuthException), HTTP 401.
      if (req.headers.authorization !== `Bearer ${state.accessToken}`) {
        return answer(401, {
          error: {
            message: 'Error validating access token: Session has expired on Tuesday, 24-Nov-26 10:00:00 PST.',
            type: 'OAuthException',
            code: 190,
            error_subcode: 463,
            fbtrace_id: 'AbCdEf',
          },
        });
      }
      const parts = u.pathname.split('/').filter(Boolean);
      const unsupported = () =>
        graphError(100, undefined, {
          message: `Unsupported ${req.method?.toLowerCase()} request. Object with ID '${parts[1] ?? ''}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
          error_subcode: 33,
        });
      let result: { status: number; body: unknown } = unsupported();
      // Media reference, "Download Media": the URL `GET /{media-id}` gave, fetched with the token.
      if (req.method === 'GET' && parts[0] === 'whatsapp_business' && parts[1] === 'attachments') {
        const file = state.media.get(u.searchParams.get('mid') ?? '');
        if (!file) return answer(404, graphError(100).body);
        res
          .writeHead(200, { 'content-type': file.mime, 'content-length': file.bytes.length })
          .end(file.bytes);
        return;
      }
      const file = parts.length === 2 ? state.media.get(parts[1]!) : undefined;
      if (parts[0] === version && req.method === 'GET' && file) {
        // Media reference, "Retrieve Media URL": `phone_number_id` makes sure the media belongs to that number.
        const owner = u.searchParams.get('phone_number_id');
        result =
          owner && owner !== file.phoneNumberId
            ? unsupported()
            : {
                status: 200,
                body: {
                  messaging_product: 'whatsapp',
                  url: `${url}/whatsapp_business/attachments/?mid=${parts[1]}&ext=${Math.floor(Date.now() / 1000) + 300}&hash=${crypto.randomBytes(6).toString('hex')}`,
                  mime_type: file.mime,
                  sha256: crypto.createHash('sha256').update(file.bytes).digest('hex'),
                  file_size: String(file.bytes.length),
                  id: parts[1],
                },
              };
      } else if (
        parts[0] === version &&
        req.method === 'GET' &&
        parts.length === 2 &&
        numbers.has(parts[1]!)
      ) {
        const number = limitField(numbers.get(parts[1]!)!);
        const fields = (
          u.searchParams.get('fields') ?? 'id,display_phone_number,verified_name,quality_rating'
        ).split(',');
        result = {
          status: 200,
          body: Object.fromEntries(['id', ...fields].filter((f) => f in number).map((f) => [f, number[f]])),
        };
      } else if (
        parts[0] === version &&
        req.method === 'GET' &&
        parts[1] === wabaId &&
        parts[2] === 'message_templates'
      ) {
        result = { status: 200, body: listTemplates(u.searchParams, `${url}/${version}`) };
      } else if (
        parts[0] === version &&
        req.method === 'POST' &&
        numbers.has(parts[1]!) &&
        parts[2] === 'messages'
      ) {
        let body: unknown = null;
        try {
          body = JSON.parse(raw);
        } catch {}
        if (state.latencyMs > 0) await new Promise((r) => setTimeout(r, state.latencyMs));
        result = sendMessage(parts[1]!, body);
      }
      answer(result.status, result.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    /** What CLOUD_API_BASE_URL points at. */
    baseUrl: `${url}/${version}`,
    phoneNumberId,
    wabaId,
    appSecret,
    get accessToken() {
      return state.accessToken;
    },
    calls,
    sends,
    webhookDeliveries,
    state,
    /** The token stops working (Meta answers 190 until a new one is set). */
    rotateToken(next = `EAAJB-${crypto.randomBytes(4).toString('hex')}`) {
      state.accessToken = next;
      return next;
    },
    /**
     * Someone writes to the business (text messages webhook reference). `person.userId`: their
     * BSUID, `username`; `hidden`: Meta leaves their number out (a person with a username who has
     * not talked to the business recently), as the "Business-scoped user IDs" page describes.
     */
    sendInbound(
      from: string,
      text: string,
      name = 'Asha',
      person: { userId?: string; username?: string; hidden?: boolean } = {},
    ) {
      const phone = person.hidden ? {} : { wa_id: from };
      const payload = webhookPayload({
        contacts: [
          {
            profile: { name, ...(person.username ? { username: person.username } : {}) },
            ...phone,
            ...(person.userId ? { user_id: person.userId } : {}),
          },
        ],
        messages: [
          {
            ...(person.hidden ? {} : { from }),
            ...(person.userId ? { from_user_id: person.userId } : {}),
            id: `wamid.in.${++sequence}`,
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'text',
            text: { body: text },
          },
        ],
      });
      track(deliver(payload));
    },
    /**
     * Someone sends the business a file (image, video, audio, document and sticker messages
     * webhook references: `type` and an object of that name `{ id, mime_type, sha256, caption?,
     * filename? }`); the file is then served by its media id (Media reference). Returns the media id.
     */
    sendInboundMedia(
      from: string,
      file: {
        type: 'image' | 'video' | 'audio' | 'document' | 'sticker';
        mime: string;
        bytes: Buffer;
        caption?: string;
        filename?: string;
      },
      name = 'Asha',
    ): string {
      const mediaId = String(4_000_000_000_000 + ++sequence);
      state.media.set(mediaId, { mime: file.mime, bytes: file.bytes, phoneNumberId });
      const payload = webhookPayload({
        contacts: [{ profile: { name }, wa_id: from }],
        messages: [
          {
            from,
            id: `wamid.in.${++sequence}`,
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: file.type,
            [file.type]: {
              id: mediaId,
              mime_type: file.mime,
              sha256: crypto.createHash('sha256').update(file.bytes).digest('base64'),
              ...(file.caption ? { caption: file.caption } : {}),
              ...(file.filename ? { filename: file.filename } : {}),
            },
          },
        ],
      });
      track(deliver(payload));
      return mediaId;
    },
    /**
     * The person stops (or resumes) marketing messages from the business: the `user_preferences`
     * webhook as its reference gives it
     * (developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/user_preferences:
     * `user_preferences[]: { wa_id, detail, category: 'marketing_messages', value: 'stop' | 'resume',
     * timestamp }` beside `contacts[]`, field `user_preferences`); while stopped, a marketing
     * template to them fails with 131050.
     */
    setMarketingPreference(waId: string, value: 'stop' | 'resume', name = 'Asha') {
      if (value === 'stop') state.marketingStopped.add(waId);
      else state.marketingStopped.delete(waId);
      const payload = messagesEnvelope(
        wabaId,
        {
          id: phoneNumberId,
          display: String(phone.display_phone_number).replace(/[^0-9]/g, ''),
        },
        {
          contacts: [{ profile: { name }, wa_id: waId }],
          user_preferences: [
            {
              wa_id: waId,
              detail:
                value === 'stop'
                  ? 'User requested to stop marketing messages'
                  : 'User requested to resume marketing messages',
              category: 'marketing_messages',
              value,
              timestamp: Math.floor(Date.now() / 1000),
            },
          ],
        },
        'user_preferences',
      );
      track(deliver(payload));
    },
    /** Resolves once every scheduled webhook has been delivered (or given up). */
    async flush() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    async close() {
      await this.flush();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeGraphApi = Awaited<ReturnType<typeof startFakeGraphApi>>;
