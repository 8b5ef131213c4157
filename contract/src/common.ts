import { z } from 'zod';

/** Every error answer of the API: `{ success: false, message }`. */
export const ErrorResponse = z.object({ success: z.literal(false), message: z.string() });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

export const SuccessMessage = z.object({ success: z.boolean(), message: z.string() });
export type SuccessMessage = z.infer<typeof SuccessMessage>;

/** The two user flags travel as 1 or 0 on the wire (spec section 3). */
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
