import { Alert, Button, FileButton, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconFileSpreadsheet } from '@tabler/icons-react';
import { SERVICE_NAME } from '@wa/contract';
import { useMemo, useRef, useState } from 'react';
import { useBalance, useUserDetails } from '../../api/user-details.ts';
import { BalanceBubble } from '../../components/BalanceBubble.tsx';
import { ComposeArea } from '../../components/compose/ComposeArea.tsx';
import { RecipientTable } from '../../components/compose/RecipientTable.tsx';
import { ScheduleModal } from '../../components/compose/ScheduleModal.tsx';
import { SendButtons } from '../../components/compose/SendButtons.tsx';
import { SendingProgress } from '../../components/compose/SendingProgress.tsx';
import { StatusBanner } from '../../components/compose/StatusBanner.tsx';
import { useSendFlow } from '../../components/compose/useSendFlow.ts';
import { PhoneNumberPicker } from '../../components/PhoneNumberPicker.tsx';
import { useCurrentSession } from '../../components/useCurrentSession.ts';
import { CsvReadError, describeSkipped, readContactsCsv } from '../../lib/csv-contacts.ts';
import { formatNumber } from '../../lib/format.ts';
import { storage } from '../../lib/storage.ts';

type Upload = { fileName: string; numbers: string[]; skippedText: string | null };

/** Send Bulk Message (/bulkmessage, spec section 2): phone numbers from a CSV file. */
export default function BulkMessagePage() {
  useUserDetails();
  const balance = useBalance();
  const current = useCurrentSession();
  const [upload, setUpload] = useState<Upload | null>(null);
  const [reading, setReading] = useState(false);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  /** Lets the same file be picked again after a change on disk. */
  const resetFileInput = useRef<() => void>(null);

  const recipients = useMemo(() => (upload?.numbers ?? []).map((n) => ({ id: n, name: n })), [upload]);
  const selectedIds = useMemo(
    () => recipients.filter((r) => selected.has(r.id)).map((r) => r.id),
    [recipients, selected],
  );

  const flow = useSendFlow({
    audience: 'individuals',
    sessionId: current.sessionId,
    selectedIds,
    onSelectionReset: () => setSelected(new Set()),
  });

  const onFile = async (file: File | null) => {
    if (!file) return;
    resetFileInput.current?.();
    setUploadError(null);
    if (!file.name.toLowerCase().endsWith('.csv')) {
      setUploadError('Please upload a CSV file');
      return;
    }
    setReading(true);
    try {
      const parsed = await readContactsCsv(file);
      setUpload({
        fileName: file.name,
        numbers: parsed.numbers,
        skippedText: describeSkipped(parsed.skipped),
      });
      setSelected(new Set());
    } catch (err) {
      setUploadError(err instanceof CsvReadError ? err.message : 'Error processing the CSV file');
    } finally {
      setReading(false);
    }
  };

  const noSession = !current.loading && !current.error && current.sessions.length === 0;

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={2}>Send Bulk Message</Title>
        <BalanceBubble />
      </Group>
      {current.multi && current.sessions.length > 0 && (
        <PhoneNumberPicker sessions={current.sessions} value={current.sessionId} onChange={current.choose} />
      )}
      <StatusBanner banner={flow.banner} jobExists={flow.jobExists} />
      {!storage.isBulkEnabled() && (
        <Alert color="yellow" variant="light">
          Bulk messaging is not enabled for your account
        </Alert>
      )}
      {noSession && (
        <Alert color="yellow" variant="light">
          No active session found. Please connect {SERVICE_NAME} first.
        </Alert>
      )}
      <Paper withBorder p="md" radius="md">
        <Stack gap="xs" align="flex-start">
          <Text fw={500}>Click below to upload the List of Phone Numbers</Text>
          <FileButton onChange={onFile} accept=".csv,text/csv" disabled={flow.busy} resetRef={resetFileInput}>
            {(p) => (
              <Button {...p} variant="light" leftSection={<IconFileSpreadsheet size={16} />}>
                Upload CSV
              </Button>
            )}
          </FileButton>
          {upload && (
            <Text size="sm" role="status" aria-label="Upload result">
              {upload.fileName}: {formatNumber(upload.numbers.length)} phone number
              {upload.numbers.length === 1 ? '' : 's'} loaded.
              {upload.skippedText ? ` ${upload.skippedText}` : ''}
            </Text>
          )}
          {uploadError && (
            <Alert color="red" variant="light" role="alert" w="100%">
              {uploadError}
            </Alert>
          )}
        </Stack>
      </Paper>
      <RecipientTable
        title="Select Phone Numbers"
        nameHeader="Phone Number"
        kind="contacts"
        recipients={recipients}
        selected={selected}
        onChange={setSelected}
        balance={balance}
        loading={reading}
        loadingText="Loading Contacts..."
        emptyText="No contacts uploaded"
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
      <ScheduleModal
        {...flow.scheduleModal}
        state={flow.compose}
        recipientCount={selectedIds.length}
        recipientLabel="Contacts"
        onSchedule={flow.schedule}
      />
    </Stack>
  );
}
