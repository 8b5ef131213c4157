/**
 * Dates as people in India type them (en-IN: day first), for the schedule pickers. The pickers
 * hold Mantine's value strings: `YYYY-MM-DD HH:mm:ss` with a time, `YYYY-MM-DD` without.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** The display format of the pickers (dayjs tokens), e.g. 24/11/2026, 02:30 pm. */
export const DATE_FORMAT = 'DD/MM/YYYY';
export const DATE_TIME_FORMAT = 'DD/MM/YYYY, hh:mm a';

const ISO = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?)?$/;
const DAY_FIRST =
  /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[,\s]+(\d{1,2})[:.](\d{2})(?:[:.]\d{2})?\s*([ap])\.?\s*m?\.?)?$/i;
const DAY_FIRST_24H = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})[,\s]+(\d{1,2})[:.](\d{2})(?:[:.]\d{2})?$/;

/**
 * Reads `24/11/2026`, `24/11/2026, 2:30 pm`, `24-11-2026 14:30` or an ISO `2026-11-24T14:30`.
 * `withTime`: a time is required (and returned); without, only the date is read. Null when the
 * text is not (yet) a real date.
 */
export function parseDateText(text: string, withTime: boolean): string | null {
  const t = text.trim();
  let y: number;
  let mo: number;
  let d: number;
  let h: number | null = null;
  let mi = 0;
  const iso = ISO.exec(t);
  const dayFirst = iso ? null : (DAY_FIRST_24H.exec(t) ?? DAY_FIRST.exec(t));
  if (iso) {
    [y, mo, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
    if (iso[4] !== undefined) [h, mi] = [Number(iso[4]), Number(iso[5])];
  } else if (dayFirst) {
    [d, mo, y] = [Number(dayFirst[1]), Number(dayFirst[2]), Number(dayFirst[3])];
    if (dayFirst[4] !== undefined) {
      [h, mi] = [Number(dayFirst[4]), Number(dayFirst[5])];
      const half = dayFirst[6]?.toLowerCase();
      if (half) {
        if (h < 1 || h > 12) return null;
        h = (h % 12) + (half === 'p' ? 12 : 0);
      }
    }
  } else return null;
  if (withTime && h === null) return null;
  const hour = h ?? 0;
  if (hour > 23 || mi > 59) return null;
  // A real calendar day: 31/02 rolls over in Date and is refused here.
  const at = new Date(y, mo - 1, d, hour, mi);
  if (at.getFullYear() !== y || at.getMonth() !== mo - 1 || at.getDate() !== d) return null;
  const date = `${y}-${pad(mo)}-${pad(d)}`;
  return withTime ? `${date} ${pad(hour)}:${pad(mi)}:00` : date;
}

/** Today's date as a picker value (`YYYY-MM-DD`), the earliest day the schedule pickers offer. */
export const todayValue = (now = new Date()): string =>
  `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;

/** A date-time picker value as the local `YYYY-MM-DDTHH:mm:ss` that `new Date` reads. */
export const toLocalDateTime = (value: string): string => value.replace(' ', 'T');
