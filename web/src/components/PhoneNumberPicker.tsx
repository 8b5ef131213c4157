import { Select } from '@mantine/core';
import { type Account, phoneOrNull } from '@wa/contract';
import { useMeta } from '../features/auth/api/get-meta.ts';
import { DEFAULT_COUNTRY_CODE } from '../lib/csv-contacts.ts';

/**
 * The reusable account dropdown: each account as 'name (number)', the number as
 * country code + digits (docs/decisions.md, Phone numbers), also for an account stored before the rule
 * ('9123456780' shows as 919123456780).
 */
export function PhoneNumberPicker(props: {
  accounts: Account[];
  value: string | null;
  onChange: (accountId: string | null) => void;
  label?: string;
  /** A filter's picker: no account chosen means every account (`placeholder` says so). */
  clearable?: boolean;
  placeholder?: string;
  /** Accounts left out because they cannot do the page's action, and why (under the picker). */
  leftOut?: { count: number; why: string };
}) {
  const cc = useMeta().data?.defaultCountryCode ?? DEFAULT_COUNTRY_CODE;
  return (
    <Select
      label={props.label ?? 'Phone number'}
      placeholder={props.placeholder ?? 'Select a session'}
      data={props.accounts.map((s) => ({
        value: s.sessionId,
        label: `${s.sessionName} (${phoneOrNull(s.phoneNumber, cc) ?? s.phoneNumber})`,
      }))}
      value={props.value}
      onChange={props.onChange}
      allowDeselect={props.clearable ?? false}
      clearable={props.clearable}
      maw={360}
      description={
        props.leftOut && props.leftOut.count > 0
          ? `${props.leftOut.count} account${props.leftOut.count === 1 ? ' is' : 's are'} not listed: ${props.leftOut.why}`
          : undefined
      }
    />
  );
}

/**
 * The page's account picker (multi-session users only): the accounts `useCurrentAccount` offers,
 * and under it how many it left out and `why` (they cannot do the page's action).
 */
export function CurrentAccountPicker(props: {
  current: {
    multi: boolean;
    accounts: Account[];
    accountId: string | null;
    choose: (id: string | null) => void;
    unable: number;
  };
  why?: string;
}) {
  const { current } = props;
  if (!current.multi || current.accounts.length === 0) return null;
  return (
    <PhoneNumberPicker
      accounts={current.accounts}
      value={current.accountId}
      onChange={current.choose}
      leftOut={props.why ? { count: current.unable, why: props.why } : undefined}
    />
  );
}
