/**
 * Wall-clock arithmetic in an account's time zone (IANA name), with Intl only: the start of the
 * local day, the next time the clock reads HH:MM, and whether it is inside a window that may
 * cross midnight. Instants are found by correcting for the zone's offset twice, so the days
 * of a daylight-saving change come out right.
 */

type Wall = { y: number; mo: number; d: number; h: number; mi: number };

const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(tz, f);
  }
  return f;
}

/** The wall clock in `tz` at `at`, read from Intl (tens of microseconds a call). */
function wallFromIntl(at: number, tz: string): Wall & { s: number } {
  const parts: Record<string, number> = {};
  for (const p of formatOf(tz).formatToParts(new Date(at))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    y: parts.year!,
    mo: parts.month!,
    d: parts.day!,
    h: parts.hour!,
    mi: parts.minute!,
    s: parts.second!,
  };
}

/**
 * Offsets by zone and UTC minute. A zone's offset changes only on a whole minute, so the offset
 * at a minute's start holds for all of it: the sending loop asks several times a message, and
 * reading Intl each time took a quarter of the dispatcher's CPU.
 */
const offsets = new Map<string, Map<number, number>>();
const OFFSETS_KEPT = 10_000;

/** The zone's offset from UTC at `at`, in ms (wall time read as UTC minus the instant). */
function offsetAt(at: number, tz: string): number {
  const minute = Math.floor(at / 60_000) * 60_000;
  let zone = offsets.get(tz);
  if (!zone) {
    zone = new Map();
    offsets.set(tz, zone);
  }
  let offset = zone.get(minute);
  if (offset === undefined) {
    const w = wallFromIntl(minute, tz);
    offset = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - minute;
    if (zone.size >= OFFSETS_KEPT) zone.clear();
    zone.set(minute, offset);
  }
  return offset;
}

function wallOf(at: number, tz: string): Wall & { s: number } {
  const local = new Date(at + offsetAt(at, tz));
  return {
    y: local.getUTCFullYear(),
    mo: local.getUTCMonth() + 1,
    d: local.getUTCDate(),
    h: local.getUTCHours(),
    mi: local.getUTCMinutes(),
    s: local.getUTCSeconds(),
  };
}

/** The instant at which the wall clock in `tz` reads the given time (day overflow allowed). */
function instantOf(w: Wall, tz: string): number {
  const asUtc = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi);
  const first = asUtc - offsetAt(asUtc, tz);
  const second = asUtc - offsetAt(first, tz);
  return second;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The start of the local day that holds `at`. */
export function localDayStart(at: Date, tz: string): Date {
  const w = wallOf(at.getTime(), tz);
  return new Date(instantOf({ ...w, h: 0, mi: 0 }, tz));
}

/** The first instant after `at` at which the local clock reads `hhmm`. */
export function nextLocalTime(at: Date, tz: string, hhmm: string): Date {
  const w = wallOf(at.getTime(), tz);
  const target = minutesOf(hhmm);
  const today = instantOf({ ...w, h: Math.floor(target / 60), mi: target % 60 }, tz);
  if (today > at.getTime()) return new Date(today);
  return new Date(instantOf({ ...w, d: w.d + 1, h: Math.floor(target / 60), mi: target % 60 }, tz));
}

/** Whether the local time at `at` lies in [start, end); a window with end before start crosses midnight. */
export function insideWindow(at: Date, tz: string, start: string, end: string): boolean {
  const w = wallOf(at.getTime(), tz);
  const m = w.h * 60 + w.mi;
  const s = minutesOf(start);
  const e = minutesOf(end);
  return s < e ? m >= s && m < e : m >= s || m < e;
}

/** The day number of `at` counted from the local day of `since` (that day is day 1). */
export function localDayNumber(since: Date, at: Date, tz: string): number {
  const days = (localDayStart(at, tz).getTime() - localDayStart(since, tz).getTime()) / 86_400_000;
  return Math.round(days) + 1;
}
