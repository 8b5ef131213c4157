import { Alert, Stack } from '@mantine/core';
import { CLOUD_TEXTS } from '@wa/contract';
import { useMemo, useState } from 'react';
import { ChargeConfirmModal } from '../../components/charge/ChargeConfirmModal.tsx';
import { useCharge } from '../../components/charge/useCharge.ts';
import { NoAccountAlert } from '../../components/FirstRunNotices.tsx';
import { CurrentAccountPicker } from '../../components/PhoneNumberPicker.tsx';
import { useCurrentAccount } from '../../components/useCurrentAccount.ts';
import { errorText } from '../../lib/api.ts';
import { useBalance, useUserDetails } from '../auth/api/get-user-details.ts';
import { useChannels } from '../channels/api/channels.ts';
import { useGroupsList } from '../groups/api/get-groups-list.ts';
import { useCreditPrices } from './api/credit-prices.ts';
import { ComposeArea, composeAreaProps } from './ComposeArea.tsx';
import { isEmptyCompose } from './compose-form.ts';
import { allSelected, toggleAll, toggleOne } from './credit-limit.ts';
import { RecipientTable, type RowSelection } from './RecipientTable.tsx';
import { ScheduleModal } from './ScheduleModal.tsx';
import { SendButtons } from './SendButtons.tsx';
import { SendForecast } from './SendForecast.tsx';
import { SendingProgress } from './SendingProgress.tsx';
import { SendPageTop } from './SendPageTop.tsx';
import { StatusBanner } from './StatusBanner.tsx';
import { affordable, chargeShares, kindsOf } from './send-cost.ts';
import { useDraft } from './useDraft.ts';
import { useSendFlow } from './useSendFlow.ts';
import { useSendForecast } from './useSendForecast.ts';

/** Send Group Message (/compose). */
export default function ComposePage() {
  useUserDetails();
  const balance = useBalance();
  const current = useCurrentAccount('groups');
  // Credits per recipient of this account's kind: the selection stops at what the balance pays.
  const prices = useCreditPrices();
  const kinds = kindsOf(current.accounts, [current.accountId]);
  const perAccount = kinds.map((k) => prices[k]);
  const payable = affordable(balance, perAccount);
  const groups = useGroupsList(current.accountId);
  // Channels the account administers go beside its groups, after them.
  const channels = useChannels(current.accountId).data?.channels;
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [shownAccount, setShownAccount] = useState(current.accountId);
  if (shownAccount !== current.accountId) {
    // Another account's groups: the old selection means nothing there.
    setShownAccount(current.accountId);
    setSelected(new Set());
  }

  const ids = useMemo(
    () => [...(groups.data?.groups ?? []).map((g) => g.groupId), ...(channels ?? []).map((c) => c.channelId)],
    [groups.data, channels],
  );
  const names = useMemo(
    () => [
      ...(groups.data?.groups ?? []).map((g) => g.groupName),
      ...(channels ?? []).map((c) => `${c.name} (Channel)`),
    ],
    [groups.data, channels],
  );
  const selectedIds = useMemo(() => ids.filter((id) => selected.has(id)), [ids, selected]);
  const selection: RowSelection = {
    size: selected.size,
    has: (i) => selected.has(ids[i]!),
    everything: allSelected(selected, ids),
    toggle: (i) => setSelected(toggleOne(selected, ids[i]!, payable)),
    toggleAll: (checked) => setSelected(toggleAll(selected, ids, payable, checked)),
  };

  const flow = useSendFlow({
    audience: 'groups',
    accountId: current.accountId,
    selectedCount: selectedIds.length,
    target: () => ({ chatIds: selectedIds }),
    onSelectionReset: () => setSelected(new Set()),
  });

  // The message and the ticked groups survive a link, Back and a reload (kept per user in this browser).
  const draftValue = useMemo(
    () => ({ compose: flow.compose, sessionId: current.accountId, selected: [...selected] }),
    [flow.compose, current.accountId, selected],
  );
  const draft = useDraft({
    page: 'compose',
    ready: !current.loading,
    value: draftValue,
    isEmpty: (d) => isEmptyCompose(d.compose) && d.selected.length === 0,
    restore: (d) => {
      flow.dispatch({ type: 'restore', state: d.compose });
      if (d.sessionId && current.accounts.some((s) => s.sessionId === d.sessionId)) {
        current.choose(d.sessionId);
        setShownAccount(d.sessionId);
        setSelected(new Set(d.selected));
      }
    },
  });

  const forecast = useSendForecast(current.accountId, selectedIds.length, 'groups');
  const charge = useCharge({
    accountId: current.accountId,
    count: selectedIds.length,
    audience: 'groups',
    shares: chargeShares(kinds, prices, selectedIds.length),
  });
  const noAccount = !current.loading && !current.error && current.accounts.length === 0;

  return (
    <Stack gap="md">
      <SendPageTop
        title="Send Group Message"
        selected={flow.busy ? 0 : selectedIds.length}
        balance={balance}
        draft={draft}
        onDiscard={() => {
          setSelected(new Set());
          flow.dispatch({ type: 'reset' });
        }}
      />
      <CurrentAccountPicker current={current} why={CLOUD_TEXTS.groupsLinkedOnly} />
      {noAccount ? (
        <NoAccountAlert why={current.unable > 0 ? CLOUD_TEXTS.groupsLinkedOnly : undefined} />
      ) : (
        <>
          {(current.error || groups.error) && (
            <Alert color="red" variant="light">
              {errorText(
                current.error ?? groups.error,
                'Failed to fetch group chats',
                'Error fetching group chats',
              )}
            </Alert>
          )}
          <RecipientTable
            title="Select Groups"
            nameHeader="Group Name"
            kind="groups"
            ids={ids}
            names={names}
            selection={selection}
            balance={payable}
            loading={current.loading || groups.isLoading}
            loadingText="Loading groups..."
            emptyText="No groups found"
            disabled={flow.busy}
          />
          <ComposeArea {...composeAreaProps(flow)} />
          <SendForecast text={forecast} />
          <SendButtons
            selectedCount={selectedIds.length}
            busy={flow.busy}
            onSendNow={flow.sendNow}
            onSchedule={flow.openSchedule}
          />
          {/* Results and refusals beside the buttons, where the progress panel shows. */}
          <StatusBanner banner={flow.banner} jobExists={flow.jobExists} focusKey={flow.bannerFocus} />
          {flow.progress && <SendingProgress job={flow.progress} />}
        </>
      )}
      <ScheduleModal
        {...flow.scheduleModal}
        state={flow.compose}
        recipientCount={selectedIds.length}
        recipientLabel="Groups"
        charge={charge}
        onSchedule={flow.schedule}
      />
      <ChargeConfirmModal {...flow.confirmModal} action="Send Now" charge={charge} askAgain />
    </Stack>
  );
}
