import { Alert, Checkbox, Group, Paper, ScrollArea, Table, Text, Title } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { formatNumber } from '../../lib/format.ts';
import { CREDIT_TEXTS, creditLimit } from './credit-limit.ts';

/**
 * The selection a page keeps, seen by row: the group page keeps a set of group ids, the bulk
 * page a bitmap of a million rows (no set of a million strings to build on Select All).
 */
export type RowSelection = {
  size: number;
  has: (index: number) => boolean;
  /** The selection equals the list (Select All ticked). */
  everything: boolean;
  /** Rules of credit-limit.ts: ticking stops at the balance; unticking always works. */
  toggle: (index: number) => void;
  toggleAll: (checked: boolean) => void;
};

const ROW_HEIGHT = 41;
/**
 * Rows are measured (a long group name wraps) only in lists up to this length: each measured
 * row makes the virtualizer recompute the offsets of every row after it, a million for a big CSV.
 */
const MEASURED_ROWS_MAX = 10_000;
const MAX_HEIGHT = 440;

/**
 * The Select / name table of both send pages, with Select All, 'N of M selected' and the
 * credit-limit rules of DECISIONS.md. Only the visible rows are rendered, so 5,000 rows stay smooth;
 * rows are given as plain arrays (no object per row: a CSV may hold a million numbers).
 */
export function RecipientTable(props: {
  title: string;
  nameHeader: string;
  kind: 'groups' | 'contacts';
  /** Row ids (group ids or phone numbers), in list order. */
  ids: readonly string[];
  /** What each row shows, when not its id. */
  names?: readonly string[];
  selection: RowSelection;
  balance: number;
  loading: boolean;
  loadingText: string;
  emptyText: string;
  disabled?: boolean;
}) {
  const { ids, names, selection, balance } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: ids.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    // A row never measures below its estimate: a row measured at 0 (not laid out yet) would
    // otherwise make the virtualizer render ever more rows.
    measureElement: (el) => Math.max(el.getBoundingClientRect().height, ROW_HEIGHT),
    overscan: 12,
  });
  const measured = ids.length <= MEASURED_ROWS_MAX;
  const limit = creditLimit(ids.length, selection.size, balance);
  const everything = selection.everything;
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  const showList = !props.loading && ids.length > 0;

  return (
    <Paper withBorder p="md" radius="md">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={3} size="h4">
          {props.title}
        </Title>
        <Text size="sm" c="dimmed" aria-live="polite">
          {formatNumber(selection.size)} of {formatNumber(ids.length)} selected
        </Text>
      </Group>
      {showList && limit.selectAllDisabled && (
        <Alert color="yellow" variant="light" mb="sm">
          {props.kind === 'groups' ? CREDIT_TEXTS.groups : CREDIT_TEXTS.contacts}
        </Alert>
      )}
      {showList && limit.atLimit && (
        <Alert color="orange" variant="light" mb="sm">
          {CREDIT_TEXTS.reached}
        </Alert>
      )}
      {props.loading ? (
        <Text c="dimmed" py="md">
          {props.loadingText}
        </Text>
      ) : ids.length === 0 ? (
        <Text c="dimmed" py="md">
          {props.emptyText}
        </Text>
      ) : (
        <ScrollArea.Autosize mah={MAX_HEIGHT} viewportRef={scrollRef} type="auto">
          <Table stickyHeader highlightOnHover miw={280} aria-label={props.title}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={90}>
                  <Group gap={8} wrap="nowrap">
                    <Checkbox
                      aria-label="Select All"
                      checked={everything}
                      indeterminate={selection.size > 0 && !everything}
                      disabled={props.disabled || limit.selectAllDisabled}
                      onChange={(e) => selection.toggleAll(e.currentTarget.checked)}
                    />
                    <span>Select</span>
                  </Group>
                </Table.Th>
                <Table.Th>{props.nameHeader}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {padTop > 0 && (
                <tr aria-hidden>
                  <td colSpan={2} style={{ height: padTop, padding: 0, border: 0 }} />
                </tr>
              )}
              {items.map((item) => {
                const id = ids[item.index]!;
                const name = names?.[item.index] ?? id;
                const isSelected = selection.has(item.index);
                return (
                  <Table.Tr
                    key={id}
                    ref={measured ? virtualizer.measureElement : undefined}
                    data-index={item.index}
                    h={ROW_HEIGHT}
                    bg={isSelected ? 'var(--mantine-primary-color-light)' : undefined}
                  >
                    <Table.Td>
                      <Checkbox
                        aria-label={`Select ${name}`}
                        checked={isSelected}
                        disabled={props.disabled || (!isSelected && limit.atLimit)}
                        onChange={() => selection.toggle(item.index)}
                      />
                    </Table.Td>
                    <Table.Td style={{ wordBreak: 'break-word' }}>{name}</Table.Td>
                  </Table.Tr>
                );
              })}
              {padBottom > 0 && (
                <tr aria-hidden>
                  <td colSpan={2} style={{ height: padBottom, padding: 0, border: 0 }} />
                </tr>
              )}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      )}
    </Paper>
  );
}
