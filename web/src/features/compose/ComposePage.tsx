import { Alert, Group, Stack, Title } from '@mantine/core';
import { SERVICE_NAME } from '@wa/contract';
import { useMemo, useState } from 'react';
import { useGroupsList } from '../../api/groups.ts';
import { useBalance, useUserDetails } from '../../api/user-details.ts';
import { BalanceBubble } from '../../components/BalanceBubble.tsx';
import { ComposeArea } from '../../components/compose/ComposeArea.tsx';
import { RecipientTable } from '../../components/compose/RecipientTable.tsx';
import { ScheduleModal } from '../../components/compose/ScheduleModal.tsx';
import { SendButtons } from '../../components/compose/SendButtons.tsx';
import { SendingProgress } from '../../components/compose/SendingProgress.tsx';
import { StatusBanner } from '../../components/compose/StatusBanner.tsx';
import { errorText } from '../../components/compose/send-result.ts';
import { useSendFlow } from '../../components/compose/useSendFlow.ts';
import { PhoneNumberPicker } from '../../components/PhoneNumberPicker.tsx';
import { useCurrentSession } from '../../components/useCurrentSession.ts';

/** Send Group Message (/compose, spec section 2). */
export default function ComposePage() {
  useUserDetails();
  const balance = useBalance();
  const current = useCurrentSession();
  const groups = useGroupsList(current.sessionId);
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [shownSession, setShownSession] = useState(current.sessionId);
  if (shownSession !== current.sessionId) {
    // Another session's groups: the old selection means nothing there.
    setShownSession(current.sessionId);
    setSelected(new Set());
  }

  const recipients = useMemo(
    () => (groups.data?.groups ?? []).map((g) => ({ id: g.groupId, name: g.groupName })),
    [groups.data],
  );
  const selectedIds = useMemo(
    () => recipients.filter((r) => selected.has(r.id)).map((r) => r.id),
    [recipients, selected],
  );

  const flow = useSendFlow({
    audience: 'groups',
    sessionId: current.sessionId,
    selectedIds,
    onSelectionReset: () => setSelected(new Set()),
  });

  const noSession = !current.loading && !current.error && current.sessions.length === 0;

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={2}>Send Group Message</Title>
        <BalanceBubble />
      </Group>
      {current.multi && current.sessions.length > 0 && (
        <PhoneNumberPicker sessions={current.sessions} value={current.sessionId} onChange={current.choose} />
      )}
      <StatusBanner banner={flow.banner} jobExists={flow.jobExists} />
      {noSession ? (
        <Alert color="yellow" variant="light">
          No active session found. Please connect {SERVICE_NAME} first.
        </Alert>
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
            recipients={recipients}
            selected={selected}
            onChange={setSelected}
            balance={balance}
            loading={current.loading || groups.isLoading}
            loadingText="Loading groups..."
            emptyText="No groups found"
            disabled={flow.busy}
          />
          <ComposeArea
            state={flow.compose}
            dispatch={flow.dispatch}
            onKindChange={flow.changeKind}
            onFileError={(text) => flow.setBanner({ color: 'red', text })}
            disabled={flow.busy}
          />
          <SendButtons
            selectedCount={selectedIds.length}
            busy={flow.busy}
            onSendNow={flow.sendNow}
            onSchedule={flow.openSchedule}
          />
          {flow.progress && <SendingProgress job={flow.progress} />}
        </>
      )}
      <ScheduleModal
        {...flow.scheduleModal}
        state={flow.compose}
        recipientCount={selectedIds.length}
        recipientLabel="Groups"
        onSchedule={flow.schedule}
      />
    </Stack>
  );
}
