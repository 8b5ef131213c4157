import { z } from 'zod';

/**
 * Cloud API accounts: a number on Meta's WhatsApp Business Platform, connected with its
 * ids and tokens, sending approved templates. Shared by the server and the web app.
 */

const field = (label: string, max = 200) =>
  z
    .string({ error: `Please enter the ${label}` })
    .trim()
    .min(1, `Please enter the ${label}`)
    .max(max);

/** `POST /api/cloud-instances`. */
export const CreateCloudAccountBody = z.object({
  sessionName: field('session name', 100),
  phoneNumberId: field('phone number ID', 40).regex(/^[0-9]+$/, 'The phone number ID is digits only'),
  wabaId: field('WhatsApp Business Account ID', 40).regex(
    /^[0-9]+$/,
    'The WhatsApp Business Account ID is digits only',
  ),
  accessToken: field('access token', 1000),
  appSecret: field('app secret', 200),
  verifyToken: field('verify token', 200),
});
export type CreateCloudAccountBody = z.infer<typeof CreateCloudAccountBody>;

export const CreateCloudAccountResponse = z.object({ success: z.literal(true), sessionId: z.string() });

export const CLOUD_TEXTS = {
  alreadyConnected: 'This phone number ID is already connected',
  groupsLinkedOnly: 'Groups are available for linked phones only',
  noSuchTemplate: (name: string, language: string) =>
    `No approved template ${name} (${language}) on this account`,
  notApproved: (name: string, status: string) =>
    `Template ${name} is ${status}: only APPROVED templates can be sent`,
  parameterCount: (name: string, expected: number, given: number) =>
    `Template ${name} has ${expected} variable${expected === 1 ? '' : 's'}; ${given} value${given === 1 ? ' was' : 's were'} given`,
  templateNeedsCloud: 'Templates are sent through a Cloud API account',
  cloudNeedsTemplate: 'A Cloud API account sends approved templates: choose a template',
  templateBody: 'content must be { name, language, parameters: [...] }',
  /** A variable with no value would be sent as nothing ("Hello , our sale…"): refused before any credit is taken. */
  emptyParameter: (name: string, n: number) =>
    `Template ${name}: {{${n}}} has no value; give every variable a value`,
  /** A value made of fields that are empty for one recipient. */
  emptyParameterFor: (name: string, n: number, phone: string) =>
    `Template ${name}: {{${n}}} would be empty for ${phone}; give the field a value or a fallback, such as {{name|Customer}}`,
  /** 131049 recipients wait a day (Meta's per-user marketing limit); after two such waits they fail. */
  retriedOut: 'Not delivered by Meta after 3 tries (per-user marketing limit)',
  /** Meta's customer service window: free-form messages only within 24 h of the number's last message. */
  outsideWindow: (n: number, account: string) =>
    `${n} ${n === 1 ? 'number has' : 'numbers have'} not written to ${account} in the last 24 hours: outside Meta's customer service window a Cloud API account sends only approved templates`,
  windowClosed:
    "Not sent: outside Meta's 24-hour customer service window only an approved template can be sent",
} as const;

/** A template send's content (`type: 'template'`). */
export const TemplateContent = z.object({
  name: z.string().trim().min(1).max(512),
  language: z.string().trim().min(1).max(20),
  /** One per `{{n}}` of the body, in order; each personalised like a text (`{{name}}`, fallbacks, spintax). */
  parameters: z.array(z.string().max(1024)).max(100).default([]),
});
export type TemplateContent = z.infer<typeof TemplateContent>;

export const CloudTemplate = z.object({
  name: z.string(),
  language: z.string(),
  /** MARKETING, UTILITY or AUTHENTICATION. */
  category: z.string(),
  /** APPROVED, PENDING, REJECTED, PAUSED, DISABLED… only APPROVED can be sent. */
  status: z.string(),
  bodyText: z.string(),
  parameterCount: z.number().int(),
  /** IMAGE, VIDEO, DOCUMENT, TEXT or null. */
  headerFormat: z.string().nullable().optional(),
});
export type CloudTemplate = z.infer<typeof CloudTemplate>;

