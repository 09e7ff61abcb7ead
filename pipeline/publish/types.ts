/** What a pipeline run publishes: rows shaped like the store's tables (see migration 0004_signals.sql). */
import type { Regime } from '../../src/core/vocabulary.js';
import type { Confidence } from '../regime/signals.js';
import type { Reports } from '../reports/reports.js';
import type { InputDigests } from './input-digests.js';

export type Trend = 'EXPANDING' | 'CONTRACTING' | 'FLAT';

export interface SignalDay {
  date: string;
  /**
   * When the day's regime was published (ISO-8601 UTC): 06:30 New York on the next trading day, computed from
   * the values released by then (pipeline/release/). Null for days published before release-time data.
   */
  available_at: string | null;
  regime: Regime;
  prob_expansion: number;
  prob_recovery: number;
  prob_tightening: number;
  prob_risk_off: number;
  risk_score: number;
  confidence: Confidence;
  persistence_days: number;
  expected_duration_remaining_days: number;
  level_bn: number;
  change_4w_bn: number;
  liquidity_zscore: number;
  liquidity_trend: Trend;
  pc1: number;
  pc2: number;
  pc3: number;
  pc4: number;
  variance_explained_pct: number[];
  pca_fit_date: string;
  hmm_fit_date: string;
}

export interface LiquidityDay {
  date: string;
  fed_assets_bn: number;
  rrp_bn: number;
  tga_bn: number;
  level_bn: number;
  change_4w_bn: number;
  zscore: number;
  trend: Trend;
}

export interface ScorecardDay {
  date: string;
  growth_momentum: number;
  inflation_momentum: number;
  liquidity: number;
  financial_stress: number;
  dollar_strength: number;
}

/** The prices the backtest and the performance figures are computed from, on each published day. */
export interface MarketDay {
  date: string;
  /** SPY's open as traded (where the published performance trades); null where the file has none. */
  spy_open: number | null;
  /** SPY's close as traded; null where the file has none. */
  spy_close: number | null;
  /** SPY's cash dividend per share that went ex on the day (0 on other days); null where the file has no row. */
  spy_dividend: number | null;
  /** SPY's split taking effect on the day, shares after per share before (1 on other days); null where the file has no row. */
  spy_split: number | null;
  /** GLD close as traded; null before 2004-11-18. */
  gld_close: number | null;
}

/** The stress indicators' levels on each published day (null where the frame has no value). */
export interface IndicatorDay {
  date: string;
  vix: number | null;
  hy_spread_pct: number | null;
  curve_10y2y_pp: number | null;
  dollar: number | null;
}

export interface ModelFitRecord {
  fit_date: string;
  pca: unknown;
  hmm: unknown;
}

export interface RunRecord {
  run_id: string;
  started_at: Date;
  as_of: string | null;
  data_vintage: unknown;
  model_version: string;
  seed: number;
  parameters: unknown;
}

export interface Publication {
  run: RunRecord;
  /** When the data were last updated (the newest usable_from of any input), published as model_metadata.data_vintage. */
  dataVintageAt: Date;
  signals: SignalDay[];
  liquidity: LiquidityDay[];
  scorecard: ScorecardDay[];
  market: MarketDay[];
  indicators: IndicatorDay[];
  fits: ModelFitRecord[];
  pcaFitDate: string;
  hmmFitDate: string;
  timingsMs: Record<string, number>;
  /** Who confirmed a publication that rewrites or removes published days (null when none was needed). */
  confirmedBy: string | null;
  /** The forecast, performance and chart data of the history after this publication. */
  reports: Reports;
  /** What the published days were computed from (null when the history has no day). */
  inputDigests: InputDigests | null;
}
