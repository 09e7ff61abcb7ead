/**
 * Each convention of the performance figures, one at a time, with the published value that pins it (empyrical
 * 0.5.5's test suite, fixtures/README.md) and, where it helps, the value the other convention would give, so it
 * is plain that the published value tells them apart.
 *
 * The suite's cases whose expected value is an expression rather than a literal are here too, computed from the
 * same expression: `max_drawdown(negative_returns) == cum_returns_final(negative_returns)` (and for
 * all_negative_returns), `cum_returns_final(one_return) == one_return[0]`. Values derived from published ones
 * by an identity of empyrical's source (excess_sharpe × √252 = Sharpe ratio with that risk-free rate) say so.
 */
import { describe, expect, it } from 'vitest';
import {
  alpha,
  alphaBeta,
  annualReturn,
  annualVolatility,
  beta,
  calmarRatio,
  cumReturnsFinal,
  downsideRisk,
  maxDrawdown,
  sharpeRatio,
  sortinoRatio,
} from '../../../pipeline/performance/index.js';
import { nanMean, nanStd } from '../../../pipeline/performance/nan-stats.js';
import { aligned, expectAlmostEqual, reference, series } from './empyrical-fixture.js';

/** The published value of one case: the first case of `name` whose fields match `where`. */
function publishedValue(name: keyof typeof reference.cases, where: Record<string, unknown>): unknown {
  const found = (reference.cases[name].cases as Array<Record<string, unknown>>).find((c) => Object.entries(where).every(([k, v]) => c[k] === v));
  if (!found) throw new Error(`no case of ${name} with ${JSON.stringify(where)}`);
  return found.expected;
}

function published(name: keyof typeof reference.cases, where: Record<string, unknown>): number {
  const value = publishedValue(name, where);
  if (typeof value !== 'number') throw new Error(`the case of ${name} with ${JSON.stringify(where)} has no literal value`);
  return value;
}

/** A published (alpha, beta) pair. */
const publishedPair = (name: keyof typeof reference.cases, where: Record<string, unknown>): [number, number] => publishedValue(name, where) as [number, number];

const mixed = series('mixed_returns');
const differs = (a: number, b: number): void => expect(Math.abs(a - b)).toBeGreaterThan(1e-6);

describe('standard deviations use ddof = 1', () => {
  it('annual volatility of mixed_returns: 0.9136465399704637 = std(r, ddof=1) · √252 (ddof = 0 would give less)', () => {
    const want = published('annual_volatility', { returns: 'mixed_returns' });
    expectAlmostEqual(annualVolatility(mixed), want);
    differs(Math.sqrt(7 / 8) * want, want);
    expectAlmostEqual(nanStd(mixed, 1) * Math.sqrt(252), want);
  });
});

describe('annualisation factors 252, 52, 12', () => {
  it('weekly_returns and monthly_returns hold the same numbers; their published volatilities differ by √(52/12)', () => {
    const weekly = published('annual_volatility', { returns: 'weekly_returns' });
    const monthly = published('annual_volatility', { returns: 'monthly_returns' });
    expect(weekly / monthly).toBeCloseTo(Math.sqrt(52 / 12), 12);
    expectAlmostEqual(annualVolatility(series('weekly_returns'), { period: 'weekly' }), weekly);
    expectAlmostEqual(annualVolatility(series('monthly_returns'), { period: 'monthly' }), monthly);
  });

  it('the Sharpe ratio scales by the same √52 (no weekly Sharpe ratio is published: mean × 52 / the published weekly volatility)', () => {
    const weekly = series('weekly_returns');
    const want = (nanMean(weekly) * 52) / published('annual_volatility', { returns: 'weekly_returns' });
    expectAlmostEqual(sharpeRatio(weekly, { period: 'weekly' }), want);
    expectAlmostEqual(
      sharpeRatio(series('monthly_returns'), { period: 'monthly' }),
      (nanMean(weekly) * 12) / published('annual_volatility', { returns: 'monthly_returns' }),
    );
  });

  it("alpha compounds over the factor's periods: weekly, (1 + the published daily alpha)^(52/252) − 1", () => {
    const [returns, benchmark] = aligned('mixed_returns', 'negative_returns[1:]');
    const daily = publishedPair('alpha_beta', { benchmark: 'negative_returns[1:]' })[0];
    expectAlmostEqual(alpha(returns, benchmark, { period: 'weekly' }), Math.pow(1 + daily, 52 / 252) - 1);
    expectAlmostEqual(alpha(returns, benchmark, { period: 'monthly' }), Math.pow(1 + daily, 12 / 252) - 1);
  });

  it('annual return compounds over n / factor years: weekly 0.24690830513998208 = (∏(1 + r))^(52/9) − 1', () => {
    const weekly = series('weekly_returns');
    const want = published('annual_return', { returns: 'weekly_returns' });
    expectAlmostEqual(annualReturn(weekly, { period: 'weekly' }), want);
    expectAlmostEqual(Math.pow(1 + cumReturnsFinal(weekly)!, 52 / 9) - 1, want);
  });
});

