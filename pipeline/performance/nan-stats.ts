/**
 * Statistics that skip missing values, as numpy's `nansum`, `nanmean`, `nanstd`, `nanprod` and `nanmin`
 * compute them: the ones empyrical uses for every figure (quantopian/empyrical 0.5.5, `empyrical/utils.py`
 * takes numpy's when bottleneck is not installed).
 *
 * - A missing value (NaN) is left out: a sum reads it as 0, a product as 1, a mean divides by the number of
 *   values present. No value present: the mean, the standard deviation and the minimum are NaN.
 * - Sums are numpy's pairwise summation (`pairwise_sum` of numpy's `loops_utils.h`: blocks of up to 128 with
 *   eight accumulators, halves above that), so a mean agrees with numpy's to the last bit, not only to
 *   rounding. (Bottleneck sums left to right; the two differ in the last bits.)
 * - Standard deviation: two passes, Σ (x − mean)² / (count − ddof), then the square root; NaN when
 *   count ≤ ddof, as numpy. When every value present is the same, the variance is exactly 0: numpy may leave
 *   a rounding residue of the mean there (1e−18 for a flat series, which turns a Sharpe ratio into 1e15);
 *   zero is the true value, and the figures that divide by it are then undefined.
 * - Products multiply left to right (numpy's product has no pairwise form).
 */

const BLOCK = 128;

/** numpy's pairwise sum of `a[start .. start + n)`, NaN read as 0. */
function pairwise(a: ArrayLike<number>, start: number, n: number): number {
  const at = (i: number): number => {
    const x = a[i]!;
    return x === x ? x : 0;
  };
  if (n < 8) {
    let res = 0;
    for (let i = start; i < start + n; i++) res += at(i);
    return res;
  }
  if (n <= BLOCK) {
    const r = [at(start), at(start + 1), at(start + 2), at(start + 3), at(start + 4), at(start + 5), at(start + 6), at(start + 7)];
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (let j = 0; j < 8; j++) r[j]! += at(start + i + j);
    }
    let res = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) res += at(start + i);
    return res;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return pairwise(a, start, half) + pairwise(a, start + half, n - half);
}

/** Σ of the values present (numpy's `nansum`); 0 when none is. */
export const nanSum = (a: ArrayLike<number>): number => pairwise(a, 0, a.length);

/** How many values are present (not NaN). */
export function nanCount(a: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === a[i]) n++;
  return n;
}

/** The mean of the values present (numpy's `nanmean`); NaN when none is. */
export function nanMean(a: ArrayLike<number>): number {
  const n = nanCount(a);
  return n === 0 ? Number.NaN : nanSum(a) / n;
}

/** Whether every value present is the same one (true when fewer than two are present). */
function allEqual(a: ArrayLike<number>): boolean {
  let first = Number.NaN;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x !== x) continue;
    if (first !== first) first = x;
    else if (x !== first) return false;
  }
  return true;
}

/** The variance of the values present with `ddof` delta degrees of freedom (numpy's `nanvar`). */
export function nanVar(a: ArrayLike<number>, ddof: number): number {
  const n = nanCount(a);
  if (n - ddof <= 0) return Number.NaN;
  if (allEqual(a)) return 0;
  const mean = nanSum(a) / n;
  const squares = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - mean;
    squares[i] = d === d ? d * d : 0;
  }
  return nanSum(squares) / (n - ddof);
}

/** The standard deviation of the values present (numpy's `nanstd`); empyrical always passes ddof = 1. */
export const nanStd = (a: ArrayLike<number>, ddof: number): number => Math.sqrt(nanVar(a, ddof));

/** The product of the values present (numpy's `nanprod`); 1 when none is. */
export function nanProd(a: ArrayLike<number>): number {
  let p = 1;
  for (let i = 0; i < a.length; i++) if (a[i] === a[i]) p *= a[i]!;
  return p;
}

/** The smallest value present (numpy's `nanmin`); NaN when none is. */
export function nanMin(a: ArrayLike<number>): number {
  let m = Number.NaN;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x === x && !(x >= m)) m = x;
  }
  return m;
}
