/** What series an ARMA(1,1) fit accepts: at least 10 finite values, not all equal; each problem named. */
import { describe, expect, it } from 'vitest';
import { fitArma11 } from '../../../pipeline/forecast/fit.js';
import { MIN_OBSERVATIONS, seriesProblems } from '../../../pipeline/forecast/series.js';
import { isTradesealError, type FieldError } from '../../../src/core/errors.js';

const ten = [0.3, -1.2, 0.8, 2.1, -0.4, 0.0, 1.5, -0.9, 0.6, 1.1];

function fitErrors(y: number[], withMean = true): { code: string; detail: string; errors: FieldError[] } {
  try {
    fitArma11(y, { withMean });
  } catch (e) {
    if (isTradesealError(e)) return { code: e.code, detail: e.detail, errors: e.errors ?? [] };
    throw e;
  }
  throw new Error('fitArma11 accepted the series');
}

describe('the series an ARMA(1,1) fit accepts', () => {
  it('needs at least 10 observations', () => {
    expect(MIN_OBSERVATIONS).toBe(10);
    expect(seriesProblems(ten)).toEqual([]);
    const e = fitErrors(ten.slice(0, 9));
    expect(e.code).toBe('validation_failed');
    expect(e.errors).toEqual([{ field: 'y', message: 'has 9 observations; an ARMA(1,1) fit needs at least 10' }]);
    expect(fitErrors([]).errors[0]?.message).toBe('has 0 observations; an ARMA(1,1) fit needs at least 10');
  });

  it.each([true, false])('refuses a constant series (with a mean: %s)', (withMean) => {
    const e = fitErrors(Array(30).fill(4.25), withMean);
    expect(e.code).toBe('validation_failed');
    expect(e.errors).toEqual([{ field: 'y', message: 'is constant (every value is 4.25): its variance is 0, so there is no likelihood to maximise' }]);
  });

  it('names every missing or non-finite value by its index', () => {
    const y = [...ten, Number.NaN, 1, Number.POSITIVE_INFINITY, 2, Number.NEGATIVE_INFINITY];
    const e = fitErrors(y);
    expect(e.code).toBe('validation_failed');
    expect(e.errors).toEqual([
      { field: 'y[10]', message: 'is missing (NaN): the exact likelihood needs every observation' },
      { field: 'y[12]', message: 'is Infinity, not a finite number' },
      { field: 'y[14]', message: 'is -Infinity, not a finite number' },
    ]);
    expect(e.detail).toContain('y[10] is missing (NaN)');
  });

  it('reports a short series with a missing value twice: the value and the length', () => {
    expect(seriesProblems([1, Number.NaN, 3])).toEqual([
      { index: 1, value: Number.NaN, message: 'is missing (NaN): the exact likelihood needs every observation' },
      { index: null, value: null, message: 'has 3 observations; an ARMA(1,1) fit needs at least 10' },
    ]);
  });
});
