import { z } from 'zod';

/** The code asked for at sign-in and to turn two-factor sign-in off: 6 digits, or a recovery code. */
export const TwoFactorCode = z
  .string({ error: 'Enter the 6-digit code from your authenticator app' })
  .trim()
  .min(1, 'Enter the 6-digit code from your authenticator app')
  .max(32);

/** Login with two-factor sign-in on and no (or a wrong) `otp`: 401 with `twoFactor: true`. */
export const LoginErrorResponse = z.object({
  success: z.literal(false),
  message: z.string(),
  twoFactor: z.boolean().optional(),
});
export type LoginErrorResponse = z.infer<typeof LoginErrorResponse>;

export const TWO_FACTOR_MESSAGES = {
  codeNeeded: 'Enter the 6-digit code from your authenticator app',
  codeWrong: 'The code is not valid. Please try again.',
  alreadyOn: 'Two-factor sign-in is already on',
  notOn: 'Two-factor sign-in is not on',
  noSetup: 'Start the set-up again: no QR code was shown',
  enabled: 'Two-factor sign-in is on',
  disabled: 'Two-factor sign-in is off',
  required: 'Set up two-factor sign-in first (required for admins)',
} as const;

/** GET /api/auth/2fa: whether it is on, and whether this account must turn it on before anything else. */
export const TwoFactorStatusResponse = z.object({
  success: z.literal(true),
  enabled: z.boolean(),
  required: z.boolean(),
});
export type TwoFactorStatusResponse = z.infer<typeof TwoFactorStatusResponse>;

/** POST /api/auth/2fa/setup: a new secret, not active until a code from it is confirmed. */
export const TwoFactorSetupResponse = z.object({
  success: z.literal(true),
  secret: z.string(),
  otpauthUrl: z.string(),
  /** The otpauth URL as a PNG data URL, for the authenticator app to scan. */
  qr: z.string(),
});
export type TwoFactorSetupResponse = z.infer<typeof TwoFactorSetupResponse>;

export const TwoFactorCodeBody = z.object({ code: TwoFactorCode });
export type TwoFactorCodeBody = z.infer<typeof TwoFactorCodeBody>;

/** POST /api/auth/2fa/enable: the ten one-time recovery codes, shown this once. */
export const TwoFactorEnableResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  recoveryCodes: z.array(z.string()),
});
export type TwoFactorEnableResponse = z.infer<typeof TwoFactorEnableResponse>;
