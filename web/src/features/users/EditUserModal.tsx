import { Alert, Button, Group, PasswordInput, Stack, Switch, TextInput } from '@mantine/core';
import { CONSENT_TEXTS, type ManagedUser, type UpdateUserBody } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useUpdateUser } from './api/update-user.ts';
import { UserFlagSwitches } from './UserFlagSwitches.tsx';

/** Edit a user: name, flags, disabled, a new password. */
export function EditUserModal(props: {
  user: ManagedUser | null;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const u = props.user;
  // Keyed by the user's id (see UsersPage), so the fields start from that user's values.
  const [name, setName] = useState(u?.name ?? '');
  const [bulk, setBulk] = useState(u?.is_bulk_messaging_enabled === 1);
  const [multi, setMulti] = useState(u?.is_multisession_supported === 1);
  const [disabled, setDisabled] = useState(u?.disabled ?? false);
  const [consentRequired, setConsentRequired] = useState(u?.consent_required ?? false);
  const [optOutConfirm, setOptOutConfirm] = useState(u?.opt_out_confirm ?? false);
  const [password, setPassword] = useState('');
  const [fieldErrors, setFieldErrors] = useState<{ name?: string; password?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const mutation = useUpdateUser();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!u) return;
    const found = {
      name: name.trim() ? undefined : 'Name is required',
      password: password && password.length < 8 ? 'Password must be at least 8 characters' : undefined,
    };
    setFieldErrors(found);
    if (found.name || found.password) return;
    const body: UpdateUserBody = {};
    if (name.trim() !== u.name) body.name = name.trim();
    if (bulk !== (u.is_bulk_messaging_enabled === 1)) body.is_bulk_messaging_enabled = bulk;
    if (multi !== (u.is_multisession_supported === 1)) body.is_multisession_supported = multi;
    if (disabled !== u.disabled) body.disabled = disabled;
    if (consentRequired !== (u.consent_required ?? false)) body.consent_required = consentRequired;
    if (optOutConfirm !== (u.opt_out_confirm ?? false)) body.opt_out_confirm = optOutConfirm;
    if (password) body.password = password;
    if (Object.keys(body).length === 0) {
      props.onClose();
      return;
    }
    setError(null);
    mutation.mutate(
      { id: u.id, body },
      {
        onSuccess: () =>
          props.onDone(
            password ? `User ${u.username} updated; the new password is set` : `User ${u.username} updated`,
          ),
        onError: (err) => setError(messageOf(err)),
      },
    );
  };

  return (
    <AppModal title={u ? `Edit ${u.username}` : 'Edit user'} opened={!!u} onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <ErrorAlert error={error} />
          {u?.passwordResetRequestedAt && (
            <Alert color="orange" role="note">
              This user asked for a password reset on {formatDateTime(u.passwordResetRequestedAt)}. Set a new
              password below and tell the user.
            </Alert>
          )}
          <TextInput
            label="Name"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={fieldErrors.name}
          />
          <UserFlagSwitches bulk={bulk} onBulk={setBulk} multi={multi} onMulti={setMulti} />
          <Switch
            label={CONSENT_TEXTS.setting}
            description="Numbers on none of the user's lists with recorded consent are left out of sends, not charged"
            checked={consentRequired}
            onChange={(e) => setConsentRequired(e.currentTarget.checked)}
          />
          <Switch
            label="Confirm opt-outs in the person's language"
            description="One reply, e.g. 'आपको अब हमारे संदेश नहीं मिलेंगे।' to बंद करो"
            checked={optOutConfirm}
            onChange={(e) => setOptOutConfirm(e.currentTarget.checked)}
          />
          <Switch
            label="Account disabled"
            color="red"
            checked={disabled}
            onChange={(e) => setDisabled(e.currentTarget.checked)}
          />
          <PasswordInput
            label="New password"
            description="Leave empty to keep the current password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={fieldErrors.password}
          />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </AppModal>
  );
}
