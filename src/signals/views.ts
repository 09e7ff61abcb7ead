/**
 * The shapes the regime signal service answers with (docs/signals.md, "Endpoints"), from published rows: the signal
 * package (built from the signal-day record the track log holds), the current regime, the public regime view.
 * Pure: rows in, bodies out.
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
import { signalDayRecord } from '../core/records/signal-day.js';
import type { Regime } from '../core/vocabulary.js';
import { EXPOSURE } from '../../pipeline/regime/signals.js';
import type { SignalRow } from './store/published.js';

/**
 * The signal package (`GET /v1/signals/{date}`, `/latest`, `/range`; `tradeseal signals latest|range`): the day's
 * signal-day record, the one its track-log leaf holds (src/core/records/signal-day.ts), plus what the API adds to
 * it, which is nothing yet. A field the API adds is served, not logged: it is added here, and a new version of
 * the record (which every later leaf holds) is what logs it.
 */
export function signalPackage(r: SignalRow): Record<string, unknown> {
  return { ...signalDayRecord(r) };
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
