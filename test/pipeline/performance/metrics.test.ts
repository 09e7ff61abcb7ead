/**
 * `performanceMetrics`, every figure at once: the figures of empyrical's published cases (fixtures/README.md),
 * the shape of the answer (the keys `tradeseal quant metrics` prints; alpha and beta only with a benchmark;
 * `n` counts the returns present), and arguments checked at the edge with their names.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { performanceMetrics } from '../../../pipeline/performance/index.js';
import { readNumericColumns } from '../../../pipeline/quant/columns.js';
import { isTradesealError } from '../../../src/core/errors.js';
import { aligned, expectAlmostEqual, series } from './empyrical-fixture.js';

const mixed = series('mixed_returns');

describe('every figure at once', () => {
  it("mixed_returns against negative_returns[1:]: empyrical's published values, in the order the CLI prints them", () => {
    const [returns, benchmark] = aligned('mixed_returns', 'negative_returns[1:]');
    const m = performanceMetrics(returns, { benchmark });
    expect(Object.keys(m)).toEqual([
      'n',
      'sharpe_ratio',
      'sortino_ratio',
      'annual_return',
      'annual_volatility',
      'max_drawdown',
      'calmar_ratio',
      'downside_risk',
      'cum_returns_final',
      'alpha',
      'beta',
    ]);
    expect(m.n).toBe(8);
    expectAlmostEqual(m.sharpe_ratio, 1.7238613961706866);
    expectAlmostEqual(m.sortino_ratio, 2.605531251673693);
    expectAlmostEqual(m.annual_return, 1.9135925373194231);
    expectAlmostEqual(m.annual_volatility, 0.9136465399704637);
    expectAlmostEqual(m.max_drawdown, -0.1);
    expectAlmostEqual(m.calmar_ratio, 19.135925373194233);
    expectAlmostEqual(m.downside_risk, 0.60448325038829653);
    expectAlmostEqual(m.cum_returns_final, 0.03893, 4);
    expectAlmostEqual(m.alpha, -0.9997853834885004);
    expectAlmostEqual(m.beta, -0.71296296296296313);
  });

  it('without a benchmark there is no alpha and no beta', () => {
    const m = performanceMetrics(mixed);
    expect(m).not.toHaveProperty('alpha');
    expect(m).not.toHaveProperty('beta');
  });

  it('passes the period, the risk-free rate and the required return to each figure', () => {
    const weekly = performanceMetrics(series('weekly_returns'), { period: 'weekly', requiredReturn: 0.1 });
    expect(weekly.n).toBe(9);
    expectAlmostEqual(weekly.annual_return, 0.24690830513998208);
    expectAlmostEqual(weekly.annual_volatility, 0.38851569394870583);
    expectAlmostEqual(weekly.calmar_ratio, 2.4690830513998208);
    expectAlmostEqual(weekly.downside_risk, 0.7733045971672482);
    expectAlmostEqual(performanceMetrics(series('monthly_returns'), { period: 'monthly' }).sortino_ratio, 0.53605626741889756);
    expectAlmostEqual(performanceMetrics(mixed, { riskFree: series('simple_benchmark') }).sharpe_ratio, 0.34111411441060574);
    expectAlmostEqual(performanceMetrics(mixed, { requiredReturn: series('flat_line_1') }).sortino_ratio, -1.3934779588919977);
  });

  it('is JSON as it is: undefined figures are null', () => {
    const m = performanceMetrics(series('flat_line_1'), { benchmark: series('flat_line_1') });
    expect(JSON.parse(JSON.stringify(m))).toEqual(m);
    expect(m).toMatchObject({ sharpe_ratio: null, sortino_ratio: null, calmar_ratio: null, alpha: null, beta: null, max_drawdown: 0, downside_risk: 0 });
  });

  it('of no returns: n = 0 and every figure null', () => {
    const m = performanceMetrics(new Float64Array(0), { benchmark: new Float64Array(0) });
    expect(m.n).toBe(0);
    for (const [key, value] of Object.entries(m)) if (key !== 'n') expect(value, key).toBeNull();
  });
});

describe('arguments', () => {
  it.each([
    ['benchmark', () => performanceMetrics(mixed, { benchmark: new Float64Array(3) }), /benchmark: expected one value per return \(9\), got 3/],
    ['risk_free', () => performanceMetrics(mixed, { riskFree: Number.NaN }), /risk_free: expected a finite number per period/],
    ['risk_free', () => performanceMetrics(mixed, { riskFree: new Float64Array(8) }), /risk_free: expected one value per return/],
    ['required_return', () => performanceMetrics(mixed, { requiredReturn: Number.POSITIVE_INFINITY }), /required_return: expected a finite number/],
    ['period', () => performanceMetrics(mixed, { period: 'yearly' as never }), /period: expected one of daily, weekly, monthly, got "yearly"/],
  ])('a bad %s is validation_failed, naming it', (field, call, message) => {
    let thrown: unknown;
    try {
      call();
    } catch (err) {
      thrown = err;
    }
    expect(isTradesealError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'validation_failed', exit: 2, errors: [{ field }] });
    expect((thrown as Error).message).toMatch(message);
  });
});

describe('fixtures/empyrical_series.csv, the file the CLI test reads', () => {
  it("holds empyrical's series bit for bit, negative_returns_tail being negative_returns[1:] on the days of mixed_returns", () => {
    const text = fs.readFileSync(new URL('./fixtures/empyrical_series.csv', import.meta.url), 'utf8');
    const names = [
      'simple_benchmark',
      'positive_returns',
      'negative_returns',
      'all_negative_returns',
      'mixed_returns',
      'flat_line_1',
      'weekly_returns',
      'monthly_returns',
    ];
    const { columns, rows } = readNumericColumns('empyrical_series.csv', text, [...names, 'negative_returns_tail']);
    expect(rows).toBe(9);
    for (const name of names) expect(columns[name], name).toEqual(series(name));
    expect(columns.negative_returns_tail).toEqual(aligned('mixed_returns', 'negative_returns[1:]')[1]);
  });
});
