import { Alert, Checkbox, Group, Paper, ScrollArea, Table, Text, Title } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import { formatNumber } from '../../lib/format.ts';
import { allSelected, CREDIT_TEXTS, creditLimit, toggleAll, toggleOne } from './credit-limit.ts';

export type Recipient = { id: string; name: string };

const ROW_HEIGHT = 41;
const MAX_HEIGHT = 440;

/**
 * The Select / name table of both send pages, with Select All, 'N of M selected' and the
 * credit-limit rules of DECISIONS.md. Only the visible rows are rendered, so 5,000 rows stay smooth.
 */
export function RecipientTable(props: {
  title: string;
  nameHeader: string;
  kind: 'groups' | 'contacts';
  recipients: Recipient[];
  selected: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
  balance: number;
  loading: boolean;
  loadingText: string;
  emptyText: string;
  disabled?: boolean;
}) {
  const { recipients, selected, balance } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: recipients.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    // A row never measures below its estimate: a row measured at 0 (not laid out yet) would
    // otherwise make the virtualizer render ever more rows.
    measureElement: (el) => Math.max(el.getBoundingClientRect().height, ROW_HEIGHT),
    overscan: 12,
  });
  // A million uploaded numbers: not rebuilt on every click.
  const ids = useMemo(() => recipients.map((r) => r.id), [recipients]);
  const limit = creditLimit(recipients.length, selected.size, balance);
  const everything = allSelected(selected, ids);
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  const showList = !props.loading && recipients.length > 0;

  return (
    <Paper withBorder p="md" radius="md">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={3} size="h4">
          {props.title}
        </Title>
        <Text size="sm" c="dimmed" aria-live="polite">
          {formatNumber(selected.size)} of {formatNumber(recipients.length)} selected
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
      ) : recipients.length === 0 ? (
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
                      indeterminate={selected.size > 0 && !everything}
                      disabled={props.disabled || limit.selectAllDisabled}
                      onChange={(e) =>
                        props.onChange(toggleAll(selected, ids, balance, e.currentTarget.checked))
                      }
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
                const r = recipients[item.index];
                const isSelected = selected.has(r.id);
                return (
                  <Table.Tr
                    key={r.id}
                    ref={virtualizer.measureElement}
                    data-index={item.index}
                    h={ROW_HEIGHT}
                    bg={isSelected ? 'var(--mantine-primary-color-light)' : undefined}
                  >
                    <Table.Td>
                      <Checkbox
                        aria-label={`Select ${r.name}`}
                        checked={isSelected}
                        disabled={props.disabled || (!isSelected && limit.atLimit)}
                        onChange={() => props.onChange(toggleOne(selected, r.id, balance))}
                      />
                    </Table.Td>
                    <Table.Td style={{ wordBreak: 'break-word' }}>{r.name}</Table.Td>
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
