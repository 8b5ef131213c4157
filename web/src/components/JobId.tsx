import { ActionIcon, CopyButton, Group, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/** A job id as tables show it: its first 8 characters (tables that fit). */
export const shortJobId = (id: string): string => id.slice(0, 8);

/**
 * The short job id; the full one on hover (title) and on the clipboard through the copy button.
 * The button's hint is a plain title: a Mantine Tooltip per row mounted a floating element in
 * every row of the MIS Report and Message Jobs (reads bench: about 80 ms of the first rows).
 * `data-job-id` names the full id for whoever reads the table (the e2e tests).
 */
export function JobId(props: { id: string }) {
  const short = shortJobId(props.id);
  return (
    <Group gap={2} wrap="nowrap" component="span">
      <Text
        span
        size="xs"
        ff="monospace"
        title={props.id}
        data-job-id={props.id}
        style={{ whiteSpace: 'nowrap' }}
      >
        {short}
      </Text>
      <CopyButton value={props.id}>
        {({ copied, copy }) => (
          <ActionIcon
            size="sm"
            variant="subtle"
            color={copied ? 'teal' : 'gray'}
            onClick={copy}
            aria-label={`Copy job ID ${short}`}
            title={copied ? 'Copied' : 'Copy the full job ID'}
          >
            {copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
          </ActionIcon>
        )}
      </CopyButton>
    </Group>
  );
}
