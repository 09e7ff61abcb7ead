/**
 * Where seeded history goes (./history.ts): the whole calendar months (UTC) before the month of `now`, each
 * holding an even share of the traces (shares differ by at most one), cut into chunks of at most
 * `chunkRows` rows, one INSERT … SELECT each. Pure: values in, values out.
 *
 * The month of `now` itself is left empty: the engine writes live traces there, and every seeded trace is
 * then older than any trace expiry shorter than the time since the 1st of the month.
 */

export interface HistoryMonth {
  /** First instant of the month, UTC, Unix ms. */
  startMs: number;
  /** First instant of the next month, Unix ms. */
  endMs: number;
  /** Traces in this month. */
  count: number;
  /** Global index of the month's first trace (months in time order, traces in time order within one). */
  offset: number;
}

export interface HistoryChunk {
  month: HistoryMonth;
  /** Index of the chunk's first trace within its month, and one past its last. */
  from: number;
  to: number;
}

const monthStart = (year: number, month: number): number => Date.UTC(year, month, 1);

/** The `months` whole months before the month of `now`, oldest first, with `traces` spread evenly. */
export function planMonths(traces: number, months: number, now: Date): HistoryMonth[] {
  if (!Number.isSafeInteger(traces) || traces < 0) throw new RangeError(`traces must be a whole number >= 0, got ${traces}`);
  if (!Number.isSafeInteger(months) || months < 1) throw new RangeError(`months must be a whole number >= 1, got ${months}`);
  if (Number.isNaN(now.getTime())) throw new RangeError('now must be a valid Date');
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const base = Math.floor(traces / months);
  const extra = traces % months;
  const out: HistoryMonth[] = [];
  let offset = 0;
  for (let m = 0; m < months; m++) {
    const back = months - m;
    // The older months take the remainder, one trace each.
    const count = base + (m < extra ? 1 : 0);
    out.push({ startMs: monthStart(year, month - back), endMs: monthStart(year, month - back + 1), count, offset });
    offset += count;
  }
  return out;
}

/** The months cut into chunks of at most `chunkRows` traces, in time order; months without traces give none. */
export function planChunks(months: readonly HistoryMonth[], chunkRows: number): HistoryChunk[] {
  if (!Number.isSafeInteger(chunkRows) || chunkRows < 1) throw new RangeError(`chunkRows must be a whole number >= 1, got ${chunkRows}`);
  const out: HistoryChunk[] = [];
  for (const month of months) {
    const pieces = Math.ceil(month.count / chunkRows);
    for (let p = 0; p < pieces; p++) {
      // Even pieces rather than full ones and a remainder: the workers finish together.
      out.push({ month, from: Math.floor((p * month.count) / pieces), to: Math.floor(((p + 1) * month.count) / pieces) });
    }
  }
  return out;
}
