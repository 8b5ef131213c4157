import { ActionIcon, CopyButton, Group, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/** A job id as tables show it: its first 8 characters (issue 18: tables that fit). */
export const shortJobId = (id: string): string => id.slice(0, 8);

/** The short job id; the full one on hover (title) and on the clipboard through the copy button. */
export function JobId(props: { id: string }) {
  const short = shortJobId(props.id);
  return (
    <Group gap={2} wrap="nowrap" component="span">
      <Text span size="xs" ff="monospace" title={props.id} style={{ whiteSpace: 'nowrap' }}>
        {short}
      </Text>
      <CopyButton value={props.id}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : 'Copy the full job ID'} withArrow>
            <ActionIcon
              size="sm"
              variant="subtle"
              color={copied ? 'teal' : 'gray'}
              onClick={copy}
              aria-label={`Copy job ID ${short}`}
            >
              {copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
