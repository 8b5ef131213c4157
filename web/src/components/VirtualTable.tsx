import { Table } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { measureElement, useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, type ReactNode, useEffect, useRef } from 'react';

const MIN_ROW_HEIGHT = 24;

/** Below Mantine's `sm` breakpoint (768 px) long lists are drawn as cards (issue 18). */
export const SMALL_SCREEN = '(max-width: 47.99em)';

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
  /**
   * Columns share the box's width and their text wraps, so that no sideways scrolling is
   * needed (issue 18: tables that fit at 1280 px); otherwise the table is as wide as its content.
   */
  fit?: boolean;
  /** Below 768 px each row is drawn by this as a card (every field and action), in a list. */
  renderCard?: (item: T, index: number) => ReactNode;
}) {
  const small = useMediaQuery(SMALL_SCREEN, false, { getInitialValueInEffect: false });
  const asCards = !!props.renderCard && small;
  const scrollRef = useRef<HTMLElement>(null);
  const { items, getKey } = props;
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => (asCards ? props.estimateRowHeight * 2.5 : props.estimateRowHeight),
    // The virtualizer may ask once more for a row of a longer, previous list.
    getItemKey: (index) => (index < items.length ? getKey(items[index]!) : index),
    overscan: 6,
    // A row not laid out yet measures 0, which would make the virtualizer draw ever more rows.
    measureElement: (el, entry, instance) => Math.max(measureElement(el, entry, instance), MIN_ROW_HEIGHT),
    // A first guess before the box is measured (and the only size jsdom ever reports).
    initialRect: { width: 1200, height: 700 },
  });
  // Sizes measured as rows are wrong for cards, and the other way round.
  useEffect(() => {
    if (asCards !== undefined) virtualizer.measure();
  }, [asCards, virtualizer]);
  const rows = virtualizer.getVirtualItems();
  const paddingTop = rows[0]?.start ?? 0;
  const paddingBottom = rows.length > 0 ? virtualizer.getTotalSize() - rows[rows.length - 1]!.end : 0;

  if (asCards) {
    return (
      <section
        ref={scrollRef}
        style={{ maxHeight: props.maxHeight ?? 'min(70vh, 720px)', overflowY: 'auto', overflowX: 'hidden' }}
        data-testid="virtual-table-scroll"
        aria-label={`${props.label} (scrolls)`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard
        tabIndex={0}
      >
        <ul
          aria-label={props.label}
          style={{ listStyle: 'none', margin: 0, padding: 0, paddingTop, paddingBottom }}
        >
          {rows.map((row) => (
            <li
              key={row.key}
              ref={virtualizer.measureElement}
              data-index={row.index}
              style={{ paddingBottom: 'var(--mantine-spacing-xs)' }}
            >
              {props.renderCard!(items[row.index]!, row.index)}
            </li>
          ))}
        </ul>
      </section>
    );
  }

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
        // Unless `fit`: as wide as the content needs (at least the box), never squeezed to ellipses.
        style={props.fit ? { width: '100%' } : { width: 'max-content', minWidth: '100%' }}
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
