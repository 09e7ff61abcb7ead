/**
 * The published forecast's own rules, over the ARMA estimator that test/pipeline/forecast/ checks against
 * gretl and Stata: the days are the NYSE trading days after the newest one, probabilities are clipped and
 * renormalised, confidence is 1 − normalised entropy, each column's path is the estimator's forecast, and a
 * column that never moves is forecast as its constant.
 */
import { describe, expect, it } from 'vitest';
import { fitArma11 } from '../../../pipeline/forecast/fit.js';
import { forecastArma11 } from '../../../pipeline/forecast/forecast.js';
import {
  concentration,
  forecastFromHistory,
  renormalised,
  sliceForecast,
  tradingDaysAfter,
  type ForecastHistoryDay,
} from '../../../pipeline/reports/forecast.js';

describe('tradingDaysAfter', () => {
  it('skips weekends and NYSE holidays: after Wednesday 2025-12-24, Christmas and the weekend', () => {
    expect(tradingDaysAfter('2025-12-24', 4)).toEqual(['2025-12-26', '2025-12-29', '2025-12-30', '2025-12-31']);
  });

  it('skips Good Friday and a special closure (the Carter funeral, 2025-01-09)', () => {
    expect(tradingDaysAfter('2025-04-17', 1)).toEqual(['2025-04-21']);
    expect(tradingDaysAfter('2025-01-08', 1)).toEqual(['2025-01-10']);
  });
});

describe('renormalised and concentration', () => {
  it('clips to [0, 1], renormalises to 1, and splits evenly when nothing is left', () => {
    const close = (got: number[], want: number[]): void => got.forEach((x, i) => expect(x).toBeCloseTo(want[i]!, 15));
    close(renormalised([0.5, -0.1, 0.3, 0.4]), [0.5 / 1.2, 0, 0.3 / 1.2, 0.4 / 1.2]);
    close(renormalised([1.4, 0.2, 0, 0]), [1 / 1.2, 0.2 / 1.2, 0, 0]);
    expect(renormalised([-1, -2, 0, 0])).toEqual([0.25, 0.25, 0.25, 0.25]);
  });

  it('is 1 for certainty, 0 for an even split, and 1 − H/ln 4 between', () => {
    expect(concentration([1, 0, 0, 0])).toBe(1);
    expect(concentration([0.25, 0.25, 0.25, 0.25])).toBeCloseTo(0, 15);
    const p = [0.7, 0.1, 0.1, 0.1];
    expect(concentration(p)).toBeCloseTo(1 - -(0.7 * Math.log(0.7) + 3 * 0.1 * Math.log(0.1)) / Math.log(4), 15);
  });
});

describe('forecastFromHistory', () => {
  // A smooth, persistent history: the risk_off probability decays, expansion rises.
  const history: ForecastHistoryDay[] = Array.from({ length: 120 }, (_, i) => {
    const d = new Date(Date.UTC(2024, 0, 2) + i * 86_400_000).toISOString().slice(0, 10);
    const off = 0.8 * Math.exp(-i / 40) + 0.02 * Math.sin(i);
    const exp = 0.9 - off;
    return { date: d, prob_expansion: exp, prob_recovery: 0.05, prob_tightening: 0.05, prob_risk_off: off, risk_score: 1 - exp - 0.0375 };
  });
  const generatedAt = new Date('2026-11-23T06:30:00Z');
  const result = forecastFromHistory(history, generatedAt);

  it("answers the interface's envelope: 10 rows, generated_at with an offset", () => {
    expect(result.envelope.horizon).toBe(10);
    expect(result.envelope.generated_at).toBe('2026-11-23T06:30:00.000+00:00');
    expect(result.envelope.forecast.map((r) => r.date)).toEqual(tradingDaysAfter(history.at(-1)!.date, 10));
    expect(result.base_date).toBe(history.at(-1)!.date);
  });

  it('forecasts each column with its own exact-ML ARMA(1,1), then clips and renormalises the probabilities', () => {
    const path = (col: keyof ForecastHistoryDay): Float64Array => {
      const y = Float64Array.from(history, (d) => d[col] as number);
      return forecastArma11(y, fitArma11(y, { withMean: true }), 10).mean;
    };
    const e = path('prob_expansion');
    const o = path('prob_risk_off');
    result.envelope.forecast.forEach((row, j) => {
      const p = renormalised([e[j]!, 0.05, 0.05, o[j]!]);
      expect([row.prob_expansion, row.prob_recovery, row.prob_tightening, row.prob_risk_off]).toEqual(p);
      expect(row.prob_expansion + row.prob_recovery + row.prob_tightening + row.prob_risk_off).toBeCloseTo(1, 14);
      expect(row.regime).toBe(p[0]! >= p[3]! ? 'expansion' : 'risk_off');
      expect(row.confidence).toBe(concentration(p));
      expect(row.risk_score).toBe(Math.min(1, Math.max(0, path('risk_score')[j]!)));
    });
    expect(result.models.prob_expansion.kind).toBe('arma11');
  });

  it('forecasts a column that never moves as its constant, without a fit', () => {
    expect(result.models.prob_recovery).toEqual({ kind: 'constant', value: 0.05 });
  });

  it('slices a horizon h as the first h rows', () => {
    expect(sliceForecast(result.envelope, 3)).toEqual({
      horizon: 3,
      generated_at: result.envelope.generated_at,
      forecast: result.envelope.forecast.slice(0, 3),
    });
  });
});
