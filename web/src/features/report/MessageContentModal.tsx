import { Alert, Anchor, Center, Group, List, Loader, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type MessageJob, messageText, parsePoll } from '@wa/contract';
import { useEffect, useMemo, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ApiError } from '../../lib/api.ts';
import { getJobDetails } from '../jobs/api/get-job-details.ts';
import { messageJobKeys } from '../jobs/api/keys.ts';
import { blobTypeOf, documentType, fileSize, type MediaView, mediaView } from './media.ts';

export type ContentView = { job: MessageJob; mode: 'text' | 'poll' | 'media' };

/** The media preview is at most 500 px high. */
const MEDIA_MAX_HEIGHT = 500;

const IMAGE_TYPES = new Set([
  'image/jpeg',
  'image/jpg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/avif',
  'image/svg+xml',
  'image/x-icon',
]);

/** Whether this browser can show the type at all (else it is offered as a download). */
function canShow(view: Extract<MediaView, { bytes: Uint8Array }>): boolean {
  if (view.kind === 'image') return IMAGE_TYPES.has(view.mime.toLowerCase());
  if (view.kind === 'video' || view.kind === 'audio') {
    return document.createElement(view.kind).canPlayType(view.mime) !== '';
  }
  return false;
}

function MediaContent(props: { job: MessageJob }) {
  const details = useQuery({
    queryKey: messageJobKeys.details(props.job.id, 'media'),
    queryFn: ({ signal }) => getJobDetails(props.job.id, { detailsLimit: 0, signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const job = details.data?.job;
  const view = useMemo(() => (job ? mediaView(job.mediaData, job.mediaMime) : null), [job]);
  const url = useMemo(
    () =>
      view && 'bytes' in view
        ? URL.createObjectURL(new Blob([view.bytes], { type: blobTypeOf(view.mime, canShow(view)) }))
        : null,
    [view],
  );
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  const [broken, setBroken] = useState(false);

  if (details.isLoading)
    return (
      <Center py="md">
        <Group gap="sm">
          <Loader size="sm" />
          <Text>Loading media...</Text>
        </Group>
      </Center>
    );
  if (details.error) {
    const e = details.error;
    return (
      <Alert color="red">
        {e instanceof ApiError
          ? (e.serverMessage ?? 'Failed to fetch job details')
          : `Error fetching job details: ${e.message}`}
      </Alert>
    );
  }
  if (!view || view.kind === 'none') return <Alert color="gray">No media data available</Alert>;
  if (view.kind === 'invalid' || broken) return <Alert color="red">Invalid media data</Alert>;
  const fileName = job?.fileName || `media.${view.mime.split('/')[1]?.split(';')[0] || 'bin'}`;
  if (!canShow(view) || !url)
    return (
      <Alert color="yellow">
        <Stack gap="xs">
          <Text size="sm">Unsupported media type</Text>
          {/* The spec's words say only what the browser cannot do; the file itself is named. */}
          <Text size="sm">
            {fileName} · {documentType(fileName, view.bytes, view.mime)} · {fileSize(view.bytes.byteLength)}
          </Text>
          {url && (
            <Anchor href={url} download={fileName}>
              Download {fileName}
            </Anchor>
          )}
        </Stack>
      </Alert>
    );
  const style = {
    maxHeight: MEDIA_MAX_HEIGHT,
    maxWidth: '100%',
    display: 'block',
    margin: '0 auto',
  } as const;
  const onError = () => setBroken(true);
  if (view.kind === 'image')
    return <img src={url} alt={`Media of job ${props.job.id}`} style={style} onError={onError} />;
  if (view.kind === 'video')
    return (
      // biome-ignore lint/a11y/useMediaCaption: the job's own file; it has no caption track.
      <video src={url} controls style={style} onError={onError} aria-label={`Media of job ${props.job.id}`} />
    );
  // biome-ignore lint/a11y/useMediaCaption: the job's own file; it has no caption track.
  return <audio src={url} controls onError={onError} aria-label={`Media of job ${props.job.id}`} />;
}

function PollContent(props: { job: MessageJob }) {
  const poll = parsePoll(props.job.messageContent);
  if (!poll)
    return (
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {props.job.messageContent}
      </Text>
    );
  return (
    <Stack gap="xs">
      <Text size="sm">
        <Text span fw={600}>
          Poll Name:{' '}
        </Text>
        {poll.pollName}
      </Text>
      <Text size="sm" fw={600}>
        Poll Options:
      </Text>
      <List type="ordered" size="sm" aria-label="Poll Options">
        {poll.pollOptions.map((o, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: options may repeat; their order is their identity.
          <List.Item key={i}>{o}</List.Item>
        ))}
      </List>
      <Text size="sm">
        <Text span fw={600}>
          Allow Multiple Answers:{' '}
        </Text>
        {poll.allowMultipleAnswers ? 'Yes' : 'No'}
      </Text>
    </Stack>
  );
}

/** The 'Message Content' popup, opened by 'Show more', 'Show Details' or 'Show Media'. */
export function MessageContentModal(props: { view: ContentView | null; onClose: () => void }) {
  const v = props.view;
  return (
    <AppModal opened={v !== null} onClose={props.onClose} title="Message Content" size="lg">
      {v?.mode === 'text' && (
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {messageText(v.job)}
        </Text>
      )}
      {v?.mode === 'poll' && <PollContent job={v.job} />}
      {v?.mode === 'media' && (
        <Stack>
          <MediaContent key={v.job.id} job={v.job} />
          {v.job.messageContent && (
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
              {v.job.messageContent}
            </Text>
          )}
        </Stack>
      )}
    </AppModal>
  );
}
