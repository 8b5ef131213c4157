import type { ManagedUser, SignedInUser } from '@wa/contract';
import type { UserRow } from './repository.ts';

const flag = (b: boolean) => (b ? 1 : 0) as 0 | 1;

export function presentSignedInUser(user: UserRow, managed: UserRow[]): SignedInUser {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    role: user.role,
    setting: {
      is_bulk_messaging_enabled: flag(user.isBulkMessagingEnabled),
      is_multisession_supported: flag(user.isMultisessionSupported),
    },
    credits: {
      user_credits: user.credits,
      admin_users:
        user.role === 'ADMIN'
          ? managed.map((u) => ({ user_id: u.id, username: u.username, name: u.name }))
          : [],
    },
  };
}

export function presentManagedUser(user: UserRow, resetRequestedAt: Date | undefined): ManagedUser {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    role: user.role,
    is_bulk_messaging_enabled: flag(user.isBulkMessagingEnabled),
    is_multisession_supported: flag(user.isMultisessionSupported),
    credits: user.credits,
    disabled: user.disabled,
    consent_required: user.consentRequired,
    opt_out_confirm: user.optOutConfirm,
    createdAt: user.createdAt.toISOString(),
    passwordResetRequestedAt: resetRequestedAt ? resetRequestedAt.toISOString() : null,
  };
}
