/**
 * The failures of the regime model's math, as `TradesealError`s (the project's one error type) with the
 * `hmm_*` codes of the one error table (src/core/errors.ts), so the pipeline's caller can tell a bad argument from
 * a numerical failure.
 */
import { TradesealError, type ErrorCode } from '../../src/core/errors.js';

export type HmmErrorCode = Extract<ErrorCode, `hmm_${string}`>;

export class HmmError extends TradesealError {
  constructor(code: HmmErrorCode, detail: string) {
    super(code, detail);
    this.name = 'HmmError';
  }
}

/** An argument error naming the argument, as `name: what is wrong`. */
export const invalidArgument = (name: string, problem: string): HmmError => new HmmError('hmm_invalid_argument', `${name}: ${problem}`);
