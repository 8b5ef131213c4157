import { Alert, Button, FileButton, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconFileSpreadsheet } from '@tabler/icons-react';
import { withDerivedFields } from '@wa/contract';
import { useMemo, useState } from 'react';
import { ChargeConfirmModal } from '../../components/charge/ChargeConfirmModal.tsx';
import { useCharge } from '../../components/charge/useCharge.ts';
import { NoAccountAlert } from '../../components/FirstRunNotices.tsx';
import { FollowUpLater } from '../../components/follow-up/FollowUpLater.tsx';
import { CurrentAccountPicker } from '../../components/PhoneNumberPicker.tsx';
import { useCurrentAccount } from '../../components/useCurrentAccount.ts';
import { sendsTemplates } from '../../lib/capabilities.ts';
import { formatNumber } from '../../lib/format.ts';
import { storage } from '../../lib/storage.ts';
import { useMeta } from '../auth/api/get-meta.ts';
import { useBalance, useUserDetails } from '../auth/api/get-user-details.ts';
import { useContactLists } from '../contacts/api/get-contact-lists.ts';
import { AlsoSendFrom, sharingAccountIds } from './AlsoSendFrom.tsx';
import { useCreditPrices } from './api/credit-prices.ts';
import { useListRecipients } from './api/list-recipients.ts';
import { fieldsOfFirst, uploadTarget } from './bulk-recipients.ts';
import { CloudTemplateSend } from './CloudTemplateSend.tsx';
import { ComposeArea, composeAreaProps } from './ComposeArea.tsx';
import { ContactListPicker } from './ContactListPicker.tsx';
import { isEmptyCompose } from './compose-form.ts';
import { FieldInserter } from './FieldInserter.tsx';
import { ListRecipients } from './ListRecipients.tsx';
import { PersonalisedPreview, type PreviewRecipient } from './PersonalisedPreview.tsx';
import { RecipientTable } from './RecipientTable.tsx';
import { RowBits } from './row-bits.ts';
import { ScheduleModal } from './ScheduleModal.tsx';
import { SendButtons } from './SendButtons.tsx';
import { SendForecast } from './SendForecast.tsx';
import { SendingProgress } from './SendingProgress.tsx';
import { SendPageTop } from './SendPageTop.tsx';
import { StatusBanner } from './StatusBanner.tsx';
import { StatusCompose } from './StatusCompose.tsx';
import { affordable, chargeShares, kindsOf } from './send-cost.ts';
import { useBulkUpload } from './useBulkUpload.ts';
import { useDraft } from './useDraft.ts';
import { useOptedOutRows } from './useOptedOutRows.ts';
import { useSendFlow } from './useSendFlow.ts';
import { useSendForecast } from './useSendForecast.ts';

const PREVIEW_COUNT = 3;
/** Opted-out numbers named after a send; the rest are counted. */
const OPTED_OUT_SHOWN = 10;

/**
 * Send Bulk Message (/bulkmessage). Without the bulk messaging flag the page says
 * so and shows no form: the server would refuse every send.
 */
export default function BulkMessagePage() {
  if (!storage.isBulkEnabled()) {
    return (
      <Stack gap="md">
        <Title order={1} size="h2">
          Send Bulk Message
        </Title>
        <Alert color="yellow" variant="light" role="status" aria-label="Bulk messaging">
          Bulk messaging is not enabled for your account
        </Alert>
      </Stack>
    );
  }
  return <BulkMessageForm />;
}

