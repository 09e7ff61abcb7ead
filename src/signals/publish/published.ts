/**
 * Reads of what is published, for a run that is about to publish: the range of the history, every published
 * signal package (to plan a full publication), the seed and model version that made the newest day (to say
 * why a run cannot extend it), and the history and closes its reports extend.
 */
import type { Sql } from '../../store/driver.js';
import type { HistoryDay } from '../../../pipeline/reports/reports.js';
import type { PublishedRange } from '../../../pipeline/publish/plan.js';
import type { MarketDay, SignalDay } from '../../../pipeline/publish/types.js';

/** A timestamptz column as the ISO-8601 UTC text the pipeline writes (`2025-11-28T11:30:00.000Z`). */
export const availableAtText = (column: string): string => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const SIGNAL_COLUMNS = `s.date::text as date, s.regime, s.prob_expansion, s.prob_recovery, s.prob_tightening, s.prob_risk_off, s.risk_score,
  s.confidence, s.persistence_days, s.expected_duration_remaining_days, s.level_bn, s.change_4w_bn, s.liquidity_zscore, s.liquidity_trend,
  s.pc1, s.pc2, s.pc3, s.pc4, s.variance_explained_pct, s.pca_fit_date::text as pca_fit_date, s.hmm_fit_date::text as hmm_fit_date,
  ${availableAtText('s.available_at')} as available_at`;

export async function publishedRange(sql: Sql): Promise<PublishedRange> {
  const [row] = await sql<Array<{ first: string | null; last: string | null; days: number }>>`
    select min(date)::text as first, max(date)::text as last, count(*)::int as days from signal_days`;
  return row ?? { first: null, last: null, days: 0 };
}

export async function publishedSignals(sql: Sql): Promise<SignalDay[]> {
  return sql.unsafe<SignalDay[]>(`select ${SIGNAL_COLUMNS} from signal_days s order by s.date`);
}

/** Every published day with the data vintage it was published with, by date. */
export async function publishedWithVintage(sql: Sql): Promise<Map<string, { signal: SignalDay; data_vintage: Date }>> {
  const rows = await sql.unsafe<Array<SignalDay & { data_vintage: Date }>>(`select ${SIGNAL_COLUMNS}, s.data_vintage from signal_days s order by s.date`);
  return new Map(rows.map(({ data_vintage: dataVintage, ...signal }) => [signal.date, { signal, data_vintage: dataVintage }]));
}

/** Who made the newest published day: its run's seed and model version. */
export async function newestMaker(sql: Sql): Promise<{ seed: number; model_version: string } | null> {
  const [row] = await sql<Array<{ seed: number; model_version: string }>>`
    select r.seed, r.model_version from signal_days s join model_runs r using (run_id) order by s.date desc limit 1`;
  return row ?? null;
}

/** The published history before `before` (all of it when null), oldest first: what a run's reports extend. */
export async function publishedHistory(sql: Sql, before: string | null): Promise<HistoryDay[]> {
  return sql<HistoryDay[]>`
    select date::text as date, regime, risk_score, prob_expansion, prob_recovery, prob_tightening, prob_risk_off,
           ${sql.unsafe(availableAtText('available_at'))} as available_at from signal_days
    where ${before}::date is null or date < ${before}::date order by date`;
}

/** The published prices before `before` (all when null), oldest first. */
export async function publishedMarket(sql: Sql, before: string | null): Promise<MarketDay[]> {
  return sql<MarketDay[]>`
    select date::text as date, spy_open, spy_close, spy_dividend, spy_split, gld_close from market_days
    where ${before}::date is null or date < ${before}::date order by date`;
}
