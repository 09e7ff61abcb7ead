/**
 * Daily levels on the trading calendar, strictly point in time: for each calendar day t and each series,
 * the latest non-missing observation with `usable_from <= t` (a DuckDB ASOF join on `usable_from`), that is
 * the latest value released by the time day t is published (06:30 New York the next trading day; see
 * `../release/`). A Wednesday H.4.1 value, out on Thursday afternoon, is seen from Thursday on; the
 * Treasury yields, the high-yield spread, the VIX and the reverse repo of day t − 1 on day t; the dollar of
 * last week's days from the Monday it is published (H.10); market closes on their own day. Values released
 * together (a week of H.10 rates) share their `usable_from`: the latest date among them is the one seen.
 *
 * Three rules beyond "latest usable value":
 * - RRP before daily operations (RRP_DAILY_FROM): the operation just released (usable from that very day),
 *   else 0 (no operation).
 * - The 10Y−2Y curve is T10Y2Y, unless DGS10 and DGS2 both have a newer observation than T10Y2Y: then
 *   DGS10 − DGS2 rounded to 2 decimals (FRED's T10Y2Y is that difference at 2 decimals; in the bundled
 *   data the two agree on every day since 1996, so this only bridges a late T10Y2Y).
 * - The dollar is DTWEXBGS, and before its first usable value DTWEXB × the fixed splice ratio (params.ts).
 * Instrument returns are close-to-close total returns on each instrument's own rows, so the first calendar day
 * has one: a share's prices are as traded, and on an ex-dividend day or a split the return counts the new shares
 * and the cash, reinvested at the open: close × split × (1 + dividend / open) / previous close − 1
 * (`../reports/total-return.ts` says why).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, sqlDate, sqlString } from '../ingest/duckdb.js';
import { DOLLAR_SPLICE, RRP_DAILY_FROM } from './params.js';

/** The usable, non-missing observations of one series, as a joinable subquery. */
const usable = (series: string): string =>
  `(SELECT date, value, usable_from, open, dividend, split FROM pit WHERE series = ${sqlString(series)} AND value IS NOT NULL)`;

/**
 * `ASOF LEFT JOIN` of one series onto the calendar: the alias carries that day's latest usable `value` and its
 * `date`. Rows released together (an H.10 week) share a `usable_from`, and an ASOF join picks any one of equal
 * keys, so only the latest date of each `usable_from` is joined.
 */
const asof = (series: string, alias: string): string =>
  `ASOF LEFT JOIN (SELECT * FROM ${usable(series)} QUALIFY row_number() OVER (PARTITION BY usable_from ORDER BY date DESC) = 1) AS ${alias} ON c.date >= ${alias}.usable_from`;

/**
 * Close and open as traded, the day's dividend and split (0 and 1 for an index), and the close-to-close total
 * return of an instrument on its own trading days.
 */
const instrument = (series: string): string => `
  (SELECT date, value AS close, open, coalesce(dividend, 0) AS dividend, coalesce(split, 1) AS split,
          value * coalesce(split, 1) * (CASE WHEN coalesce(dividend, 0) = 0 THEN 1 ELSE 1 + dividend / open END)
            / lag(value) OVER (ORDER BY date) - 1 AS ret
   FROM ${usable(series)})`;

const SPLICE_RATIO = `(${DOLLAR_SPLICE.DTWEXBGS}::DOUBLE / ${DOLLAR_SPLICE.DTWEXB}::DOUBLE)`;

export const LEVELS_SQL = `
CREATE OR REPLACE TEMP TABLE levels AS
SELECT
  c.date,
  walcl.value AS walcl_mn,
  tga.value AS wtregen_mn,
  CASE WHEN c.date < ${sqlDate(RRP_DAILY_FROM)}
       THEN CASE WHEN rrp.usable_from = c.date THEN rrp.value ELSE 0 END
       ELSE rrp.value END AS rrp_bn,
  dgs10.value AS ust10y_pct,
  CASE WHEN t10y2y.value IS NOT NULL AND (dgs10.date IS NULL OR dgs2.date IS NULL OR t10y2y.date >= greatest(dgs10.date, dgs2.date))
       THEN t10y2y.value
       ELSE round(dgs10.value - dgs2.value, 2) END AS curve_10y2y_pp,
  hy.value AS hy_spread_pct,
  vix.value AS vix,
  coalesce(bgs.value, b.value * ${SPLICE_RATIO}) AS dollar,
  gspc.close AS equity_close, gspc.ret AS ret_equity,
  spy.close AS spy_close, spy.open AS spy_open, spy.dividend AS spy_dividend, spy.split AS spy_split, spy.ret AS ret_spy,
  gld.close AS gold_close, gld.ret AS ret_gold
FROM calendar AS c
${asof('WALCL', 'walcl')}
${asof('WTREGEN', 'tga')}
${asof('RRPONTSYD', 'rrp')}
${asof('DGS10', 'dgs10')}
${asof('DGS2', 'dgs2')}
${asof('T10Y2Y', 't10y2y')}
${asof('BAMLH0A0HYM2', 'hy')}
${asof('VIXCLS', 'vix')}
${asof('DTWEXBGS', 'bgs')}
${asof('DTWEXB', 'b')}
LEFT JOIN ${instrument('GSPC')} AS gspc ON gspc.date = c.date
LEFT JOIN ${instrument('SPY')} AS spy ON spy.date = c.date
LEFT JOIN ${instrument('GLD')} AS gld ON gld.date = c.date
ORDER BY c.date`;

/**
 * Compares the fixed splice link with the data: if DTWEXBGS and DTWEXB have a common date in `pit`, the first
 * one should be DOLLAR_SPLICE's date with its two values. A mismatch (an H.10 revision of 2006 history) does
 * not stop the run, since the fixed ratio keeps every published value as it was, but it is reported in the
 * vintage's warnings so an operator can decide on a model-version change. Returns null when they agree.
 */
export async function dollarSpliceWarning(conn: DuckDBConnection): Promise<string | null> {
  const [first] = await queryRows(
    conn,
    `
    SELECT strftime(bgs.date, '%Y-%m-%d') AS date, bgs.value AS bgs, b.value AS b
    FROM ${usable('DTWEXBGS')} AS bgs JOIN ${usable('DTWEXB')} AS b USING (date)
    ORDER BY bgs.date LIMIT 1`,
  );
  if (!first) return null;
  if (first.date === DOLLAR_SPLICE.date && first.bgs === DOLLAR_SPLICE.DTWEXBGS && first.b === DOLLAR_SPLICE.DTWEXB) return null;
  return (
    `dollar splice link differs from the data: first common DTWEXBGS/DTWEXB date ${String(first.date)} ` +
    `(${String(first.bgs)} / ${String(first.b)}), pipeline/features/params.ts fixes ${DOLLAR_SPLICE.date} ` +
    `(${DOLLAR_SPLICE.DTWEXBGS} / ${DOLLAR_SPLICE.DTWEXB}); pre-2006 dollar levels keep the fixed ratio`
  );
}
