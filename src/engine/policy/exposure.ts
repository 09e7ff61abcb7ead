/**
 * Two order checks that are not in the policy document but in the agent's registration and the engine's
 * clock. Pure: values in, a verdict out.
 *
 * - Open exposure (`max_open_notional`): the notional of the agent's open orders (authorized and not yet
 *   bound or expired) plus the new order must not exceed the agent's cap. Credit and capital thresholds are
 *   aggregate (SEC Rule 15c3-5(c)(1)(i)): a per-order cap alone lets two 600k orders through a 1M limit. The
 *   caller computes `open` under a per-agent lock, so concurrent orders cannot both fit in the last room.
 * - A decision from the future: `agent_valid_time` later than the engine's clock by more than the replay
 *   window (the tolerance the engine already grants a heartbeat's clock) cannot be sealed as valid: the
 *   bitemporal record would claim the agent knew something before it was known.
 */
import { deny, PASS, type Verdict } from '../denials.js';

const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12))));

export function checkOpenExposure(open: number, notional: number, cap: number | null): Verdict {
  if (cap === null) return PASS;
  const total = open + notional;
  if (total <= cap) return PASS;
  return deny(
    'open_notional_exceeded',
    `open notional ${fmt(open)} plus this order's ${fmt(notional)} is ${fmt(total)}, above the agent's max_open_notional ${fmt(cap)}`,
  );
}

export function checkValidTime(validTimeMs: number, now: number, toleranceMs: number): Verdict {
  const ahead = validTimeMs - now;
  if (ahead <= toleranceMs) return PASS;
  return deny(
    'agent_valid_time_future',
    `agent_valid_time ${new Date(validTimeMs).toISOString()} is ${ahead} ms later than the engine's clock (${new Date(now).toISOString()}); at most ${toleranceMs} ms is tolerated`,
  );
}
