/**
 * The feature stage's fixed choices, in one place, each with its reason. Changing one changes every
 * published number, so each is a model-version matter, not a setting.
 */

/** Trading days in "4 weeks" for the net-liquidity change, and in the 20-day momentum. */
export const MOMENTUM_DAYS = 20;

/**
 * Trailing window, in trading days, of the equity trend: the log of the equity close over its mean over the
 * TREND_DAYS closes ending on the day (the 200 days of the moving-average rule every equity desk knows).
 * NaN until TREND_DAYS closes exist.
 */
export const TREND_DAYS = 200;

/**
 * Trailing window, in trading days (about one year), of the net-liquidity z-score and of the daily-change
 * volatility that standardizes each momentum. The window ends on the day itself and must be full: a
 * z-score over a few weeks of data would swing wildly, so the first year of the calendar has NaN there.
 */
export const ZSCORE_WINDOW = 252;

/**
 * Net liquidity trend: FLAT while the 4-week change is within ±0.5 % of the level (at 2025 levels about
 * ±30 bn, the size of ordinary weekly noise in the TGA and RRP); otherwise EXPANDING or CONTRACTING by sign.
 */
export const TREND_FLAT_SHARE = 0.005;

/** The trend as stored in the numeric frame column `net_liq_trend`. */
export const TREND_CODES = { EXPANDING: 1, FLAT: 0, CONTRACTING: -1 } as const;
export type Trend = keyof typeof TREND_CODES;

export function trendLabel(code: number): Trend | null {
  if (code === 1) return 'EXPANDING';
  if (code === 0) return 'FLAT';
  if (code === -1) return 'CONTRACTING';
  return null;
}

/**
 * First day of daily overnight RRP operations (the FRBNY's ON RRP exercise began on 2013-09-23; the
 * shared provenance says "before 2013", but the file shows sparse operations until 2013-09-20 and a value
 * every business day from 2013-09-23). Before it a missing RRPONTSYD is a day without an operation, so 0;
 * from it on a missing value is a holiday and the last value carries forward.
 */
export const RRP_DAILY_FROM = '2013-09-23';

/**
 * The dollar splice: DTWEXB (Jan 1997 = 100, discontinued) is rescaled to DTWEXBGS (Jan 2006 = 100) by
 * their ratio on their first common date, and used on days before DTWEXBGS has a usable value.
 * The two link values are fixed here, not looked up per run, so that a run "as of" a day before 2006 (when
 * DTWEXBGS did not exist) gives the same numbers as a full run: the ratio is a unit choice, like an index
 * base. Whenever both series are present the run compares them with the data; a revision of either link
 * value becomes a warning in the vintage (the pre-2006 history stays as published), never a silent shift.
 */
export const DOLLAR_SPLICE = { date: '2006-01-02', DTWEXBGS: 101.4155, DTWEXB: 111.6954 } as const;

/** Gauge squashing: gauge = tanh(z / GAUGE_SCALE), so z = ±2 maps to ±0.76 and the gauge stays in (−1, 1). */
export const GAUGE_SCALE = 2;
