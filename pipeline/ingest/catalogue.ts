/**
 * The series catalogue: every input file of the pipeline, how it is laid out, what its numbers mean and
 * from when a value may be used (the point-in-time rule of the pipeline spec, `PIPELINE.md`).
 *
 * One entry per file in `PIPELINE_DATA_DIR` (default `data/macro/`, provenance in its `PROVENANCE.md`).
 * The DuckDB loader (`load.ts`), the FRED JSON parser (`fred-format.ts`) and the calendar all read this
 * table, so a rule written here holds for bundled and fetched data alike.
 */

/**
 * File layouts, by their header:
 * - `fred`: `date,value`, the FRED API export of the source repositories; missing value = empty field.
 * - `fred_named`: `date,<SERIESID>`; missing value = empty field.
 * - `yfinance`: `date,open,high,low,close,volume`; no missing values (rows exist only on trading days).
 */
export type Layout = 'fred' | 'fred_named' | 'yfinance';

export interface SeriesSpec {
  /** Series id: the FRED id, or the Yahoo ticker without `^`. Also the `series` key of the `obs` table. */
  id: string;
  file: string;
  layout: Layout;
  /** Where the data come from in production: `fred` series can be refreshed by `pipeline/fred.ts`. */
  source: 'fred' | 'yahoo';
  unit: string;
  frequency: 'daily' | 'weekly';
  /** The text that marks a missing value in the file; `null`: the layout has none and a gap is an error. */
  missingMarker: string | null;
  /**
   * Publication lag in calendar days: `usable_from = date + lagDays`. H.4.1 (WALCL, WTREGEN) describes a
   * Wednesday and is released on Thursday, so 1; daily closes and the FRBNY RRP result are known on the day, so 0.
   */
  lagDays: 0 | 1;
  /**
   * Days after its date that an observation stays the current one, if nothing newer came: 7 for a weekly
   * series (next Wednesday), 0 for a daily one. The calendar ends where the first required series runs out.
   */
  coverDays: 0 | 7;
  /**
   * Start rule: the calendar starts on the first day every group has a usable value; series of one group
   * (the spliced dollar) need only one member. `null`: the series does not hold the start back (RRP, which
   * is 0 before daily operations began; the optional instruments).
   */
  startGroup: string | null;
  /**
   * Whether the calendar ends when this series runs out. Members of one start group count together: the
   * group is current while any of its members is (the dollar through DTWEXB before 2006, DTWEXBGS after).
   * False for the optional instruments and for T10Y2Y, which DGS10 − DGS2 can stand in for.
   */
  bindsEnd: boolean;
  description: string;
}

/** Column names of each layout, in file order, and the column that holds the value. */
export const LAYOUTS: Record<Layout, { header: (id: string) => string[]; valueColumn: (id: string) => string }> = {
  fred: { header: () => ['date', 'value'], valueColumn: () => 'value' },
  fred_named: { header: (id) => ['date', id], valueColumn: (id) => id },
  yfinance: { header: () => ['date', 'open', 'high', 'low', 'close', 'volume'], valueColumn: () => 'close' },
};

const fredDaily = (id: string, unit: string, description: string, bounds: Partial<Pick<SeriesSpec, 'startGroup' | 'bindsEnd'>> = {}): SeriesSpec => ({
  id, file: `${id}.csv`, layout: 'fred', source: 'fred', unit, frequency: 'daily', missingMarker: '', lagDays: 0, coverDays: 0,
  startGroup: bounds.startGroup === undefined ? id : bounds.startGroup, bindsEnd: bounds.bindsEnd ?? true, description,
});

const h41Weekly = (id: string, description: string): SeriesSpec => ({
  id, file: `${id}.csv`, layout: 'fred', source: 'fred', unit: 'millions of USD', frequency: 'weekly', missingMarker: '', lagDays: 1, coverDays: 7,
  startGroup: id, bindsEnd: true, description,
});

const yahoo = (id: string, description: string, required: boolean): SeriesSpec => ({
  id, file: `${id}.csv`, layout: 'yfinance', source: 'yahoo', unit: required ? 'index points' : 'USD per share', frequency: 'daily', missingMarker: null,
  lagDays: 0, coverDays: 0, startGroup: required ? id : null, bindsEnd: required, description,
});

export const CATALOGUE: readonly SeriesSpec[] = [
  h41Weekly('WALCL', 'Fed total assets, Wednesday level (H.4.1)'),
  h41Weekly('WTREGEN', 'Treasury General Account, week average ending Wednesday (H.4.1)'),
  // Before daily operations, a missing RRP value is a day without an operation (0), so RRP never holds
  // the start back; see RRP_DAILY_FROM in the liquidity features.
  fredDaily('RRPONTSYD', 'billions of USD', 'Overnight reverse repo, Treasuries sold by the Fed in temporary OMOs (FRBNY)', { startGroup: null }),
  fredDaily('DGS10', 'percent', '10-year Treasury constant-maturity yield (H.15)'),
  fredDaily('DGS2', 'percent', '2-year Treasury constant-maturity yield (H.15)'),
  // DGS10 − DGS2 stands in for a late T10Y2Y (features/levels.ts), so T10Y2Y neither starts nor ends the calendar.
  fredDaily('T10Y2Y', 'percentage points', '10-year minus 2-year Treasury constant-maturity spread', { startGroup: null, bindsEnd: false }),
  fredDaily('BAMLH0A0HYM2', 'percent', 'ICE BofA US High Yield Index option-adjusted spread'),
  fredDaily('VIXCLS', 'index', 'Cboe Volatility Index (VIX), close'),
  fredDaily('DTWEXBGS', 'index, Jan 2006 = 100', 'Nominal broad U.S. dollar index, goods and services (H.10)', { startGroup: 'dollar' }),
  {
    id: 'DTWEXB', file: 'DTWEXB.csv', layout: 'fred_named', source: 'fred', unit: 'index, Jan 1997 = 100', frequency: 'daily', missingMarker: '',
    lagDays: 0, coverDays: 0, startGroup: 'dollar', bindsEnd: true,
    description: 'Trade-weighted U.S. dollar index, broad, goods (H.10); discontinued 2019, spliced onto DTWEXBGS before 2006',
  },
  yahoo('GSPC', 'S&P 500 price index (Yahoo ^GSPC); its trading days are the calendar', true),
  yahoo('SPY', 'SPDR S&P 500 ETF, dividend- and split-adjusted close (yfinance auto_adjust)', false),
  yahoo('GLD', 'SPDR Gold Shares ETF close (the daily gold proxy; starts 2004-11-18)', false),
];

export function seriesSpec(id: string): SeriesSpec {
  const spec = CATALOGUE.find((s) => s.id === id);
  if (!spec) throw new Error(`unknown series ${JSON.stringify(id)}; known: ${CATALOGUE.map((s) => s.id).join(', ')}`);
  return spec;
}

/** `date + days` for ISO dates, in UTC so no time zone shifts a day. */
export function addDays(isoDate: string, days: number): string {
  const t = Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/** True for a real `YYYY-MM-DD` calendar date (rejects 2021-02-30). */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const t = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === text;
}
