import { Anchor, Badge, Button, Card, Center, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { IconPlus, IconRefresh, IconSend } from '@tabler/icons-react';
import { CHANNEL_TEXTS, type Channel } from '@wa/contract';
import { type ReactNode, useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { NoAccountAlert } from '../../components/FirstRunNotices.tsx';
import { NoticeAlert } from '../../components/NoticeAlert.tsx';
import { CurrentAccountPicker } from '../../components/PhoneNumberPicker.tsx';
import { useCurrentAccount } from '../../components/useCurrentAccount.ts';
import { messageOf } from '../../lib/api.ts';
import { formatNumber } from '../../lib/format.ts';
import { AddChannelModal } from './AddChannelModal.tsx';
import { useChannels, useRefreshChannels } from './api/channels.ts';
import { CreateChannelModal } from './CreateChannelModal.tsx';
import { PostToChannelModal } from './PostToChannelModal.tsx';

function ChannelCard({ channel, onPost }: { channel: Channel; onPost: () => void }) {
  return (
    <Card withBorder padding="sm" radius="md" component="li" aria-label={channel.name}>
      <Group justify="space-between" align="flex-start" gap="sm">
        <Stack gap={2}>
          <Group gap="xs">
            <Text fw={600}>{channel.name}</Text>
            <Badge variant="light" color={channel.role === 'OWNER' ? 'green' : 'blue'}>
              {channel.role === 'OWNER' ? 'Owner' : 'Admin'}
            </Badge>
          </Group>
          <Text size="sm">{`${formatNumber(channel.followers)} ${channel.followers === 1 ? 'follower' : 'followers'}`}</Text>
          {channel.inviteLink && (
            <Anchor href={channel.inviteLink} target="_blank" rel="noreferrer" size="sm">
              {channel.inviteLink}
            </Anchor>
          )}
        </Stack>
        <Button leftSection={<IconSend size={16} />} onClick={onPost} aria-label={`Post to ${channel.name}`}>
          Post
        </Button>
      </Group>
    </Card>
  );
}

function Channels({ accountId }: { accountId: string }) {
  const channels = useChannels(accountId);
  const refresh = useRefreshChannels(accountId);
  const [modal, setModal] = useState<'create' | 'add' | null>(null);
  const [posting, setPosting] = useState<Channel | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const done = (message: string) => {
    setModal(null);
    setPosting(null);
    setNotice(message);
  };
  const list = channels.data?.channels ?? [];
  return (
    <Stack>
      <Group gap="xs">
        <Button leftSection={<IconPlus size={16} />} onClick={() => setModal('create')}>
          Create channel
        </Button>
        <Button variant="light" onClick={() => setModal('add')}>
          Add channel
        </Button>
        <Button
          variant="light"
          leftSection={<IconRefresh size={16} />}
          loading={refresh.isPending}
          onClick={() => refresh.mutate(undefined, { onSuccess: (r) => setNotice(r.message) })}
        >
          Refresh
        </Button>
      </Group>
      <NoticeAlert notice={notice} onClose={() => setNotice(null)} />
      <ErrorAlert
        error={channels.error ? messageOf(channels.error) : refresh.error ? messageOf(refresh.error) : null}
      />
      {channels.isLoading ? (
        <Center py="xl">
          <Loader size="sm" aria-label="Loading channels" />
        </Center>
      ) : list.length === 0 ? (
        <Text c="dimmed">{channels.data?.message}</Text>
      ) : (
        <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Channels">
          {list.map((c) => (
            <ChannelCard key={c.channelId} channel={c} onPost={() => setPosting(c)} />
          ))}
        </Stack>
      )}
      <Text size="xs" c="dimmed">
        WhatsApp does not list the channels an account administers: channels made on the phone appear here
        once added by their link.
      </Text>
      <CreateChannelModal
        accountId={accountId}
        opened={modal === 'create'}
        onClose={() => setModal(null)}
        onDone={done}
      />
      <AddChannelModal
        accountId={accountId}
        opened={modal === 'add'}
        onClose={() => setModal(null)}
        onDone={done}
      />
      <PostToChannelModal
        accountId={accountId}
        channel={posting}
        onClose={() => setPosting(null)}
        onDone={done}
      />
    </Stack>
  );
}

/** /channels: the channels (newsletters) of the chosen account, with followers; create, add, post. */
export default function ChannelsPage() {
  const current = useCurrentAccount('channels');
  let body: ReactNode;
  if (current.loading) body = <Loader size="sm" />;
  else if (current.error) body = <ErrorAlert error={`Error fetching sessions: ${current.error.message}`} />;
  else if (!current.accountId)
    body = <NoAccountAlert why={current.unable > 0 ? CHANNEL_TEXTS.linkedOnly : undefined} />;
  else body = <Channels accountId={current.accountId} />;
  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        Channels
      </Title>
      <CurrentAccountPicker current={current} why={CHANNEL_TEXTS.linkedOnly} />
      {body}
    </Stack>
  );
}
