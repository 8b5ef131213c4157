import { Alert, Checkbox, Group, NumberInput, Stack, Textarea } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useFollowUp } from '../../features/jobs/api/follow-up.ts';
import { errorText } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';

const DAY_MS = 86_400_000;

/**
 * 'Follow up after N days to those who have not replied', on a send page: once the send is
 * accepted (`jobId`), a follow-up of its `not_replied` segment is scheduled N days later with its
 * own message. Its recipients are taken and charged then: who replied or opted out by then is
 * left out.
 */
export function FollowUpLater(props: { jobId: string | null; sessionId: string | null; disabled?: boolean }) {
  const [on, setOn] = useState(false);
  const [days, setDays] = useState<number | string>(3);
  const [text, setText] = useState('');
  const [result, setResult] = useState<{ color: 'green' | 'red'; text: string } | null>(null);
  const send = useFollowUp();
  const handled = useRef<string | null>(null);
  const latest = useRef({ on, days, text, sessionId: props.sessionId });
  latest.current = { on, days, text, sessionId: props.sessionId };

  const { jobId } = props;
  const { mutate } = send;
  useEffect(() => {
    const { on: wanted, days: n, text: message, sessionId } = latest.current;
    if (!jobId || handled.current === jobId || !wanted || !sessionId) return;
    handled.current = jobId;
    const at = new Date(Date.now() + Number(n) * DAY_MS).toISOString();
    mutate(
      {
        jobId,
        body: { segment: 'not_replied', sessionId, type: 'string', content: message, scheduleTime: at },
      },
      {
        onSuccess: () => setResult({ color: 'green', text: `Follow-up scheduled for ${formatDateTime(at)}` }),
        onError: (err) =>
          setResult({
            color: 'red',
            text: errorText(err, 'Failed to schedule the follow-up', 'Error scheduling the follow-up'),
          }),
      },
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
        <Textarea
          label="Follow-up message"
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          rows={2}
          disabled={props.disabled}
        />
      )}
      {result && (
        <Alert color={result.color} variant="light" role={result.color === 'red' ? 'alert' : 'status'}>
          {result.text}
        </Alert>
      )}
    </Stack>
  );
}
