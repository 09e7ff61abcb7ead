/**
 * The rules of one row of an input file, on its own: as many fields as the layout's header, a calendar
 * date, each value a plain decimal (or the file's missing-value marker) within the series' bounds
 * (catalogue.ts), and for the yfinance layout low ≤ open, close ≤ high and a whole, non-negative volume.
 * Rules that need the rows around it (order, rhythm, runs of missing values) are in their own modules.
 */
import { isIsoDate, isPlainDecimal, LAYOUTS, type SeriesSpec, type ValueBounds } from './catalogue.js';
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

/** Checks one number-valued field; returns its value, or null when it is not a usable number. */
function checkNumber(spec: SeriesSpec, row: { line: number; date: string | null }, column: string, text: string, report: Report): number | null {
  const value = isPlainDecimal(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) {
    const marker = spec.missingMarker === null
      ? `the ${spec.layout} layout has no missing values`
      : `nor the missing-value marker (${spec.missingMarker === '' ? 'an empty field' : JSON.stringify(spec.missingMarker)})`;
    report({ line: row.line, subject: column, text, date: row.date, rule: 'not_a_number', message: `not a plain decimal number; ${marker}` });
    return null;
  }
  const limit = brokenLimit(value, spec.bounds);
  if (limit !== null) {
    const name = spec.layout === 'yfinance' ? `${spec.id} ${column}` : spec.id;
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
    report({ line: row.line, subject: 'low', text: fields[3] ?? '', date: row.date, rule: 'price_order', message: `low is above high ${fields[2]} (low ≤ open, close ≤ high)` });
    return;
  }
  for (const [column, value, index] of [['open', open, 1], ['close', close, 4]] as const) {
    if (value < low - slack || value > high + slack) {
      report({ line: row.line, subject: column, text: fields[index] ?? '', date: row.date, rule: 'price_order', message: `${column} is outside low ${fields[3]} to high ${fields[2]} (low ≤ open, close ≤ high)` });
    }
  }
}

/** Checks a data row; reports its problems and returns what the file-wide rules need. */
export function checkRow(spec: SeriesSpec, line: number, fields: readonly string[], report: Report): CheckedRow {
  const header = LAYOUTS[spec.layout].header(spec.id);
  const dateText = fields[0] ?? '';
  const date = isIsoDate(dateText) ? dateText : null;
  if (fields.length !== header.length) {
    report({ line, subject: 'row', text: fields.join(','), date, rule: 'field_count', message: `has ${fields.length} field${fields.length === 1 ? '' : 's'}; the ${spec.layout} layout has ${header.length} (${header.join(',')})` });
    return { line, date, missing: false };
  }
  if (date === null) report({ line, subject: 'date', text: dateText, date: null, rule: 'date_format', message: 'not a calendar date YYYY-MM-DD' });
  const row = { line, date };

  if (spec.layout !== 'yfinance') {
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
  return { line, date, missing: false };
}
