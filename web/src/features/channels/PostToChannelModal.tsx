import { Button, FileInput, SegmentedControl, Stack, Textarea, TextInput } from '@mantine/core';
import type { Channel } from '@wa/contract';
import { useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ChargeConfirmModal } from '../../components/charge/ChargeConfirmModal.tsx';
import { needsConfirmation } from '../../components/charge/confirm-pref.ts';
import { useCharge } from '../../components/charge/useCharge.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ScheduleDateField } from '../../components/ScheduleDateField.tsx';
import { messageOf } from '../../lib/api.ts';
import { todayValue, toLocalDateTime } from '../../lib/date-text.ts';
import { useCreditPrices } from '../compose/api/credit-prices.ts';
import { type ChannelPost, usePostToChannel } from './api/channels.ts';

type Kind = 'text' | 'image' | 'poll';

const fileBase64 = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });

/** 'Post': text, an image with a caption, or a poll to one channel, now or at a time; one credit. */
export function PostToChannelModal(props: {
  accountId: string;
  channel: Channel | null;
  onClose: () => void;
  onDone: (m: string) => void;
}) {
  const [kind, setKind] = useState<Kind>('text');
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [options, setOptions] = useState('');
  const [when, setWhen] = useState('');
  const postTo = usePostToChannel(props.accountId);
  const [confirming, setConfirming] = useState(false);
  const prices = useCreditPrices();
  // A channel post is one message, from a linked phone.
  const charge = useCharge({
    accountId: props.accountId,
    count: 1,
    audience: 'groups',
    shares: [{ kind: 'linked', price: prices.linked, recipients: 1 }],
    startsAt: when ? new Date(when.replace(' ', 'T')).toLocaleString('en-IN') : null,
    single: true,
  });
  const optionList = options
    .split('\n')
    .map((o) => o.trim())
    .filter(Boolean);
  const ready =
    kind === 'image' ? !!file : kind === 'poll' ? !!text.trim() && optionList.length >= 2 : !!text.trim();

  const submit = async () => {
    setConfirming(false);
    if (!props.channel) return;
    let post: ChannelPost;
    if (kind === 'image' && file)
      post = {
        type: 'media',
        data: await fileBase64(file),
        mime: file.type,
        fileName: file.name,
        content: text,
      };
    else if (kind === 'poll')
      post = {
        type: 'poll',
        content: { pollName: text, pollOptions: optionList, options: { allowMultipleAnswers: false } },
      };
    else post = { type: 'string', content: text };
    const scheduleTime = when ? new Date(toLocalDateTime(when)).toISOString() : null;
    postTo.mutate(
      { channelId: props.channel.channelId, post, scheduleTime },
      {
        onSuccess: (r) => {
          setText('');
          setFile(null);
          setOptions('');
          setWhen('');
          props.onDone(r.message);
        },
      },
    );
  };

  return (
    <AppModal
      opened={props.channel !== null}
      onClose={props.onClose}
      title={`Post to ${props.channel?.name ?? ''}`}
    >
      <Stack>
        <ErrorAlert error={postTo.error ? messageOf(postTo.error) : null} />
        <SegmentedControl
          aria-label="Kind of post"
          value={kind}
          onChange={(v) => setKind(v as Kind)}
          data={[
            { value: 'text', label: 'Text' },
            { value: 'image', label: 'Image' },
            { value: 'poll', label: 'Poll' },
          ]}
        />
        {kind === 'image' && (
          <FileInput label="Image" accept="image/*" value={file} onChange={setFile} clearable />
        )}
        {kind === 'poll' ? (
          <>
            <TextInput label="Question" value={text} onChange={(e) => setText(e.currentTarget.value)} />
            <Textarea
              label="Options (one a line)"
              autosize
              minRows={2}
              value={options}
              onChange={(e) => setOptions(e.currentTarget.value)}
            />
          </>
        ) : (
          <Textarea
            label={kind === 'image' ? 'Caption' : 'Message'}
            autosize
            minRows={3}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
          />
        )}
        <ScheduleDateField
          label="Schedule (optional)"
          description="Leave empty to post now"
          calendarLabel="Pick the day of the post"
          withTime
          minDate={todayValue()}
          value={when}
          onChange={setWhen}
        />
        <Button
          onClick={() => (needsConfirmation(1) ? setConfirming(true) : void submit())}
          loading={postTo.isPending}
          disabled={!ready}
        >
          {when ? 'Schedule post (1 credit)' : 'Post now (1 credit)'}
        </Button>
        <ChargeConfirmModal
          opened={confirming}
          title={`Confirm post to ${props.channel?.name ?? ''}`}
          action={when ? 'Schedule post' : 'Post now'}
          charge={charge}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void submit()}
        />
      </Stack>
    </AppModal>
  );
}
