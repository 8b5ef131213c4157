import { Alert, Group, Stack, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { BalanceBubble } from '../../components/BalanceBubble.tsx';
import { NoCreditsNote, NoSessionAlert } from '../../components/FirstRunNotices.tsx';
import { PhoneNumberPicker } from '../../components/PhoneNumberPicker.tsx';
import { useCurrentSession } from '../../components/useCurrentSession.ts';
import { errorText } from '../../lib/api.ts';
import { useBalance, useUserDetails } from '../auth/api/get-user-details.ts';
import { useChannels } from '../channels/api/channels.ts';
import { useGroupsList } from '../groups/api/get-groups-list.ts';
import { useCreditPrices } from './api/credit-prices.ts';
import { ComposeArea } from './ComposeArea.tsx';
import { ConfirmSendModal } from './ConfirmSendModal.tsx';
import { allSelected, toggleAll, toggleOne } from './credit-limit.ts';
import { RecipientTable, type RowSelection } from './RecipientTable.tsx';
import { ScheduleModal } from './ScheduleModal.tsx';
import { SendButtons } from './SendButtons.tsx';
import { SendForecast } from './SendForecast.tsx';
import { SendingProgress } from './SendingProgress.tsx';
import { StatusBanner } from './StatusBanner.tsx';
import { affordable, kindsOf, priceText, sendCredits } from './send-cost.ts';
import { useSendFlow } from './useSendFlow.ts';
import { useSendForecast } from './useSendForecast.ts';

/** Send Group Message (/compose). */
export default function ComposePage() {
  useUserDetails();
  const balance = useBalance();
  const current = useCurrentSession();
  // Credits per recipient of this account's kind: the selection stops at what the balance pays.
  const prices = useCreditPrices();
  const kinds = kindsOf(current.sessions, [current.sessionId]);
  const perAccount = kinds.map((k) => prices[k]);
  const payable = affordable(balance, perAccount);
  const groups = useGroupsList(current.sessionId);
  // Channels the account administers go beside its groups, after them.
  const channels = useChannels(current.sessionId).data?.channels;
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [shownSession, setShownSession] = useState(current.sessionId);
  if (shownSession !== current.sessionId) {
    // Another session's groups: the old selection means nothing there.
    setShownSession(current.sessionId);
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
    sessionId: current.sessionId,
    selectedCount: selectedIds.length,
    target: () => ({ chatIds: selectedIds }),
    onSelectionReset: () => setSelected(new Set()),
  });

  const forecast = useSendForecast(current.sessionId, selectedIds.length, 'groups');
  const noSession = !current.loading && !current.error && current.sessions.length === 0;

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={1} size="h2">
          Send Group Message
        </Title>
        <BalanceBubble />
      </Group>
      <NoCreditsNote balance={balance} />
      {current.multi && current.sessions.length > 0 && (
        <PhoneNumberPicker sessions={current.sessions} value={current.sessionId} onChange={current.choose} />
      )}
      {noSession ? (
        <NoSessionAlert />
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
          <ComposeArea
            state={flow.compose}
            dispatch={flow.dispatch}
            onKindChange={flow.changeKind}
            onFileError={flow.fileError}
            error={flow.fieldError}
            disabled={flow.busy}
          />
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
        balance={balance}
        credits={sendCredits(selectedIds.length, perAccount)}
        onSchedule={flow.schedule}
      />
      <ConfirmSendModal
        {...flow.confirmModal}
        count={selectedIds.length}
        balance={balance}
        credits={sendCredits(selectedIds.length, perAccount)}
        priceText={priceText(kinds, prices)}
        forecast={forecast}
      />
    </Stack>
  );
}
