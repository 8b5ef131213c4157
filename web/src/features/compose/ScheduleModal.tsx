import { Alert, Button, Group, Select, Stack, Text } from '@mantine/core';
import { REPEAT_TEXTS, type RepeatEvery, repeatText, type SendBody } from '@wa/contract';
import { useEffect, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { FieldList } from '../../components/ListTable.tsx';
import { ScheduleDateField } from '../../components/ScheduleDateField.tsx';
import { todayValue, toLocalDateTime } from '../../lib/date-text.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { type ComposeState, summaryText, TYPE_LABEL, validateScheduleTime } from './compose-form.ts';
import { costLine } from './send-forecast.ts';

const REPEAT_CHOICES = [
  { value: 'none', label: 'Does not repeat' },
  { value: 'day', label: 'Every day' },
  { value: 'week', label: 'Every week' },
  { value: 'month', label: 'Every month' },
];

/** The end of a local date (`YYYY-MM-DD`): the last occurrence may fall on that day. */
const endOfLocalDay = (date: string) => new Date(`${date}T23:59:59.999`);

/**
 * The send's `repeat` from the modal's choice and until date, or the problem with it (the
 * server's text). `at`: the schedule time.
 */
export function repeatChoice(
  every: string,
  untilDate: string,
  at: Date,
): { repeat: SendBody['repeat']; problem: string | null } {
  if (every === 'none') return { repeat: null, problem: null };
  if (!untilDate) return { repeat: { every: every as RepeatEvery }, problem: null };
  const until = endOfLocalDay(untilDate);
  if (Number.isNaN(until.getTime()) || until < at) return { repeat: null, problem: REPEAT_TEXTS.badUntil };
  return { repeat: { every: every as RepeatEvery, until: until.toISOString() }, problem: null };
}

/**
 * The Schedule Message modal: a local date-and-time input (en-IN, day first;
 * days before today are not offered, and a time not later than now is refused), the summary, and
 * the two schedule checks shown inside the modal; beyond the spec, a repeat choice (every day,
 * week or month, until an optional date).
 */
export function ScheduleModal(props: {
  opened: boolean;
  onClose: () => void;
  state: ComposeState;
  recipientCount: number;
  recipientLabel: string;
  /** The balance now: the summary gives the cost and the balance after. */
  balance: number;
  /** What the recipients cost at the price of their accounts' kinds (default one each). */
  credits?: { min: number; max: number };
  busy: boolean;
  /** An error from the server, shown inside the modal. */
  serverError: string | null;
  onSchedule: (localValue: string, repeat: SendBody['repeat']) => void;
}) {
  const [value, setValue] = useState('');
  const [every, setEvery] = useState('none');
  const [untilDate, setUntilDate] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [min, setMin] = useState(todayValue);

  useEffect(() => {
    if (props.opened) {
      setValue('');
      setEvery('none');
      setUntilDate('');
      setError(null);
      setMin(todayValue());
    }
  }, [props.opened]);

  /** The chosen time as the local `YYYY-MM-DDTHH:mm:ss` the checks and the send read. */
  const local = value ? toLocalDateTime(value) : '';
  const submit = () => {
    const problem = validateScheduleTime(local);
    setError(problem);
    if (problem) return;
    const choice = repeatChoice(every, untilDate, new Date(local));
    setError(choice.problem);
    if (!choice.problem) props.onSchedule(local, choice.repeat);
  };
  const chosen = repeatChoice(every, untilDate, local ? new Date(local) : new Date(0));

  const shownError = error ?? props.serverError;
  return (
    <AppModal opened={props.opened} onClose={props.onClose} title="Schedule Message">
      <Stack gap="md">
        <ScheduleDateField
          label="Schedule time"
          calendarLabel="Pick the day in a calendar"
          withTime
          minDate={min}
          value={value}
          onChange={(v) => {
            setValue(v);
            setError(null);
          }}
        />
        <Group grow align="flex-start">
          <Select
            label="Repeat"
            data={REPEAT_CHOICES}
            value={every}
            allowDeselect={false}
            onChange={(v) => {
              setEvery(v ?? 'none');
              setError(null);
            }}
          />
          {every !== 'none' && (
            <ScheduleDateField
              label="Repeat until"
              description="Empty: until you cancel it"
              calendarLabel="Pick the last day in a calendar"
              withTime={false}
              minDate={min}
              value={untilDate}
              onChange={(v) => {
                setUntilDate(v);
                setError(null);
              }}
            />
          )}
        </Group>
        <FieldList
          label="Summary"
          labelWidth={120}
          fields={[
            { label: 'Type', value: TYPE_LABEL[props.state.kind] },
            { label: props.recipientLabel, value: formatNumber(props.recipientCount) },
            {
              label:
                props.state.kind === 'poll'
                  ? 'Question'
                  : props.state.kind === 'media'
                    ? 'Caption'
                    : 'Message',
              value: summaryText(props.state),
            },
            {
              label: 'Time',
              value: local ? (
                formatDateTime(new Date(local))
              ) : (
                <Text span c="dimmed">
                  Not chosen
                </Text>
              ),
            },
            ...(chosen.repeat
              ? [
                  {
                    label: 'Repeats',
                    value: repeatText(
                      chosen.repeat.every,
                      chosen.repeat.until ? new Date(chosen.repeat.until).toLocaleDateString('en-IN') : null,
                    ),
                  },
                ]
              : []),
          ]}
        />
        <Stack gap={4} role="group" aria-label="Cost">
          <Text fw={600} size="sm">
            {costLine(props.recipientCount, props.balance, props.credits)}
          </Text>
          <Text size="sm">
            The credits are held now and refunded if you delete the job before it is sent.
          </Text>
        </Stack>
        {shownError && (
          <Alert color="red" variant="light" role="alert">
            {shownError}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose} disabled={props.busy}>
            Cancel
          </Button>
          <Button onClick={submit} loading={props.busy}>
            Schedule Message
          </Button>
        </Group>
      </Stack>
    </AppModal>
  );
}
