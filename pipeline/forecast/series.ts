/**
 * What a series must be for an ARMA(1,1) fit, checked at the edge before any arithmetic: at least
 * MIN_OBSERVATIONS values, every one a finite number within ±MAX_MAGNITUDE, and not all equal. A series that
 * breaks a rule has no maximum likelihood estimate worth printing (a constant series has σ² = 0 and an
 * unbounded likelihood; a handful of values cannot pin down four parameters; values near 1e300 overflow the
 * sums of squares), so it is refused with every problem named.
 *
 * `seriesProblems` returns the problems as data (an index, or null for the whole series), so a caller that
 * knows where the values came from (the `quant arima` command: a file, a column, its lines) can say where in
 * its own terms; `assertSeries` throws them as one `validation_failed` naming the argument and the index.
 */
import { validationError, type FieldError } from '../../src/core/errors.js';

/** Fewer observations than this are refused: four parameters (μ, φ, θ, σ²) need more than a handful. */
export const MIN_OBSERVATIONS = 10;

/**
 * The largest magnitude of a value. The likelihood sums squares and products of the values (and of
 * innovations that can grow to n times them): from about 1e154 on, a square alone overflows a double
 * (Number.MAX_VALUE ≈ 1.8e308) and the fit would end in Infinity − Infinity = NaN. Within ±1e100 the sums stay
 * finite for any series a process can hold; a series of larger numbers is rescaled first (no fit depends on
 * the unit).
 */
export const MAX_MAGNITUDE = 1e100;

export interface SeriesProblem {
  /** The 0-based position of the offending value, or null when the problem is the whole series. */
  index: number | null;
  /** The value at `index` (null for the whole series). */
  value: number | null;
  message: string;
}

/** Every problem of `y`, in order: each non-finite value, then the length and constancy of the series. */
export function seriesProblems(y: ArrayLike<number>): SeriesProblem[] {
  const problems: SeriesProblem[] = [];
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < y.length; i++) {
    const v = y[i]!;
    if (!Number.isFinite(v)) {
      problems.push({
        index: i,
        value: v,
        message: Number.isNaN(v) ? 'is missing (NaN): the exact likelihood needs every observation' : `is ${v}, not a finite number`,
      });
      continue;
    }
    if (Math.abs(v) > MAX_MAGNITUDE) {
      problems.push({
        index: i,
        value: v,
        message: `is ${v}, beyond ±${MAX_MAGNITUDE}: the squares the likelihood sums would overflow a double (rescale the series)`,
      });
      continue;
    }
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (y.length < MIN_OBSERVATIONS) {
    problems.push({
      index: null,
      value: null,
      message: `has ${y.length} observation${y.length === 1 ? '' : 's'}; an ARMA(1,1) fit needs at least ${MIN_OBSERVATIONS}`,
    });
  } else if (min === max) {
    problems.push({ index: null, value: null, message: `is constant (every value is ${min}): its variance is 0, so there is no likelihood to maximise` });
  }
  return problems;
}

/** Throws `validation_failed` listing every problem of `y` as `name[i]` (a value) or `name` (the series). */
export function assertSeries(y: ArrayLike<number>, name = 'y'): void {
  const problems = seriesProblems(y);
  if (problems.length === 0) return;
  const errors: FieldError[] = problems.map((p) => ({ field: p.index === null ? name : `${name}[${p.index}]`, message: p.message }));
  throw validationError(
    errors,
    `${name} cannot be fitted by an ARMA(1,1): ${errors
      .map((e) => `${e.field} ${e.message}`)
      .slice(0, 3)
      .join('; ')}${errors.length > 3 ? `; and ${errors.length - 3} more` : ''}`,
  );
}
