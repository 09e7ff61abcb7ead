/**
 * Loads the reference data of test/pipeline/performance/fixtures/ (see the README there for the exact source):
 * the series of empyrical's own test suite (quantopian/empyrical 0.5.5, `empyrical/tests/test_stats.py`) and
 * the values it asserts, and compares the way that suite does.
 *
 * A series is named as the suite names it: `mixed_returns`, `-mixed_returns` (negated), `negative_returns[1:]`
 * (without its first row). The daily series all start on 2000-01-30, so a `[1:]` slice starts a day later;
 * `aligned` lines two series up on their days, as pandas does before empyrical's `alpha_beta` (days one series
 * lacks are missing, NaN).
 */
import { expect } from 'vitest';
import reference from './fixtures/empyrical_test_stats.json' with { type: 'json' };

export { reference };

interface SeriesSpec {
  line: number;
  percent?: Array<number | null>;
  values?: Array<number | null>;
  linspace?: { start: number; stop: number; num: number };
}

const SERIES = reference.series as Record<string, SeriesSpec>;

/** numpy's `linspace(start, stop, num)`: start + i·step, the last value exactly stop. */
function linspace(start: number, stop: number, num: number): Float64Array {
  const step = (stop - start) / (num - 1);
  const out = Float64Array.from({ length: num }, (_, i) => i * step + start);
  out[num - 1] = stop;
  return out;
}

/** The values of a named series as the suite builds them: `np.array([...]) / 100`, NaN for `np.nan`. */
function base(name: string): Float64Array {
  const spec = SERIES[name];
  if (!spec) throw new Error(`no series ${name} in the fixture`);
  if (spec.linspace) return linspace(spec.linspace.start, spec.linspace.stop, spec.linspace.num);
  if (spec.percent) return Float64Array.from(spec.percent, (x) => (x === null ? Number.NaN : x / 100));
  return Float64Array.from(spec.values!, (x) => (x === null ? Number.NaN : x));
}

export interface DatedSeries {
  /** Day of the first value, counted from 2000-01-30. */
  start: number;
  values: Float64Array;
}

/** A series by the suite's expression for it: `name`, `-name` or `name[k:]`. */
export function dated(ref: string): DatedSeries {
  const m = /^(-?)([a-z_0-9]+)(?:\[(\d+):\])?$/.exec(ref);
  if (!m) throw new Error(`cannot read the series expression ${ref}`);
  let values = base(m[2]!);
  const start = m[3] ? Number(m[3]) : 0;
  values = values.slice(start);
  if (m[1] === '-') values = values.map((x) => -x);
  return { start, values };
}

export const series = (ref: string): Float64Array => dated(ref).values;

/** Both series over the union of their days, NaN where one has no value (pandas' outer alignment). */
export function aligned(a: string, b: string): [Float64Array, Float64Array] {
  const x = dated(a);
  const y = dated(b);
  const ends = [x, y].filter((s) => s.values.length > 0);
  if (ends.length === 0) return [new Float64Array(0), new Float64Array(0)];
  const first = Math.min(...ends.map((s) => s.start));
  const last = Math.max(...ends.map((s) => s.start + s.values.length));
  const spread = (s: DatedSeries): Float64Array => {
    const out = new Float64Array(last - first).fill(Number.NaN);
    out.set(s.values, s.start - first);
    return out;
  };
  return [spread(x), spread(y)];
}

/** A rate argument of a case: a number, or a series aligned with the returns. */
export const rate = (value: number | string): number | Float64Array => (typeof value === 'number' ? value : series(value));

/** The expected value as this module answers: a number, or null for empyrical's NaN and ±inf. */
export function expected(value: number | string): number | null {
  if (typeof value === 'number') return value;
  if (value === 'nan' || value === 'inf' || value === '-inf') return null;
  throw new Error(`${value} is an expression; the test computes it`);
}

/**
 * numpy's `assert_almost_equal(actual, desired, decimal)`: |desired − actual| < 1.5 · 10^−decimal (the suite
 * uses decimal = 8 unless it says otherwise); an expected NaN or inf is null here.
 */
export function expectAlmostEqual(actual: number | null, desired: number | null, decimal: number = reference.source.decimal_places): void {
  if (desired === null) {
    expect(actual).toBeNull();
    return;
  }
  expect(actual).not.toBeNull();
  expect(Math.abs(desired - actual!), `|${desired} − ${actual}|`).toBeLessThan(1.5 * 10 ** -decimal);
}
