import { Select } from '@mantine/core';
import { phoneOrNull, type Session } from '@wa/contract';
import { useMeta } from '../features/auth/api/get-meta.ts';
import { DEFAULT_COUNTRY_CODE } from '../lib/csv-contacts.ts';

/**
 * The reusable session dropdown: each session as 'name (number)', the number as
 * country code + digits (docs/decisions.md, Phone numbers), also for a session stored before the rule
 * ('9123456780' shows as 919123456780).
 */
export function PhoneNumberPicker(props: {
  sessions: Session[];
  value: string | null;
  onChange: (sessionId: string | null) => void;
  label?: string;
}) {
  const cc = useMeta().data?.defaultCountryCode ?? DEFAULT_COUNTRY_CODE;
  return (
    <Select
      label={props.label ?? 'Phone number'}
      placeholder="Select a session"
      data={props.sessions.map((s) => ({
        value: s.sessionId,
        label: `${s.sessionName} (${phoneOrNull(s.phoneNumber, cc) ?? s.phoneNumber})`,
      }))}
      value={props.value}
      onChange={props.onChange}
      allowDeselect={false}
      maw={360}
    />
  );
}
