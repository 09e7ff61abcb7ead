/**
 * The forecast the signal service publishes (docs/decisions/0034-forecast.md): a separate ARIMA(1,0,1)
 * with a mean per probability column and for the risk score, each fitted by exact maximum likelihood (../forecast/)
 * on the published history up to its newest day, forecast `FORECAST_HORIZON` business days ahead. For each day: the
 * four probabilities clipped to [0, 1] and renormalised to sum to 1 (all clipped to 0: an even split), `regime` the
 * most likely one, `confidence` = 1 − normalised entropy (1 − H(p) / ln 4: 1 for certainty, 0 for an even split),
 * and the risk score clipped to [0, 1]. The days are the NYSE trading days after the newest one (the calendar of
 * the market files). A horizon h of 1..10 is the first h rows. A column that never moves (a regime never seen) is
 * forecast as its constant, with no fit.
 * Pure: the history and the clock in, the envelope out.
 */
import { type Regime, REGIMES } from '../../src/core/vocabulary.js';
import { fitArma11, type Arma11Fit } from '../forecast/fit.js';
import { forecastArma11 } from '../forecast/forecast.js';
import { addDays } from '../../src/core/dates.js';
import { isNyseTradingDay } from '../../src/core/calendars/nyse.js';
import { mostLikely } from '../regime/signals.js';

/** Days forecast by the nightly run; the interface serves 1..10 of them (default 5). */
export const FORECAST_HORIZON = 10;

export interface ForecastRow {
  date: string;
  regime: Regime;
  confidence: number;
  risk_score: number;
  prob_expansion: number;
  prob_recovery: number;
  prob_tightening: number;
  prob_risk_off: number;
}

export interface ForecastEnvelope {
  horizon: number;
  /** ISO 8601 with an offset (`+00:00`). */
  generated_at: string;
  forecast: ForecastRow[];
}

export interface ForecastHistoryDay {
  date: string;
  risk_score: number;
  prob_expansion: number;
  prob_recovery: number;
  prob_tightening: number;
  prob_risk_off: number;
}

export const FORECAST_COLUMNS = ['prob_expansion', 'prob_recovery', 'prob_tightening', 'prob_risk_off', 'risk_score'] as const;
export type ForecastColumn = (typeof FORECAST_COLUMNS)[number];

/** The fitted model of one column, or its constant when it never moves. */
export type ColumnModel = { kind: 'arma11'; fit: Omit<Arma11Fit, 'evaluations'> } | { kind: 'constant'; value: number };

export interface ForecastResult {
  envelope: ForecastEnvelope;
  base_date: string;
  models: Record<ForecastColumn, ColumnModel>;
}

/** The `n` NYSE trading days after `date`. */
export function tradingDaysAfter(date: string, n: number): string[] {
  const out: string[] = [];
  for (let d = addDays(date, 1); out.length < n; d = addDays(d, 1)) if (isNyseTradingDay(d)) out.push(d);
  return out;
}

const clip = (x: number): number => Math.min(1, Math.max(0, x));

/** 1 − H(p) / ln 4, for probabilities that sum to 1. */
export function concentration(p: readonly number[]): number {
  let h = 0;
  for (const x of p) if (x > 0) h -= x * Math.log(x);
  return Math.min(1, Math.max(0, 1 - h / Math.log(p.length)));
}

/** Clipped to [0, 1] and renormalised to sum to 1 (an even split when every value clips to 0). */
export function renormalised(raw: readonly number[]): number[] {
  const clipped = raw.map(clip);
  const sum = clipped.reduce((a, b) => a + b, 0);
  return sum > 0 ? clipped.map((x) => x / sum) : clipped.map(() => 1 / clipped.length);
}

function forecastColumn(y: Float64Array, h: number): { model: ColumnModel; path: Float64Array } {
  const first = y[0]!;
  if (y.every((v) => v === first)) return { model: { kind: 'constant', value: first }, path: new Float64Array(h).fill(first) };
  const { evaluations: _e, ...fit } = fitArma11(y, { withMean: true });
  return { model: { kind: 'arma11', fit }, path: forecastArma11(y, fit, h).mean };
}

export function forecastFromHistory(history: readonly ForecastHistoryDay[], generatedAt: Date, horizon = FORECAST_HORIZON): ForecastResult {
  const base = history.at(-1);
  if (!base) throw new RangeError('a forecast needs a published history');
  const paths = {} as Record<ForecastColumn, Float64Array>;
  const models = {} as Record<ForecastColumn, ColumnModel>;
  for (const column of FORECAST_COLUMNS) {
    const { model, path } = forecastColumn(
      Float64Array.from(history, (d) => d[column]),
      horizon,
    );
    paths[column] = path;
    models[column] = model;
  }
  const rows = tradingDaysAfter(base.date, horizon).map((date, j): ForecastRow => {
    const p = renormalised([paths.prob_expansion[j]!, paths.prob_recovery[j]!, paths.prob_tightening[j]!, paths.prob_risk_off[j]!]);
    return {
      date,
      regime: REGIMES[mostLikely(p)]!,
      confidence: concentration(p),
      risk_score: clip(paths.risk_score[j]!),
      prob_expansion: p[0]!,
      prob_recovery: p[1]!,
      prob_tightening: p[2]!,
      prob_risk_off: p[3]!,
    };
  });
  return {
    envelope: { horizon, generated_at: generatedAt.toISOString().replace('Z', '+00:00'), forecast: rows },
    base_date: base.date,
    models,
  };
}

/** The first `h` days of a published envelope (the interface's `horizon` parameter). */
export function sliceForecast(envelope: ForecastEnvelope, h: number): ForecastEnvelope {
  return { horizon: h, generated_at: envelope.generated_at, forecast: envelope.forecast.slice(0, h) };
}
