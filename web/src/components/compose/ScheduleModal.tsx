import { Alert, Button, Group, Modal, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { formatDateTime, formatNumber, toLocalInputValue } from '../../lib/format.ts';
import { type ComposeState, summaryText, TYPE_LABEL, validateScheduleTime } from './compose-form.ts';

/**
 * The Schedule Message modal (spec section 2): a local date-and-time input whose minimum is the
 * current minute, the summary, and the two schedule checks shown inside the modal.
 */
export function ScheduleModal(props: {
  opened: boolean;
  onClose: () => void;
  state: ComposeState;
  recipientCount: number;
  recipientLabel: string;
  busy: boolean;
  /** An error from the server, shown inside the modal. */
  serverError: string | null;
  onSchedule: (localValue: string) => void;
}) {
  const small = useMediaQuery('(max-width: 48em)');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [min, setMin] = useState(() => toLocalInputValue(new Date()));

  useEffect(() => {
    if (props.opened) {
      setValue('');
      setError(null);
      setMin(toLocalInputValue(new Date()));
    }
  }, [props.opened]);

  const submit = () => {
    const problem = validateScheduleTime(value);
    setError(problem);
    if (!problem) props.onSchedule(value);
  };

  const shownError = error ?? props.serverError;
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Schedule Message" fullScreen={small} centered>
      <Stack gap="md">
        <TextInput
          type="datetime-local"
          label="Schedule time"
          min={min}
          value={value}
          onChange={(e) => {
            setValue(e.currentTarget.value);
            setError(null);
          }}
        />
        <Table withRowBorders={false} verticalSpacing={4} aria-label="Summary">
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={120}>Type</Table.Th>
              <Table.Td>{TYPE_LABEL[props.state.kind]}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>{props.recipientLabel}</Table.Th>
              <Table.Td>{formatNumber(props.recipientCount)}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>
                {props.state.kind === 'poll'
                  ? 'Question'
                  : props.state.kind === 'media'
                    ? 'Caption'
                    : 'Message'}
              </Table.Th>
              <Table.Td style={{ wordBreak: 'break-word' }}>{summaryText(props.state)}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Td>
                {value ? (
                  formatDateTime(new Date(value))
                ) : (
                  <Text span c="dimmed">
                    Not chosen
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
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
    </Modal>
  );
}
