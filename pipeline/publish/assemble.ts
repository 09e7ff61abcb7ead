/**
 * Assembling the published rows from the feature frame and the walk-forward output: a pure function.
 * Every published day is a walk-forward day; its net liquidity, scorecard and market prices (SPY's open and
 * close, GLD's close: the backtest's instruments) come from the same frame row.
 */
import { availableAt } from '../release/publication.js';
import { trendLabel } from '../features/params.js';
import type { ModelDay } from '../model/walk-forward.js';
import { confidence, expectedRemainingDays, mostLikely, persistence, riskScore } from '../regime/signals.js';
import { REGIMES } from '../../src/core/vocabulary.js';
import type { IndicatorDay, LiquidityDay, MarketDay, ScorecardDay, SignalDay } from './types.js';

export interface FrameColumns {
  dates: string[];
  columns: Record<string, Float64Array>;
}

const round = (x: number, digits = 10): number => Number(x.toFixed(digits));

function col(frame: FrameColumns, name: string): Float64Array {
  const c = frame.columns[name];
  if (!c) throw new Error(`feature frame has no column ${name}`);
  return c;
}

export interface Assembled {
  signals: SignalDay[];
  liquidity: LiquidityDay[];
  scorecard: ScorecardDay[];
  market: MarketDay[];
  indicators: IndicatorDay[];
}

const closeOrNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

export function assemble(frame: FrameColumns, days: readonly ModelDay[], before = { label: -1, days: 0 }): Assembled {
  const level = col(frame, 'net_liq_bn');
  const change = col(frame, 'net_liq_change_4w_bn');
  const z = col(frame, 'net_liq_zscore');
  const trend = col(frame, 'net_liq_trend');
  const fed = col(frame, 'fed_assets_bn');
  const rrp = col(frame, 'rrp_bn');
  const tga = col(frame, 'tga_bn');
  const spy = col(frame, 'spy_close');
  const spyOpen = col(frame, 'spy_open');
  const spyDividend = col(frame, 'spy_dividend');
  const spySplit = col(frame, 'spy_split');
  const gld = col(frame, 'gold_close');
  const indicatorColumns = ['vix', 'hy_spread_pct', 'curve_10y2y_pp', 'dollar'].map((n) => col(frame, n));
  const gauges = ['growth_momentum', 'inflation_momentum', 'liquidity', 'financial_stress', 'dollar_strength'].map((n) => col(frame, n));

  // The published regime: the model's most likely that day (switching rules were tried: pipeline/README.md).
  const top = days.map((d) => mostLikely(d.probs));
  const runs = persistence(top, before);
  const signals: SignalDay[] = [];
  const liquidity: LiquidityDay[] = [];
  const scorecard: ScorecardDay[] = [];
  const market: MarketDay[] = [];
  const indicators: IndicatorDay[] = [];
  days.forEach((d, i) => {
    const t = d.index;
    const date = frame.dates[t] as string;
    const k = top[i] as number;
    // Probabilities and factors are published as computed (doubles round-trip exactly through Postgres), so an
    // incremental run continues the filter from exactly the state a full run had.
    const probs = [...d.probs];
    const liqTrend = trendLabel(trend[t] as number);
    if (!liqTrend) throw new Error(`no net liquidity trend on ${date}`);
    signals.push({
      date,
      available_at: new Date(availableAt(date)).toISOString(),
      regime: REGIMES[k]!,
      prob_expansion: probs[0]!,
      prob_recovery: probs[1]!,
      prob_tightening: probs[2]!,
      prob_risk_off: probs[3]!,
      risk_score: riskScore(d.probs),
      confidence: confidence(d.probs[k] as number),
      persistence_days: runs[i] as number,
      expected_duration_remaining_days: expectedRemainingDays(d.stay[k] as number),
      level_bn: round(level[t] as number, 6),
      change_4w_bn: round(change[t] as number, 6),
      liquidity_zscore: round(z[t] as number, 10),
      liquidity_trend: liqTrend,
      pc1: d.factors[0] as number,
      pc2: d.factors[1] as number,
      pc3: d.factors[2] as number,
      pc4: d.factors[3] as number,
      variance_explained_pct: d.variance_explained_pct.map((v) => round(v, 6)),
      pca_fit_date: d.pca_fit_date,
      hmm_fit_date: d.hmm_fit_date,
    });
    liquidity.push({
      date,
      fed_assets_bn: round(fed[t] as number, 6),
      rrp_bn: round(rrp[t] as number, 6),
      tga_bn: round(tga[t] as number, 6),
      level_bn: round(level[t] as number, 6),
      change_4w_bn: round(change[t] as number, 6),
      zscore: round(z[t] as number, 10),
      trend: liqTrend,
    });
    const [g, inf, liq, fs, usd] = gauges.map((c) => round(c[t] as number, 10));
    scorecard.push({ date, growth_momentum: g!, inflation_momentum: inf!, liquidity: liq!, financial_stress: fs!, dollar_strength: usd! });
    market.push({
      date,
      spy_open: closeOrNull(spyOpen[t] as number),
      spy_close: closeOrNull(spy[t] as number),
      spy_dividend: closeOrNull(spyDividend[t] as number),
      spy_split: closeOrNull(spySplit[t] as number),
      gld_close: closeOrNull(gld[t] as number),
    });
    const [vix, hy, curve, dollar] = indicatorColumns.map((c) => closeOrNull(c[t] as number));
    indicators.push({ date, vix: vix ?? null, hy_spread_pct: hy ?? null, curve_10y2y_pp: curve ?? null, dollar: dollar ?? null });
  });
  return { signals, liquidity, scorecard, market, indicators };
}
