import { Card, Center, Loader, Table, Text } from '@mantine/core';
import type { Key, ReactNode } from 'react';
import { KEYBOARD_SCROLL } from '../lib/a11y.ts';

export type Column = { header: ReactNode; align?: 'left' | 'right' };

/**
 * The one shape of the app's short tables (instances, users, API keys, webhooks, audit log): a
 * bordered card that scrolls sideways below `minWidth` (STYLE.md: usable at 360 px), a
 * named table, a loader while loading and the empty text in words. Long lists use
 * VirtualTable instead.
 */
export function DataTable<T>(props: {
  label: string;
  columns: readonly Column[];
  rows: readonly T[];
  rowKey: (row: T) => Key;
  /** The row's cells (`Table.Td`s). */
  cells: (row: T, index: number) => ReactNode;
  loading: boolean;
  loadingLabel: string;
  empty: ReactNode;
  minWidth: number;
  highlightOnHover?: boolean;
  /** Inside another card: no card of its own. */
  bare?: boolean;
}) {
  const span = props.columns.length;
  const table = (
    <Table.ScrollContainer minWidth={props.minWidth} scrollAreaProps={KEYBOARD_SCROLL}>
      <Table striped highlightOnHover={props.highlightOnHover} verticalSpacing="sm" aria-label={props.label}>
        <Table.Thead>
          <Table.Tr>
            {props.columns.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the columns are a fixed list
              <Table.Th key={i} ta={c.align}>
                {c.header}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.loading ? (
            <Table.Tr>
              <Table.Td colSpan={span}>
                <Center py="md">
                  <Loader size="sm" aria-label={props.loadingLabel} />
                </Center>
              </Table.Td>
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
            props.rows.map((row, i) => <Table.Tr key={props.rowKey(row)}>{props.cells(row, i)}</Table.Tr>)
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
  return props.bare ? (
    table
  ) : (
    <Card withBorder radius="md" p={0}>
      {table}
    </Card>
  );
}
