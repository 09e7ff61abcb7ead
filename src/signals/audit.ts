/**
 * The audit decomposition of the engine audit tier (docs/signals.md, "Heartbeats and the audit decomposition"):
 * why the model says what it says on the newest published day, computed only from what the nightly run
 * published (the signal package, the PCA and HMM of the fit in force that day, the indicator levels and net
 * liquidity of the trailing published days); the model is never run again. Pure: inputs in, the document out.
 *
 * The rules, written down here and in the README:
 * - factor_attribution: PC1..PC4 of the day. `description` names the share of the standardized inputs'
 *   variance the factor keeps and the three inputs that load most on it (largest |loading|, signed).
 *   `direction`: the factor's score in standard deviations of its fit window (value / √λ, λ = its share ×
 *   the number of inputs) within ±0.5 is `neutral`; otherwise its stress orientation decides: the sign of
 *   Σ loading × stress sign over the inputs, the stress signs being +1 for the high-yield spread, VIX and
 *   their momentum, −1 for the net liquidity z-score and the equity trend, 0 for the rest (curve, yield and
 *   dollar moves are not stress in every regime). A factor moved in its stress direction is `bearish`, against it `bullish`; a
 *   factor without a stress orientation is `neutral`.
 * - stress_indicators: the level on the day and its z-score against the trailing 90 published days (the day
 *   included; sample standard deviation); `normal` below |z| 2, `elevated` from 2, `extreme` from 3,
 *   `unavailable` when the day has no level. A window without spread gives z 0.
 * - liquidity: the day's net liquidity trend (lower case), level, and change since the newest published day
 *   at least 30 calendar days earlier (null when the history is shorter).
 * - transition_risk: the row of the fitted HMM's transition matrix for the day's regime.
 * - model_health: `pca_explained_variance` (percent kept by the four factors; flag `low_explained_variance`
 *   below 60), `regime_persistence` (mean of the transition matrix's diagonal, the model's stickiness; flag
 *   `low_regime_persistence` below 0.9, an expected stay under 10 days), `feature_mean_shift` (the largest
 *   |mean of the last 20 published days − the fit's mean| / the fit's standard deviation over the PCA inputs
 *   whose levels are published: VIX, high-yield spread, 10Y-2Y curve, net liquidity z-score; flag
 *   `feature_mean_shift` above 2: the inputs left the range the model was fitted on). `status` is `ok`
 *   without flags, `degraded` with any.
 */
import { type Regime, REGIMES } from '../core/vocabulary.js';

/** What the audit reads from the published tables (src/signals/store/audit.ts). */
export interface AuditInputs {
  day: { date: string; regime: Regime; risk_score: number; factors: number[] };
  /** The PCA of the fit in force that day, as published in `model_fits`. */
  pca: { inputs: string[]; means: number[]; sds: number[]; components: number[][]; variance_explained_pct: number[] };
  /** The HMM of the fit in force that day: 4×4 row-major, regime order. */
  transmat: number[];
  /** The trailing published days, oldest first, the day last (at most `STRESS_WINDOW_DAYS`). */
  window: WindowDay[];
  liquidity: { trend: string; level_bn: number; earlier: { date: string; level_bn: number } | null };
}

export interface WindowDay {
  date: string;
  vix: number | null;
  hy_spread_pct: number | null;
  curve_10y2y_pp: number | null;
  dollar: number | null;
  net_liq_bn: number | null;
  net_liq_zscore: number | null;
}

export const STRESS_WINDOW_DAYS = 90;
export const MEAN_SHIFT_DAYS = 20;
export const LIQUIDITY_CHANGE_CALENDAR_DAYS = 30;
export const NEUTRAL_BAND_SD = 0.5;
export const THRESHOLDS = { elevated: 2, extreme: 3, explainedVariancePct: 60, persistence: 0.9, meanShiftSd: 2 } as const;

/** Stress sign of each PCA input (see the module comment); inputs not named here count 0. */
export const STRESS_SIGN: Readonly<Record<string, number>> = Object.freeze({
  hy_spread_pct: 1,
  vix: 1,
  mom_z_hy: 1,
  mom_z_vix: 1,
  net_liq_zscore: -1,
  equity_trend_200d: -1,
});

export const INPUT_LABELS: Readonly<Record<string, string>> = Object.freeze({
  net_liq_zscore: 'net liquidity z-score',
  mom_z_curve: '10Y-2Y curve momentum',
  mom_z_ust10y: '10Y yield momentum',
  mom_z_hy: 'high-yield spread momentum',
  mom_z_vix: 'volatility index momentum',
  mom_z_dollar: 'dollar index momentum',
  curve_10y2y_pp: '10Y-2Y curve',
  hy_spread_pct: 'high-yield spread',
  vix: 'volatility index',
  equity_trend_200d: 'equity trend (close over its 200-day mean)',
});

/** The five stress indicators of the interface, in its order: name, unit, and the window column. */
export const STRESS_INDICATORS = [
  { name: 'volatility_index', column: 'vix', unit: 'index points (VIX close)' },
  { name: 'high_yield_spread', column: 'hy_spread_pct', unit: 'percent (high-yield option-adjusted spread)' },
  { name: 'curve_10y_2y', column: 'curve_10y2y_pp', unit: 'percentage points (10Y − 2Y Treasury)' },
  { name: 'dollar_index', column: 'dollar', unit: 'index, Jan 2006 = 100 (broad trade-weighted dollar)' },
  { name: 'net_liquidity', column: 'net_liq_bn', unit: 'billions of USD (Fed assets − reverse repo − TGA)' },
] as const;

