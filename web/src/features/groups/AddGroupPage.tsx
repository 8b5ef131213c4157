import {
  Alert,
  Anchor,
  Button,
  Card,
  Group,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { CLOUD_TEXTS, type CreateGroupResponse, GROUP_FIRST_MEMBERS, GROUP_SUBJECT_MAX } from '@wa/contract';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { CopyIconButton } from '../../components/CopyIconButton.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { NoAccountAlert } from '../../components/FirstRunNotices.tsx';
import { CurrentAccountPicker } from '../../components/PhoneNumberPicker.tsx';
import { useCurrentAccount } from '../../components/useCurrentAccount.ts';
import { messageOf } from '../../lib/api.ts';
import { formatNumber } from '../../lib/format.ts';
import { recipientLines } from '../../lib/typed-lines.ts';
import { useContactLists } from '../contacts/api/get-contact-lists.ts';
import { contactsQuery } from '../contacts/api/get-contacts.ts';
import { useCreateGroup } from './api/create-group.ts';

const plural = (n: number, one: string, many: string) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** What WhatsApp did with the new group: who is in it, who was not added, who joins by the link. */
function CreatedGroup({ made }: { made: CreateGroupResponse }) {
  return (
    <Alert color="green" variant="light" role="status" title={`${made.message}: ${made.groupName}`}>
      <Stack gap="xs">
        <Text size="sm">{`${plural(made.added.length, 'member', 'members')} added: ${made.added.join(', ') || 'none'}.`}</Text>
        {made.notAdded.length > 0 && (
          <Text size="sm">{`Not added (not on WhatsApp, or they allow only their contacts to add them): ${made.notAdded.join(', ')}.`}</Text>
        )}
        {made.toInvite.length > 0 && (
          <Text size="sm">{`${plural(made.toInvite.length, 'number was', 'numbers were')} not added, to keep the account safe: send them the invite link.`}</Text>
        )}
        {made.inviteLink && (
          <Group gap={4} wrap="nowrap">
            <Text size="sm" style={{ wordBreak: 'break-all' }}>
              {made.inviteLink}
            </Text>
            <CopyIconButton value={made.inviteLink} label="Copy the invite link" title="Copy" />
          </Group>
        )}
        <Anchor component={Link} to="/groups" size="sm">
          Open Group List
        </Anchor>
      </Stack>
    </Alert>
  );
}

/**
 * /groups/new, the Dashboard's "Add New Group": a WhatsApp group made by a linked phone, with
 * its name and first members typed or taken from a contact list. Only the first few are added
 * (adding many people is a ban signal); the page says so before and after.
 */
export default function AddGroupPage() {
  const current = useCurrentAccount('createGroup');
  const lists = useContactLists();
  const queryClient = useQueryClient();
  const create = useCreateGroup(current.accountId);
  const [subject, setSubject] = useState('');
  const [members, setMembers] = useState('');
  const [listNote, setListNote] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const typed = recipientLines(members);

  const fromList = async (id: string | null) => {
    const list = lists.data?.lists.find((l) => l.id === id);
    if (!list) return;
    const page = await queryClient.fetchQuery(contactsQuery(list.id, 0, ''));
    const numbers = page.contacts.filter((c) => !c.optedOut).map((c) => c.phoneNumber);
    setMembers(numbers.join('\n'));
    setListNote(
      page.total > page.contacts.length
        ? `The first ${formatNumber(page.contacts.length)} of ${formatNumber(page.total)} numbers of ${list.name}`
        : `The numbers of ${list.name}`,
    );
  };

  const submit = () => {
    if (!subject.trim()) return setProblem('Group name is required');
    if (typed.length === 0) return setProblem('Give at least one member: a number, or a contact list');
    setProblem(null);
    create.mutate({ subject, members: typed });
  };

  const noAccount = !current.loading && !current.error && current.accounts.length === 0;
  return (
    <Stack gap="md" maw={720}>
      <Title order={1} size="h2">
        Add New Group
      </Title>
      <CurrentAccountPicker current={current} why={CLOUD_TEXTS.groupsLinkedOnly} />
      {noAccount ? (
        <NoAccountAlert why={current.unable > 0 ? CLOUD_TEXTS.groupsLinkedOnly : undefined} />
      ) : (
        <Card withBorder padding="md">
          <Stack gap="sm">
            <TextInput
              label="Group name"
              required
              maxLength={GROUP_SUBJECT_MAX}
              value={subject}
              onChange={(e) => setSubject(e.currentTarget.value)}
            />
            <Select
              label="Members from a contact list"
              placeholder={lists.isLoading ? 'Loading…' : 'Choose a list'}
              data={(lists.data?.lists ?? []).map((l) => ({
                value: l.id,
                label: `${l.name} (${formatNumber(l.count)})`,
              }))}
              onChange={(id) => void fromList(id)}
              clearable
            />
            <Textarea
              label="Members' phone numbers (one a line)"
              description={listNote ?? undefined}
              value={members}
              onChange={(e) => setMembers(e.currentTarget.value)}
              autosize
              minRows={3}
              maxRows={10}
            />
            <Text size="sm" id="first-members-note">
              {`The first ${GROUP_FIRST_MEMBERS} numbers are added to the group now; the others get its invite link to join by. Adding many people at once makes WhatsApp ban an account.`}
            </Text>
            <Text size="sm" fw={600} role="status">
              {typed.length > GROUP_FIRST_MEMBERS
                ? `${plural(GROUP_FIRST_MEMBERS, 'number', 'numbers')} added now, ${plural(typed.length - GROUP_FIRST_MEMBERS, 'number', 'numbers')} by the invite link`
                : `${plural(typed.length, 'number', 'numbers')} added now`}
            </Text>
            <ErrorAlert error={problem ?? (create.isError ? messageOf(create.error) : null)} />
            <Group justify="flex-end">
              <Button onClick={submit} loading={create.isPending} disabled={!current.accountId}>
                Create group
              </Button>
            </Group>
          </Stack>
        </Card>
      )}
      {create.data && <CreatedGroup made={create.data} />}
    </Stack>
  );
}
