import { Alert, Checkbox, Group, Paper, Table, Text, Title } from '@mantine/core';
import { ListTable } from '../../components/ListTable.tsx';
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
 * credit-limit rules of docs/decisions.md (Credits). Only the visible rows are rendered, so 5,000 rows stay smooth;
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
  const limit = creditLimit(ids.length, selection.size, balance);
  const everything = selection.everything;
  const columns = [
    {
      header: (
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
      ),
      w: 90,
    },
    { header: props.nameHeader },
  ];

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
      <ListTable
        label={props.title}
        rows={ids}
        rowKey={(id) => id}
        columns={columns}
        loading={props.loading}
        loadingText={props.loadingText}
        empty={props.emptyText}
        notice={
          <>
            {limit.selectAllDisabled && (
              <Alert color="yellow" variant="light" mb="sm">
                {props.kind === 'groups' ? CREDIT_TEXTS.groups : CREDIT_TEXTS.contacts}
              </Alert>
            )}
            {limit.atLimit && (
              <Alert color="orange" variant="light" mb="sm">
                {CREDIT_TEXTS.reached}
              </Alert>
            )}
          </>
        }
        virtual={{
          estimateRowHeight: ROW_HEIGHT,
          maxHeight: `${MAX_HEIGHT}px`,
          fit: true,
          measure: ids.length <= MEASURED_ROWS_MAX,
          overscan: 12,
        }}
        tableProps={{ striped: false, miw: 280, verticalSpacing: undefined }}
        rowProps={(_id, index) => ({
          h: ROW_HEIGHT,
          bg: selection.has(index) ? 'var(--mantine-primary-color-light)' : undefined,
        })}
        cells={(id, index) => {
          const name = names?.[index] ?? id;
          const isSelected = selection.has(index);
          return (
            <>
              <Table.Td>
                <Checkbox
                  aria-label={`Select ${name}`}
                  checked={isSelected}
                  disabled={props.disabled || (!isSelected && limit.atLimit)}
                  onChange={() => selection.toggle(index)}
                />
              </Table.Td>
              <Table.Td style={{ wordBreak: 'break-word' }}>{name}</Table.Td>
            </>
          );
        }}
      />
    </Paper>
  );
}
