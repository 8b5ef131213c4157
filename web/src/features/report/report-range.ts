/** Dates picked in the From and To inputs (`YYYY-MM-DD`), as instants in the browser's zone. */
export type DateRange = { from: string; to: string };

const localDay = (ymd: string): Date | null => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
};

/**
 * From-only is on or after the From day, to-only on or before the To day, both
 * inclusive together. Bounds are the start of From and the end of To, local time.
 */
export function rangeBounds(range: DateRange): { from: Date | null; to: Date | null } {
  const from = localDay(range.from);
  const toDay = localDay(range.to);
  const to = toDay ? new Date(toDay.getFullYear(), toDay.getMonth(), toDay.getDate(), 23, 59, 59, 999) : null;
  return { from, to };
}

/** The From and To inputs show and take dates as en-IN writes them. */
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

const ymd = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

export const QUICK_RANGES = [
  { value: 'today', label: 'Today' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: 'month', label: 'This month' },
] as const;
export type QuickRange = (typeof QUICK_RANGES)[number]['value'];

/** A quick range as From and To days (local), today included: 'Last 7 days' is today and the 6 before. */
export function quickRange(kind: QuickRange, now = new Date()): DateRange {
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const back = (days: number) => new Date(today.getFullYear(), today.getMonth(), today.getDate() - days);
  const from =
    kind === 'today'
      ? today
      : kind === '7d'
        ? back(6)
        : kind === '30d'
          ? back(29)
          : new Date(today.getFullYear(), today.getMonth(), 1);
  return { from: ymd(from), to: ymd(today) };
}

/** Which quick range a range is, if any (the button shown as chosen). */
export function quickRangeOf(range: DateRange, now = new Date()): QuickRange | null {
  return (
    QUICK_RANGES.find((q) => {
      const r = quickRange(q.value, now);
      return r.from === range.from && r.to === range.to;
    })?.value ?? null
  );
}

/** Said when From is after To (a reversed range said only 'No jobs found'). */
export function reversedText(range: DateRange): string | null {
  if (!range.from || !range.to || range.from <= range.to) return null;
  return `From (${enIN(range.from)}) is after To (${enIN(range.to)}): no day is in this range. Swap the dates or change one of them.`;
}