export const TemplatesResponse = z.object({ success: z.literal(true), templates: z.array(CloudTemplate) });
export type TemplatesResponse = z.infer<typeof TemplatesResponse>;

/** Meta's price per delivered message of each category, in ten-thousandths of a rupee (₹0.8631 = 8631). */
export const CloudPrice = z.object({
  category: z.string(),
  priceUnits: z.number().int().min(0).max(10_000_000),
});
export const CloudPricesResponse = z.object({ success: z.literal(true), prices: z.array(CloudPrice) });

/** The categories Meta prices a message by (`pricing.category` of its status webhooks). */
export const CLOUD_PRICE_CATEGORIES = [
  'marketing',
  'marketing_lite',
  'utility',
  'authentication',
  'authentication_international',
  'service',
  'referral_conversion',
] as const;
export const CloudPricesBody = z.object({
  prices: z
    .array(
      CloudPrice.extend({
        category: z
          .string()
          .max(40)
          .trim()
          .toLowerCase()
          .pipe(
            z.enum(CLOUD_PRICE_CATEGORIES, {
              error: `The category must be one of Meta's: ${CLOUD_PRICE_CATEGORIES.join(', ')}`,
            }),
          ),
      }),
    )
    .min(1)
    .max(CLOUD_PRICE_CATEGORIES.length),
});

/** `POST /api/session/:sessionId/cost-estimate`: what a template send to `recipients` numbers would cost. */
export const CostEstimateBody = z.object({
  templateName: z.string().min(1).max(512),
  language: z.string().min(1).max(20),
  recipients: z.number().int().min(0).max(1_000_000),
});
export const CostEstimateResponse = z.object({
  success: z.literal(true),
  category: z.string(),
  /** Ten-thousandths of a rupee. */
  costUnits: z.number().int(),
  /** '≈ ₹86.31 at Meta's marketing rate for 100 recipients'. */
  text: z.string(),
  /** The account's tier: how many of them may go now, and how many wait for the rolling 24 hours. */
  now: z.number().int(),
  waiting: z.number().int(),
  tierText: z.string().nullable(),
});
export type CostEstimateResponse = z.infer<typeof CostEstimateResponse>;

const rupees = new Intl.NumberFormat('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const count = new Intl.NumberFormat('en-IN');

/**
 * A template's body with its variables (`{{1}}`, or a NAMED template's `{{first_name}}`) replaced
 * by one recipient's values: what a linked phone sends in place of the template.
 */
export function templateBodyText(
  bodyText: string,
  values: readonly string[],
  names?: readonly string[],
): string {
  return bodyText.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (m, key: string) => {
    const i = /^[0-9]+$/.test(key) ? Number(key) - 1 : (names ?? []).indexOf(key);
    return i >= 0 && i < values.length ? values[i]! : m;
  });
}

/** Ten-thousandths of a rupee as exact rupees for a file: 1150 → '0.1150'. */
export function rupeesText(units: number): string {
  const sign = units < 0 ? '-' : '';
  const abs = Math.abs(Math.round(units));
  return `${sign}${Math.floor(abs / 10_000)}.${String(abs % 10_000).padStart(4, '0')}`;
}

/** Ten-thousandths of a rupee as '₹86.31' (rounded to the paisa for display). */
export function formatRupees(units: number): string {
  return `₹${rupees.format(Math.round(units / 100) / 100)}`;
}

/** '≈ ₹86.31 at Meta's marketing rate for 100 recipients'. */
export function costText(category: string, units: number, recipients: number): string {
  return `≈ ${formatRupees(units)} at Meta's ${category.toLowerCase()} rate for ${count.format(recipients)} recipient${recipients === 1 ? '' : 's'}`;
}

/** '1,700 now, 300 wait for the 24-hour limit to free up'; null when all fit. */
export function tierText(now: number, waiting: number): string | null {
  if (waiting === 0) return null;
  return `${count.format(now)} now, ${count.format(waiting)} wait for the 24-hour limit to free up`;
}
