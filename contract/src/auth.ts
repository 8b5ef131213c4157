import { z } from 'zod';
import { Flag, Role } from './common.ts';

export const LoginBody = z.object({
  username: z.string({ error: 'Username is required' }).trim().min(1, 'Username is required').max(100),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(200),
  /** The authenticator code (or a recovery code) when two-factor sign-in is on. */
  otp: z.string().trim().max(32).optional(),
});
export type LoginBody = z.infer<typeof LoginBody>;

export const AdminUserRef = z.object({
  user_id: z.string(),
  username: z.string(),
  /** The user's name, beside the username in the admin's pickers; added to the spec's shape. */
  name: z.string().optional(),
});
export type AdminUserRef = z.infer<typeof AdminUserRef>;

export const Credits = z.object({
  user_credits: z.number().int(),
  admin_users: z.array(AdminUserRef),
});
export type Credits = z.infer<typeof Credits>;

export const UserSetting = z.object({
  is_bulk_messaging_enabled: Flag,
  is_multisession_supported: Flag,
});
export type UserSetting = z.infer<typeof UserSetting>;

/** The user as the sign-in response carries it. */
export const SignedInUser = z.object({
  id: z.string(),
  name: z.string(),
  username: z.string(),
  role: Role,
  setting: UserSetting,
  credits: Credits,
});
export type SignedInUser = z.infer<typeof SignedInUser>;

export const LoginResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  token: z.string(),
  user: SignedInUser,
});
export type LoginResponse = z.infer<typeof LoginResponse>;

export const UserDetailsResponse = z.object({
  success: z.literal(true),
  credits: Credits,
  user: SignedInUser,
});
export type UserDetailsResponse = z.infer<typeof UserDetailsResponse>;

export const RegisterBody = z.object({
  username: z
    .string({ error: 'Username is required' })
    .trim()
    .min(3, 'Username must be at least 3 characters')
    .max(50, 'Username must be at most 50 characters')
    .regex(/^[A-Za-z0-9._-]+$/, 'Username may contain only letters, digits, dots, dashes and underscores'),
  password: z
    .string({ error: 'Password is required' })
    .min(8, 'Password must be at least 8 characters')
    .max(200, 'Password must be at most 200 characters'),
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(100),
});
export type RegisterBody = z.infer<typeof RegisterBody>;

/**
 * POST /api/auth/password: the signed-in user's own new password. The current one (and the
 * two-factor code when it is on) is asked; every sign-in and API key of the user ends, and the
 * answer carries a new token for this browser.
 */
export const ChangePasswordBody = z.object({
  currentPassword: z
    .string({ error: 'Current password is required' })
    .min(1, 'Current password is required')
    .max(200),
  newPassword: RegisterBody.shape.password,
  code: z.string().trim().max(64).optional(),
});
export type ChangePasswordBody = z.infer<typeof ChangePasswordBody>;

export const ChangePasswordResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  token: z.string(),
});
export type ChangePasswordResponse = z.infer<typeof ChangePasswordResponse>;

export const ForgotPasswordBody = z.object({
  username: z.string({ error: 'Username is required' }).trim().min(1, 'Username is required').max(100),
});
export type ForgotPasswordBody = z.infer<typeof ForgotPasswordBody>;
