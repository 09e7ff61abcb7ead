/**
 * The NaN-skipping statistics under the figures, against numpy (the implementation empyrical uses): numpy's
 * pairwise summation reproduced to the last bit, missing values left out, the ddof rule, and the exact zero
 * variance of a flat series. The numpy values were computed with numpy 2.4.6 from the same expressions
 * (`np.sum`, `np.nansum`, `np.nanmean`, `np.nanstd(..., ddof=1)`); see fixtures/README.md.
 */
import { describe, expect, it } from 'vitest';
import { nanCount, nanMean, nanMin, nanProd, nanStd, nanSum, nanVar } from '../../../pipeline/performance/nan-stats.js';

/** 1001 values spread over [−0.5, 0.5]: ((i · 7919) mod 1000) / 997 − 0.5. */
const spread = Float64Array.from({ length: 1001 }, (_, i) => ((i * 7919) % 1000) / 997 - 0.5);
/** The same with every 13th value missing (numpy: `c[::13] = np.nan`). */
const holes = spread.map((x, i) => (i % 13 === 0 ? Number.NaN : x));

describe('sums as numpy sums (pairwise)', () => {
  it.each([
    ['ten times 0.1 (left to right: 0.9999999999999999)', new Float64Array(10).fill(0.1), 1.0],
    ['a thousand times 0.1 (left to right: 99.9999999999986)', new Float64Array(1000).fill(0.1), 100.00000000000001],
    ['1001 values over [−0.5, 0.5]', spread, 0.5030090270812412],
    ['the same with every 13th missing (nansum)', holes, -0.03610832497492544],
  ])('%s', (_, values, numpy) => {
    expect(nanSum(values)).toBe(numpy);
  });
});

describe("means and standard deviations as numpy's nanmean and nanstd", () => {
  it('agree with numpy to the last bit', () => {
    expect(nanMean(spread)).toBe(0.0005025065205606805);
    expect(nanStd(spread, 1)).toBe(0.2899763124694934);
    expect(nanMean(holes)).toBe(-3.9078273782386845e-5);
    expect(nanStd(holes, 1)).toBe(0.28958293339668406);
  });

  it('leave missing values out, and are NaN with nothing left (or no more values than ddof)', () => {
    const x = Float64Array.of(Number.NaN, 1, Number.NaN, 3);
    expect(nanCount(x)).toBe(2);
    expect(nanMean(x)).toBe(2);
    expect(nanVar(x, 1)).toBe(2);
    expect(nanVar(x, 0)).toBe(1);
    expect(nanMean(Float64Array.of(Number.NaN))).toBeNaN();
    expect(nanStd(Float64Array.of(0.5, Number.NaN), 1)).toBeNaN();
    expect(nanStd(new Float64Array(0), 1)).toBeNaN();
  });

  it('give a flat series a variance of exactly 0', () => {
    for (const n of [2, 9, 1000, 4097]) expect(nanVar(new Float64Array(n).fill(0.01), 1)).toBe(0);
    expect(nanVar(Float64Array.of(0.07, Number.NaN, 0.07, 0.07), 1)).toBe(0);
  });
});

describe('products and minima skip missing values', () => {
  it('as nanprod (a missing value is 1) and nanmin (NaN when nothing is present)', () => {
    expect(nanProd(Float64Array.of(Number.NaN, 1.5, 2))).toBe(3);
    expect(nanProd(Float64Array.of(Number.NaN))).toBe(1);
    expect(nanMin(Float64Array.of(Number.NaN, 0.2, -0.3, 0.1))).toBe(-0.3);
    expect(nanMin(Float64Array.of(Number.NaN))).toBeNaN();
  });
});
