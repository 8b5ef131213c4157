import { MultiSelect } from '@mantine/core';
import type { ContactListSummary } from '@wa/contract';
import { formatNumber } from '../../lib/format.ts';

/** 'Contact lists' beside the CSV upload: the user's saved lists receive the message too. */
export function ContactListPicker(props: {
  lists: readonly ContactListSummary[];
  loading: boolean;
  value: string[];
  onChange: (ids: string[]) => void;
  disabled?: boolean;
}) {
  const empty = !props.loading && props.lists.length === 0;
  return (
    <MultiSelect
      label="Contact lists"
      description={
        empty
          ? 'No contact lists yet: import one on the Contacts page'
          : 'Everyone on the chosen lists receives the message, with their own fields'
      }
      placeholder={props.value.length === 0 ? (props.loading ? 'Loading…' : 'Choose lists') : undefined}
      data={props.lists.map((l) => ({
        value: l.id,
        label: `${l.name} (${formatNumber(l.count)})`,
      }))}
      value={props.value}
      onChange={props.onChange}
      disabled={props.disabled || empty}
      searchable
      clearable
      w="100%"
    />
  );
}
