/**
 * The series catalogue: every input file of the pipeline, how it is laid out, what its numbers mean and
 * from when a value may be used (the point-in-time rule, docs/decisions/0027-point-in-time.md).
 *
 * One entry per file in `PIPELINE_DATA_DIR` (default `data/macro/`, provenance in `data/macro/PROVENANCE.md`).
 * The DuckDB loader (`load.ts`), the FRED JSON parser (`fred-format.ts`), the input validator
 * (`validate.ts`: plausible bounds, publication rhythm, runs of missing values) and the calendar all read
 * this table, so a rule written here holds for bundled and fetched data alike.
 */

import type { ReleaseRule } from '../release/rules.js';
import { NYSE_CHECKED_FROM } from '../../src/core/calendars/nyse.js';

/**
 * File layouts, by their header:
 * - `fred`: `date,value`, the FRED API export of the source repositories; missing value = empty field.
 * - `fred_named`: `date,<SERIESID>`; missing value = empty field.
 * - `ohlcv`: `date,open,high,low,close,volume`, a daily bar; no missing values (rows exist only on trading
 *   days). An index (GSPC): it pays no dividend and never splits.
 * - `ohlcv_actions`: `date,open,high,low,close,volume,dividend,split`: a share's daily bar at the prices it
 *   traded at (never adjusted), the cash dividend per share that went ex on the day (0 when none) and the
 *   split that took effect on the day, in shares after per share before (1 when none). Adjusted prices change
 *   every past row on each ex-dividend day and split; these never change, and total returns are computed from
 *   them (`../features/levels.ts`, `../reports/total-return.ts`).
 */
export type Layout = 'fred' | 'fred_named' | 'ohlcv' | 'ohlcv_actions';

/** The layouts of the market files: a daily bar per trading day, no missing-value marker. */
export const isBarLayout = (layout: Layout): layout is 'ohlcv' | 'ohlcv_actions' => layout === 'ohlcv' || layout === 'ohlcv_actions';

export interface SeriesSpec {
  /** Series id: the FRED id, or the market symbol (GSPC for the S&P 500 index). Also the `series` key of the `obs` table. */
  id: string;
  file: string;
  layout: Layout;
  /**
   * Where the data come from in production: `fred` series are refreshed from the FRED API (`../fred.ts`),
   * `market` series from the market-data source `MARKET_DATA_SOURCE` names (`../sources/`).
   */
  source: 'fred' | 'market';
  unit: string;
  frequency: 'daily' | 'weekly';
  /** The text that marks a missing value in the file; `null`: the layout has none and a gap is an error. */
  missingMarker: string | null;
  /**
   * When a value dated d becomes public (its publisher's calendar, cited in the rule's `source`): the pipeline
   * uses it only from the first trading day published after that instant (`../release/usable-from.ts`), and a
   * series is current until its next row's release, so the calendar ends where the first required series
   * would next publish (`../calendar.ts`).
   */
  release: ReleaseRule;
  /**
   * Start rule: the calendar starts on the first day every group has a usable value; series of one group
   * (the spliced dollar) need only one member. `null`: the series does not hold the start back (RRP, which
   * is 0 before daily operations began; the optional instruments).
   */
  startGroup: string | null;
  /**
   * Whether the calendar ends when this series runs out (its next row would be out). Members of one start group count together: the
   * group is current while any of its members is (the dollar through DTWEXB before 2006, DTWEXBGS after).
   * False for the optional instruments and for T10Y2Y, which DGS10 − DGS2 can stand in for.
   */
  bindsEnd: boolean;
  description: string;
  /** Plausible values: the value column, or every price column of a bar layout. */
  bounds: ValueBounds;
  /** Which dates the file has a row for, between its first and last row. */
  rhythm: Rhythm;
  /** Longest run of missing values allowed; `null` for a layout without missing values. */
  missingRun: MissingRun | null;
}

/** The plausible range of a series (`min` inclusive unless `minExclusive`, `max` inclusive), each limit with its reason. */
export interface ValueBounds {
  min: number;
  minExclusive?: boolean;
  whyMin: string;
  /** `Infinity`: no upper limit. */
  max: number;
  whyMax?: string;
}

/**
 * The publication rhythm the validator holds a file to between its first and last row:
 * - `weekdays` (FRED daily): a row on every weekday, an empty value on a holiday; no row on a weekend,
 *   except on the last day of a month when `monthEndWeekends` (ICE BofA marks month ends on any day).
 * - `wednesdays` (H.4.1 weekly): every row a Wednesday, each exactly 7 days after the one before.
 * - `nyse` (market closes): from `from` on (or the first row, if later), a row on every NYSE trading day
 *   and on no other day; before `from` only the order of the dates is checked.
 */
