import { Alert, Button, Group, Loader, NumberInput, Radio, Stack, TextInput } from '@mantine/core';
import { FOLLOW_UP_SEGMENT_LABELS, FOLLOW_UP_SEGMENTS, type FollowUpSegment } from '@wa/contract';
import { useState } from 'react';
import { useCreditPrices } from '../../features/compose/api/credit-prices.ts';
import { ComposeArea } from '../../features/compose/ComposeArea.tsx';
import { useAccounts } from '../../features/instances/api/get-accounts.ts';
import { useFollowUp, useSaveSegmentList, useSegments } from '../../features/jobs/api/follow-up.ts';
import { errorText } from '../../lib/api.ts';
import { priceKindOf } from '../../lib/capabilities.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { AppModal } from '../AppModal.tsx';
import { ChargeConfirmModal } from '../charge/ChargeConfirmModal.tsx';
import { useCharge } from '../charge/useCharge.ts';
import { PhoneNumberPicker } from '../PhoneNumberPicker.tsx';
import { ScheduledFollowUps } from './ScheduledFollowUps.tsx';
import { type FollowUpMessage, useFollowUpMessage } from './useFollowUpMessage.ts';

/**
 * 'Follow up' of a one-to-one job: the count of each segment of its recipients, then the new
 * job's account, message (text, a file or a poll, as Bulk Messaging writes it) and time (now, or
 * N days after the job is sent: the segment as it stands then), then the charge confirmation of
 * any send. A segment may also be saved as a contact list.
 */
export function FollowUpModal(props: { job: { id: string; sessionId: string }; onClose: () => void }) {
  const segments = useSegments(props.job.id);
  const accounts = useAccounts();
  const prices = useCreditPrices();
  const send = useFollowUp();
  const saveList = useSaveSegmentList();
  const [segment, setSegment] = useState<FollowUpSegment | null>(null);
  const [accountId, setAccountId] = useState(props.job.sessionId);
  const message = useFollowUpMessage();
  const [days, setDays] = useState<number | string>(0);
  const [listName, setListName] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<{ color: 'green' | 'red'; text: string } | null>(null);
  const counts = segments.data?.segments;
  const count = segment && counts ? counts[segment] : 0;
  const account = (accounts.data ?? []).find((s) => s.sessionId === accountId);
  const afterDays = Number(days) > 0 ? Number(days) : null;
  const charge = useCharge({
    accountId,
    count,
    audience: 'individuals',
    shares: [{ kind: priceKindOf(account), price: prices[priceKindOf(account)], recipients: count }],
    startsAt: afterDays ? `${afterDays} ${afterDays === 1 ? 'day' : 'days'} after the job is sent` : null,
    notes: afterDays
      ? [
          'Charged when the follow-up starts, for the people in the segment then: who replied or opted out by then is left out.',
        ]
      : ['Opted-out numbers are left out and not charged.'],
  });
  const failed = (err: unknown) => {
    setConfirming(false);
    setResult({ color: 'red', text: errorText(err, 'Failed to follow up', 'Error following up') });
  };
  const confirm = async () => {
    let body: FollowUpMessage;
    try {
      body = await message.message();
    } catch (err) {
      return failed(err);
    }
    send.mutate(
      {
        jobId: props.job.id,
        body: { ...body, segment: segment!, sessionId: accountId, ...(afterDays ? { afterDays } : {}) },
      },
      {
        onSuccess: (r) => {
          setConfirming(false);
          setResult({
            color: 'green',
            text: r.scheduledAt
              ? `Follow-up scheduled for ${formatDateTime(r.scheduledAt)}`
              : `Follow-up sent to ${formatNumber(r.recipients)} ${r.recipients === 1 ? 'contact' : 'contacts'}`,
          });
        },
        onError: failed,
      },
    );
  };
  const save = () =>
    saveList.mutate(
      { jobId: props.job.id, segment: segment!, name: listName },
      {
        onSuccess: (r) =>
          setResult({
            color: 'green',
            text: `Saved ${formatNumber(r.imported)} numbers as the contact list ${r.name}`,
          }),
        onError: (err) =>
          setResult({
            color: 'red',
            text: errorText(err, 'Failed to save the list', 'Error saving the list'),
          }),
      },
    );
  return (
    <>
      <AppModal opened={!confirming} onClose={props.onClose} title="Follow up" size="lg">
        {segments.isLoading && <Loader size="sm" aria-label="Loading segments" />}
        {segments.error && (
          <Alert color="red" variant="light" role="alert">
            {errorText(segments.error, 'Failed to fetch segments', 'Error fetching segments')}
          </Alert>
        )}
        {counts && (
          <Stack gap="sm">
            <Radio.Group label="Who" value={segment} onChange={(v) => setSegment(v as FollowUpSegment)}>
              <Stack gap={6} mt={4}>
                {FOLLOW_UP_SEGMENTS.map((s) => (
                  <Radio
                    key={s}
                    value={s}
                    disabled={counts[s] === 0}
                    label={`${FOLLOW_UP_SEGMENT_LABELS[s]} (${formatNumber(counts[s])})`}
                  />
                ))}
              </Stack>
            </Radio.Group>
            <ScheduledFollowUps jobId={props.job.id} />
            <PhoneNumberPicker
              label="Account"
              accounts={accounts.data ?? []}
              value={accountId}
              onChange={(v) => v && setAccountId(v)}
            />
            <ComposeArea {...message.area} disabled={send.isPending} />
            <NumberInput
              label="Send after (days)"
              description="0: now. Else that many days after the job is sent, to the segment as it stands then."
              min={0}
              max={90}
              value={days}
              onChange={setDays}
            />
            {result && (
              <Alert color={result.color} variant="light" role={result.color === 'red' ? 'alert' : 'status'}>
                {result.text}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button
                disabled={!segment || count === 0}
                onClick={() => {
                  setResult(null);
                  if (message.check()) setConfirming(true);
                }}
              >
                Follow up
              </Button>
            </Group>
            <Group align="flex-end" gap="sm">
              <TextInput
                label="Contact list name"
                value={listName}
                onChange={(e) => setListName(e.currentTarget.value)}
                style={{ flex: 1 }}
              />
              <Button
                variant="light"
                disabled={!segment || count === 0}
                loading={saveList.isPending}
                onClick={save}
              >
                Save as contact list
              </Button>
            </Group>
          </Stack>
        )}
      </AppModal>
      <ChargeConfirmModal
        opened={confirming}
        title="Confirm follow-up"
        action={afterDays ? 'Schedule' : 'Send Now'}
        charge={charge}
        busy={send.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => void confirm()}
      />
    </>
  );
}
