/**
 * The mean block length of the stationary bootstrap (./bootstrap.ts), chosen from the data: D. N. Politis and
 * H. White, "Automatic Block-Length Selection for the Dependent Bootstrap", Econometric Reviews 23(1), 2004,
 * with the correction of A. Patton, D. N. Politis and H. White, Econometric Reviews 28(4), 2009 (the stationary
 * bootstrap's constant D_SB = 2·ĝ(0)², not the published 4·ĝ(0)²).
 *
 * b = (2·Ĝ² / D_SB)^(1/3) · n^(1/3), with Ĝ = Σ_{|k|≤M} λ(k/M)·|k|·γ̂(k), ĝ(0) = Σ_{|k|≤M} λ(k/M)·γ̂(k),
 * λ the flat-top window (1 up to |x| = 1/2, then 2(1 − |x|)), γ̂(k) the sample autocovariance (divided by n), and
 * M = 2·m̂, m̂ the first lag from which K_n = max(5, ⌊log10 n⌋) autocorrelations in a row lie inside
 * ±2·√(log10 n / n), capped at ⌈√n⌉ + K_n; b is capped at ⌈min(3√n, n/3)⌉.
 *
 * Computed exactly as the Python `arch` package's `optimal_block_length` does (K. Sheppard, arch 7; its
 * autocorrelations use the full-sample sums), so that its published test value holds here
 * (test/pipeline/performance/block-length.test.ts). Pure.
 */

/** The Politis–White (Patton–Politis–White corrected) mean block length for the stationary bootstrap of `x` (at least 3 values, no NaN). */
export function stationaryBlockLength(x: Float64Array): number {
  const n = x.length;
  if (n < 3) throw new RangeError(`x: expected at least 3 values, got ${n}`);
  let mean = 0;
  for (const v of x) {
    if (Number.isNaN(v)) throw new RangeError('x: expected no NaN');
    mean += v;
  }
  mean /= n;
  const eps = Float64Array.from(x, (v) => v - mean);
  const bMax = Math.ceil(Math.min(3 * Math.sqrt(n), n / 3));
  const kn = Math.max(5, Math.trunc(Math.log10(n)));
  const mMax = Math.ceil(Math.sqrt(n)) + kn;
  const band = 2 * Math.sqrt(Math.log10(n) / n);
  const acv = new Float64Array(mMax + 1);
  const absCorr = new Float64Array(mMax + 1);
  let sumSq = 0;
  for (const e of eps) sumSq += e * e;
  let optM: number | null = null;
  for (let i = 0; i <= mMax; i++) {
    // arch's sums: Σ eps[i+1:]², Σ eps[:-(i+1)]² and the lag-i cross product.
    let v1 = 0;
    for (let t = i + 1; t < n; t++) v1 += eps[t]! * eps[t]!;
    let v2 = 0;
    for (let t = 0; t < n - i - 1; t++) v2 += eps[t]! * eps[t]!;
    let cross = 0;
    for (let t = i; t < n; t++) cross += eps[t]! * eps[t - i]!;
    acv[i] = cross / n;
    absCorr[i] = Math.abs(cross) / Math.sqrt(v1 * v2);
    if (i >= kn && optM === null) {
      let inside = true;
      for (let k = i - kn; k < i; k++) if (!(absCorr[k]! < band)) inside = false;
      if (inside) optM = i - kn;
    }
  }
  if (sumSq === 0) return 1;
  const m = Math.min(optM === null ? mMax : 2 * Math.max(optM, 1), mMax);
  let g = 0;
  let longRun = acv[0]!;
  for (let k = 1; k <= m; k++) {
    const lambda = k / m <= 0.5 ? 1 : 2 * (1 - k / m);
    g += 2 * lambda * k * acv[k]!;
    longRun += 2 * lambda * acv[k]!;
  }
  const dSb = 2 * longRun * longRun;
  const b = ((2 * g * g) / dSb) ** (1 / 3) * n ** (1 / 3);
  return Math.min(Number.isFinite(b) ? b : bMax, bMax);
}