export type Rhythm =
  { kind: 'weekdays'; monthEndWeekends: boolean; why: string } | { kind: 'wednesdays'; why: string } | { kind: 'nyse'; from: string; why: string };

/**
 * At most `max` missing values in a row, counted from the series' first value (and from `from`, when
 * given): leading empty rows are dates before the series began, not gaps.
 */
export interface MissingRun {
  max: number;
  from: string | null;
  why: string;
}

const FRED_DAILY: Rhythm = { kind: 'weekdays', monthEndWeekends: false, why: 'FRED writes a row for every weekday, with an empty value on a holiday' };
const H41_WEEKLY: Rhythm = { kind: 'wednesdays', why: 'H.4.1 describes every Wednesday, holiday weeks included' };
const NYSE_DAYS: Rhythm = { kind: 'nyse', from: NYSE_CHECKED_FROM, why: 'regular holidays from nyse-holidays, special closures listed in the catalogue' };

/**
 * Daily FRED series: more than a full week (5 weekdays) of missing values in a row is refused. The longest
 * runs in the bundled history are 4 (the dollar series in the 2010 snow week, VIX after 9/11), so a longer
 * run is a series cut short or blanked out, not a holiday.
 */
const DAILY_MISSING: MissingRun = { max: 5, from: null, why: 'no more than a week of holidays and closures in a row' };

/** Column names of each layout, in file order, and the column that holds the value. */
export const LAYOUTS: Record<Layout, { header: (id: string) => string[]; valueColumn: (id: string) => string }> = {
  fred: { header: () => ['date', 'value'], valueColumn: () => 'value' },
  fred_named: { header: (id) => ['date', id], valueColumn: (id) => id },
  ohlcv: { header: () => ['date', 'open', 'high', 'low', 'close', 'volume'], valueColumn: () => 'close' },
  ohlcv_actions: { header: () => ['date', 'open', 'high', 'low', 'close', 'volume', 'dividend', 'split'], valueColumn: () => 'close' },
};

const NEW_YORK = 'America/New_York';

/**
 * The release rules, each from its publisher's calendar. Where the pipeline reads a copy (FRED) that may
 * trail the publisher, the rule is the later of the two, so the live nightly run always has what the history
 * assumed it had.
 */
export const RELEASES = {
  h41: {
    kind: 'business_days',
    lag: 1,
    calendar: 'fed',
    time: '16:30',
    timeZone: NEW_YORK,
    source:
      'H.4.1 "Factors Affecting Reserve Balances": published weekly on Thursday at 4:30 p.m. ET with the levels of the Wednesday before, on the next business day when Thursday is a holiday (federalreserve.gov/releases/h41/, "Release dates")',
  },
  h15: {
    kind: 'business_days',
    lag: 1,
    calendar: 'fed',
    time: '16:15',
    timeZone: NEW_YORK,
    source:
      'H.15 "Selected Interest Rates": "published at 4:15pm every business day (excluding holidays)", with the Treasury rates of the business day before (federalreserve.gov/releases/h15/ and its data-download announcements, e.g. 2023-09-14: rates "with an as-of date of September 12" are those "published on Wednesday, September 13")',
  },
  ice: {
    kind: 'business_days',
    lag: 1,
    calendar: 'fed',
    time: '16:30',
    timeZone: NEW_YORK,
    source:
      'ICE BofA index data reach FRED the business day after their date (FRED, "ICE BofA US High Yield Index Option-Adjusted Spread", release "ICE BofA Indices", daily update); taken as out by 4:30 p.m. ET that day',
  },
  vix: {
    kind: 'business_days',
    lag: 1,
    calendar: 'fed',
    time: '16:30',
    timeZone: NEW_YORK,
    source:
      'Cboe publishes the VIX close at 4:15 p.m. ET on the day (cboe.com, VIX index); FRED, which the pipeline reads, posts it with its next business day\'s update (release "CBOE Market Statistics"); the later of the two',
  },
  rrp: {
    kind: 'business_days',
    lag: 1,
    calendar: 'fed',
    time: '16:30',
    timeZone: NEW_YORK,
    source:
      'The New York Fed publishes each overnight reverse repo operation\'s result at about 1:15 p.m. ET on the day (newyorkfed.org, "Reverse Repo Operations"); FRED\'s copy, which the pipeline reads, is taken as out on the next business day, the later of the two',
  },
  h10: {
    kind: 'weekly',
    weekday: 1,
    calendar: 'fed',
    time: '16:15',
    timeZone: NEW_YORK,
    source:
      'H.10 "Foreign Exchange Rates": the daily rates of a week are published on the Monday after, at 4:15 p.m. ET, on the next business day when Monday is a holiday (federalreserve.gov/releases/h10/, "Release dates")',
  },
  close: {
    kind: 'business_days',
    lag: 0,
    calendar: 'nyse',
    time: '16:30',
    timeZone: NEW_YORK,
    source:
      "The NYSE closes at 4:00 p.m. ET; the day's closing prices (and its open) are public from then on (Yahoo Finance's daily bar); taken as out by 4:30 p.m. ET",
  },
} as const satisfies Record<string, ReleaseRule>;

