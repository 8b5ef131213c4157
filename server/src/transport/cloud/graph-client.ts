import { z } from 'zod';
import { GraphApiError, graphErrorFromResponse, graphNetworkError } from './graph-errors.ts';
import { type TemplateSend, templateMessageBody, textMessageBody } from './messages.ts';
import { type GraphTemplate, templatePageSchema } from './templates.ts';

/**
 * A small typed client of the Graph API calls a Cloud API account needs. The base URL is
 * CLOUD_API_BASE_URL (Meta's `https://graph.facebook.com/v24.0`, or a fake on a loopback address);
 * every call carries the account's token as `Authorization: Bearer …` (Meta's curl examples).
 * Errors come back as GraphApiError (graph-errors.ts), never as a raw response.
 *
 * The calls go through undici's `request`, not Node's `fetch`: a number on HIGH throughput makes
 * 1,000 of them a second, and fetch's Request, Response, Headers and web streams cost about four
 * times the CPU a call (docs/performance.md, "What keeps it fast"). undici loads with the first
 * call, not at the server's start (test/operations/start-imports.test.ts). The media download,
 * rare, and whose URL may redirect, stays on fetch.
 */
export type GraphClientOptions = {
  baseUrl: string;
  accessToken: string;
  /** The longest one call may take; then it fails as a `network` error (outcome unknown). */
  timeoutMs?: number;
  /** The media download's fetch (default: Node's). */
  fetch?: typeof fetch;
};

/** GREEN, YELLOW, RED, NA (not yet rated) or UNKNOWN (phone number API reference). */
export type QualityRating = 'GREEN' | 'YELLOW' | 'RED' | 'NA' | 'UNKNOWN';

export type PhoneNumberInfo = {
  id: string;
  /** As Meta shows it, e.g. '+91 98000 15838'. */
  displayPhoneNumber: string;
  verifiedName: string;
  qualityRating: QualityRating;
  /**
   * The business portfolio's messaging limit: TIER_250, TIER_2K, TIER_10K, TIER_100K,
   * TIER_UNLIMITED (older: TIER_50, TIER_1K); null when Meta gave none.
   */
  messagingLimitTier: string | null;
  /** STANDARD (80 messages a second) or HIGH (up to 1,000), when Meta gave it. */
  throughputLevel: string | null;
};

export type SendAccepted = {
  /** `messages[0].id`: the WAMID every later status webhook names. */
  messageId: string;
  /** `contacts[0].wa_id`: the WhatsApp id Meta resolved the number to. */
  waId: string | null;
  /** `messages[0].message_status` ('accepted'; 'held_for_quality_assessment' for some marketing sends). */
  messageStatus: string | null;
};

/**
 * The fields asked of a phone number (phone number API reference). The messaging limit is
 * `whatsapp_business_manager_messaging_limit`, the portfolio's (Messaging Limits page, "Via API":
 * `GET /<BUSINESS_PHONE_NUMBER_ID>?fields=whatsapp_business_manager_messaging_limit` answers
 * `{ "whatsapp_business_manager_messaging_limit": "TIER_250", "id": … }`, for v24.0 and newer;
 * `messaging_limit_tier` "has been deprecated"). The older field is still read when an older
 * version gives only it.
 */
export const PHONE_NUMBER_FIELDS = [
  'id',
  'display_phone_number',
  'verified_name',
  'quality_rating',
  'whatsapp_business_manager_messaging_limit',
  'throughput',
] as const;

const QUALITY = new Set<QualityRating>(['GREEN', 'YELLOW', 'RED', 'NA', 'UNKNOWN']);

const phoneNumberSchema = z.object({
  id: z.string(),
  display_phone_number: z.string(),
  verified_name: z.string().default(''),
  quality_rating: z.string().optional(),
  whatsapp_business_manager_messaging_limit: z.string().optional(),
  messaging_limit_tier: z.string().optional(),
  throughput: z.object({ level: z.string().optional() }).optional(),
});

/**
 * `GET /{waba-id}?fields=owner_business_info` (Graph API reference, WhatsApp Business Account:
 * `owner_business_info`, the business that owns the account, `{ id, name }`).
 */
const businessAccountSchema = z.object({
  id: z.string(),
  owner_business_info: z.object({ id: z.string().min(1), name: z.string().optional() }).optional(),
});

const mediaUrlSchema = z.object({ url: z.string().url(), mime_type: z.string() });

const sendResponseSchema = z.object({
  contacts: z.array(z.object({ input: z.string().optional(), wa_id: z.string().optional() })).optional(),
  messages: z.array(z.object({ id: z.string().min(1), message_status: z.string().optional() })).min(1),
});

export type GraphClient = ReturnType<typeof createGraphClient>;

let undici: Promise<typeof import('undici')> | undefined;
/** undici, imported once with the first Graph call. */
function loadUndici(): Promise<typeof import('undici')> {
  undici ??= import('undici');
  return undici;
}

