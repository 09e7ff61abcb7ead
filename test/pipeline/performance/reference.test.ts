/**
 * Every performance figure against the values empyrical's own test suite asserts (quantopian/empyrical 0.5.5,
 * `empyrical/tests/test_stats.py`, copied into fixtures/ with the line of each case; see fixtures/README.md),
 * compared as that suite compares them (`assert_almost_equal`, 8 decimals unless the case says otherwise).
 * Where empyrical answers NaN or inf, this module answers null.
 *
 * Cases whose expected value the suite writes as an expression, not a literal, are in conventions.test.ts,
 * computed there from the same expression.
 */
import { describe, expect, it } from 'vitest';
import {
  alphaBeta,
  alpha,
  annualReturn,
  annualVolatility,
  beta,
  calmarRatio,
  cumReturnsFinal,
  downsideRisk,
  maxDrawdown,
  sharpeRatio,
  sortinoRatio,
  type Period,
} from '../../../pipeline/performance/index.js';
import { aligned, expectAlmostEqual, expected, rate, reference, series } from './empyrical-fixture.js';

interface Case {
  returns: string;
  expected: number | string | Array<number | string>;
  period?: string;
  risk_free?: number | string;
  required_return?: number | string;
  benchmark?: string;
  decimal?: number;
  frame?: string;
}

const cases = (name: keyof typeof reference.cases): Case[] => reference.cases[name].cases as Case[];
const literal = (list: Case[]): Case[] => list.filter((c) => typeof c.expected !== 'string' || ['nan', 'inf', '-inf'].includes(c.expected));
const label = (c: Case): string =>
  [c.frame ? `${c.frame}.${c.returns}` : c.returns, c.period, c.risk_free ?? c.required_return ?? c.benchmark].filter((x) => x !== undefined).join(', ');
const period = (c: Case): Period => (c.period ?? 'daily') as Period;
const withLabels = (list: Case[]): Array<[string, Case]> => list.map((c) => [label(c), c]);

describe('cum_returns_final (test_stats.py:196, :1561)', () => {
  it.each(withLabels(literal([...cases('cum_returns_final'), ...cases('cum_returns_final_df')])))('%s', (_, c) => {
    expectAlmostEqual(cumReturnsFinal(series(c.returns)), expected(c.expected as number | string), c.decimal);
  });
});

describe('max_drawdown (test_stats.py:239)', () => {
  it.each(withLabels(literal(cases('max_drawdown'))))('%s', (_, c) => {
    expectAlmostEqual(maxDrawdown(series(c.returns)), expected(c.expected as number | string));
  });
});

describe('annual_return (test_stats.py:285) and its alias cagr (:997)', () => {
  it.each(withLabels(literal([...cases('annual_return'), ...cases('cagr')])))('%s', (_, c) => {
    expectAlmostEqual(annualReturn(series(c.returns), { period: period(c) }), expected(c.expected as number | string));
  });
});

describe('annual_volatility (test_stats.py:299)', () => {
  it.each(withLabels(literal(cases('annual_volatility'))))('%s', (_, c) => {
    expectAlmostEqual(annualVolatility(series(c.returns), { period: period(c) }), expected(c.expected as number | string));
  });
});

describe('calmar_ratio (test_stats.py:315)', () => {
  it.each(withLabels(literal(cases('calmar_ratio'))))('%s', (_, c) => {
    expectAlmostEqual(calmarRatio(series(c.returns), { period: period(c) }), expected(c.expected as number | string));
  });
});

describe('sharpe_ratio (test_stats.py:365)', () => {
  it.each(withLabels(literal(cases('sharpe_ratio'))))('%s', (_, c) => {
    expectAlmostEqual(sharpeRatio(series(c.returns), { riskFree: rate(c.risk_free!) }), expected(c.expected as number | string));
  });
});