type DailyOptions = Partial<Pick<SeriesSpec, 'startGroup' | 'bindsEnd' | 'rhythm' | 'missingRun'>>;

const fredDaily = (id: string, unit: string, description: string, release: ReleaseRule, bounds: ValueBounds, options: DailyOptions = {}): SeriesSpec => ({
  id,
  file: `${id}.csv`,
  layout: 'fred',
  source: 'fred',
  unit,
  frequency: 'daily',
  missingMarker: '',
  release,
  startGroup: options.startGroup === undefined ? id : options.startGroup,
  bindsEnd: options.bindsEnd ?? true,
  description,
  bounds,
  rhythm: options.rhythm ?? FRED_DAILY,
  missingRun: options.missingRun ?? DAILY_MISSING,
});

const h41Weekly = (id: string, description: string, bounds: ValueBounds): SeriesSpec => ({
  id,
  file: `${id}.csv`,
  layout: 'fred',
  source: 'fred',
  unit: 'millions of USD',
  frequency: 'weekly',
  missingMarker: '',
  release: RELEASES.h41,
  startGroup: id,
  bindsEnd: true,
  description,
  bounds,
  rhythm: H41_WEEKLY,
  // WTREGEN's rows before its first value (1986-2002) are empty; after it, H.4.1 has a value every week.
  missingRun: { max: 0, from: null, why: 'H.4.1 has a value every week once a series has begun' },
});

const PRICES: ValueBounds = { min: 0, minExclusive: true, whyMin: 'a price is positive', max: Infinity };

const market = (id: string, description: string, required: boolean): SeriesSpec => ({
  id,
  file: `${id}.csv`,
  layout: required ? 'ohlcv' : 'ohlcv_actions',
  source: 'market',
  unit: required ? 'index points' : 'USD per share, as traded',
  frequency: 'daily',
  missingMarker: null,
  release: RELEASES.close,
  startGroup: required ? id : null,
  bindsEnd: required,
  description,
  bounds: PRICES,
  rhythm: NYSE_DAYS,
  missingRun: null,
});

// Bounds are wide on purpose: they catch a sign, a unit (basis points for percent, millions for billions)
// or a column mix-up, not an unusual day. Each reason states the record the limit leaves room for.
const YIELD: ValueBounds = {
  min: -5,
  whyMin: 'room for negative rates, as seen abroad; US yields have not gone below 0.09 % since 1980',
  max: 25,
  whyMax: 'US yields peaked at 16.95 % (DGS2, 1981); above 25 the value is in basis points or another unit',
};
const DOLLAR: ValueBounds = {
  min: 50,
  whyMin: 'an index based at 100 that has stayed within 85 and 132',
  max: 250,
  whyMax: 'an index based at 100 that has stayed within 85 and 132',
};

