/**
 * State labels across refits. An HMM's likelihood is invariant under any relabelling of its states, so two
 * fits of the same data can number the same regimes differently ("label switching"). The walk-forward keeps
 * the labels of the previous fit by matching each new state to a previous one so that the total Euclidean
 * distance between matched means is smallest — a linear assignment problem, solved exactly by the Hungarian
 * algorithm (H. W. Kuhn, "The Hungarian method for the assignment problem", Naval Res. Logist. Q. 2, 1955;
 * J. Munkres, J. SIAM 5, 1957) in its O(K³) shortest-augmenting-path form with dual potentials (as in
 * R. Jonker and A. Volgenant, Computing 38, 1987).
 *
 * Permutation convention, used throughout: `perm[k]` is the index of the new model's state that takes
 * label k. `permuteModel(model, perm)` returns the model whose state k is `model`'s state perm[k].
 */
import { invalidArgument } from './errors.js';
import type { GaussianHmm } from './model.js';

/**
 * The assignment of rows to columns minimising Σ_i cost[i][assignment[i]] for a square cost matrix
 * (n × n, row-major).
 */
export function solveAssignment(cost: ArrayLike<number>, n: number): Int32Array {
  if (!Number.isInteger(n) || n < 1 || cost.length !== n * n) throw invalidArgument('cost', `expected ${n}×${n} entries, got ${cost.length}`);
  for (let i = 0; i < n * n; i++) if (!Number.isFinite(cost[i]!)) throw invalidArgument('cost', `entry ${i} is ${cost[i]}`);
  // 1-based arrays with a virtual column 0, as in the classical presentation of the algorithm.
  const u = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const rowOfColumn = new Int32Array(n + 1);
  const way = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) {
    rowOfColumn[0] = i;
    let j0 = 0;
    const minSlack = new Float64Array(n + 1).fill(Infinity);
    const used = new Uint8Array(n + 1);
    // Grow a shortest augmenting path from row i, adjusting the potentials, until a free column is reached.
    do {
      used[j0] = 1;
      const i0 = rowOfColumn[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const slack = cost[(i0 - 1) * n + (j - 1)]! - u[i0]! - v[j]!;
        if (slack < minSlack[j]!) {
          minSlack[j] = slack;
          way[j] = j0;
        }
        if (minSlack[j]! < delta) {
          delta = minSlack[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[rowOfColumn[j]!] = u[rowOfColumn[j]!]! + delta;
          v[j] = v[j]! - delta;
        } else {
          minSlack[j] = minSlack[j]! - delta;
        }
      }
      j0 = j1;
    } while (rowOfColumn[j0] !== 0);
    // Flip the path.
    do {
      const j1 = way[j0]!;
      rowOfColumn[j0] = rowOfColumn[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const assignment = new Int32Array(n);
  for (let j = 1; j <= n; j++) assignment[rowOfColumn[j]! - 1] = j - 1;
  return assignment;
}

/**
 * The permutation of the new states that best matches the previous fit's: perm[k] is the new state that
 * takes previous label k, minimising the total Euclidean distance between matched means.
 */
export function matchStates(prevMeans: ReadonlyArray<ArrayLike<number>>, newMeans: ReadonlyArray<ArrayLike<number>>): Int32Array {
  const K = prevMeans.length;
  if (K < 1) throw invalidArgument('prevMeans', 'expected at least one mean');
  if (newMeans.length !== K) throw invalidArgument('newMeans', `expected ${K} means, got ${newMeans.length}`);
  const d = prevMeans[0]!.length;
  const cost = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    const a = prevMeans[i]!;
    if (a.length !== d) throw invalidArgument('prevMeans', `mean ${i} has ${a.length} entries, expected ${d}`);
    for (let j = 0; j < K; j++) {
      const b = newMeans[j]!;
      if (b.length !== d) throw invalidArgument('newMeans', `mean ${j} has ${b.length} entries, expected ${d}`);
      let s = 0;
      for (let c = 0; c < d; c++) s += (a[c]! - b[c]!) ** 2;
      cost[i * K + j] = Math.sqrt(s);
    }
  }
  return solveAssignment(cost, K);
}

function checkPermutation(perm: ArrayLike<number>, K: number): void {
  if (perm.length !== K) throw invalidArgument('perm', `expected ${K} entries, got ${perm.length}`);
  const seen = new Uint8Array(K);
  for (let k = 0; k < K; k++) {
    const p = perm[k]!;
    if (!Number.isInteger(p) || p < 0 || p >= K || seen[p]) {
      throw invalidArgument('perm', `not a permutation of 0…${K - 1}: ${Array.from(perm).join(',')}`);
    }
    seen[p] = 1;
  }
}

/** The inverse permutation: inverse[perm[k]] = k (maps an old state index to its new label). */
export function invertPermutation(perm: ArrayLike<number>): Int32Array {
  checkPermutation(perm, perm.length);
  const inverse = new Int32Array(perm.length);
  for (let k = 0; k < perm.length; k++) inverse[perm[k]!] = k;
  return inverse;
}

/** The same model with its states relabelled: state k of the result is state perm[k] of `model`. */
export function permuteModel(model: GaussianHmm, perm: ArrayLike<number>): GaussianHmm {
  const { K, d } = model;
  checkPermutation(perm, K);
  const transmat = new Float64Array(K * K);
  for (let i = 0; i < K; i++) for (let j = 0; j < K; j++) transmat[i * K + j] = model.transmat[perm[i]! * K + perm[j]!]!;
  return {
    K,
    d,
    startProb: Float64Array.from({ length: K }, (_, k) => model.startProb[perm[k]!]!),
    transmat,
    means: Array.from({ length: K }, (_, k) => Float64Array.from(model.means[perm[k]!]!)),
    covars: Array.from({ length: K }, (_, k) => Float64Array.from(model.covars[perm[k]!]!)),
  };
}
