import { z } from 'zod';

/** Every error answer of the API: `{ success: false, message }`. */
export const ErrorResponse = z.object({ success: z.literal(false), message: z.string() });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

export const SuccessMessage = z.object({ success: z.boolean(), message: z.string() });
export type SuccessMessage = z.infer<typeof SuccessMessage>;

/** The two user flags travel as 1 or 0 on the wire. */
export const Flag = z.union([z.literal(0), z.literal(1)]);
export type Flag = z.infer<typeof Flag>;

export const Role = z.enum(['ADMIN', 'USER']);
export type Role = z.infer<typeof Role>;

/** The messaging service's name, as the product's texts show it. */
export const SERVICE_NAME = 'WhatsApp';

/** GET /api/meta: what the page needs before sign-in (public). */
export const MetaResponse = z.object({
  success: z.literal(true),
  waProvider: z.enum(['baileys', 'simulator']),
  signupEnabled: z.boolean(),
  defaultCountryCode: z.string(),
});
export type MetaResponse = z.infer<typeof MetaResponse>;

/** Dates the API takes in a query (`from`, `to`): years outside these are refused, not passed to the database. */
export const DATE_PARAM_MESSAGE = 'Dates must be between 1970 and 9999';

function yearOf(value: string): number | null {
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  const time = new Date(text).getTime();
  return Number.isNaN(time) ? null : new Date(time).getUTCFullYear();
}

/**
 * A date or timestamp in a query string: a year from 1970 to 9999 (`-271821-04-20` parses in
 * JavaScript but not in PostgreSQL). A text that is no date at all is left for the route to
 * name in its own message.
 */
export const DateParam = z
  .string()
  .max(40)
  .refine(
    (value) => {
      const year = yearOf(value);
      return year === null || (year >= 1970 && year <= 9999);
    },
    { error: DATE_PARAM_MESSAGE },
  );