export const CATALOGUE: readonly SeriesSpec[] = [
  h41Weekly('WALCL', 'Fed total assets, Wednesday level (H.4.1)', {
    min: 0,
    whyMin: 'a balance sheet is never negative',
    max: 50_000_000,
    whyMax: 'over five times the 2022 peak of 8.97 tn: a value in another unit',
  }),
  h41Weekly('WTREGEN', 'Treasury General Account, week average ending Wednesday (H.4.1)', {
    min: 0,
    whyMin: 'a deposit balance is never negative',
    max: 10_000_000,
    whyMax: 'over five times the July 2020 peak of 1.82 tn: a value in another unit',
  }),
  // Before daily operations, a missing RRP value is a day without an operation (0), so RRP never holds
  // the start back (see RRP_DAILY_FROM in the liquidity features), and long runs of empty days are normal.
  fredDaily(
    'RRPONTSYD',
    'billions of USD',
    'Overnight reverse repo, Treasuries sold by the Fed in temporary OMOs (FRBNY)',
    RELEASES.rrp,
    {
      min: 0,
      whyMin: 'an amount of operations is never negative (0 is a real value)',
      max: 10_000,
      whyMax: "more than the Fed's whole balance sheet: a value in millions, not billions",
    },
    { startGroup: null, missingRun: { ...DAILY_MISSING, from: '2013-09-23', why: 'daily operations since 2013-09-23; before, most days had none' } },
  ),
  fredDaily('DGS10', 'percent', '10-year Treasury constant-maturity yield (H.15)', RELEASES.h15, YIELD),
  fredDaily('DGS2', 'percent', '2-year Treasury constant-maturity yield (H.15)', RELEASES.h15, YIELD),
  // DGS10 − DGS2 stands in for a late T10Y2Y (features/levels.ts), so T10Y2Y neither starts nor ends the calendar.
  fredDaily(
    'T10Y2Y',
    'percentage points',
    '10-year minus 2-year Treasury constant-maturity spread',
    RELEASES.h15,
    {
      min: -10,
      whyMin: 'a difference of two yields that has stayed within -2.41 and 2.91 since 1980',
      max: 10,
      whyMax: 'a difference of two yields that has stayed within -2.41 and 2.91 since 1980',
    },
    { startGroup: null, bindsEnd: false },
  ),
  fredDaily(
    'BAMLH0A0HYM2',
    'percent',
    'ICE BofA US High Yield Index option-adjusted spread',
    RELEASES.ice,
    {
      min: 0,
      minExclusive: true,
      whyMin: 'high-yield bonds pay more than Treasuries',
      max: 40,
      whyMax: 'the spread peaked at 21.82 % (2008-12-15); above 40 the value is in basis points',
    },
    { rhythm: { kind: 'weekdays', monthEndWeekends: true, why: 'a row for every weekday, and ICE marks every month end, a weekend one too' } },
  ),
  fredDaily('VIXCLS', 'index', 'Cboe Volatility Index (VIX), close', RELEASES.vix, {
    min: 5,
    whyMin: 'VIX has never closed below 9.14',
    max: 150,
    whyMax: 'VIX has never closed above 82.69 (2020-03-16)',
  }),
  fredDaily('DTWEXBGS', 'index, Jan 2006 = 100', 'Nominal broad U.S. dollar index, goods and services (H.10)', RELEASES.h10, DOLLAR, { startGroup: 'dollar' }),
  {
    id: 'DTWEXB',
    file: 'DTWEXB.csv',
    layout: 'fred_named',
    source: 'fred',
    unit: 'index, Jan 1997 = 100',
    frequency: 'daily',
    missingMarker: '',
    release: RELEASES.h10,
    startGroup: 'dollar',
    bindsEnd: true,
    description: 'Trade-weighted U.S. dollar index, broad, goods (H.10); discontinued 2019, spliced onto DTWEXBGS before 2006',
    bounds: DOLLAR,
    rhythm: FRED_DAILY,
    missingRun: DAILY_MISSING,
  },
  market('GSPC', 'S&P 500 price index (Yahoo ^GSPC); its trading days are the calendar', true),
  market('SPY', 'SPDR S&P 500 ETF, prices as traded with its dividends and splits (total returns computed from them)', false),
  market('GLD', 'SPDR Gold Shares ETF, prices as traded (the daily gold proxy; starts 2004-11-18)', false),
];

export function seriesSpec(id: string): SeriesSpec {
  const spec = CATALOGUE.find((s) => s.id === id);
  if (!spec) throw new Error(`unknown series ${JSON.stringify(id)}; known: ${CATALOGUE.map((s) => s.id).join(', ')}`);
  return spec;
}

// Plain decimals only: FRED never sends exponents, and Number() would also accept "0x1f", " 1" or "Infinity".
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)$/;

/** True for a plain decimal number such as `-0.52`, `719542.0` or `.5` (no sign `+`, exponent, space or hex). */
export const isPlainDecimal = (text: string): boolean => DECIMAL.test(text);

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number of the ASCII digits of `text` from `from` to `to` (exclusive), or −1 if one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * True for a real `YYYY-MM-DD` calendar date of the proleptic Gregorian calendar (rejects 2021-02-30).
 * Plain arithmetic on the characters rather than a Date round trip or a pattern: the validator calls it on
 * every row of every file.
 */
export function isIsoDate(text: string): boolean {
  if (text.length !== 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return false;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number));
}
