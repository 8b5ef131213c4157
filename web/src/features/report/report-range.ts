/** Dates picked in the From and To inputs (`YYYY-MM-DD`), as instants in the browser's zone. */
export type DateRange = { from: string; to: string };

const localDay = (ymd: string): Date | null => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
};

/**
 * Spec section 5: from-only is on or after the From day, to-only on or before the To day, both
 * inclusive together. Bounds are the start of From and the end of To, local time.
 */
export function rangeBounds(range: DateRange): { from: Date | null; to: Date | null } {
  const from = localDay(range.from);
  const toDay = localDay(range.to);
  const to = toDay ? new Date(toDay.getFullYear(), toDay.getMonth(), toDay.getDate(), 23, 59, 59, 999) : null;
  return { from, to };
}

/** The From and To inputs show and take dates as en-IN writes them (issue 18, item 10). */
export const DATE_FORMAT = 'DD/MM/YYYY';

/** `dd/mm/yyyy` (or `d/m/yyyy`, with `/`, `-` or `.`) typed in a date input, as `YYYY-MM-DD`; null if not a day. */
export function parseDay(text: string): string | null {
  const m = /^\s*(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\s*$/.exec(text);
  if (!m) return null;
  const d = new Date(Number(m[3]), Number(m[2]) - 1, Number(m[1]));
  if (d.getDate() !== Number(m[1]) || d.getMonth() !== Number(m[2]) - 1) return null;
  return `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
}

const enIN = (ymd: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : ymd;
};

/** The range as the print view heads the report: 'From 01/11/2026 to 23/11/2026', 'All dates'. */
export function rangeText(range: DateRange): string {
  if (range.from && range.to) return `From ${enIN(range.from)} to ${enIN(range.to)}`;
  if (range.from) return `From ${enIN(range.from)}`;
  if (range.to) return `Up to ${enIN(range.to)}`;
  return 'All dates';
}
