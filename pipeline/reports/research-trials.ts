/**
 * The trials behind the regime method, for its deflated Sharpe ratio (../performance/deflated-sharpe.ts): every
 * variant the research tried in every round (pipeline/README.md: "Every variant", the starts of "A method without
 * a seed", "Round 2"), with its in-sample Sharpe ratio, kept in
 * data/research/variants.json. That file is the one source: `npm run research:signal` rewrites it from its
 * runs (bench/signal-research.ts), and `tradeseal quant evaluate` and `npm run bench:signal` read it here.
 *
 * Every variant counts as a trial, the robustness checks (other seeds, more restarts) too: the finalists were
 * judged on their seed runs, so those runs were looked at before the choice. N is the number of variants, V the
 * sample variance (ddof = 1) of their annualised Sharpe ratios; `perDay` gives both in the per-day units the
 * deflated Sharpe ratio's formulas need (V / 252).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../src/store/migration-files.js';
import { trialVariance } from '../performance/deflated-sharpe.js';
import { TRADING_DAYS_PER_YEAR } from './evaluation-figures.js';

export interface ResearchVariant {
  name: string;
  /** A robustness check (another seed, more restarts), not a candidate of the choice rule. */
  check: boolean;
  /** Annualised, over the in-sample window. */
  in_sample_sharpe: number;
  /** The variant the choice rule picked. */
  chosen?: boolean;
}

export interface ResearchVariants {
  what: string;
  source: string;
  window: { from: string; to: string };
  variants: ResearchVariant[];
}

export interface ResearchTrials {
  /** Where the trials come from (the file's `source`). */
  source: string;
  /** N. */
  trials: number;
  /** V[SR_n] of the annualised Sharpe ratios. */
  sharpe_variance_annualized: number;
  /** V[SR_n] per day: the annualised variance / 252. */
  sharpe_variance_per_day: number;
}

export const defaultVariantsFile = (): string => path.join(packageRoot(), 'data', 'research', 'variants.json');

/** The trials of a variants document, checked: at least two variants, each with a finite Sharpe ratio and a name of its own. */
export function researchTrials(doc: ResearchVariants): ResearchTrials {
  if (!Array.isArray(doc?.variants)) throw new RangeError('variants: expected an array');
  const names = new Set<string>();
  for (const v of doc.variants) {
    if (typeof v?.name !== 'string' || !Number.isFinite(v.in_sample_sharpe))
      throw new RangeError(`variants: each needs a name and a finite in_sample_sharpe, got ${JSON.stringify(v)}`);
    if (names.has(v.name)) throw new RangeError(`variants: ${v.name} appears twice`);
    names.add(v.name);
  }
  const variance = trialVariance(doc.variants.map((v) => v.in_sample_sharpe));
  return { source: doc.source, trials: doc.variants.length, sharpe_variance_annualized: variance, sharpe_variance_per_day: variance / TRADING_DAYS_PER_YEAR };
}

/** The trials in `file` (default data/research/variants.json). */
export function loadResearchTrials(file: string = defaultVariantsFile()): ResearchTrials {
  return researchTrials(JSON.parse(readFileSync(file, 'utf8')) as ResearchVariants);
}

const WHAT =
  'The in-sample Sharpe ratio (annualised: mean / std (ddof = 1) x sqrt(252), risk-free 0) of every variant of the regime method tried in the research, every round (pipeline/README.md: "Every variant", the starts of "A method without a seed", "Round 2"), candidates and robustness checks alike: the trials the deflated Sharpe ratio of `tradeseal quant evaluate` and `npm run bench:signal` counts (N = the number of variants, V = the sample variance of their Sharpe ratios).';

/**
 * Writes the variants of a research run to `file` (default data/research/variants.json), after checking them as
 * a reader would: a run with a variant without a Sharpe ratio writes nothing. Returns the trials written.
 */
export function writeResearchVariants(
  variants: ResearchVariant[],
  window: { from: string; to: string },
  source: string,
  file: string = defaultVariantsFile(),
): ResearchTrials {
  const doc: ResearchVariants = { what: WHAT, source, window, variants };
  const trials = researchTrials(doc);
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return trials;
}
