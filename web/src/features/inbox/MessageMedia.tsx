import { Button, Image, Loader, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import type { InboxMessage } from '@wa/contract';
import { useEffect, useState } from 'react';
import { apiBlobUrl, apiDownload, errorText } from '../../lib/api.ts';

type Media = NonNullable<InboxMessage['media']>;

/** The name a file is saved under: its own, else its kind. */
const fileNameOf = (media: Media) => media.fileName || `${media.mime.split('/')[0] || 'file'}`;

/** An image the person sent, fetched with the token (the media URL needs it). */
function MediaImage(props: { media: Media; url: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    let made: string | null = null;
    apiBlobUrl(props.url, abort.signal).then(
      (u) => {
        made = u;
        setUrl(u);
      },
      (err: unknown) => {
        if (!abort.signal.aborted)
          setError(errorText(err, 'Failed to load the image', 'Error loading the image'));
      },
    );
    return () => {
      abort.abort();
      if (made) URL.revokeObjectURL(made);
    };
  }, [props.url]);
  if (error)
    return (
      <Text size="sm" c="red.8">
        {error}
      </Text>
    );
  if (!url) return <Loader size="xs" aria-label="Loading the image" />;
  return (
    <Image
      src={url}
      alt={props.media.fileName ? `Image ${props.media.fileName}` : 'Image'}
      mah={240}
      w="auto"
      fit="contain"
      radius="sm"
      style={{ maxWidth: '100%' }}
    />
  );
}

/**
 * A file the person sent: an image shown, anything else downloaded (both with the token).
 * `userId`: an admin reading a managed user's thread asks for that user's file.
 */
export function MessageMedia(props: { media: Media; userId: string | null }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const url = props.userId
    ? `${props.media.url}${props.media.url.includes('?') ? '&' : '?'}userId=${encodeURIComponent(props.userId)}`
    : props.media.url;
  if (props.media.mime.startsWith('image/')) return <MediaImage media={props.media} url={url} />;
  const name = fileNameOf(props.media);
  const download = () => {
    setBusy(true);
    setError(null);
    apiDownload(url, name)
      .catch((err: unknown) =>
        setError(errorText(err, 'Failed to download the file', 'Error downloading the file')),
      )
      .finally(() => setBusy(false));
  };
  return (
    <>
      <Button
        variant="default"
        size="xs"
        leftSection={<IconDownload size={14} aria-hidden />}
        loading={busy}
        onClick={download}
        styles={{ label: { whiteSpace: 'normal', overflowWrap: 'anywhere', textAlign: 'left' } }}
        style={{ alignSelf: 'flex-start', maxWidth: '100%' }}
      >
        Download {name}
      </Button>
      {error && (
        <Text size="sm" c="red.8" role="alert">
          {error}
        </Text>
      )}
    </>
  );
}
