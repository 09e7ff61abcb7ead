/**
 * How far back a key may read (docs/decisions/0021-data-refusals.md; Free 30 days, Starter 180, Pro and
 * the engine tiers the full history): counted in calendar days back from the newest published day, that day
 * included. A date before that is 403 `history_limit`, naming the earliest date the tier may read;
 * `signals/history`'s `days` is clamped to it instead.
 */
import { TradesealError } from '../../core/errors.js';
import { addDays } from '../../core/dates.js';
import { TIER_SPECS, type Tier } from '../tiers.js';

/** The earliest date `tier` may read when `newest` is the newest published day; null: no limit. */
export function earliestReadable(tier: Tier, newest: string): string | null {
  const days = TIER_SPECS[tier].historyDays;
  return days === null ? null : addDays(newest, -(days - 1));
}

export function assertReadable(tier: Tier, newest: string, date: string): void {
  const earliest = earliestReadable(tier, newest);
  if (earliest !== null && date < earliest) {
    throw new TradesealError(
      'history_limit',
      `${date} is older than the ${TIER_SPECS[tier].label} tier reads: ${TIER_SPECS[tier].historyDays} days, from ${earliest}`,
      {
        hint: 'a higher tier reads more history (see the tiers in the README)',
      },
    );
  }
}

/** `days` clamped to the tier's history. */
export const clampDays = (tier: Tier, days: number): number => Math.min(days, TIER_SPECS[tier].historyDays ?? days);
