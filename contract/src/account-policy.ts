import { z } from 'zod';

/** The sending policy of one account (docs/decisions.md, Sending policy per account). */

export const POLICY_LIMITS = {
  delayMaxMs: 600_000,
  dailyLimit: 100_000,
  newContactsPerDay: 100_000,
} as const;
/** Numbers an account never messaged, a day, when its policy does not say and warm-up is on (docs/configuration.md, "Per account: the sending policy"). */
export const DEFAULT_NEW_CONTACTS_PER_DAY = 50;
export const DEFAULT_TIMEZONE = 'Asia/Kolkata';
/** How many coming days a policy answer gives the caps of: past the warm-up's last step (day 15). */
export const FORECAST_DAYS = 15;

/**
 * Warm-up: one-to-one messages per local day by days since the account was linked (day 1 is the
 * day of linking); null from day 15 on.
 */
export function warmUpLimit(dayOfLink: number): number | null {
  if (dayOfLink <= 3) return 50;
  if (dayOfLink <= 7) return 150;
  if (dayOfLink <= 14) return 400;
  return null;
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const clock = (field: string) => z.string().regex(HHMM, `${field} must be a time as HH:MM (00:00 to 23:59)`);

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const delay = (field: string) =>
  z
    .number({ error: `${field} must be a whole number of milliseconds from 0 to 600,000` })
    .int(`${field} must be a whole number of milliseconds from 0 to 600,000`)
    .min(0, `${field} must be a whole number of milliseconds from 0 to 600,000`)
    .max(POLICY_LIMITS.delayMaxMs, `${field} must be a whole number of milliseconds from 0 to 600,000`);

const DAILY_LIMIT_TEXT = 'dailyLimit must be a whole number from 1 to 100,000, or null for no limit';
const NEW_CONTACTS_TEXT = 'newContactsPerDay must be a whole number from 1 to 100,000, or null for no limit';

export const AccountPolicy = z
  .object({
    dailyLimit: z
      .number({ error: DAILY_LIMIT_TEXT })
      .int(DAILY_LIMIT_TEXT)
      .min(1, DAILY_LIMIT_TEXT)
      .max(POLICY_LIMITS.dailyLimit, DAILY_LIMIT_TEXT)
      .nullable(),
    warmUp: z.boolean({ error: 'warmUp must be true or false' }),
    quietHours: z
      .object(
        { start: clock('quietHours.start'), end: clock('quietHours.end') },
        { error: "quietHours must be { start: 'HH:MM', end: 'HH:MM' } or null" },
      )
      .refine((q) => q.start !== q.end, 'quietHours.start and quietHours.end must differ')
      .nullable(),
    timezone: z
      .string({ error: 'timezone must be an IANA time zone name such as Asia/Kolkata' })
      .max(64)
      .refine(isTimeZone, 'timezone must be an IANA time zone name such as Asia/Kolkata'),
    delayMinMs: delay('delayMinMs'),
    delayMaxMs: delay('delayMaxMs'),
    typing: z.boolean({ error: 'typing must be true or false' }),
    /**
     * Numbers the account has never messaged, per local day (null: no cap). Left out of a PUT: the
     * default, on while warm-up is on (DEFAULT_NEW_CONTACTS_PER_DAY). Always present in answers.
     */
    newContactsPerDay: z
      .number({ error: NEW_CONTACTS_TEXT })
      .int(NEW_CONTACTS_TEXT)
      .min(1, NEW_CONTACTS_TEXT)
      .max(POLICY_LIMITS.newContactsPerDay, NEW_CONTACTS_TEXT)
      .nullable()
      .optional(),
  })
  .refine((p) => p.delayMinMs <= p.delayMaxMs, {
    message: 'delayMinMs must not be above delayMaxMs',
    path: ['delayMinMs'],
  });
export type AccountPolicy = z.infer<typeof AccountPolicy>;

export const AccountPolicyResponse = z.object({
  success: z.literal(true),
  policy: AccountPolicy,
  today: z.object({
    /** Messages of the account since the start of its local day. */
    sent: z.number().int(),
    /** Of them, one-to-one messages (what the warm-up counts), for the forecast before a send. */
    oneToOneSent: z.number().int().optional(),
    /** The daily limit (null: none). */
    limit: z.number().int().nullable(),
    /** The warm-up's cap on one-to-one messages today (null: none). */
    warmUpLimit: z.number().int().nullable(),
    /** Numbers messaged today that the account had never messaged before, and the cap on them (null: none). */
    newContactsSent: z.number().int().optional(),
    newContactsLimit: z.number().int().nullable().optional(),
    /** The account's health lowers its caps (watch: halved). */
    health: z.enum(['good', 'watch', 'paused']).optional(),
    /** The next local midnight, ISO. */
    resetsAt: z.string(),
  }),
  /**
   * The caps of the coming local days, from tomorrow (FORECAST_DAYS of them; the last one's go on
   * after it): what a forecast of a large send counts day by day. Null: no cap that day.
   */
  nextDays: z
    .array(
      z.object({
        /** The local midnight the day starts at, ISO. */
        startsAt: z.string(),
        limit: z.number().int().nullable(),
        warmUpLimit: z.number().int().nullable(),
        newContactsLimit: z.number().int().nullable(),
      }),
    )
    .optional(),
  /** Why the account's recipients wait now, e.g. 'Waiting: quiet hours until 09:00' (null: they do not). */
  holding: z.string().nullable(),
});
export type AccountPolicyResponse = z.infer<typeof AccountPolicyResponse>;
