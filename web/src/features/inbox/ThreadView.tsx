import { Alert, Anchor, Badge, Box, Button, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconCheck, IconRefresh } from '@tabler/icons-react';
import { INBOX_TEXTS, type InboxMessage, type InboxThread } from '@wa/contract';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { JobId, shortJobId } from '../../components/JobId.tsx';
import { errorText } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useInvalidate } from '../../lib/mutation.ts';
import { useInboxThread } from './api/get-thread.ts';
import { inboxKeys } from './api/keys.ts';
import { useSetThreadState } from './api/set-state.ts';
import { type InboxParams, kindText, personName, windowText } from './inbox-view.ts';
import { MessageMedia } from './MessageMedia.tsx';
import { ReplyBox } from './ReplyBox.tsx';

/** The messages as a chat reads, the oldest at the top. */
const oldestFirst = (messages: readonly InboxMessage[]) =>
  [...messages].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));

/** The job a message belongs to: a link to it in Message Jobs (the admin, who has no such page, sees its id). */
function JobLink(props: { jobId: string; linked: boolean }) {
  if (!props.linked) return <JobId id={props.jobId} />;
  return (
    <Anchor
      component={Link}
      to={`/jobs?job=${encodeURIComponent(props.jobId)}`}
      size="xs"
      title={props.jobId}
    >
      job {shortJobId(props.jobId)}
    </Anchor>
  );
}

/** One message: in on the left, out on the right, with its time, media, job and (out) state. */
function MessageBubble(props: {
  message: InboxMessage;
  /** An admin reading a managed user's thread: no links to Message Jobs, the user's files. */
  userId: string | null;
  accountOf: (id: string) => string;
}) {
  const m = props.message;
  const out = m.direction === 'out';
  // A vote whose options the product read; one on a poll it did not send shows '(poll vote)'.
  const vote = m.type === 'poll_vote' && m.text !== '';
  return (
    <Box
      component="li"
      style={{ alignSelf: out ? 'flex-end' : 'flex-start', maxWidth: 'min(85%, 560px)', minWidth: 0 }}
      aria-label={out ? 'Sent' : 'Received'}
    >
      <Paper
        p="xs"
        radius="md"
        withBorder
        bg={out ? 'var(--mantine-color-teal-light)' : 'var(--mantine-color-body)'}
      >
        <Stack gap={4}>
          {m.media && <MessageMedia media={m.media} userId={props.userId} />}
          {vote ? (
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              Voted: {m.text}
            </Text>
          ) : (
            m.text && (
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {m.text}
              </Text>
            )
          )}
          {!m.text && !m.media && (
            <Text size="sm" c="dimmed">
              {kindText(m.type)}
            </Text>
          )}
          <Group gap={6} wrap="wrap">
            <Text size="xs" c="dimmed">
              {formatDateTime(m.at)}
            </Text>
            {out && m.status && (
              <Text size="xs" c={m.status === 'failed' ? 'red.8' : 'dimmed'}>
                · {m.status}
              </Text>
            )}
            {out && (
              <Text size="xs" c="dimmed">
                · from {props.accountOf(m.sessionId)}
              </Text>
            )}
            {m.jobId && (
              <Group gap={4} wrap="nowrap">
                <Text size="xs" c="dimmed">
                  · {out ? 'sent by' : 'replies to'}
                </Text>
                <JobLink jobId={m.jobId} linked={!props.userId} />
              </Group>
            )}
          </Group>
        </Stack>
      </Paper>
    </Box>
  );
}

/**
 * A conversation: the person, its state (Mark done / Reopen), every message both ways, and the
 * answer box. `readOnly`: an admin reading a managed user's inbox (no answer, no state change).
 */
export function ThreadView(props: {
  userId: string | null;
  personId: string;
  params: InboxParams;
  readOnly: boolean;
  accountOf: (accountId: string) => string;
  /** Whether the account answers in free form only inside a person's 24-hour window (a Cloud number). */
  hasWindow: (accountId: string) => boolean;
}) {
  const thread = useInboxThread(props.userId, props.personId);
  const setState = useSetThreadState();
  const invalidate = useInvalidate();
  const [stateError, setStateError] = useState<string | null>(null);
  const t: InboxThread | undefined = thread.data?.thread;
  const loaded = !!thread.data;
  // Opening the thread read its messages: the sidebar's count goes down at once.
  useEffect(() => {
    if (loaded && !props.userId) void invalidate([inboxKeys.counts]);
  }, [loaded, props.userId, invalidate]);
  const back = () => props.params.set({ person: null }, false);
  const changeState = (state: 'open' | 'done') => {
    setStateError(null);
    setState.mutate(
      { personId: props.personId, state },
      {
        onError: (err) =>
          setStateError(
            errorText(err, 'Failed to change the conversation', 'Error changing the conversation'),
          ),
      },
    );
  };

  return (
    <Stack gap="sm">
      <Group>
        <Button variant="subtle" leftSection={<IconArrowLeft size={16} aria-hidden />} onClick={back} px={4}>
          Back to conversations
        </Button>
      </Group>
      {thread.isLoading && <Loader size="sm" aria-label="Loading the conversation" />}
      {thread.error && (
        <Alert color="red" variant="light" role="alert">
          {errorText(thread.error, INBOX_TEXTS.notFound, 'Error fetching the conversation')}
        </Alert>
      )}
      {t && (
        <Paper withBorder radius="md" p="md">
          <Stack gap="sm">
            <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
              <div style={{ minWidth: 0 }}>
                <Title order={2} size="h3" style={{ overflowWrap: 'anywhere' }}>
                  {personName(t)}
                </Title>
                {t.name && (
                  <Text size="sm" c="dimmed">
                    {t.phone}
                  </Text>
                )}
                <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                  Wrote to {props.accountOf(t.sessionId)}
                  {props.hasWindow(t.sessionId) || t.windowClosesAt ? ` · ${windowText(t)}` : ''}
                </Text>
              </div>
              <Group gap="xs">
                <Badge color={t.state === 'done' ? 'gray' : 'blue'} variant="light">
                  {t.state === 'done' ? 'Done' : 'Open'}
                </Badge>
                {!props.readOnly &&
                  (t.state === 'open' ? (
                    <Button
                      variant="light"
                      leftSection={<IconCheck size={16} aria-hidden />}
                      loading={setState.isPending}
                      onClick={() => changeState('done')}
                    >
                      Mark done
                    </Button>
                  ) : (
                    <Button
                      variant="light"
                      leftSection={<IconRefresh size={16} aria-hidden />}
                      loading={setState.isPending}
                      onClick={() => changeState('open')}
                    >
                      Reopen
                    </Button>
                  ))}
              </Group>
            </Group>
            {stateError && (
              <Alert color="red" variant="light" role="alert">
                {stateError}
              </Alert>
            )}
            <Stack
              component="ol"
              aria-label="Messages"
              gap="xs"
              p={0}
              m={0}
              style={{ listStyle: 'none', display: 'flex', flexDirection: 'column' }}
            >
              {oldestFirst(thread.data!.messages).map((m) => (
                <MessageBubble key={m.id} message={m} userId={props.userId} accountOf={props.accountOf} />
              ))}
            </Stack>
            {props.readOnly ? (
              <Text size="sm" c="dimmed">
                {INBOX_TEXTS.readOnly}
              </Text>
            ) : t.optedOut ? (
              <Alert color="orange" variant="light">
                {INBOX_TEXTS.optedOut}
              </Alert>
            ) : (
              <ReplyBox key={t.personId} thread={t} />
            )}
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}
