/**
 * Wall-clock time in a named time zone → the instant it denotes, through the IANA database that Node's `Intl`
 * carries (so daylight saving time is the zone's own rule for each date, past dates included).
 *
 * Release calendars are written in their publisher's local time ("4:30 p.m. Eastern"); the pipeline stores
 * instants. Pure.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's offset from UTC at instant `ms`, in milliseconds (New York in winter: −5 h). */
export function zoneOffsetMs(ms: number, timeZone: string): number {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return asUtc - Math.floor(ms / 1000) * 1000;
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * The instant (ms since the epoch) of `time` (`HH:MM`, 03:00 or later) on `isoDate` in `timeZone`. Clocks change
 * at 02:00 or 03:00 local time, so from 03:00 on a date has one offset, the one it has at noon: computed once
 * per zone and date (Intl's formatting costs microseconds a call, and the loader asks for every row's date).
 */
export function zonedInstant(isoDate: string, time: string, timeZone: string): number {
  const m = HH_MM.exec(time);
  if (!m || Number(m[1]) < 3) throw new RangeError(`a release time is HH:MM from 03:00 on, got ${JSON.stringify(time)}`);
  const midnight = Date.parse(`${isoDate}T00:00:00Z`);
  return midnight + (Number(m[1]) * 60 + Number(m[2])) * 60_000 - dayOffset(isoDate, midnight, timeZone);
}

const offsets = new Map<string, number>();

/** The zone's offset on a date, after its early-morning clock change if it has one that day. */
function dayOffset(isoDate: string, midnight: number, timeZone: string): number {
  const key = `${timeZone} ${isoDate}`;
  let offset = offsets.get(key);
  if (offset === undefined) offsets.set(key, (offset = zoneOffsetMs(midnight + 12 * 3_600_000, timeZone)));
  return offset;
}
