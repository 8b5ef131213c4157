import { Group, Title } from '@mantine/core';
import { BalanceBubble } from '../../components/BalanceBubble.tsx';
import { NoCreditsNote } from '../../components/FirstRunNotices.tsx';
import { DraftNote } from './DraftNote.tsx';
import { LeaveGuard } from './LeaveGuard.tsx';

/**
 * The top of a send page: its title and the balance, the note for a user without credits, the
 * restored draft's note, and the question before leaving with `selected` recipients unsent.
 */
export function SendPageTop(props: {
  title: string;
  balance: number;
  draft: { restoredAt: string | null; dismiss: () => void; discard: () => void };
  /** Clears the page's fields once the draft is discarded. */
  onDiscard: () => void;
  selected: number;
}) {
  return (
    <>
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={1} size="h2">
          {props.title}
        </Title>
        <BalanceBubble />
      </Group>
      <NoCreditsNote balance={props.balance} />
      <DraftNote
        savedAt={props.draft.restoredAt}
        onDismiss={props.draft.dismiss}
        onDiscard={() => {
          props.draft.discard();
          props.onDiscard();
        }}
      />
      <LeaveGuard selected={props.selected} />
    </>
  );
}
