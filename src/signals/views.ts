/**
 * The shapes the regime signal service answers with (docs/signals.md, "Endpoints"), from published rows:
 * the signal package, the current regime, the public regime view. Pure: rows in, bodies out.
 *
 * Choices the interface leaves open, written down here:
 * - the current regime (`/v1/regime/current`, `/v1/public/regime`) is the broadcast in force, the one the
 *   engine enforces and heartbeats carry: an operator's override shows there, with its model version;
 * - `volatility_state` reads the scorecard's financial-stress gauge of the newest day (tanh of the standardized
 *   momentum of the high-yield spread and VIX, positive = calm): `low` at 0.33 or more, `elevated` at −0.33 or
 *   less, else `normal`;
 * - the public view's `equity_exposure` is the regime's weight as a percent string
 *   (docs/decisions/0022-equity-exposure.md).
 */
import type { Regime } from '../core/vocabulary.js';
import { EXPOSURE } from '../../pipeline/regime/signals.js';
import type { SignalRow } from './store/published.js';

export function signalPackage(r: SignalRow): Record<string, unknown> {
  return {
    date: r.date,
    available_at: r.available_at,
    regime: {
      most_likely: r.regime,
      probabilities: { expansion: r.prob_expansion, recovery: r.prob_recovery, tightening: r.prob_tightening, risk_off: r.prob_risk_off },
      confidence: r.confidence,
      persistence_days: r.persistence_days,
      expected_duration_remaining_days: r.expected_duration_remaining_days,
    },
    net_liquidity: { level_bn: r.level_bn, change_4w_bn: r.change_4w_bn, zscore: r.liquidity_zscore, trend: r.liquidity_trend },
    pca_factors: { pc1: r.pc1, pc2: r.pc2, pc3: r.pc3, pc4: r.pc4, variance_explained_pct: r.variance_explained_pct },
    model_metadata: { pca_fit_date: r.pca_fit_date, hmm_fit_date: r.hmm_fit_date, data_vintage: r.data_vintage.toISOString() },
  };
}

export const REGIME_LABEL: Readonly<Record<Regime, string>> = { expansion: 'Expansion', recovery: 'Recovery', tightening: 'Tightening', risk_off: 'Risk-off' };
export const REGIME_EMOJI: Readonly<Record<Regime, string>> = { expansion: '🟢', recovery: '🔵', tightening: '🟠', risk_off: '🔴' };
export const REGIME_INTERPRETATION: Readonly<Record<Regime, string>> = {
  expansion: 'Liquidity is ample and stress is low: the model suggests full equity exposure.',
  recovery: 'Stress is easing after a drawdown: the model suggests three quarters of full equity exposure.',
  tightening: 'Yields are rising or liquidity is draining: the model suggests a quarter of full equity exposure.',
  risk_off: 'Credit spreads and volatility signal stress: the model suggests no equity exposure.',
};

/** `75%`: a regime's weight as the public views and the webhook show it. */
export const exposurePercent = (regime: Regime): string => `${Math.round(EXPOSURE[regime] * 100)}%`;

export type VolatilityState = 'low' | 'normal' | 'elevated';

export function volatilityState(financialStress: number | null): VolatilityState {
  if (financialStress === null) return 'normal';
  return financialStress >= 0.33 ? 'low' : financialStress <= -0.33 ? 'elevated' : 'normal';
}
