import { Alert, Checkbox, Fieldset, Group, NumberInput, Stack } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { ComposeArea } from '../../features/compose/ComposeArea.tsx';
import { useFollowUp } from '../../features/jobs/api/follow-up.ts';
import { errorText } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useFollowUpMessage } from './useFollowUpMessage.ts';

/**
 * 'Follow up after N days to those who have not replied', on a send page: once the send is
 * accepted (`jobId`), a follow-up of its `not_replied` segment is scheduled N days after the job
 * is sent (the server counts from a scheduled job's time) with its own message: text, a file or a
 * poll, written as Bulk Messaging writes one. Its recipients are taken and charged then: who
 * replied or opted out by then is left out.
 */
export function FollowUpLater(props: { jobId: string | null; accountId: string | null; disabled?: boolean }) {
  const [on, setOn] = useState(false);
  const [days, setDays] = useState<number | string>(3);
  const message = useFollowUpMessage();
  const [result, setResult] = useState<{ color: 'green' | 'red'; text: string } | null>(null);
  const send = useFollowUp();
  const handled = useRef<string | null>(null);
  const latest = useRef({ on, days, message: message.message, sessionId: props.accountId });
  latest.current = { on, days, message: message.message, sessionId: props.accountId };

  const { jobId } = props;
  const { mutate } = send;
  useEffect(() => {
    const { on: wanted, days: n, message: read, sessionId: accountId } = latest.current;
    if (!jobId || handled.current === jobId || !wanted || !accountId) return;
    handled.current = jobId;
    const failed = (err: unknown) =>
      setResult({
        color: 'red',
        text: errorText(err, 'Failed to schedule the follow-up', 'Error scheduling the follow-up'),
      });
    read().then(
      (body) =>
        mutate(
          { jobId, body: { ...body, segment: 'not_replied', sessionId: accountId, afterDays: Number(n) } },
          {
            onSuccess: (r) =>
              setResult({ color: 'green', text: `Follow-up scheduled for ${formatDateTime(r.scheduledAt)}` }),
            onError: failed,
          },
        ),
      failed,
    );
  }, [jobId, mutate]);

  return (
    <Stack gap="xs">
      <Group gap="xs" align="center" wrap="wrap">
        <Checkbox
          checked={on}
          disabled={props.disabled}
          onChange={(e) => setOn(e.currentTarget.checked)}
          label="Follow up after"
        />
        <NumberInput
          aria-label="Days before the follow-up"
          value={days}
          onChange={setDays}
          min={1}
          max={90}
          allowDecimal={false}
          w={80}
          size="xs"
          disabled={!on || props.disabled}
        />
        <span>days to those who have not replied</span>
      </Group>
      {on && (
        <Fieldset legend="Follow-up message" variant="unstyled">
          <ComposeArea {...message.area} disabled={props.disabled} />
        </Fieldset>
      )}
      {result && (
        <Alert color={result.color} variant="light" role={result.color === 'red' ? 'alert' : 'status'}>
          {result.text}
        </Alert>
      )}
    </Stack>
  );
}