export function createGraphClient(options: GraphClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 20_000;

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    let status: number;
    let text: string;
    try {
      const { request } = await loadUndici();
      const response = await request(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.accessToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (err) {
      throw graphNetworkError(err);
    }
    if (status < 200 || status > 299) throw graphErrorFromResponse(status, text);
    try {
      return JSON.parse(text);
    } catch {
      throw new GraphApiError(
        0,
        'The Graph API answered something that is not JSON',
        text.slice(0, 200),
        status,
        'network',
      );
    }
  }

  /** A 2xx answer Meta documents but that does not have the documented shape: its outcome is unknown. */
  function unexpected(what: string, issues: z.ZodError): GraphApiError {
    return new GraphApiError(0, `Unexpected answer to ${what}`, z.prettifyError(issues), 200, 'network');
  }

  const segment = (id: string) => {
    if (!/^[0-9A-Za-z_-]+$/.test(id)) throw new RangeError(`Not a Graph object id: ${id}`);
    return id;
  };

  return {
    /** `GET /{phone-number-id}?fields=…`: checks the token and the id, and reads quality and tier. */
    async getPhoneNumber(phoneNumberId: string): Promise<PhoneNumberInfo> {
      const json = await call('GET', `/${segment(phoneNumberId)}?fields=${PHONE_NUMBER_FIELDS.join(',')}`);
      const parsed = phoneNumberSchema.safeParse(json);
      if (!parsed.success) throw unexpected('the phone number', parsed.error);
      const p = parsed.data;
      const quality = (p.quality_rating ?? 'UNKNOWN').toUpperCase() as QualityRating;
      return {
        id: p.id,
        displayPhoneNumber: p.display_phone_number,
        verifiedName: p.verified_name,
        qualityRating: QUALITY.has(quality) ? quality : 'UNKNOWN',
        messagingLimitTier: p.whatsapp_business_manager_messaging_limit ?? p.messaging_limit_tier ?? null,
        throughputLevel: p.throughput?.level ?? null,
      };
    },

    /**
     * The business portfolio that owns a WhatsApp Business Account, whose messaging limit its
     * numbers share (Messaging Limits page: "calculated and set at the business portfolio level");
     * null when Meta names none.
     */
    async getPortfolioId(wabaId: string): Promise<string | null> {
      const json = await call('GET', `/${segment(wabaId)}?fields=id,owner_business_info`);
      const parsed = businessAccountSchema.safeParse(json);
      if (!parsed.success) throw unexpected('the WhatsApp Business Account', parsed.error);
      return parsed.data.owner_business_info?.id ?? null;
    },

    /**
     * Every template of a WhatsApp Business Account, page after page. The next page is asked with
     * the `after` cursor at our own base URL rather than by following `paging.next` (a URL the
     * token would be sent to); the list ends where Graph gives no `next` (Paginated Results).
     */
    async listTemplates(wabaId: string, pageSize = 100): Promise<GraphTemplate[]> {
      const all: GraphTemplate[] = [];
      const fields = 'id,name,language,status,category,parameter_format,components';
      let after: string | undefined;
      for (let page = 0; page < 1000; page++) {
        const query = new URLSearchParams({ fields, limit: String(pageSize) });
        if (after) query.set('after', after);
        const json = await call('GET', `/${segment(wabaId)}/message_templates?${query}`);
        const parsed = templatePageSchema.safeParse(json);
        if (!parsed.success) throw unexpected('the template list', parsed.error);
        all.push(...parsed.data.data);
        after = parsed.data.paging?.cursors?.after;
        if (!parsed.data.paging?.next || !after) return all;
      }
      throw new GraphApiError(0, 'The template list did not end after 1000 pages', null, 200, 'final');
    },

    /** `POST /{phone-number-id}/messages` with a template: answers `messages[0].id`. */
    async sendTemplate(phoneNumberId: string, to: string, send: TemplateSend): Promise<SendAccepted> {
      return accepted(
        await call('POST', `/${segment(phoneNumberId)}/messages`, templateMessageBody(to, send)),
      );
    },

    /**
     * A file a person sent (its media id from the webhook): Meta's Media reference
     * (developers.facebook.com/docs/whatsapp/cloud-api/reference/media): "Retrieve Media URL",
     * `GET /{media-id}?phone_number_id=…` answers `{ messaging_product, url, mime_type, sha256,
     * file_size, id }`, the URL valid for 5 minutes; "Download Media", a GET of that URL with the
     * same `Authorization: Bearer` (without it the URL answers nothing). Asked afresh each time.
     */
    async downloadMedia(mediaId: string, phoneNumberId: string): Promise<{ mime: string; bytes: Buffer }> {
      const json = await call('GET', `/${segment(mediaId)}?phone_number_id=${segment(phoneNumberId)}`);
      const parsed = mediaUrlSchema.safeParse(json);
      if (!parsed.success) throw unexpected('the media URL', parsed.error);
      let response: Response;
      let bytes: Buffer;
      try {
        response = await doFetch(parsed.data.url, {
          headers: { authorization: `Bearer ${options.accessToken}` },
          signal: AbortSignal.timeout(timeoutMs),
        });
        bytes = Buffer.from(await response.arrayBuffer());
      } catch (err) {
        throw graphNetworkError(err);
      }
      if (!response.ok) throw graphErrorFromResponse(response.status, bytes.toString('utf8'));
      return { mime: parsed.data.mime_type, bytes };
    },

    /** A free-form text (inside the 24-hour window only). */
    async sendText(phoneNumberId: string, to: string, body: string): Promise<SendAccepted> {
      return accepted(await call('POST', `/${segment(phoneNumberId)}/messages`, textMessageBody(to, body)));
    },
  };

  function accepted(json: unknown): SendAccepted {
    const parsed = sendResponseSchema.safeParse(json);
    if (!parsed.success) throw unexpected('the send', parsed.error);
    const message = parsed.data.messages[0]!;
    return {
      messageId: message.id,
      waId: parsed.data.contacts?.[0]?.wa_id ?? null,
      messageStatus: message.message_status ?? null,
    };
  }
}
