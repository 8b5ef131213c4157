import { ActionIcon, CopyButton } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/**
 * An icon button that puts `value` on the clipboard. Its name is `label` alone: a button whose
 * visible text is the value would have to be named by that text (axe's
 * label-content-name-mismatch), so the value is shown beside it, not inside it.
 */
export function CopyIconButton(props: { value: string; label: string; title: string }) {
  return (
    <CopyButton value={props.value}>
      {({ copied, copy }) => (
        <ActionIcon
          size="sm"
          variant="subtle"
          color={copied ? 'teal' : 'gray'}
          onClick={copy}
          aria-label={props.label}
          title={copied ? 'Copied' : props.title}
        >
          {copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
        </ActionIcon>
      )}
    </CopyButton>
  );
}
