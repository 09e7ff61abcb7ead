/**
 * Net liquidity, in billions of USD: (WALCL − RRP × 1000 − WTREGEN) / 1000, since WALCL and WTREGEN are
 * millions and RRPONTSYD billions (data/macro/PROVENANCE.md). Per calendar day:
 * - `net_liq_change_4w_bn`: change over MOMENTUM_DAYS (20) trading days;
 * - `net_liq_zscore`: (level − mean) / sample std over the trailing ZSCORE_WINDOW (252) trading days ending
 *   on the day; NaN until the window is full;
 * - `net_liq_trend`: +1 EXPANDING, 0 FLAT, −1 CONTRACTING (params.ts has the FLAT band).
 * Only trailing windows (`ROWS ... PRECEDING AND CURRENT ROW`, `lag`), so day t depends on days ≤ t only.
 */
import { MOMENTUM_DAYS, TREND_CODES, TREND_FLAT_SHARE, ZSCORE_WINDOW } from './params.js';

export const LIQUIDITY_SQL = `
CREATE OR REPLACE TEMP TABLE liquidity AS
WITH base AS (
  SELECT date, walcl_mn, wtregen_mn, rrp_bn,
         walcl_mn / 1000 AS fed_assets_bn,
         wtregen_mn / 1000 AS tga_bn,
         (walcl_mn - rrp_bn * 1000 - wtregen_mn) / 1000 AS net_liq_bn
  FROM levels
), windowed AS (
  SELECT *,
         net_liq_bn - lag(net_liq_bn, ${MOMENTUM_DAYS}) OVER (ORDER BY date) AS net_liq_change_4w_bn,
         avg(net_liq_bn) OVER z AS z_mean,
         stddev_samp(net_liq_bn) OVER z AS z_sd,
         count(net_liq_bn) OVER z AS z_n
  FROM base
  WINDOW z AS (ORDER BY date ROWS BETWEEN ${ZSCORE_WINDOW - 1} PRECEDING AND CURRENT ROW)
)
SELECT date, walcl_mn, wtregen_mn, rrp_bn, fed_assets_bn, tga_bn, net_liq_bn, net_liq_change_4w_bn,
       CASE WHEN z_n = ${ZSCORE_WINDOW} AND z_sd > 0 THEN (net_liq_bn - z_mean) / z_sd END AS net_liq_zscore,
       CASE WHEN net_liq_change_4w_bn IS NULL THEN NULL
            WHEN abs(net_liq_change_4w_bn) < ${TREND_FLAT_SHARE} * abs(net_liq_bn) THEN ${TREND_CODES.FLAT}
            WHEN net_liq_change_4w_bn > 0 THEN ${TREND_CODES.EXPANDING}
            ELSE ${TREND_CODES.CONTRACTING} END AS net_liq_trend
FROM windowed
ORDER BY date`;
