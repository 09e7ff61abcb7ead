/**
 * The rules of one row of an input file, on its own: as many fields as the layout's header, a calendar
 * date, each value a plain decimal (or the file's missing-value marker) within the series' bounds
 * (catalogue.ts), and for the bar layouts low ≤ open, close ≤ high, a whole, non-negative volume and, for
 * `ohlcv_actions`, a dividend ≥ 0 below the day's close and a split ratio > 0.
 * Rules that need the rows around it (order, rhythm, runs of missing values) are in their own modules.
 */
import { isBarLayout, isIsoDate, isPlainDecimal, LAYOUTS, type SeriesSpec, type ValueBounds } from './catalogue.js';
import type { Report } from './problems.js';

/** What the rules of the whole file need to know of a row. */
export interface CheckedRow {
  line: number;
  /** The row's date, when it is a valid calendar date. */
  date: string | null;
  /** The value column holds the file's missing-value marker. */
  missing: boolean;
}

/**
 * Adjusted prices are raw prices times one factor, rounded to binary floating point, so an adjusted close
 * can exceed its high by a few units in the last place (SPY, 1993-2013: at most 3e-16 relative).
 */
const PRICE_ORDER_TOLERANCE = 1e-9;

const PRICE_COLUMNS = ['open', 'high', 'low', 'close'] as const;

/** `≥ 0 (why)`, `> 0 (why)` or `≤ 40 (why)`: the limit a value breaks, with its reason. */
function brokenLimit(value: number, b: ValueBounds): string | null {
  if (b.minExclusive ? value <= b.min : value < b.min) return `${b.minExclusive ? '>' : '≥'} ${b.min} (${b.whyMin})`;
  if (value > b.max) return `≤ ${b.max}${b.whyMax ? ` (${b.whyMax})` : ''}`;
  return null;
}

/**
 * A dividend is cash per share: never negative, and below the close of its ex-date (a payout of the whole
 * price is a price in the wrong column). SPY's largest was 2.71 USD on a price near 600.
 */
const DIVIDEND: ValueBounds = { min: 0, whyMin: 'a cash dividend is never negative', max: Infinity };

/**
 * A split ratio is shares after per share before: 1 on the days without one, 2 for a 2-for-1, 0.1 for a
 * 1-for-10 reverse split. Beyond 1:1000 either way it is a misread column, not a split.
 */
const SPLIT: ValueBounds = {
  min: 0.001,
  whyMin: 'shares after per share before; below 1:1000 it is not a split ratio',
  max: 1000,
  whyMax: 'shares after per share before; above 1000:1 it is not a split ratio',
};

/** Checks one number-valued field; returns its value, or null when it is not a usable number. */
function checkNumber(
  spec: SeriesSpec,
  row: { line: number; date: string | null },
  column: string,
  text: string,
  report: Report,
  bounds: ValueBounds = spec.bounds,
): number | null {
  const value = isPlainDecimal(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) {
    const marker =
      spec.missingMarker === null
        ? `the ${spec.layout} layout has no missing values`
        : `nor the missing-value marker (${spec.missingMarker === '' ? 'an empty field' : JSON.stringify(spec.missingMarker)})`;
    report({ line: row.line, subject: column, text, date: row.date, rule: 'not_a_number', message: `not a plain decimal number; ${marker}` });
    return null;
  }
  const limit = brokenLimit(value, bounds);
  if (limit !== null) {
    const name = isBarLayout(spec.layout) ? `${spec.id} ${column}` : spec.id;
    report({ line: row.line, subject: column, text, date: row.date, rule: 'out_of_bounds', message: `${name} must be ${limit}` });
  }
  return value;
}

/** low ≤ open ≤ high and low ≤ close ≤ high, up to the floating-point tolerance of adjusted prices. */
function checkPriceOrder(fields: readonly string[], prices: Record<string, number | null>, row: { line: number; date: string | null }, report: Report): void {
  const { open, high, low, close } = prices;
  if (open == null || high == null || low == null || close == null) return;
  const slack = PRICE_ORDER_TOLERANCE * Math.abs(high);
  if (low > high + slack) {
    report({
      line: row.line,
      subject: 'low',
      text: fields[3] ?? '',
      date: row.date,
      rule: 'price_order',
      message: `low is above high ${fields[2]} (low ≤ open, close ≤ high)`,
    });
    return;
  }
  for (const [column, value, index] of [
    ['open', open, 1],
    ['close', close, 4],
  ] as const) {
    if (value < low - slack || value > high + slack) {
      report({
        line: row.line,
        subject: column,
        text: fields[index] ?? '',
        date: row.date,
        rule: 'price_order',
        message: `${column} is outside low ${fields[3]} to high ${fields[2]} (low ≤ open, close ≤ high)`,
      });
    }
  }
}

/** Checks a data row; reports its problems and returns what the file-wide rules need. */
export function checkRow(spec: SeriesSpec, line: number, fields: readonly string[], report: Report): CheckedRow {
  const header = LAYOUTS[spec.layout].header(spec.id);
  const dateText = fields[0] ?? '';
  const date = isIsoDate(dateText) ? dateText : null;
  if (fields.length !== header.length) {
    report({
      line,
      subject: 'row',
      text: fields.join(','),
      date,
      rule: 'field_count',
      message: `has ${fields.length} field${fields.length === 1 ? '' : 's'}; the ${spec.layout} layout has ${header.length} (${header.join(',')})`,
    });
    return { line, date, missing: false };
  }
  if (date === null) report({ line, subject: 'date', text: dateText, date: null, rule: 'date_format', message: 'not a calendar date YYYY-MM-DD' });
  const row = { line, date };

  if (!isBarLayout(spec.layout)) {
    const text = fields[1] ?? '';
    if (spec.missingMarker !== null && text === spec.missingMarker) return { line, date, missing: true };
    checkNumber(spec, row, 'value', text, report);
    return { line, date, missing: false };
  }

  const prices: Record<string, number | null> = {};
  PRICE_COLUMNS.forEach((column, i) => {
    prices[column] = checkNumber(spec, row, column, fields[i + 1] ?? '', report);
  });
  checkPriceOrder(fields, prices, row, report);
  const volume = fields[5] ?? '';
  if (!/^\d+$/.test(volume)) report({ line, subject: 'volume', text: volume, date, rule: 'volume', message: 'volume must be a non-negative whole number' });
  if (spec.layout === 'ohlcv_actions') checkActions(spec, fields, prices.close ?? null, row, report);
  return { line, date, missing: false };
}

/** The dividend (≥ 0, below the close) and the split ratio of an `ohlcv_actions` row. */
function checkActions(spec: SeriesSpec, fields: readonly string[], close: number | null, row: { line: number; date: string | null }, report: Report): void {
  const dividend = checkNumber(spec, row, 'dividend', fields[6] ?? '', report, DIVIDEND);
  checkNumber(spec, row, 'split', fields[7] ?? '', report, SPLIT);
  if (dividend !== null && close !== null && dividend >= close) {
    report({
      line: row.line,
      subject: 'dividend',
      text: fields[6] ?? '',
      date: row.date,
      rule: 'out_of_bounds',
      message: `${spec.id} dividend must be below the day's close ${fields[4]} (a payout of the whole price is a price in the wrong column)`,
    });
  }
}
