import {
  Button,
  Checkbox,
  FileButton,
  Group,
  MultiSelect,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useMemo } from 'react';
import { useChannels } from '../channels/api/channels.ts';
import { useGroupsList } from '../groups/api/get-groups-list.ts';

/**
 * The groups of a job's account picked by name, as on Send Group Message: the account's groups,
 * then the channels it administers. A chosen group the list no longer holds keeps its stored name.
 */
export function EditGroupsPicker(props: {
  accountId: string;
  value: string[];
  knownNames: ReadonlyMap<string, string | null>;
  onChange: (ids: string[]) => void;
}) {
  const groups = useGroupsList(props.accountId).data?.groups;
  const channels = useChannels(props.accountId).data?.channels;
  const data = useMemo(() => {
    const options = [
      ...(groups ?? []).map((g) => ({ value: g.groupId, label: g.groupName })),
      ...(channels ?? []).map((c) => ({ value: c.channelId, label: `${c.name} (Channel)` })),
    ];
    const listed = new Set(options.map((o) => o.value));
    for (const id of props.value)
      if (!listed.has(id)) options.push({ value: id, label: props.knownNames.get(id) ?? id });
    return options;
  }, [groups, channels, props.value, props.knownNames]);
  return (
    <MultiSelect
      label="Groups"
      description="Type a group's name to find it"
      placeholder={props.value.length === 0 ? 'Choose groups' : undefined}
      data={data}
      value={props.value}
      onChange={props.onChange}
      searchable
      clearable
      hidePickedOptions
      maxDropdownHeight={240}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

export type EditedPoll = { question: string; options: string[]; multi: boolean };

/** A scheduled poll's question, options (one a line) and whether several answers may be chosen. */
export function EditPollFields(props: { value: EditedPoll; onChange: (poll: EditedPoll) => void }) {
  const { value, onChange } = props;
  return (
    <Stack gap="xs">
      <TextInput
        label="Poll question"
        value={value.question}
        onChange={(e) => onChange({ ...value, question: e.currentTarget.value })}
      />
      <Textarea
        label="Options (one a line)"
        value={value.options.join('\n')}
        onChange={(e) => onChange({ ...value, options: e.currentTarget.value.split('\n') })}
        autosize
        minRows={2}
        maxRows={12}
      />
      <Checkbox
        label="Allow multiple answers"
        checked={value.multi}
        onChange={(e) => onChange({ ...value, multi: e.currentTarget.checked })}
      />
    </Stack>
  );
}

/** A media job's file: its name now, and a button that replaces it with another. */
export function EditFileField(props: {
  current: string;
  chosen: File | null;
  onChoose: (file: File | null) => void;
}) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        File
      </Text>
      <Group gap="sm" wrap="wrap">
        <Text size="sm" style={{ wordBreak: 'break-all' }}>
          {props.chosen ? `${props.chosen.name} (replaces ${props.current})` : props.current}
        </Text>
        <FileButton onChange={props.onChoose}>
          {(p) => (
            <Button {...p} size="xs" variant="light" leftSection={<IconUpload size={14} />}>
              Replace file
            </Button>
          )}
        </FileButton>
      </Group>
    </Stack>
  );
}
