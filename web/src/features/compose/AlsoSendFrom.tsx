import { MultiSelect } from '@mantine/core';
import type { Account } from '@wa/contract';

/**
 * 'Also send from': more of the user's connected accounts that share a bulk send (the server
 * splits the numbers between them by what each may still send today, and moves the waiting ones
 * off an account that stays down). Shown only when the user has more than one account.
 */
export function AlsoSendFrom(props: {
  accounts: Account[];
  /** The account picked above: always the first sender, not offered here. */
  current: string | null;
  value: string[];
  onChange: (accountIds: string[]) => void;
  disabled?: boolean;
}) {
  if (props.accounts.length < 2) return null;
  const others = props.accounts.filter((s) => s.sessionId !== props.current && s.status === 'CONNECTED');
  const offered = new Set(others.map((s) => s.sessionId));
  return (
    <MultiSelect
      label="Also send from"
      description="The numbers are split between these accounts and the one above"
      placeholder={others.length === 0 ? 'No other connected account' : 'Choose accounts'}
      data={others.map((s) => ({ value: s.sessionId, label: `${s.sessionName} (${s.phoneNumber})` }))}
      value={props.value.filter((id) => offered.has(id))}
      onChange={props.onChange}
      disabled={props.disabled || others.length === 0}
      clearable
      maw={360}
    />
  );
}

/** The body's `sessionIds`: the picked account first, then the chosen ones still offered (none: left out). */
export function sharingAccountIds(
  current: string | null,
  chosen: string[],
  accounts: Account[],
): string[] | undefined {
  const others = chosen.filter(
    (id) => id !== current && accounts.some((s) => s.sessionId === id && s.status === 'CONNECTED'),
  );
  return current && others.length > 0 ? [current, ...others] : undefined;
}
