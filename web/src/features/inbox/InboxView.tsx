import { useCallback, useMemo, useState } from 'react';
import { capabilitiesOf } from '../../lib/capabilities.ts';
import { DEFAULT_COUNTRY_CODE } from '../../lib/csv-contacts.ts';
import { useMeta } from '../auth/api/get-meta.ts';
import { useAccounts } from '../instances/api/get-accounts.ts';
import { accountName, type InboxParams } from './inbox-view.ts';
import { ThreadList } from './ThreadList.tsx';
import { ThreadView } from './ThreadView.tsx';

/**
 * The Inbox: the thread list, or the thread `person` of `params` when one is open. `userId`: an
 * admin reading a managed user's inbox, read-only (the accounts are then named by their numbers).
 */
export function InboxView(props: { userId: string | null; params: InboxParams }) {
  const own = !props.userId;
  const accounts = useAccounts().data;
  const list = useMemo(() => (own ? (accounts ?? []) : []), [own, accounts]);
  const cc = useMeta().data?.defaultCountryCode ?? DEFAULT_COUNTRY_CODE;
  const accountOf = useCallback((accountId: string) => accountName(accountId, list, cc), [list, cc]);
  const hasWindow = useCallback(
    (accountId: string) => {
      const s = list.find((x) => x.sessionId === accountId);
      return !!s && capabilitiesOf(s).serviceWindow;
    },
    [list],
  );
  const personId = props.params.value.get('person');
  return personId ? (
    <ThreadView
      userId={props.userId}
      personId={personId}
      params={props.params}
      readOnly={!own}
      accountOf={accountOf}
      hasWindow={hasWindow}
    />
  ) : (
    <ThreadList
      userId={props.userId}
      params={props.params}
      accounts={list}
      accountOf={accountOf}
      hasWindow={hasWindow}
    />
  );
}

/** Applies `changes` (null removes) to a copy of `params`. */
export function withChanges(
  params: URLSearchParams,
  changes: Record<string, string | null>,
): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  return next;
}

/** A managed user's inbox on the admin's page: read-only, its filters kept in the page's state. */
export function ManagedInbox(props: { userId: string }) {
  const [value, setValue] = useState(() => new URLSearchParams());
  const params: InboxParams = {
    value,
    set: (changes) => setValue((v) => withChanges(v, changes)),
    clear: () => setValue((v) => withChanges(new URLSearchParams(), { person: v.get('person') })),
  };
  return <InboxView userId={props.userId} params={params} />;
}
