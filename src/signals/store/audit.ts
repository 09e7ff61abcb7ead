/**
 * Reading what the audit decomposition needs from the published tables (src/signals/audit.ts): the signal
 * package of a day, the PCA and HMM of the fit in force that day (`model_fits`: the newest published run of
 * the same model version and seed that has a fit of that date, the rule incremental runs resume by), the
 * indicator levels and net liquidity of the trailing published days, and the net liquidity level 30
 * calendar days earlier. Two round trips: the day, then the rest at once.
 */
import type { Sql } from 'postgres';
import { TradesealError } from '../../core/errors.js';
import type { Regime } from '../../core/vocabulary.js';
import { LIQUIDITY_CHANGE_CALENDAR_DAYS, STRESS_WINDOW_DAYS, type AuditInputs, type WindowDay } from '../audit.js';

interface DayRow {
  date: string;
  regime: Regime;
  risk_score: number;
  pc1: number;
  pc2: number;
  pc3: number;
  pc4: number;
  pca_fit_date: string;
  hmm_fit_date: string;
  model_version: string;
  seed: number;
  trend: string | null;
  level_bn: number | null;
}

interface FitRow {
  fit_date: string;
  pca: AuditInputs['pca'];
  hmm: { transmat: number[] };
}

/** The inputs of the audit of published day `date`; null when that day is not published. */
export async function auditInputs(sql: Sql, date: string): Promise<AuditInputs | null> {
  const [day] = await sql<DayRow[]>`
    select s.date::text as date, s.regime, s.risk_score, s.pc1, s.pc2, s.pc3, s.pc4,
           s.pca_fit_date::text as pca_fit_date, s.hmm_fit_date::text as hmm_fit_date, r.model_version, r.seed, n.trend, n.level_bn
    from signal_days s join model_runs r using (run_id) left join net_liquidity n using (date)
    where s.date = ${date}`;
  if (!day) return null;
  const [fits, window, earlier] = await Promise.all([
    sql<FitRow[]>`
      select distinct on (f.fit_date) f.fit_date::text as fit_date, f.pca, f.hmm
      from model_fits f join model_runs r using (run_id)
      where r.status = 'published' and r.model_version = ${day.model_version} and r.seed = ${day.seed}
        and f.fit_date in (${day.pca_fit_date}, ${day.hmm_fit_date})
      order by f.fit_date, r.started_at desc`,
    sql<WindowDay[]>`
      select * from (
        select s.date::text as date, i.vix, i.hy_spread_pct, i.curve_10y2y_pp, i.dollar, n.level_bn as net_liq_bn, n.zscore as net_liq_zscore
        from signal_days s left join indicator_days i using (date) left join net_liquidity n using (date)
        where s.date <= ${date} order by s.date desc limit ${STRESS_WINDOW_DAYS}
      ) w order by date`,
    sql<Array<{ date: string; level_bn: number }>>`
      select date::text as date, level_bn from net_liquidity
      where date <= ${date}::date - ${LIQUIDITY_CHANGE_CALENDAR_DAYS}::int order by date desc limit 1`,
  ]);
  const pcaFit = fits.find((f) => f.fit_date === day.pca_fit_date);
  const hmmFit = fits.find((f) => f.fit_date === day.hmm_fit_date);
  if (!pcaFit || !hmmFit || day.trend === null || day.level_bn === null) {
    throw new TradesealError(
      'store_error',
      `the published data of ${date} are incomplete: ${!pcaFit || !hmmFit ? 'no published model fit of its fit date' : 'no net liquidity row'}`,
      {
        hint: 'a full pipeline run (`tradeseal pipeline run --full`) publishes every table again',
      },
    );
  }
  return {
    day: { date: day.date, regime: day.regime, risk_score: day.risk_score, factors: [day.pc1, day.pc2, day.pc3, day.pc4] },
    pca: pcaFit.pca,
    transmat: hmmFit.hmm.transmat,
    window,
    liquidity: { trend: day.trend, level_bn: day.level_bn, earlier: earlier[0] ?? null },
  };
}
