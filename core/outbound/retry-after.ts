// `Retry-After` read for the webhook transport (a receiver's answer) and render engines (a vendor's).
const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};
// RFC 9110 §5.6.7: recipients must accept IMF-fixdate and the two obsolete forms.
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^[A-Za-z]+, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * `Retry-After` in ms from `nowMs`: delta-seconds or an HTTP-date (a date already past is 0).
 * Null when absent or malformed. Date.parse is not used: it accepts almost anything ("7.5" is a
 * date in V8) and reads asctime dates as local time.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : null;
  }
  const date = parseHttpDate(text);
  return date === null ? null : Math.max(0, date - nowMs);
}

function parseHttpDate(text: string): number | null {
  let parts: { day: string; month: string; year: number; hh: string; mm: string; ss: string };
  let m: RegExpExecArray | null;
  if ((m = IMF_FIXDATE.exec(text))) {
    parts = { day: m[1]!, month: m[2]!, year: Number(m[3]), hh: m[4]!, mm: m[5]!, ss: m[6]! };
  } else if ((m = RFC850_DATE.exec(text))) {
    // RFC 9110: a two-digit year more than 50 years in the future means the previous century.
    const yy = Number(m[3]);
    const year = 2000 + yy > new Date().getUTCFullYear() + 50 ? 1900 + yy : 2000 + yy;
    parts = { day: m[1]!, month: m[2]!, year, hh: m[4]!, mm: m[5]!, ss: m[6]! };
  } else if ((m = ASCTIME_DATE.exec(text))) {
    parts = { month: m[1]!, day: m[2]!, hh: m[3]!, mm: m[4]!, ss: m[5]!, year: Number(m[6]) };
  } else {
    return null;
  }
  const month = MONTHS[parts.month.toLowerCase()];
  const [day, hours, minutes, seconds] = [
    Number(parts.day.trim()),
    Number(parts.hh),
    Number(parts.mm),
    Number(parts.ss),
  ];
  if (month === undefined || day < 1 || hours > 23 || minutes > 59 || seconds > 60) return null;
  // A leap second (:60) is read as :59 rather than rolling into the next minute.
  const ms = Date.UTC(parts.year, month, day, hours, minutes, Math.min(seconds, 59));
  // Date.UTC rolls over (Feb 31 becomes Mar 3); such a date is malformed, not a later one.
  return new Date(ms).getUTCDate() === day ? ms : null;
}
