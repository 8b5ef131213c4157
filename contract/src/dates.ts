/**
 * The instants a date input may name: from 2000 to the end of year 9999. Both PostgreSQL and
 * JavaScript hold them and an ISO text of them has a four-digit year (`+010000-01-01` parses in
 * JavaScript but not in PostgreSQL).
 */
export const DATE_INPUT_MIN_MS = Date.UTC(2000, 0, 1);
export const DATE_INPUT_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * Every date input (a schedule time, a repeat's end, a Status time, a Cloud status timestamp):
 * a text JavaScript reads as a date, or milliseconds since 1970, within the bounds above; null
 * otherwise, for the caller's 400.
 */
export function parseDateInput(value: string | number): Date | null {
  if (typeof value === 'string' && value.trim() === '') return null;
  const ms = typeof value === 'number' ? value : new Date(value).getTime();
  if (!Number.isFinite(ms) || ms < DATE_INPUT_MIN_MS || ms > DATE_INPUT_MAX_MS) return null;
  return new Date(ms);
}
