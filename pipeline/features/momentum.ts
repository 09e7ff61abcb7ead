/**
 * The scorecard's standardized 20-day momentum and its five gauges (docs/decisions/0029-features-and-factors.md).
 *
 * For an indicator x on the trading calendar:
 *   momentum(t) = x(t) − x(t − 20)                                  (change over MOMENTUM_DAYS trading days)
 *   vol(t)      = sample std of the daily changes x(s) − x(s − 1), s in the ZSCORE_WINDOW (252) days ending t
 *   z(t)        = momentum(t) / (vol(t) × √20)                      (a 20-day change in units of its typical size)
 * √20 scales a one-day std to 20 days under independent daily changes. z is NaN until 252 daily changes
 * exist. Changes are in the indicator's own units (percentage points for yields and spreads, index points
 * for VIX and the dollar): z does not depend on the unit, and before 2006 the dollar is DTWEXB × a fixed
 * ratio, so its z is DTWEXB's own (up to rounding). A day without a new value (a bond-market holiday) is a
 * change of 0: the level carries forward.
 *
 * Gauges, each tanh(z / GAUGE_SCALE) ∈ (−1, 1):
 *   growth_momentum    ← z of the 10Y−2Y curve     (steepening positive)
 *   inflation_momentum ← z of the 10Y yield        (rising positive)
 *   liquidity          ← net-liquidity z-score     (high liquidity positive; a level z, not a momentum)
 *   financial_stress   ← −(z_hy + z_vix) / 2       (calm positive: falling spreads and VIX)
 *   dollar_strength    ← z of the dollar index     (strengthening positive)
 */
import { GAUGE_SCALE, MOMENTUM_DAYS, ZSCORE_WINDOW } from './params.js';

/** Indicator column of `levels` → suffix of its `mom_z_*` column. */
export const MOMENTUM_INPUTS = {
  curve: 'curve_10y2y_pp',
  ust10y: 'ust10y_pct',
  hy: 'hy_spread_pct',
  vix: 'vix',
  dollar: 'dollar',
} as const;

const entries = Object.entries(MOMENTUM_INPUTS);

const changes = entries
  .map(([k, col]) => `${col} - lag(${col}) OVER (ORDER BY date) AS d_${k}, ${col} - lag(${col}, ${MOMENTUM_DAYS}) OVER (ORDER BY date) AS m_${k}`)
  .join(',\n         ');

const standardized = entries
  .map(
    ([k]) => `CASE WHEN count(d_${k}) OVER v = ${ZSCORE_WINDOW} AND stddev_samp(d_${k}) OVER v > 0
              THEN m_${k} / (stddev_samp(d_${k}) OVER v * sqrt(${MOMENTUM_DAYS})) END AS mom_z_${k}`,
  )
  .join(',\n       ');

const gauge = (z: string): string => `tanh((${z}) / ${GAUGE_SCALE})`;

export const MOMENTUM_SQL = `
CREATE OR REPLACE TEMP TABLE momentum AS
WITH changes AS (
  SELECT date,
         ${changes}
  FROM levels
), z AS (
  SELECT date,
       ${standardized}
  FROM changes
  WINDOW v AS (ORDER BY date ROWS BETWEEN ${ZSCORE_WINDOW - 1} PRECEDING AND CURRENT ROW)
)
SELECT z.*,
       -(mom_z_hy + mom_z_vix) / 2 AS financial_stress_z,
       ${gauge('mom_z_curve')} AS growth_momentum,
       ${gauge('mom_z_ust10y')} AS inflation_momentum,
       ${gauge('l.net_liq_zscore')} AS liquidity,
       ${gauge('-(mom_z_hy + mom_z_vix) / 2')} AS financial_stress,
       ${gauge('mom_z_dollar')} AS dollar_strength
FROM z JOIN liquidity AS l USING (date)
ORDER BY date`;
