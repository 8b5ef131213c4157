import { Select } from '@mantine/core';
import type { Session } from '@wa/contract';

/** The reusable session dropdown: each session as 'name (number)' (spec section 2). */
export function PhoneNumberPicker(props: {
  sessions: Session[];
  value: string | null;
  onChange: (sessionId: string | null) => void;
  label?: string;
}) {
  return (
    <Select
      label={props.label ?? 'Phone number'}
      placeholder="Select a session"
      data={props.sessions.map((s) => ({ value: s.sessionId, label: `${s.sessionName} (${s.phoneNumber})` }))}
      value={props.value}
      onChange={props.onChange}
      allowDeselect={false}
      maw={360}
    />
  );
}
