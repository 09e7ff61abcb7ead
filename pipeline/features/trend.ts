/**
 * The equity trend, a model input: equity_trend_200d(t) = ln(close(t) / mean of the TREND_DAYS closes ending on
 * t), the GSPC close of the trading calendar (every calendar day has one). Positive above the 200-day average.
 * Point in time: a close is usable from its own day's close, and the window ends on the day.
 */
import { TREND_DAYS } from './params.js';

export const TREND_SQL = `
CREATE OR REPLACE TEMP TABLE trend AS
SELECT date,
       CASE WHEN count(equity_close) OVER w = ${TREND_DAYS} THEN ln(equity_close / avg(equity_close) OVER w) END AS equity_trend_200d
FROM levels
WINDOW w AS (ORDER BY date ROWS BETWEEN ${TREND_DAYS - 1} PRECEDING AND CURRENT ROW)
ORDER BY date`;
