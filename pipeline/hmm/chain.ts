/**
 * Properties of the regime model's Markov chain: its stationary (ergodic) distribution and the expected time
 * left in a state.
 *
 * Stationary distribution: the row vector π with π A = π and Σ π = 1. With 𝟙 the all-ones matrix,
 * π (I − A + 𝟙) = 1ᵀ (π 𝟙 = 1ᵀ holds for every distribution, so the normalisation takes the place of the one
 * redundant equation of π (I − A) = 0): a square system, nonsingular exactly when the stationary distribution
 * is unique (one recurrent class). These are the "ergodic" initial probabilities that statsmodels and Stata
 * use by default for a Markov-switching model (J. D. Hamilton, "Time Series Analysis", 1994, §22.2).
 *
 * Expected duration: in state i, the stay is geometric — each further day is another with probability a_ii —
 * so the expected number of days still to come is Σ_{n≥1} a_ii^n = a_ii / (1 − a_ii)
 * (`expected_duration_remaining_days`, docs/decisions/0033-signal-fields.md). This is the remaining stay, not
 * the total 1 / (1 − a_ii) that statsmodels reports as `expected_durations`.
 */
import { invalidArgument } from './errors.js';
import { solveLinear } from './linalg.js';

/** K from a K × K row-major matrix's length; throws if the length is not a square. */
export function dimensionOf(transmat: ArrayLike<number>): number {
  const K = Math.round(Math.sqrt(transmat.length));
  if (K < 1 || K * K !== transmat.length) throw invalidArgument('transmat', `expected K × K entries, got ${transmat.length}`);
  return K;
}

/** The stationary distribution π of a row-stochastic K × K matrix; throws `hmm_singular_matrix` if not unique. */
export function stationaryDistribution(transmat: ArrayLike<number>): Float64Array {
  const K = dimensionOf(transmat);
  // Transposed, so the unknown is a column: (I − A + 𝟙)ᵀ πᵀ = 1.
  const m = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    for (let j = 0; j < K; j++) m[j * K + i] = (i === j ? 1 : 0) - transmat[i * K + j]! + 1;
  }
  const pi = solveLinear(m, K, new Float64Array(K).fill(1));
  // Rounding can leave −1e−17 where the answer is 0; a distribution has no negative entries.
  let sum = 0;
  for (let k = 0; k < K; k++) {
    pi[k] = Math.max(pi[k]!, 0);
    sum += pi[k]!;
  }
  for (let k = 0; k < K; k++) pi[k] = pi[k]! / sum;
  return pi;
}

/** Expected number of further periods in a state whose probability of staying is `aii`: aii / (1 − aii). */
export function expectedDuration(aii: number): number {
  if (!(aii >= 0 && aii <= 1)) throw invalidArgument('aii', `expected a probability in [0, 1], got ${aii}`);
  return aii === 1 ? Infinity : aii / (1 - aii);
}
