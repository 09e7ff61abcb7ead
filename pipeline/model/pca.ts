/**
 * PCA of the standardized features (ml-pca, SVD), four components, with a sign rule so that factors do
 * not flip between refits: pc1 loads positively on the high-yield spread (pc1 up = more stress); each
 * other component's largest loading (in absolute value) is positive. Standardization uses the fit
 * window's own means and standard deviations (ddof 1), so a fit on data up to day t uses nothing after t.
 * Pure: arrays in, arrays out.
 */
import { PCA } from 'ml-pca';

export const N_FACTORS = 4;

/**
 * The PCA inputs, columns of the feature frame. Chosen on 2007–2016 only (the research notes, pipeline/README.md):
 * the level of the 10Y−2Y curve, an input of the first model, moves over years (inverted 2006–07, steep
 * 2009–13, inverted 2022–24) and made the states eras rather than conditions; the equity trend (the close
 * over its 200-day mean) lets a state mean "falling market" whatever the decade. The curve's 20-day momentum
 * went in round 2 (release-time data, execution at the next open with costs, no seed), whose choice rule picked
 * the inputs without it.
 */
export const PCA_INPUTS = ['net_liq_zscore', 'mom_z_ust10y', 'mom_z_hy', 'mom_z_vix', 'mom_z_dollar', 'hy_spread_pct', 'vix', 'equity_trend_200d'] as const;

/** The input pc1 must load positively on. */
export const PC1_ANCHOR = 'hy_spread_pct';

export interface PcaFit {
  inputs: string[];
  means: number[];
  sds: number[];
  /** N_FACTORS rows, one loading vector per component over `inputs`. */
  components: number[][];
  /** Share of the standardized total variance per component, in percent. */
  variance_explained_pct: number[];
}

export function fitPca(rows: ReadonlyArray<ArrayLike<number>>, inputs: readonly string[] = PCA_INPUTS, anchor = PC1_ANCHOR): PcaFit {
  const p = inputs.length;
  const n = rows.length;
  if (n < p + 1) throw new RangeError(`PCA needs more rows (${n}) than inputs (${p})`);
  const means = new Array<number>(p).fill(0);
  const sds = new Array<number>(p).fill(0);
  for (const r of rows) for (let j = 0; j < p; j++) means[j]! += (r[j] as number) / n;
  for (const r of rows) for (let j = 0; j < p; j++) sds[j]! += ((r[j] as number) - means[j]!) ** 2 / (n - 1);
  for (let j = 0; j < p; j++) sds[j] = Math.sqrt(sds[j]!) || 1;
  const z = rows.map((r) => Array.from({ length: p }, (_, j) => ((r[j] as number) - means[j]!) / sds[j]!));
  const pca = new PCA(z, { center: false, scale: false, method: 'SVD' });
  const vectors = pca.getEigenvectors();
  const explained = pca.getExplainedVariance();
  const anchorIndex = inputs.indexOf(anchor);
  const components: number[][] = [];
  for (let c = 0; c < N_FACTORS; c++) {
    const v = Array.from({ length: p }, (_, j) => vectors.get(j, c));
    let pivot = 0;
    if (c === 0 && anchorIndex >= 0) pivot = anchorIndex;
    else for (let j = 1; j < p; j++) if (Math.abs(v[j]!) > Math.abs(v[pivot]!)) pivot = j;
    const sign = v[pivot]! < 0 ? -1 : 1;
    components.push(v.map((x) => x * sign));
  }
  // Explained variance relative to the total variance of the standardized inputs (= p).
  return { inputs: [...inputs], means, sds, components, variance_explained_pct: explained.slice(0, N_FACTORS).map((e) => e * 100) };
}

export function project(fit: PcaFit, row: ArrayLike<number>): Float64Array {
  const out = new Float64Array(N_FACTORS);
  for (let c = 0; c < N_FACTORS; c++) {
    const comp = fit.components[c]!;
    let s = 0;
    for (let j = 0; j < comp.length; j++) s += comp[j]! * (((row[j] as number) - fit.means[j]!) / fit.sds[j]!);
    out[c] = s;
  }
  return out;
}
