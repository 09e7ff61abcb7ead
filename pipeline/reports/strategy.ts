/**
 * The regime strategy of the interface (PIPELINE.md, "Backtest and performance"): each trading day's equity
 * exposure is the weight of the regime published the day before (expansion 1, recovery 0.75, tightening
 * 0.25, risk_off 0), applied to the base instrument's daily simple return; buy-and-hold is exposure 1.
 * The one-day lag is the honesty rule: a regime published for day t is known only at the end of day t,
 * so it can only set the exposure of day t + 1.
 *
 * Pure: published days (date, regime) and the instrument's closes in; one row per day that has a regime the
 * day before and both closes, out.
 */
import type { Regime } from '../../src/engine/vocabulary.js';
import { EXPOSURE } from '../regime/signals.js';

export interface RegimeDay {
  date: string;
  regime: Regime;
  risk_score: number;
}

export interface MarketDay {
  date: string;
  /** The base instrument's close (SPY, dividend-adjusted); null where there is none. */
  spy_close: number | null;
  /** Gold's close (GLD); null before 2004-11-18. */
  gld_close: number | null;
}

export interface StrategyDay {
  date: string;
  /** The regime in force for this day's exposure: the one published the day before. */
  held: Regime;
  exposure: number;
  /** The instrument's simple return from the previous day's close. */
  market: number;
  strategy: number;
  /** Gold's simple return, NaN where either close is missing. */
  gold: number;
}

/**
 * The strategy's days over `days` (published regimes, oldest first) and `market` (closes by date). The first
 * day has no regime before it and is the base of the returns, so it yields no row.
 */
export function strategyDays(days: readonly RegimeDay[], market: ReadonlyMap<string, MarketDay>): StrategyDay[] {
  const out: StrategyDay[] = [];
  for (let i = 1; i < days.length; i++) {
    const prev = days[i - 1]!;
    const day = days[i]!;
    const a = market.get(prev.date);
    const b = market.get(day.date);
    if (a?.spy_close == null || b?.spy_close == null) continue;
    const r = b.spy_close / a.spy_close - 1;
    const exposure = EXPOSURE[prev.regime];
    const gold = a.gld_close != null && b.gld_close != null ? b.gld_close / a.gld_close - 1 : Number.NaN;
    out.push({ date: day.date, held: prev.regime, exposure, market: r, strategy: exposure * r, gold });
  }
  return out;
}

/** Wealth from `start` through the returns: `start`, then one value per return. */
export function cumulative(returns: ArrayLike<number>, start = 100): number[] {
  const out = [start];
  let w = start;
  for (let i = 0; i < returns.length; i++) {
    const r = returns[i]!;
    if (Number.isFinite(r)) w *= 1 + r;
    out.push(w);
  }
  return out;
}