describe('downside_risk (test_stats.py:462)', () => {
  it.each(withLabels(literal(cases('downside_risk'))))('%s', (_, c) => {
    expectAlmostEqual(
      downsideRisk(series(c.returns), { requiredReturn: rate(c.required_return!), period: period(c) }),
      expected(c.expected as number | string),
    );
  });
});

describe('sortino_ratio (test_stats.py:555)', () => {
  it.each(withLabels(literal(cases('sortino_ratio'))))('%s', (_, c) => {
    expectAlmostEqual(
      sortinoRatio(series(c.returns), { requiredReturn: rate(c.required_return!), period: period(c) }),
      expected(c.expected as number | string),
    );
  });
});

describe('alpha and beta (test_stats.py:733 alpha_beta, :756 alpha, :887 beta, :1256 down_alpha_beta, :1278 up_alpha_beta)', () => {
  it.each(withLabels([...cases('alpha_beta'), ...cases('down_alpha_beta'), ...cases('up_alpha_beta')]))('alpha_beta %s', (_, c) => {
    const [returns, benchmark] = aligned(c.returns, c.benchmark!);
    const [a, b] = (c.expected as Array<number | string>).map(expected);
    const both = alphaBeta(returns, benchmark);
    expectAlmostEqual(both.alpha, a!);
    expectAlmostEqual(both.beta, b!);
    // empyrical's test_alpha_beta_equality: the pair agrees with the single functions.
    expectAlmostEqual(alpha(returns, benchmark), a!);
    expectAlmostEqual(beta(returns, benchmark), b!);
  });

  it.each(withLabels(cases('alpha')))('alpha %s', (_, c) => {
    const [returns, benchmark] = aligned(c.returns, c.benchmark!);
    expectAlmostEqual(alpha(returns, benchmark), expected(c.expected as number | string));
  });

  it.each(withLabels(cases('beta')))('beta %s', (_, c) => {
    const [returns, benchmark] = aligned(c.returns, c.benchmark!);
    expectAlmostEqual(beta(returns, benchmark), expected(c.expected as number | string));
  });
});

/** Rolling figures: the figure of each window of `window` rows, as empyrical's `roll_*` functions. */
function windows(values: Float64Array, window: number): Float64Array[] {
  return Array.from({ length: values.length - window + 1 }, (_, i) => values.slice(i, i + window));
}

describe('rolling windows: roll_max_drawdown (:1100), roll_sharpe_ratio (:1113), roll_alpha_beta (:1153)', () => {
  it.each(cases('roll_max_drawdown').map((c) => [c.returns, c] as const))('max drawdown of each 6-row window of %s', (_, c) => {
    const got = windows(series(c.returns), 6).map((w) => maxDrawdown(w));
    (c.expected as number[]).forEach((e, i) => expectAlmostEqual(got[i]!, e, c.decimal));
    expect(got).toHaveLength((c.expected as number[]).length);
  });

  it.each(cases('roll_sharpe_ratio').map((c) => [c.returns, c] as const))('Sharpe ratio of each 6-row window of %s', (_, c) => {
    const got = windows(series(c.returns), 6).map((w) => sharpeRatio(w));
    expect(got).toHaveLength((c.expected as number[]).length);
    (c.expected as number[]).forEach((e, i) => expectAlmostEqual(got[i]!, e));
  });

  it.each(cases('roll_alpha_beta').map((c) => [`${c.returns} on ${c.benchmark}`, c] as const))('alpha and beta of each 6-row window of %s', (_, c) => {
    const returns = windows(series(c.returns), 6);
    const benchmark = windows(series(c.benchmark!), 6);
    const want = c.expected as unknown as Array<[number, number]>;
    expect(returns).toHaveLength(want.length);
    want.forEach(([a, b], i) => {
      const got = alphaBeta(returns[i]!, benchmark[i]!);
      expectAlmostEqual(got.alpha, a);
      expectAlmostEqual(got.beta, b);
    });
  });
});
