import {
  Card,
  Center,
  Group,
  Loader,
  Paper,
  Stack,
  Table,
  type TableProps,
  type TableTrProps,
  Text,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { Key, ReactNode } from 'react';
import { KEYBOARD_SCROLL } from '../lib/a11y.ts';
import { VirtualRows } from './ListTableVirtual.tsx';

/** Below Mantine's `sm` breakpoint (768 px) lists are drawn as cards. */
export const SMALL_SCREEN = '(max-width: 47.99em)';

export type CardField = { label: string; value: ReactNode };

/**
 * Fields as 'label: value' lines (a description list): a row drawn as a card, or a summary of
 * what is about to happen (the schedule modal's).
 */
export function FieldList(props: { fields: readonly CardField[]; label?: string; labelWidth?: number }) {
  return (
    <dl
      aria-label={props.label}
      style={{
        margin: 0,
        display: 'grid',
        gridTemplateColumns: props.labelWidth ? `${props.labelWidth}px 1fr` : 'auto 1fr',
        gap: '4px 12px',
      }}
    >
      {props.fields.map((f) => (
        <div key={f.label} style={{ display: 'contents' }}>
          <Text component="dt" size="xs" c="dimmed" fw={600}>
            {f.label}
          </Text>
          <Text component="dd" size="sm" m={0} style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
            {f.value}
          </Text>
        </div>
      ))}
    </dl>
  );
}

/**
 * One row of a table drawn as a card below 768 px: a title, every field as
 * 'label: value' (a description list) and the row's actions, wrapping, at the bottom.
 */
export function RowCard(props: { title: ReactNode; fields: readonly CardField[]; actions?: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="sm">
      <Stack gap={6}>
        <Text component="div" fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
          {props.title}
        </Text>
        <FieldList fields={props.fields} />
        {props.actions && (
          <Group gap={6} wrap="wrap">
            {props.actions}
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

export type Column = { header: ReactNode; align?: 'left' | 'right'; w?: number | string };

/** Long lists: only the rows in view are drawn, inside a box of their own that scrolls. */
export type VirtualOptions = {
  estimateRowHeight: number;
  /** The scrolling box's height at most (CSS); 'min(70vh, 720px)' unless given. */
  maxHeight?: string;
  /**
   * Columns share the box's width and their text wraps, so that no sideways scrolling is
   * needed (tables that fit at 1280 px); otherwise the table is as wide as its content.
   */
  fit?: boolean;
  /**
   * Rows are measured once drawn (a long name wraps) unless false: each measured row makes the
   * virtualizer recompute the offsets of every row after it, a million for a big CSV.
   */
  measure?: boolean;
  overscan?: number;
};

export type ListTableProps<T> = {
  /** The table's (or the cards list's) accessible name. */
  label: string;
  columns: readonly Column[];
  rows: readonly T[];
  rowKey: (row: T, index: number) => Key;
  /** The row's cells (`Table.Td`s). */
  cells: (row: T, index: number) => ReactNode;
  /** Props of a row's `Table.Tr` (a selected row's background…). */
  rowProps?: (row: T, index: number) => TableTrProps;
  /** Below 768 px each row is drawn by this as a card (a `RowCard`), in a list. */
  card?: (row: T, index: number) => ReactNode;
  loading?: boolean;
  /** The loader's name, or the spec's loading text when `loadingText` is set. */
  loadingLabel?: string;
  /** Shown in words instead of a spinner while loading (the spec's 'Loading…' texts). */
  loadingText?: ReactNode;
  empty: ReactNode;
  /** Above the rows, while there are rows: a limit reached, a rule that applies to the list. */
  notice?: ReactNode;
  /** Long lists render only the visible rows (STYLE.md). */
  virtual?: VirtualOptions;
  /** Short tables: below this width the table scrolls sideways inside its card. */
  minWidth?: number;
  highlightOnHover?: boolean;
  /** Inside another card (a modal, a drawer): no card of its own. */
  bare?: boolean;
  /** Mantine Table props beyond the list's own (spacing, layout, font size). */
  tableProps?: TableProps;
};

/**
 * The one shape of the app's lists: a notice, then a named table (a loader while loading, the
 * empty text in words), each row a card below 768 px, and for long lists only the rows in view
 * drawn (`virtual`). Short tables scroll sideways below `minWidth` inside a bordered card.
 */
export function ListTable<T>(props: ListTableProps<T>) {
  const small = useMediaQuery(SMALL_SCREEN, false, { getInitialValueInEffect: false });
  const asCards = !!props.card && small;
  const span = props.columns.length;
  const loader = props.loadingText ? (
    <Text c="dimmed" py="md">
      {props.loadingText}
    </Text>
  ) : (
    <Center py="md">
      <Loader size="sm" aria-label={props.loadingLabel ?? 'Loading'} />
    </Center>
  );
  const header = props.columns.map((c, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the columns are a fixed list
    <Table.Th key={i} ta={c.align} w={c.w}>
      {c.header}
    </Table.Th>
  ));
  const notice = props.notice && props.rows.length > 0 && !props.loading ? props.notice : null;

  if (props.virtual) {
    const body = props.loading ? (
      loader
    ) : props.rows.length === 0 ? (
      <Text c="dimmed" py="md">
        {props.empty}
      </Text>
    ) : (
      <VirtualRows {...props} options={props.virtual} asCards={asCards} header={header} />
    );
    return (
      <>
        {notice}
        {body}
      </>
    );
  }

  if (asCards) {
    const card = props.card!;
    return (
      <>
        {notice}
        {props.loading ? (
          loader
        ) : props.rows.length === 0 ? (
          <Paper withBorder radius="md" p="md">
            <Text c="dimmed" ta="center">
              {props.empty}
            </Text>
          </Paper>
        ) : (
          <Stack component="ul" aria-label={props.label} gap="xs" p={0} m={0} style={{ listStyle: 'none' }}>
            {props.rows.map((row, i) => (
              <li key={props.rowKey(row, i)}>{card(row, i)}</li>
            ))}
          </Stack>
        )}
      </>
    );
  }
  const table = (
    <Table.ScrollContainer minWidth={props.minWidth ?? 0} scrollAreaProps={KEYBOARD_SCROLL}>
      <Table
        striped
        highlightOnHover={props.highlightOnHover}
        verticalSpacing="sm"
        {...props.tableProps}
        aria-label={props.label}
      >
        <Table.Thead>
          <Table.Tr>{header}</Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.loading ? (
            <Table.Tr>
              <Table.Td colSpan={span}>{loader}</Table.Td>
            </Table.Tr>
          ) : props.rows.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={span}>
                <Text c="dimmed" ta="center" py="md">
                  {props.empty}
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : (
            props.rows.map((row, i) => (
              <Table.Tr key={props.rowKey(row, i)} {...props.rowProps?.(row, i)}>
                {props.cells(row, i)}
              </Table.Tr>
            ))
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
  return (
    <>
      {notice}
      {props.bare ? (
        table
      ) : (
        <Card withBorder radius="md" p={0}>
          {table}
        </Card>
      )}
    </>
  );
}
