import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  escapedUnicodeJson,
  graphError,
  type InboundFile,
  inboundMedia,
  inboundText,
  marketingPreference,
  messagesEnvelope,
  signature,
  statusesOf,
} from './graph-api-payloads.ts';
import {
  checkSend,
  type FakeTemplate,
  fieldsOf,
  type GraphAnswer,
  type Json,
  limitField,
  listTemplates,
  mediaUrlAnswer,
  type RecipientError,
  sendAnswer,
} from './graph-api-requests.ts';

export type { FakeTemplate, RecipientError } from './graph-api-requests.ts';

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
  /**
   * The business portfolio that owns the WhatsApp Business Account (`owner_business_info.id`);
   * null: the account answers no owner, as for a token without the permission to read it.
   */
  portfolioId?: string | null;
  /**
   * More WhatsApp Business Accounts of the same portfolio (their templates are the account's
   * own): each answers `GET /{waba-id}` and its template list.
   */
  moreBusinessAccounts?: string[];
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
  const portfolioId = options.portfolioId === undefined ? '506914307656634' : options.portfolioId;
  const businessAccounts = new Set([wabaId, ...(options.moreBusinessAccounts ?? [])]);
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

  /** POST /{phone-number-id}/messages: checked (graph-api-requests.ts), recorded, its statuses scheduled. */
  function sendMessage(from: string, body: Json): GraphAnswer {
    const checked = checkSend(body, state);
    if ('refused' in checked) return checked.refused;
    const { to, category, error } = checked.taken;
    if (error && (error.via ?? 'response') === 'response') {
      sends.push({ to, body, at: performance.now(), messageId: null });
      return graphError(error.code);
    }
    const messageId = `wamid.${Buffer.from(`${to}:${++sequence}:${crypto.randomBytes(6).toString('hex')}`).toString('base64')}`;
    sends.push({ to, body, at: performance.now(), messageId });
    scheduleStatuses(from, messageId, to, category, error ? error.code : null);
    return sendAnswer(body, checked.taken, messageId);
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
      let result: GraphAnswer = unsupported();
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
            : mediaUrlAnswer(file.bytes, file.mime, parts[1]!, `${url}/whatsapp_business/attachments/`);
      } else if (
        parts[0] === version &&
        req.method === 'GET' &&
        parts.length === 2 &&
        numbers.has(parts[1]!)
      ) {
        const number = limitField(numbers.get(parts[1]!)!, version);
        result = fieldsOf(number, u.searchParams, 'id,display_phone_number,verified_name,quality_rating');
      } else if (
        parts[0] === version &&
        req.method === 'GET' &&
        parts.length === 2 &&
        businessAccounts.has(parts[1]!)
      ) {
        // WhatsApp Business Account reference: GET /{waba-id} answers the fields asked, among them
        // `owner_business_info` ({ id, name }: the business portfolio that owns the account).
        const account: Record<string, unknown> = {
          id: parts[1],
          name: 'Lucky Shrub',
          ...(portfolioId ? { owner_business_info: { id: portfolioId, name: 'Lucky Shrub' } } : {}),
        };
        result = fieldsOf(account, u.searchParams, 'id,name');
      } else if (
        parts[0] === version &&
        req.method === 'GET' &&
        businessAccounts.has(parts[1]!) &&
        parts[2] === 'message_templates'
      ) {
        result = {
          status: 200,
          body: listTemplates(state.templates, u.searchParams, `${url}/${version}`, parts[1]!),
        };
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
    portfolioId,
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
    /** Someone writes to the business (inboundText in graph-api-payloads.ts says what `person` holds). */
    sendInbound(
      from: string,
      text: string,
      name = 'Asha',
      person: { userId?: string; username?: string; hidden?: boolean } = {},
    ) {
      const payload = webhookPayload(inboundText(from, text, name, person, `wamid.in.${++sequence}`));
      track(deliver(payload));
    },
    /** Someone sends the business a file, then served by its media id (Media reference). Returns the media id. */
    sendInboundMedia(from: string, file: InboundFile, name = 'Asha'): string {
      const mediaId = String(4_000_000_000_000 + ++sequence);
      state.media.set(mediaId, { mime: file.mime, bytes: file.bytes, phoneNumberId });
      const payload = webhookPayload(inboundMedia(from, file, mediaId, name, `wamid.in.${++sequence}`));
      track(deliver(payload));
      return mediaId;
    },
    /**
     * The person stops (or resumes) marketing messages from the business (the `user_preferences`
     * webhook, graph-api-payloads.ts); while stopped, a marketing template to them fails with 131050.
     */
    setMarketingPreference(waId: string, value: 'stop' | 'resume', name = 'Asha') {
      if (value === 'stop') state.marketingStopped.add(waId);
      else state.marketingStopped.delete(waId);
      const display = String(phone.display_phone_number).replace(/[^0-9]/g, '');
      const payload = messagesEnvelope(
        wabaId,
        { id: phoneNumberId, display },
        marketingPreference(waId, value, name),
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
