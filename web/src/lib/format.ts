/** One formatting module for numbers and dates: en-IN numbers, the browser's time zone. */
const numberFormat = new Intl.NumberFormat('en-IN');

export const formatNumber = (n: number): string => numberFormat.format(n);

const pad = (n: number) => String(n).padStart(2, '0');

/** Local date and time, e.g. 21/11/2026, 3:05:09 pm. */
export const formatDateTime = (iso: string | Date | null | undefined): string => {
  if (!iso) return '';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString('en-IN');
};

/** Group dates: `DD-MM-YYYY hh:mm AM/PM` with the real AM or PM (docs/decisions.md, Groups). */
export const formatGroupDate = (iso: string | Date | null | undefined): string => {
  if (!iso) return '';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return '';
  const h = d.getHours();
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${pad(d.getDate())}-${pad(d.getMonth() + 1)}-${d.getFullYear()} ${pad(h12)}:${pad(d.getMinutes())} ${h < 12 ? 'AM' : 'PM'}`;
};

/** File size in KB with 2 decimals (docs/decisions.md, Kept to the letter). */
export const formatKB = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KB`;

/** Elapsed time rounded to seconds. */
export const formatSeconds = (ms: number): string => `${Math.round(ms / 1000)}s`;

/** A value for `<input type="datetime-local">` in local time, to the minute. */
export const toLocalInputValue = (d: Date): string =>
  `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
