import { Table } from '@mantine/core';
import { measureElement, useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, type ReactNode, useRef } from 'react';

const MIN_ROW_HEIGHT = 24;

export type VirtualRowProps = {
  ref: (node: HTMLTableRowElement | null) => void;
  'data-index': number;
  'aria-rowindex': number;
};

/**
 * A table that renders only the rows in view (STYLE.md: long lists render only the visible
 * rows). It scrolls inside its own box, both ways, so that it stays usable at 360 px; rows may
 * have any height (each is measured once drawn).
 */
export function VirtualTable<T>(props: {
  /** The table's accessible name. */
  label: string;
  items: readonly T[];
  getKey: (item: T) => string;
  estimateRowHeight: number;
  /** The header cells (`<Table.Th>`s). */
  header: ReactNode;
  columnCount: number;
  renderRow: (item: T, index: number, rowProps: VirtualRowProps) => ReactNode;
  maxHeight?: string;
}) {
  const scrollRef = useRef<HTMLElement>(null);
  const { items, getKey } = props;
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => props.estimateRowHeight,
    // The virtualizer may ask once more for a row of a longer, previous list.
    getItemKey: (index) => (index < items.length ? getKey(items[index]!) : index),
    overscan: 6,
    // A row not laid out yet measures 0, which would make the virtualizer draw ever more rows.
    measureElement: (el, entry, instance) => Math.max(measureElement(el, entry, instance), MIN_ROW_HEIGHT),
    // A first guess before the box is measured (and the only size jsdom ever reports).
    initialRect: { width: 1200, height: 700 },
  });
  const rows = virtualizer.getVirtualItems();
  const paddingTop = rows[0]?.start ?? 0;
  const paddingBottom = rows.length > 0 ? virtualizer.getTotalSize() - rows[rows.length - 1]!.end : 0;

  return (
    // A scrolling region is reached by keyboard (WCAG 2.1.1): Tab stops on it, arrows scroll it.
    <section
      ref={scrollRef}
      style={{ maxHeight: props.maxHeight ?? 'min(70vh, 720px)', overflow: 'auto' }}
      data-testid="virtual-table-scroll"
      aria-label={`${props.label} (scrolls)`}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
      tabIndex={0}
    >
      <Table
        stickyHeader
        striped
        highlightOnHover
        verticalSpacing="xs"
        // As wide as the content needs (at least the box): columns are never squeezed to ellipses.
        style={{ width: 'max-content', minWidth: '100%' }}
        aria-label={props.label}
        aria-rowcount={items.length + 1}
      >
        <Table.Thead>
          <Table.Tr aria-rowindex={1}>{props.header}</Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {paddingTop > 0 && (
            <tr>
              <td colSpan={props.columnCount} style={{ height: paddingTop, padding: 0, border: 0 }} />
            </tr>
          )}
          {rows.map((row) => (
            <Fragment key={row.key}>
              {props.renderRow(items[row.index]!, row.index, {
                ref: virtualizer.measureElement,
                'data-index': row.index,
                'aria-rowindex': row.index + 2,
              })}
            </Fragment>
          ))}
          {paddingBottom > 0 && (
            <tr>
              <td colSpan={props.columnCount} style={{ height: paddingBottom, padding: 0, border: 0 }} />
            </tr>
          )}
        </Table.Tbody>
      </Table>
    </section>
  );
}
