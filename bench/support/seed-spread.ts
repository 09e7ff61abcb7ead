/**
 * The figures of the seed-spread benchmark (bench/signal-seeds.ts), from the runs of one method with several
 * seeds: how often the published regimes agree (every pair of seeds, and each seed with a reference seed), how
 * far each fit's log-likelihood is below the best any seed found for the same refit (every seed fits the same
 * window with the same PCA, so the likelihoods of one refit compare), and the spread of the evaluation's
 * figures. Pure: runs in, figures out.
 */

export interface SeedRun {
  seed: number;
  /** The published regime of each day, by date. */
  regimes: ReadonlyMap<string, string>;
  /** Each refit's date and the log-likelihood of its fit, oldest first. */
  fits: ReadonlyArray<{ date: string; logLikelihood: number }>;
  in_sample: { sharpe: number | null; calmar: number | null };
  out_of_sample: { sharpe: number | null; calmar: number | null };
}

export interface Agreement {
  /** Days published by every run. */
  days: number;
  /** The pair of seeds that agree least, and the share (0 to 1) of the days on which they agree. */
  lowestPair: { seeds: [number, number]; share: number };
  /** Each seed's share of days with the reference seed's regime (empty when no run has the reference seed). */
  withReference: Map<number, number>;
}

/** A fit counts as below the best when its log-likelihood is lower by more than this (nats): EM's tolerance is 1e-3. */
export const SHORTFALL_NATS = 0.01;

function sharedDays(runs: readonly SeedRun[]): string[] {
  return [...runs[0]!.regimes.keys()].filter((d) => runs.every((r) => r.regimes.has(d)));
}

function share(a: SeedRun, b: SeedRun, days: readonly string[]): number {
  let same = 0;
  for (const d of days) if (a.regimes.get(d) === b.regimes.get(d)) same++;
  return days.length === 0 ? 1 : same / days.length;
}

export function agreement(runs: readonly SeedRun[], referenceSeed: number): Agreement {
  if (runs.length < 2) throw new RangeError(`agreement needs at least two runs, got ${runs.length}`);
  const days = sharedDays(runs);
  let lowestPair: Agreement['lowestPair'] = { seeds: [runs[0]!.seed, runs[1]!.seed], share: Infinity };
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) {
      const s = share(runs[i]!, runs[j]!, days);
      if (s < lowestPair.share) lowestPair = { seeds: [runs[i]!.seed, runs[j]!.seed], share: s };
    }
  }
  const reference = runs.find((r) => r.seed === referenceSeed);
  const withReference = new Map(reference ? runs.map((r) => [r.seed, share(r, reference, days)] as const) : []);
  return { days: days.length, lowestPair, withReference };
}

export interface Shortfalls {
  /** Per seed: how many of its fits are below the best by more than SHORTFALL_NATS, and the largest gap (nats). */
  get(seed: number): { below: number; worst: number } | undefined;
  /** Refits on which at least one seed's fit is below the best. */
  refitsWithShortfall: number;
}

export function fitShortfalls(runs: readonly SeedRun[]): Shortfalls {
  const best = new Map<string, number>();
  for (const r of runs) for (const f of r.fits) best.set(f.date, Math.max(best.get(f.date) ?? -Infinity, f.logLikelihood));
  const perSeed = new Map<number, { below: number; worst: number }>();
  const short = new Set<string>();
  for (const r of runs) {
    let below = 0;
    let worst = 0;
    for (const f of r.fits) {
      const gap = best.get(f.date)! - f.logLikelihood;
      worst = Math.max(worst, gap);
      if (gap > SHORTFALL_NATS) {
        below++;
        short.add(f.date);
      }
    }
    perSeed.set(r.seed, { below, worst });
  }
  return { get: (seed) => perSeed.get(seed), refitsWithShortfall: short.size };
}

type Figures = { sharpe: number | null; calmar: number | null };

/** Largest minus smallest of each figure over the runs (null when a run has none). */
export function spread(runs: readonly SeedRun[]): { in_sample: Figures; out_of_sample: Figures } {
  const of = (values: Array<number | null>): number | null =>
    values.some((v) => v === null) ? null : Math.max(...(values as number[])) - Math.min(...(values as number[]));
  const window = (w: 'in_sample' | 'out_of_sample'): Figures => ({ sharpe: of(runs.map((r) => r[w].sharpe)), calmar: of(runs.map((r) => r[w].calmar)) });
  return { in_sample: window('in_sample'), out_of_sample: window('out_of_sample') };
}
