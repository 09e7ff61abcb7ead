/**
 * The reasons the engine refuses an order or a heartbeat, as verdicts.
 *
 * A rule breach is data, not an exception (after nautilus_trader's `DeniedReason`): policy evaluation returns
 * `{ok: false, code, detail}`; the route turns it into a 403 (or, in shadow mode, a `SHADOW_HALTED` trace with
 * `policy.result = "FAIL:<code>"`). The codes are the `denial` rows of the one error table (src/core/errors.ts),
 * from which the README's table is generated; a test keeps them in step with the authorize tests.
 */
import { ERROR_CODES, type DenialCode } from '../core/errors.js';

export type { DenialCode };

/** Each denial code with its one-line description, in the table's order. */
export const DENIALS = Object.freeze(
  Object.fromEntries(
    Object.entries(ERROR_CODES)
      .filter(([, s]) => s.kind === 'denial')
      .map(([code, s]) => [code, s.description]),
  ) as Record<DenialCode, string>,
);

export type Verdict = { ok: true } | { ok: false; code: DenialCode; detail: string };

export const PASS: Verdict = Object.freeze({ ok: true });

export const deny = (code: DenialCode, detail: string): Verdict => ({ ok: false, code, detail });
