/**
 * How old the regime in force is: measured from its data, not from when it was broadcast. A broadcast's
 * `date` is the day its data describe; those data are complete at the end of that day (UTC), so the age
 * counts from the next midnight UTC. A pipeline that re-broadcasts year-old data every night therefore stays
 * stale, and the engine fails closed (`regime_stale`) instead of enforcing a regime nobody has observed.
 * Pure: a date, the policy's maximum age and the clock in, a verdict of freshness out.
 */

export const DAY_MS = 86_400_000;

/** What an operator can do about stale data, said wherever staleness is reported. */
export const STALE_ADVICE =
  'publish a real day (`tradeseal pipeline nightly`, which fetches every series with FRED_API_KEY set; docs/operations.md, "Running it every day") or publish a manual broadcast (`tradeseal regime publish`)';

export interface Freshness {
  /** The data day of the broadcast. */
  date: string;
  /** The end of that day, ISO 8601 UTC: where the age counts from. */
  data_complete_at: string;
  age_ms: number;
  max_age_ms: number;
  stale: boolean;
}

/** The instant (Unix ms) a data day `YYYY-MM-DD` ends in UTC. */
export const dataDayEnd = (date: string): number => Date.parse(`${date}T00:00:00Z`) + DAY_MS;

export function freshnessOf(date: string, maxAgeMs: number, now: number): Freshness {
  const end = dataDayEnd(date);
  const age = now - end;
  return { date, data_complete_at: new Date(end).toISOString(), age_ms: age, max_age_ms: maxAgeMs, stale: age > maxAgeMs };
}

/** "362.5 days": an age for people. */
export function humanAge(ms: number): string {
  if (ms < 0) return 'not yet complete';
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} minutes`;
  if (ms < 2 * DAY_MS) return `${(ms / 3_600_000).toFixed(1)} hours`;
  return `${(ms / DAY_MS).toFixed(1)} days`;
}

/** One line for an operator about a stale regime; null when it is fresh. */
export function staleWarning(f: Freshness): string | null {
  if (!f.stale) return null;
  return `the regime in force is stale: its data (${f.date}) are ${humanAge(f.age_ms)} old, the policy allows ${humanAge(f.max_age_ms)}; authorize refuses every order (regime_stale) until you ${STALE_ADVICE}`;
}
