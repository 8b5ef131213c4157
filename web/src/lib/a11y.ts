import type { ScrollAreaProps } from '@mantine/core';

/**
 * For a table's scroll area: Tab stops on the scrolling box and the arrow keys scroll it, so a
 * keyboard reaches columns beyond the edge (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export const KEYBOARD_SCROLL: ScrollAreaProps = { viewportProps: { tabIndex: 0 } };
