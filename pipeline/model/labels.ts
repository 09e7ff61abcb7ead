/**
 * Naming the HMM states (docs/decisions/0031-regime-labels.md): each state gets a profile of what the raw features do
 * while it holds (posterior-weighted means over the fit window), and the documented rule names them:
 * 1. risk_off: the highest stress (mean of the standardized high-yield spread and VIX levels);
 * 2. expansion: of the rest, the lowest stress among states with rising equity (mean daily return > 0),
 *    or the lowest stress if none has rising equity;
 * 3. tightening: of the remaining two, the one with the higher "rising yields or draining liquidity" score
 *    (standardized 10Y momentum minus the standardized 4-week change of net liquidity);
 * 4. recovery: the last.
 * Because names follow from what a state does, not from its index, a refit cannot switch labels.
 */
import type { Regime } from '../../src/core/vocabulary.js';

export interface StateProfile {
  stress: number;
  equity: number;
  tightening: number;
}

/** Returns, for each regime in REGIMES (expansion, recovery, tightening, risk_off), the state index. */
export function labelStates(profiles: readonly StateProfile[]): Record<Regime, number> {
  if (profiles.length !== 4) throw new RangeError(`labelStates needs 4 state profiles, got ${profiles.length}`);
  const left = new Set([0, 1, 2, 3]);
  const pick = (candidates: number[], score: (i: number) => number): number => {
    let best = candidates[0] as number;
    for (const i of candidates) if (score(i) > score(best) || (score(i) === score(best) && i < best)) best = i;
    left.delete(best);
    return best;
  };
  const p = (i: number): StateProfile => profiles[i] as StateProfile;
  const riskOff = pick([...left], (i) => p(i).stress);
  const rising = [...left].filter((i) => p(i).equity > 0);
  const expansion = pick(rising.length > 0 ? rising : [...left], (i) => -p(i).stress);
  const tightening = pick([...left], (i) => p(i).tightening);
  const recovery = [...left][0] as number;
  return { expansion, recovery, tightening, risk_off: riskOff };
}

/**
 * Posterior-weighted profiles. `gamma` is T × K (row-major) over the fit window; the feature arrays are the
 * window's values of: high-yield spread, VIX, equity daily return, 10Y momentum (z), net liquidity 4-week change.
 */
export function stateProfiles(
  gamma: ArrayLike<number>,
  K: number,
  f: { hy: ArrayLike<number>; vix: ArrayLike<number>; ret: ArrayLike<number>; y10Mom: ArrayLike<number>; liqChange: ArrayLike<number> },
): StateProfile[] {
  const T = f.hy.length;
  const std = (xs: ArrayLike<number>): ((x: number) => number) => {
    let m = 0;
    for (let t = 0; t < T; t++) m += (xs[t] as number) / T;
    let v = 0;
    for (let t = 0; t < T; t++) v += ((xs[t] as number) - m) ** 2 / Math.max(1, T - 1);
    const s = Math.sqrt(v) || 1;
    return (x) => (x - m) / s;
  };
  const zHy = std(f.hy);
  const zVix = std(f.vix);
  const zLiq = std(f.liqChange);
  const out: StateProfile[] = [];
  for (let k = 0; k < K; k++) {
    let w = 0;
    let stress = 0;
    let equity = 0;
    let tight = 0;
    for (let t = 0; t < T; t++) {
      const g = gamma[t * K + k] as number;
      w += g;
      stress += (g * (zHy(f.hy[t] as number) + zVix(f.vix[t] as number))) / 2;
      equity += g * (Number.isFinite(f.ret[t]) ? (f.ret[t] as number) : 0);
      tight += g * ((f.y10Mom[t] as number) - zLiq(f.liqChange[t] as number));
    }
    const n = w || 1;
    out.push({ stress: stress / n, equity: equity / n, tightening: tight / n });
  }
  return out;
}
