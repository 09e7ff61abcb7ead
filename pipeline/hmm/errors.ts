/**
 * The failures of the regime model's math, as `TradesealError`s (the project's one error type) with a code
 * from the closed list below, so the pipeline's caller can tell a bad argument from a numerical failure.
 * None of these codes is in `ERROR_CODES` (src/errors.ts): they reach no HTTP response directly, so they take
 * that module's default (status 500, exit 1) until the pipeline's command maps them.
 */
import { TradesealError } from '../../src/errors.js';

export const HMM_ERROR_CODES = {
  hmm_invalid_argument: 'An argument has the wrong shape, or a value out of its range; the message names it.',
  hmm_not_positive_definite: 'A covariance matrix is not positive definite (Cholesky found a non-positive pivot).',
  hmm_singular_matrix: 'A linear system has no unique solution (a zero pivot in Gaussian elimination).',
  hmm_zero_likelihood: 'The observations have zero probability under the model (every state is impossible at some step).',
} as const;

export type HmmErrorCode = keyof typeof HMM_ERROR_CODES;

export class HmmError extends TradesealError {
  constructor(code: HmmErrorCode, detail: string) {
    super(code, detail);
    this.name = 'HmmError';
  }
}

/** An argument error naming the argument, as `name: what is wrong`. */
export const invalidArgument = (name: string, problem: string): HmmError => new HmmError('hmm_invalid_argument', `${name}: ${problem}`);
