import { z } from 'zod';
import { RegisterBody } from './auth.ts';
import { Flag, Role } from './common.ts';

export const ManagedUser = z.object({
  id: z.string(),
  username: z.string(),
  name: z.string(),
  role: Role,
  is_bulk_messaging_enabled: Flag,
  is_multisession_supported: Flag,
  credits: z.number().int(),
  disabled: z.boolean(),
  /** 'Send one-to-one only to contacts with consent'. */
  consent_required: z.boolean().optional(),
  /** Answer an opt-out once, in the person's language. */
  opt_out_confirm: z.boolean().optional(),
  createdAt: z.string(),
  /** Time of the newest password-reset request not yet handled, if any. */
  passwordResetRequestedAt: z.string().nullable(),
});
export type ManagedUser = z.infer<typeof ManagedUser>;

export const ListUsersResponse = z.object({ success: z.literal(true), users: z.array(ManagedUser) });

const flagInput = z.union([z.boolean(), Flag]).transform((v) => v === true || v === 1);

export const CreateUserBody = RegisterBody.extend({
  role: Role.optional(),
  credits: z
    .number()
    .int('Credits must be a whole number')
    .min(0, 'Credits cannot be negative')
    .max(1_000_000_000)
    .optional(),
  is_bulk_messaging_enabled: flagInput.optional(),
  is_multisession_supported: flagInput.optional(),
});
export type CreateUserBody = z.input<typeof CreateUserBody>;

export const UserResponse = z.object({ success: z.literal(true), user: ManagedUser });

export const UpdateUserBody = z.object({
  name: z.string().trim().min(1, 'Name is required').max(100).optional(),
  password: z.string().min(8, 'Password must be at least 8 characters').max(200).optional(),
  is_bulk_messaging_enabled: flagInput.optional(),
  is_multisession_supported: flagInput.optional(),
  disabled: z.boolean().optional(),
  consent_required: z.boolean().optional(),
  opt_out_confirm: z.boolean().optional(),
});
export type UpdateUserBody = z.input<typeof UpdateUserBody>;

export const UserIdParams = z.object({ id: z.string().min(1).max(64) });

export const GrantCreditsBody = z.object({
  amount: z
    .number({ error: 'Amount must be a whole number' })
    .int('Amount must be a whole number')
    .refine((n) => n !== 0, 'Amount must not be zero')
    .refine((n) => Math.abs(n) <= 1_000_000_000, 'Amount is too large'),
  note: z.string().trim().max(500).optional(),
});
export type GrantCreditsBody = z.infer<typeof GrantCreditsBody>;

export const GrantCreditsResponse = z.object({ success: z.literal(true), credits: z.number().int() });

export const LedgerReason = z.enum(['grant', 'adjust', 'send', 'refund', 'retry']);
export type LedgerReason = z.infer<typeof LedgerReason>;

export const LedgerEntry = z.object({
  id: z.string(),
  delta: z.number().int(),
  reason: LedgerReason,
  jobId: z.string().nullable(),
  actor: z.string().nullable(),
  note: z.string().nullable(),
  balanceAfter: z.number().int(),
  createdAt: z.string(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

export const LedgerResponse = z.object({ success: z.literal(true), entries: z.array(LedgerEntry) });