describe('the risk-free rate is per period, a number or a series, subtracted from each return', () => {
  it('a series: Sharpe ratio of mixed_returns over simple_benchmark as the risk-free rate is 0.34111411441060574', () => {
    expectAlmostEqual(sharpeRatio(mixed, { riskFree: series('simple_benchmark') }), published('sharpe_ratio', { risk_free: 'simple_benchmark' }));
  });

  it('a number: with 0.01 per day it is excess_sharpe(mixed_returns, flat_line_1) × √252 (−0.06515583641446039 × √252)', () => {
    // empyrical's excess_sharpe is mean(r − b) / std(r − b, ddof=1), the same quotient without the √252.
    const want = published('excess_sharpe', { factor_returns: 'flat_line_1' }) * Math.sqrt(252);
    expectAlmostEqual(sharpeRatio(mixed, { riskFree: 0.01 }), want);
    expectAlmostEqual(sharpeRatio(mixed, { riskFree: series('flat_line_1') }), want);
    expectAlmostEqual(sharpeRatio(mixed), published('excess_sharpe', { factor_returns: 0 }) * Math.sqrt(252));
  });

  it('a required return per period for the Sortino ratio: a series of 0.01 and the number 0.01 give −1.3934779588919977', () => {
    const want = published('sortino_ratio', { required_return: 'flat_line_1' });
    expectAlmostEqual(sortinoRatio(mixed, { requiredReturn: series('flat_line_1') }), want);
    expectAlmostEqual(sortinoRatio(mixed, { requiredReturn: 0.01 }), want);
  });
});

describe('maximum drawdown: ≤ 0, measured from the wealth before the first return', () => {
  it('the 6-row window of negative_returns that starts with −6 %: −0.2745 from the starting wealth (−0.2282 from the wealth after the first loss)', () => {
    const window = series('negative_returns').slice(1, 7);
    expect(window[0]).toBe(-0.06);
    expectAlmostEqual(maxDrawdown(window), -0.2745, 4);
    differs((1 + cumReturnsFinal(window)!) / (1 + window[0]!) - 1, -0.2745);
  });

  it.each(['negative_returns', 'all_negative_returns'])('losses only (%s): the drawdown is cum_returns_final, as the suite computes it', (name) => {
    const returns = series(name);
    expectAlmostEqual(maxDrawdown(returns), cumReturnsFinal(returns));
    expect(maxDrawdown(returns)).toBeLessThan(0);
  });

  it('no fall of wealth: 0 (positive_returns, simple_benchmark, one_return), never positive', () => {
    for (const name of ['positive_returns', 'simple_benchmark', 'one_return']) expect(maxDrawdown(series(name))).toBe(0);
  });
});

describe('alpha is annualised geometrically: (1 + mean(r − β·b))^252 − 1', () => {
  const [returns, benchmark] = aligned('mixed_returns', 'negative_returns[1:]');

  it('mixed_returns on negative_returns[1:]: −0.9997853834885004, where 252 · mean(r − β·b) is −8.306666666666668 (empyrical before 0.5.3)', () => {
    const b = beta(returns, benchmark)!;
    const residuals = returns.map((r, i) => r - b * benchmark[i]!);
    expectAlmostEqual(alpha(returns, benchmark), publishedPair('alpha_beta', { benchmark: 'negative_returns[1:]' })[0]);
    expectAlmostEqual(252 * nanMean(residuals), published('alpha_before_0_5_3', {}));
    expectAlmostEqual(Math.pow(1 + nanMean(residuals), 252) - 1, alpha(returns, benchmark));
  });

  it('beta is cov/var on the rows with both values: −0.71296296296296313', () => {
    expectAlmostEqual(alphaBeta(returns, benchmark).beta, publishedPair('alpha_beta', { benchmark: 'negative_returns[1:]' })[1]);
  });

  it("the risk-free rate moves alpha, not beta (empyrical's beta takes no part of it)", () => {
    const plain = alphaBeta(returns, benchmark);
    const withRate = alphaBeta(returns, benchmark, { riskFree: 0.001 });
    expect(withRate.beta).toBe(plain.beta);
    const m = 0.001 * (plain.beta! - 1);
    expectAlmostEqual(Math.pow(1 + withRate.alpha!, 1 / 252) - Math.pow(1 + plain.alpha!, 1 / 252), m, 10);
  });
});

