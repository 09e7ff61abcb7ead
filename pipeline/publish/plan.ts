/**
 * What a publication would do to the published history, decided before anything is written: how many days
 * it adds, how many published days it rewrites with other numbers, how many it leaves as they are, and which
 * published days it would remove. A run only ever adds days unless the operator asked for more: rewriting or
 * removing published days needs a confirmation, and removing needs `--force` as well (see `run.ts`).
 *
 * `planPublication` is pure: the run's signal packages against the published ones.
 */
import type { SignalDay } from './types.js';

/** What to do when a run cannot extend the published history (`history_not_extendable`). */
export const RECOMPUTE_HINT =
  '`tradeseal pipeline run --full` recomputes the whole history: it shows what changes and asks before it rewrites published days (on a terminal; elsewhere pass --yes)';

export interface PublishedRange {
  first: string | null;
  last: string | null;
  days: number;
}

export interface PublishPlan {
  mode: 'full' | 'incremental';
  /** The run's days. */
  first_day: string | null;
  last_day: string | null;
  days: number;
  /** The history before this publication. */
  published: PublishedRange;
  /** Days the run publishes that were not published. */
  added: number;
  /** Published days the run publishes again with at least one different number or label. */
  changed: number;
  changed_first: string | null;
  /** Published days the run publishes again exactly as they were. */
  unchanged: number;
  /** Published days the run does not have, which the publication would delete. */
  removed: number;
  removed_first: string | null;
  removed_last: string | null;
}

/** The fields of a signal package that the comparison covers: every published field. */
const FIELDS: ReadonlyArray<keyof SignalDay> = [
  'regime',
  'prob_expansion',
  'prob_recovery',
  'prob_tightening',
  'prob_risk_off',
  'risk_score',
  'confidence',
  'persistence_days',
  'expected_duration_remaining_days',
  'level_bn',
  'change_4w_bn',
  'liquidity_zscore',
  'liquidity_trend',
  'pc1',
  'pc2',
  'pc3',
  'pc4',
  'variance_explained_pct',
  'pca_fit_date',
  'hmm_fit_date',
  'available_at',
];

const same = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x, i) => Object.is(x, b[i])) : Object.is(a, b);

export function sameSignal(a: SignalDay, b: SignalDay): boolean {
  return FIELDS.every((f) => same(a[f], b[f]));
}

/**
 * The plan of a full publication (which replaces the whole history with `run`) or of an incremental one
 * (which appends `run` after the last published day; `published` then only needs the range).
 */
export function planPublication(
  mode: 'full' | 'incremental',
  run: readonly SignalDay[],
  published: PublishedRange,
  publishedDays: readonly SignalDay[] = [],
): PublishPlan {
  const plan: PublishPlan = {
    mode,
    first_day: run[0]?.date ?? null,
    last_day: run.at(-1)?.date ?? null,
    days: run.length,
    published,
    added: run.length,
    changed: 0,
    changed_first: null,
    unchanged: 0,
    removed: 0,
    removed_first: null,
    removed_last: null,
  };
  if (mode === 'incremental') return plan;
  const byDate = new Map(run.map((s) => [s.date, s]));
  for (const old of publishedDays) {
    const now = byDate.get(old.date);
    if (!now) {
      plan.removed++;
      plan.removed_first ??= old.date;
      plan.removed_last = old.date;
    } else if (sameSignal(now, old)) {
      plan.unchanged++;
    } else {
      plan.changed++;
      plan.changed_first ??= old.date;
    }
  }
  plan.added = run.length - plan.changed - plan.unchanged;
  return plan;
}

/** One sentence for the operator: what the publication does to the history. */
export function describePlan(p: PublishPlan): string {
  const range = (a: string | null, b: string | null): string => (a === b ? `${a}` : `${a} to ${b}`);
  const parts = [`adds ${p.added} day${p.added === 1 ? '' : 's'}`];
  if (p.mode === 'full' && p.published.days > 0) {
    parts.push(
      `rewrites ${p.changed} published day${p.changed === 1 ? '' : 's'} with other numbers${p.changed_first ? ` (the first ${p.changed_first})` : ''}`,
    );
    parts.push(`keeps ${p.unchanged} as they are`);
  }
  if (p.removed > 0) parts.push(`REMOVES ${p.removed} published day${p.removed === 1 ? '' : 's'} (${range(p.removed_first, p.removed_last)})`);
  const history = p.published.days > 0 ? `the published history (${p.published.days} days, ${range(p.published.first, p.published.last)})` : 'an empty history';
  return `This publication ${parts.join(', ')}, of ${history}.`;
}
