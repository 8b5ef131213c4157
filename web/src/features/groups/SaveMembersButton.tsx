import { Alert, Button, Stack } from '@mantine/core';
import { IconAddressBook } from '@tabler/icons-react';
import type { GroupChat } from '@wa/contract';
import { messageOf } from '../../lib/api.ts';
import { formatNumber } from '../../lib/format.ts';
import { useSaveGroupMembers } from '../contacts/api/save-group-members.ts';

/**
 * 'Save members as a contact list': the group's members become a contact list named
 * after the group, with each member's role as a field, for the bulk page and the Contacts page.
 */
export function SaveMembersButton(props: { accountId: string; group: GroupChat }) {
  const save = useSaveGroupMembers();
  const result = save.data;
  return (
    <Stack gap="xs" align="flex-start">
      <Button
        variant="light"
        leftSection={<IconAddressBook size={16} aria-hidden />}
        loading={save.isPending}
        onClick={() => save.mutate({ sessionId: props.accountId, groupId: props.group.groupId })}
      >
        Save members as a contact list
      </Button>
      {save.isSuccess && result && (
        <Alert color="green" variant="light" role="status" aria-label="Saved members" w="100%">
          Saved {formatNumber(result.imported)} member{result.imported === 1 ? '' : 's'} as the contact list '
          {result.list.name}'
          {result.skipped > 0
            ? ` (${formatNumber(result.skipped)} without a known phone number left out)`
            : ''}
          .
        </Alert>
      )}
      {save.isError && (
        <Alert color="red" variant="light" role="alert" w="100%">
          {messageOf(save.error)}
        </Alert>
      )}
    </Stack>
  );
}