describe('missing values (NaN)', () => {
  it('are left out of means and deviations: mixed_returns (first value missing) has Sharpe ratio 1.7238613961706866 over its 8 returns', () => {
    expectAlmostEqual(sharpeRatio(mixed), published('sharpe_ratio', { returns: 'mixed_returns', risk_free: 0 }));
    expectAlmostEqual(sharpeRatio(mixed.slice(1)), published('sharpe_ratio', { returns: 'mixed_returns', risk_free: 0 }));
  });

  it('count as a period with a return of 0 in the annual return: 1.9135925373194231 is over 9 periods, not 8', () => {
    const want = published('annual_return', { returns: 'mixed_returns' });
    expectAlmostEqual(annualReturn(mixed), want);
    differs(annualReturn(mixed.slice(1))!, want);
  });

  it('count as a return of 0 in the total return, first or last (input_one, input_two)', () => {
    expectAlmostEqual(cumReturnsFinal(series('input_one')), 0.020555, 5);
    expectAlmostEqual(cumReturnsFinal(series('input_two')), 0.066461, 5);
    expectAlmostEqual(cumReturnsFinal(series('one_return')), series('one_return')[0]!, 4);
  });
});

describe('Sortino ratio: the downside deviation over every return, and an arithmetic annual mean', () => {
  it('downside risk of mixed_returns 0.60448325038829653 = √(Σ min(r, 0)² / 8) · √252, not the standard deviation of the losses', () => {
    const want = published('downside_risk', { returns: 'mixed_returns', required_return: 0 });
    expectAlmostEqual(downsideRisk(mixed), want);
    const losses = mixed.filter((r) => r < 0);
    differs(nanStd(losses, 1) * Math.sqrt(252), want);
  });

  it('the published Sortino ratio and downside risk of mixed_returns give back its mean: 2.605531251673693 × 0.60448… / 252 = 0.00625', () => {
    const sortino = published('sortino_ratio', { returns: 'mixed_returns', required_return: 0 });
    const downside = published('downside_risk', { returns: 'mixed_returns', required_return: 0 });
    expect((sortino * downside) / 252).toBeCloseTo(0.00625, 12);
    expectAlmostEqual(sortinoRatio(mixed), sortino);
  });
});

describe("Calmar ratio: annual return / |max drawdown|, with the annual return's sign", () => {
  it('mixed_returns: 19.135925373194233 = 1.9135925373194231 / |−0.1|', () => {
    expectAlmostEqual(calmarRatio(mixed), published('calmar_ratio', { returns: 'mixed_returns' }));
    expectAlmostEqual(published('annual_return', { returns: 'mixed_returns' }) / 0.1, published('calmar_ratio', { returns: 'mixed_returns' }));
  });

  it("a losing series has a negative Calmar ratio (empyrical's expression on negative_returns)", () => {
    const returns = series('negative_returns');
    const calmar = calmarRatio(returns)!;
    expect(calmar).toBeLessThan(0);
    expectAlmostEqual(calmar, annualReturn(returns)! / Math.abs(maxDrawdown(returns)!));
  });

  it('undefined without a drawdown (positive_returns)', () => {
    expect(calmarRatio(series('positive_returns'))).toBeNull();
  });
});

describe('null where empyrical answers NaN or inf', () => {
  it.each([
    ['Sharpe ratio of a flat series (inf)', () => sharpeRatio(series('flat_line_1'))],
    ['Sharpe ratio with no excess return at all (NaN)', () => sharpeRatio(mixed, { riskFree: mixed })],
    ['Sortino ratio without a return below the target (inf)', () => sortinoRatio(series('positive_returns'))],
    ['Sortino ratio of one return (NaN)', () => sortinoRatio(series('one_return'))],
    ['annual volatility of one return (NaN)', () => annualVolatility(series('one_return'))],
    ['beta on a flat benchmark (NaN)', () => beta(mixed, series('flat_line_1'))],
    ['alpha on a flat benchmark (NaN)', () => alpha(mixed, series('flat_line_1'))],
    ['annual return of a wealth that ends below zero (NaN): (−1.65)^(252/5)', () => annualReturn(Float64Array.of(0.5, -2, 0.1, 0, 0))],
  ])('%s', (_, figure) => {
    expect(figure()).toBeNull();
  });

  it('zero is a value, not undefined: downside risk of one positive return, volatility of a flat series', () => {
    expect(downsideRisk(series('one_return'))).toBe(0);
    expect(annualVolatility(series('flat_line_1_tz'))).toBe(0);
  });
});