/** Phone numbers from a CSV file and contact lists. */
function BulkMessageForm() {
  const meta = useMeta();
  useUserDetails();
  const balance = useBalance();
  const current = useCurrentAccount();
  const lists = useContactLists();
  /** The upload's rows that are ticked (a bitmap: the numbers stay out of React state). */
  const [rows, setRows] = useState(() => RowBits.none(0));
  const {
    upload,
    file: uploadFile,
    reading,
    error: uploadError,
    errorWhy: uploadErrorWhy,
    resetRef: resetFileInput,
    ...uploads
  } = useBulkUpload<ReturnType<RowBits['toStored']>>({
    countryCode: meta.data?.defaultCountryCode,
    onLoaded: (count, ticks) => {
      setRows(ticks && ticks.bits.length === count ? RowBits.fromStored(ticks) : RowBits.none(count));
      flow.clearResult();
    },
  });
  const [listIds, setListIds] = useState<string[]>([]);
  const [alsoFrom, setAlsoFrom] = useState<string[]>([]);
  // Credits per recipient of each sharing account's kind: the selection stops at what the balance pays.
  const prices = useCreditPrices();
  const kinds = kindsOf(current.accounts, [
    current.accountId,
    ...(sharingAccountIds(current.accountId, alsoFrom, current.accounts)?.slice(1) ?? []),
  ]);
  const perAccount = kinds.map((k) => prices[k]);
  const payable = affordable(balance, perAccount);
  const [statusTab, setStatusTab] = useState(false);

  const chosenLists = useMemo(
    () => (lists.data?.lists ?? []).filter((l) => listIds.includes(l.id)),
    [lists.data, listIds],
  );
  // Opted-out contacts are left out and not charged: they count neither as recipients nor credits.
  const listCount = chosenLists.reduce((n, l) => n + l.count - l.optedOut, 0);
  const listContacts = useListRecipients(listIds);
  const numbers = upload?.numbers ?? [];
  // Uploaded numbers that opted out are marked, and left out of the counts as the server leaves them out.
  const optedOutRows = useOptedOutRows(numbers, rows);

  const flow = useSendFlow({
    audience: 'individuals',
    accountId: current.accountId,
    selectedCount: rows.size - optedOutRows.ticked + listCount,
    target: () => ({
      ...uploadTarget(upload, rows),
      contactListIds: listIds,
      sessionIds: sharingAccountIds(current.accountId, alsoFrom, current.accounts),
    }),
    onSelectionReset: () => {
      setRows((r) => RowBits.none(r.length));
      setListIds([]);
    },
  });

  // The preview: the first chosen rows of the CSV, then the lists' first contacts who receive it.
  const preview = useMemo(() => {
    const out: PreviewRecipient[] = [];
    if (upload) {
      const first = rows.indices(PREVIEW_COUNT);
      const fields = fieldsOfFirst(upload, first);
      first.forEach((i, k) => {
        out.push({ phoneNumber: upload.numbers[i]!, fields: fields[k]! });
      });
    }
    for (const c of listContacts.contacts) {
      if (out.length >= PREVIEW_COUNT) break;
      if (c.optedOut) continue;
      if (!out.some((r) => r.phoneNumber === c.phoneNumber))
        out.push({ phoneNumber: c.phoneNumber, fields: c.fields });
    }
    return out;
  }, [upload, rows, listContacts.contacts]);
  // The fields a `{{field}}` may use, as the server gathers them: the CSV's columns when rows of
  // it are sent, then the chosen lists' fields.
  const available = useMemo(() => {
    const keys = new Set<string>(rows.size > 0 ? (upload?.fieldKeys ?? []) : []);
    for (const l of chosenLists) for (const f of l.fields) keys.add(f);
    return [...keys];
  }, [upload, rows.size, chosenLists]);
  const insertField = (token: string) => {
    const c = flow.compose;
    if (c.kind === 'text') flow.dispatch({ type: 'text', value: c.text + token });
    else if (c.kind === 'media') flow.dispatch({ type: 'caption', value: c.caption + token });
    else flow.dispatch({ type: 'pollQuestion', value: c.pollQuestion + token });
  };
  const selectedCount = rows.size - optedOutRows.ticked + listCount;
  // A Cloud API account sends approved templates: the template picker replaces the text box.
  const cloudAccount = current.account && sendsTemplates(current.account) ? current.accountId : null;
  const forecast = useSendForecast(current.accountId, selectedCount, 'individuals');
  const charge = useCharge({
    accountId: current.accountId,
    count: selectedCount,
    audience: 'individuals',
    shares: chargeShares(kinds, prices, selectedCount),
    notes: optedOutRows.ticked > 0 ? [`${optedOutRows.ticked} opted-out ticked: left out, not charged.`] : [],
  });
  const template =
    flow.compose.kind === 'text'
      ? flow.compose.text
      : flow.compose.kind === 'media'
        ? flow.compose.caption
        : flow.compose.pollQuestion;

  // The message, the uploaded file (kept as the file itself), the ticks and the lists survive a
  // link, Back and a reload (kept per user in this browser).
  const draftValue = useMemo(
    () => ({
      compose: flow.compose,
      sessionId: current.accountId,
      file: uploadFile,
      rows: rows.toStored(),
      listIds,
      alsoFrom,
      // A send under way ends the draft: what was typed has gone.
      sending: flow.busy,
    }),
    [flow.compose, current.accountId, uploadFile, rows, listIds, alsoFrom, flow.busy],
  );
  const draft = useDraft({
    page: 'bulkmessage',
    ready: !current.loading,
    value: draftValue,
    isEmpty: (d) => d.sending || (isEmptyCompose(d.compose) && d.rows.size === 0 && d.listIds.length === 0),
    restore: async (d) => {
      flow.dispatch({ type: 'restore', state: d.compose });
      if (d.sessionId && current.accounts.some((s) => s.sessionId === d.sessionId))
        current.choose(d.sessionId);
      setListIds(d.listIds);
      setAlsoFrom(d.alsoFrom);
      if (d.file) await uploads.load(d.file, d.rows);
    },
  });

  const noAccount = !current.loading && !current.error && current.accounts.length === 0;
  const optedOut = flow.optedOut;

  return (
    <Stack gap="md">
      <SendPageTop
        title="Send Bulk Message"
        balance={balance}
        draft={draft}
        onDiscard={() => {
          flow.dispatch({ type: 'reset' });
          uploads.clear();
          setRows(RowBits.none(0));
          setListIds([]);
          setAlsoFrom([]);
        }}
        selected={flow.busy ? 0 : selectedCount}
      />
      <CurrentAccountPicker current={current} />
      <AlsoSendFrom
        accounts={current.accounts}
        current={current.accountId}
        value={alsoFrom}
        onChange={setAlsoFrom}
        disabled={flow.busy}
      />
      {noAccount && <NoAccountAlert />}
      <Paper withBorder p="md" radius="md">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
          <Stack gap="xs" align="flex-start">
            <Text fw={500}>Click below to upload the List of Phone Numbers</Text>
            <FileButton
              onChange={uploads.choose}
              accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
              disabled={flow.busy}
              resetRef={resetFileInput}
            >
              {(p) => (
                <Button {...p} variant="light" leftSection={<IconFileSpreadsheet size={16} />}>
                  Upload CSV or Excel
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
            {upload && (
              <Text size="sm" c="dimmed">
                {upload.columnText}
              </Text>
            )}
            {upload && upload.fieldKeys.length > 0 && (
              <Text size="sm" c="dimmed">
                Fields: {upload.fieldKeys.map((k) => `{{${k}}}`).join(', ')}
              </Text>
            )}
            {uploadError && (
              <Alert color="red" variant="light" role="alert" w="100%">
                {uploadError}
              </Alert>
            )}
            {uploadError && uploadErrorWhy && <Text size="sm">{uploadErrorWhy}</Text>}
          </Stack>
          <ContactListPicker
            lists={lists.data?.lists ?? []}
            loading={lists.isLoading}
            value={listIds}
            onChange={setListIds}
            disabled={flow.busy}
          />
        </SimpleGrid>
      </Paper>
      {chosenLists.length > 0 && (
        <ListRecipients lists={chosenLists} contacts={listContacts.contacts} loading={listContacts.loading} />
      )}
      {(upload || reading || chosenLists.length === 0) && (
        <RecipientTable
          title="Select Phone Numbers"
          nameHeader="Phone Number"
          kind="contacts"
          ids={numbers}
          names={optedOutRows.names}
          selection={rows.view(payable, setRows)}
          balance={payable}
          loading={reading}
          loadingText="Loading Contacts..."
          emptyText="No contacts uploaded"
          disabled={flow.busy}
        />
      )}
      {cloudAccount ? (
        <CloudTemplateSend
          accountId={cloudAccount}
          selectedCount={selectedCount}
          charge={charge}
          accountIds={sharingAccountIds(current.accountId, alsoFrom, current.accounts)}
          withPhones={kinds.includes('linked')}
          recipients={preview}
          target={() => ({
            ...uploadTarget(upload, rows),
            contactListIds: listIds,
          })}
          onSent={() => {
            setRows((r) => RowBits.none(r.length));
            setListIds([]);
          }}
        />
      ) : (
        <>
          <ComposeArea
            {...composeAreaProps(flow)}
            statusTab={current.accountId ? <StatusCompose accountId={current.accountId} /> : undefined}
            onStatusTab={setStatusTab}
            footer={
              <>
                <FieldInserter
                  fields={withDerivedFields(available)}
                  onInsert={insertField}
                  disabled={flow.busy}
                />
                <PersonalisedPreview text={template} available={available} recipients={preview} />
              </>
            }
          />
          {!statusTab && (
            <>
              <SendForecast text={forecast} />
              <FollowUpLater jobId={flow.lastJobId} accountId={current.accountId} disabled={flow.busy} />
              <SendButtons
                selectedCount={selectedCount}
                busy={flow.busy}
                // A CSV is read before the accounts are (after a reload on a busy machine): a send
                // then went with no account and was answered 'No active session found'.
                waiting={current.loading}
                onSendNow={flow.sendNow}
                onSchedule={flow.openSchedule}
              />
            </>
          )}
        </>
      )}
      {/* Results and refusals beside the buttons, where the progress panel shows. */}
      <StatusBanner banner={flow.banner} jobExists={flow.jobExists} focusKey={flow.bannerFocus} />
      {optedOut.length > 0 && (
        <Alert color="yellow" variant="light" role="status" aria-label="Opted-out numbers">
          {formatNumber(optedOut.length)} opted-out number{optedOut.length === 1 ? ' was' : 's were'} left out
          and not charged: {optedOut.slice(0, OPTED_OUT_SHOWN).join(', ')}
          {optedOut.length > OPTED_OUT_SHOWN
            ? ` and ${formatNumber(optedOut.length - OPTED_OUT_SHOWN)} more`
            : ''}
          .
        </Alert>
      )}
      {flow.noConsent.length > 0 && (
        <Alert color="yellow" variant="light" role="status" aria-label="Numbers without consent">
          {formatNumber(flow.noConsent.length)} number{flow.noConsent.length === 1 ? ' was' : 's were'} left
          out without consent (not charged): {flow.noConsent.slice(0, OPTED_OUT_SHOWN).join(', ')}
          {flow.noConsent.length > OPTED_OUT_SHOWN
            ? ` and ${formatNumber(flow.noConsent.length - OPTED_OUT_SHOWN)} more`
            : ''}
          .
        </Alert>
      )}
      {flow.progress && <SendingProgress job={flow.progress} />}
      <ScheduleModal
        {...flow.scheduleModal}
        state={flow.compose}
        recipientCount={selectedCount}
        recipientLabel="Contacts"
        charge={charge}
        onSchedule={flow.schedule}
      />
      {/* Fewer is offered for uploaded numbers: contact lists are sent whole. */}
      <ChargeConfirmModal
        {...flow.confirmModal}
        action="Send Now"
        charge={charge}
        fewer={listIds.length === 0}
        askAgain
      />
    </Stack>
  );
}
