import { Table } from '@mantine/core';
import { measureElement, useVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, type RefObject, useEffect, useRef, useState } from 'react';
import type { ListTableProps, VirtualOptions } from './ListTable.tsx';

const MIN_ROW_HEIGHT = 24;

type FixedRow = { key: string | number; index: number; start: number; end: number };

/**
 * The visible rows of a long list of rows of one height, from the scroll position alone. The
 * virtualizer keeps an offset object per row, built again whenever the count changes: for a
 * million-line upload that was the bulk page's longest main-thread task.
 */
function useFixedRows(
  count: number,
  rowHeight: number,
  overscan: number,
  key: (index: number) => string | number,
  scrollRef: RefObject<HTMLElement | null>,
) {
  const [view, setView] = useState({ top: 0, height: 700 });
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || count === 0) return;
    const read = () => setView({ top: el.scrollTop, height: el.clientHeight || 700 });
    read();
    el.addEventListener('scroll', read, { passive: true });
    return () => el.removeEventListener('scroll', read);
  }, [count, scrollRef]);
  const first = Math.max(0, Math.floor(view.top / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((view.top + view.height) / rowHeight) + overscan);
  const items: FixedRow[] = [];
  for (let i = first; i < last; i++)
    items.push({ key: key(i), index: i, start: i * rowHeight, end: (i + 1) * rowHeight });
  return { items, totalSize: count * rowHeight };
}

/**
 * ListTable's long lists: only the rows in view are rendered (STYLE.md). The rows scroll inside
 * their own box, both ways, so that it stays usable at 360 px; rows may have any height (each is
 * measured once drawn, unless `measure` is false). Below 768 px, with a `card`, a list of cards.
 */
export function VirtualRows<T>(
  props: ListTableProps<T> & { options: VirtualOptions; asCards: boolean; header: ReactNode },
) {
  const { rows, rowKey, options, asCards } = props;
  const measure = options.measure !== false;
  const scrollRef = useRef<HTMLElement>(null);
  // Rows of one height, unmeasured, as table rows: drawn from the scroll position alone.
  const fixedRows = !measure && !asCards;
  const itemKey = (index: number) =>
    (index < rows.length ? rowKey(rows[index]!, index) : index) as string | number;
  const fixed = useFixedRows(
    fixedRows ? rows.length : 0,
    options.estimateRowHeight,
    options.overscan ?? 6,
    itemKey,
    scrollRef,
  );
  const virtualizer = useVirtualizer({
    count: fixedRows ? 0 : rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => (asCards ? options.estimateRowHeight * 2.5 : options.estimateRowHeight),
    // The virtualizer may ask once more for a row of a longer, previous list.
    getItemKey: itemKey,
    overscan: options.overscan ?? 6,
    // A row not laid out yet measures 0, which would make the virtualizer draw ever more rows.
    measureElement: (el, entry, instance) => Math.max(measureElement(el, entry, instance), MIN_ROW_HEIGHT),
    // A first guess before the box is measured (and the only size jsdom ever reports).
    initialRect: { width: 1200, height: 700 },
  });
  // Sizes measured as rows are wrong for cards, and the other way round.
  useEffect(() => {
    if (asCards !== undefined) virtualizer.measure();
  }, [asCards, virtualizer]);
  const items: readonly FixedRow[] = fixedRows
    ? fixed.items
    : virtualizer
        .getVirtualItems()
        .map((v) => ({ key: v.key as string | number, index: v.index, start: v.start, end: v.end }));
  const totalSize = fixedRows ? fixed.totalSize : virtualizer.getTotalSize();
  const paddingTop = items[0]?.start ?? 0;
  const paddingBottom = items.length > 0 ? totalSize - items[items.length - 1]!.end : 0;
  const maxHeight = options.maxHeight ?? 'min(70vh, 720px)';
  const ref = measure ? virtualizer.measureElement : undefined;

  if (asCards) {
    return (
      <section
        ref={scrollRef}
        style={{ maxHeight, overflowY: 'auto', overflowX: 'hidden' }}
        data-testid="virtual-table-scroll"
        aria-label={`${props.label} (scrolls)`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard
        tabIndex={0}
      >
        <ul
          aria-label={props.label}
          style={{ listStyle: 'none', margin: 0, padding: 0, paddingTop, paddingBottom }}
        >
          {items.map((item) => (
            <li
              key={item.key}
              ref={ref}
              data-index={item.index}
              style={{ paddingBottom: 'var(--mantine-spacing-xs)' }}
            >
              {props.card!(rows[item.index]!, item.index)}
            </li>
          ))}
        </ul>
      </section>
    );
  }

  const span = props.columns.length;
  return (
    // A scrolling region is reached by keyboard (WCAG 2.1.1): Tab stops on it, arrows scroll it.
    <section
      ref={scrollRef}
      style={{ maxHeight, overflow: 'auto' }}
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
        style={options.fit ? { width: '100%' } : { width: 'max-content', minWidth: '100%' }}
        {...props.tableProps}
        aria-label={props.label}
        aria-rowcount={rows.length + 1}
      >
        <Table.Thead>
          <Table.Tr aria-rowindex={1}>{props.header}</Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {paddingTop > 0 && (
            <tr aria-hidden>
              <td colSpan={span} style={{ height: paddingTop, padding: 0, border: 0 }} />
            </tr>
          )}
          {items.map((item) => {
            const row = rows[item.index]!;
            return (
              <Table.Tr
                key={item.key}
                {...props.rowProps?.(row, item.index)}
                ref={ref}
                data-index={item.index}
                aria-rowindex={item.index + 2}
              >
                {props.cells(row, item.index)}
              </Table.Tr>
            );
          })}
          {paddingBottom > 0 && (
            <tr aria-hidden>
              <td colSpan={span} style={{ height: paddingBottom, padding: 0, border: 0 }} />
            </tr>
          )}
        </Table.Tbody>
      </Table>
    </section>
  );
}