/** The PCA inputs that `feature_mean_shift` covers, with their window column. */
export const MEAN_SHIFT_INPUTS = [
  { input: 'vix', column: 'vix' },
  { input: 'hy_spread_pct', column: 'hy_spread_pct' },
  { input: 'curve_10y2y_pp', column: 'curve_10y2y_pp' },
  { input: 'net_liq_zscore', column: 'net_liq_zscore' },
] as const;

export type Direction = 'bullish' | 'neutral' | 'bearish';
export type StressFlag = 'normal' | 'elevated' | 'extreme' | 'unavailable';

export interface AuditDecomposition {
  generated_at: string;
  date: string;
  regime: Regime;
  risk_score: number;
  agent_count: number;
  factor_attribution: Array<{ factor: string; description: string; value: number; direction: Direction }>;
  stress_indicators: Array<{ name: string; value: number | null; z_score: number | null; flag: StressFlag }>;
  liquidity: { trend: string; latest_bn_usd: number; '30d_change_bn_usd': number | null };
  transition_risk: Record<Regime, number>;
  model_health: { status: 'ok' | 'degraded'; flags: string[]; pca_explained_variance: number; regime_persistence: number; feature_mean_shift: number | null };
}

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
function sampleSd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

const signed = (x: number): string => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(2)}`;

export function factorDirection(value: number, loadings: readonly number[], inputs: readonly string[], variancePct: number): Direction {
  const sdScore = value / Math.sqrt((variancePct / 100) * inputs.length);
  const orientation = Math.sign(loadings.reduce((s, l, j) => s + l * (STRESS_SIGN[inputs[j]!] ?? 0), 0));
  if (!(Math.abs(sdScore) >= NEUTRAL_BAND_SD) || orientation === 0) return 'neutral';
  return sdScore * orientation > 0 ? 'bearish' : 'bullish';
}

export function factorDescription(loadings: readonly number[], inputs: readonly string[], variancePct: number): string {
  const top = loadings
    .map((l, j) => ({ l, name: INPUT_LABELS[inputs[j]!] ?? inputs[j]! }))
    .sort((a, b) => Math.abs(b.l) - Math.abs(a.l))
    .slice(0, 3);
  return `keeps ${variancePct.toFixed(1)}% of the standardized inputs' variance; loads most on ${top.map((t) => `${t.name} (${signed(t.l)})`).join(', ')}`;
}

export function stressFlag(z: number | null): StressFlag {
  if (z === null) return 'unavailable';
  const a = Math.abs(z);
  return a >= THRESHOLDS.extreme ? 'extreme' : a >= THRESHOLDS.elevated ? 'elevated' : 'normal';
}

/** z of the window's last value against the whole window (nulls skipped); null when the last value is null. */
export function windowZ(values: ReadonlyArray<number | null>): number | null {
  const last = values.at(-1);
  if (last === null || last === undefined) return null;
  const xs = values.filter((v): v is number => v !== null);
  const sd = sampleSd(xs);
  return sd === 0 ? 0 : (last - mean(xs)) / sd;
}

export function decompose(inputs: AuditInputs, meta: { generatedAt: Date; agentCount: number }): AuditDecomposition {
  const { day, pca, transmat, window } = inputs;
  const factor_attribution = day.factors.map((value, c) => {
    const loadings = pca.components[c]!;
    const pct = pca.variance_explained_pct[c]!;
    return {
      factor: `PC${c + 1}`,
      description: factorDescription(loadings, pca.inputs, pct),
      value,
      direction: factorDirection(value, loadings, pca.inputs, pct),
    };
  });

  const stress_indicators = STRESS_INDICATORS.map(({ name, column }) => {
    const values = window.map((d) => d[column]);
    const z = windowZ(values);
    return { name, value: values.at(-1) ?? null, z_score: z, flag: stressFlag(z) };
  });

  const k = REGIMES.indexOf(day.regime);
  const transition_risk = Object.fromEntries(REGIMES.map((r, j) => [r, transmat[k * 4 + j]!])) as Record<Regime, number>;

  const explained = pca.variance_explained_pct.reduce((s, v) => s + v, 0);
  const persistence = mean([0, 1, 2, 3].map((i) => transmat[i * 4 + i]!));
  const recent = window.slice(-MEAN_SHIFT_DAYS);
  const shifts = MEAN_SHIFT_INPUTS.flatMap(({ input, column }) => {
    const j = pca.inputs.indexOf(input);
    const xs = recent.map((d) => d[column]).filter((v): v is number => v !== null);
    return j < 0 || xs.length === 0 ? [] : [Math.abs(mean(xs) - pca.means[j]!) / pca.sds[j]!];
  });
  const meanShift = shifts.length ? Math.max(...shifts) : null;
  const flags: string[] = [];
  if (explained < THRESHOLDS.explainedVariancePct) flags.push('low_explained_variance');
  if (persistence < THRESHOLDS.persistence) flags.push('low_regime_persistence');
  if (meanShift !== null && meanShift > THRESHOLDS.meanShiftSd) flags.push('feature_mean_shift');

  const { liquidity } = inputs;
  return {
    generated_at: meta.generatedAt.toISOString(),
    date: day.date,
    regime: day.regime,
    risk_score: day.risk_score,
    agent_count: meta.agentCount,
    factor_attribution,
    stress_indicators,
    liquidity: {
      trend: liquidity.trend.toLowerCase(),
      latest_bn_usd: liquidity.level_bn,
      // To the published levels' precision (6 decimals), without the float noise of the subtraction.
      '30d_change_bn_usd': liquidity.earlier ? Number((liquidity.level_bn - liquidity.earlier.level_bn).toFixed(6)) : null,
    },
    transition_risk,
    model_health: {
      status: flags.length ? 'degraded' : 'ok',
      flags,
      pca_explained_variance: explained,
      regime_persistence: persistence,
      feature_mean_shift: meanShift,
    },
  };
}
