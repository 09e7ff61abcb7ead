/**
 * Reading what the nightly run published for the `/v1` data routes: signal packages, the compact and
 * regime histories, net liquidity and the scorecard. Each route is one indexed query on the date primary keys.
 */
import type { Sql, TransactionSql } from 'postgres';
import type { SignalDay } from '../../../pipeline/publish/types.js';
import { availableAtText } from '../publish/published.js';
import type { ExportSource } from '../../../pipeline/reports/export.js';

/** A published day as the routes read it: the run's row, and when its data were taken. */
export interface SignalRow extends SignalDay {
  data_vintage: Date;
}

const SIGNAL_COLUMNS = `date::text as date, regime, prob_expansion, prob_recovery, prob_tightening, prob_risk_off, risk_score, confidence,
  persistence_days, expected_duration_remaining_days, level_bn, change_4w_bn, liquidity_zscore, liquidity_trend, pc1, pc2, pc3, pc4,
  variance_explained_pct, pca_fit_date::text as pca_fit_date, hmm_fit_date::text as hmm_fit_date, data_vintage,
  ${availableAtText('available_at')} as available_at`;

export async function signalOn(sql: Sql, date: string): Promise<SignalRow | null> {
  const rows = await sql.unsafe<SignalRow[]>(`select ${SIGNAL_COLUMNS} from signal_days where date = $1`, [date]);
  return rows[0] ?? null;
}

export async function latestSignal(sql: Sql): Promise<SignalRow | null> {
  const rows = await sql.unsafe<SignalRow[]>(`select ${SIGNAL_COLUMNS} from signal_days order by date desc limit 1`);
  return rows[0] ?? null;
}

/** Oldest first. */
export async function signalsBetween(sql: Sql, start: string, end: string): Promise<SignalRow[]> {
  return sql.unsafe<SignalRow[]>(`select ${SIGNAL_COLUMNS} from signal_days where date between $1 and $2 order by date`, [start, end]);
}

/** The published days the track log holds no leaf of (published before it existed), oldest first. */
export async function unloggedSignals(sql: Sql | TransactionSql): Promise<SignalRow[]> {
  return sql.unsafe<SignalRow[]>(
    `select ${SIGNAL_COLUMNS} from signal_days d where not exists (select 1 from signal_log_leaves l where l.date = d.date) order by date`,
  );
}

export interface CompactRow extends ExportSource {
  confidence: 'HIGH' | 'MODERATE' | 'LOW';
}

/** The newest `limit` days within [start, end] (either open), newest first. */
export async function compactRows(sql: Sql, options: { limit: number; start?: string | null; end?: string | null }): Promise<CompactRow[]> {
  return sql<CompactRow[]>`
    select date::text as date, regime, risk_score, prob_expansion, prob_recovery, prob_tightening, prob_risk_off, confidence,
           ${sql.unsafe(availableAtText('available_at'))} as available_at
    from signal_days
    where (${options.start ?? null}::date is null or date >= ${options.start ?? null}::date)
      and (${options.end ?? null}::date is null or date <= ${options.end ?? null}::date)
    order by date desc limit ${options.limit}`;
}

export interface LiquidityRow {
  date: string;
  fed_assets_bn: number;
  rrp_bn: number;
  tga_bn: number;
  level_bn: number;
  change_4w_bn: number;
  zscore: number;
  trend: 'EXPANDING' | 'CONTRACTING' | 'FLAT';
}

/** The newest `limit` days of net liquidity, newest first. */
export async function liquidityRows(sql: Sql, limit: number): Promise<LiquidityRow[]> {
  return sql<LiquidityRow[]>`
    select date::text as date, fed_assets_bn, rrp_bn, tga_bn, level_bn, change_4w_bn, zscore, trend
    from net_liquidity order by date desc limit ${limit}`;
}

export interface ScorecardRow {
  date: string;
  growth_momentum: number;
  inflation_momentum: number;
  liquidity: number;
  financial_stress: number;
  dollar_strength: number;
  computed_at: Date;
}

/** The newest day's five gauges, with when the run that published them finished. */
export async function latestScorecard(sql: Sql): Promise<ScorecardRow | null> {
  const [row] = await sql<ScorecardRow[]>`
    select c.date::text as date, c.growth_momentum, c.inflation_momentum, c.liquidity, c.financial_stress, c.dollar_strength,
           coalesce(r.finished_at, r.started_at) as computed_at
    from scorecard_days c join signal_days s using (date) join model_runs r on r.run_id = s.run_id
    order by c.date desc limit 1`;
  return row ?? null;
}
