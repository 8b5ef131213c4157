import { Card, Center, Group, Loader, Paper, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { Key, ReactNode } from 'react';
import { KEYBOARD_SCROLL } from '../lib/a11y.ts';
import { SMALL_SCREEN } from './VirtualTable.tsx';

export type CardField = { label: string; value: ReactNode };

/**
 * One row of a table drawn as a card below 768 px (issue 18): a title, every field as
 * 'label: value' (a description list) and the row's actions, wrapping, at the bottom.
 */
export function RowCard(props: { title: ReactNode; fields: readonly CardField[]; actions?: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="sm">
      <Stack gap={6}>
        <Text component="div" fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
          {props.title}
        </Text>
        <dl style={{ margin: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', gap: '4px 12px' }}>
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
        {props.actions && (
          <Group gap={6} wrap="wrap">
            {props.actions}
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

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
  /** Below 768 px each row is drawn by this as a card (a `RowCard`), in a list. */
  card?: (row: T, index: number) => ReactNode;
}) {
  const small = useMediaQuery(SMALL_SCREEN, false, { getInitialValueInEffect: false });
  const span = props.columns.length;
  if (props.card && small) {
    const card = props.card;
    return props.loading ? (
      <Center py="md">
        <Loader size="sm" aria-label={props.loadingLabel} />
      </Center>
    ) : props.rows.length === 0 ? (
      <Paper withBorder radius="md" p="md">
        <Text c="dimmed" ta="center">
          {props.empty}
        </Text>
      </Paper>
    ) : (
      <Stack component="ul" aria-label={props.label} gap="xs" p={0} m={0} style={{ listStyle: 'none' }}>
        {props.rows.map((row, i) => (
          <li key={props.rowKey(row)}>{card(row, i)}</li>
        ))}
      </Stack>
    );
  }
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
