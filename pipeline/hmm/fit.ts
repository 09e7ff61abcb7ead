/**
 * Fitting the regime model: Baum-Welch (EM, baum-welch.ts) from several seeded starting points, keeping the
 * run with the highest log-likelihood — EM finds a local maximum only, so restarts are the usual guard
 * (docs/decisions/0030-regime-model.md: k-means initialisation, seeded restarts, covariance floor, tolerance, cap).
 *
 * Restarts are screened ("em-EM": C. Biernacki, G. Celeux and G. Govaert, "Choosing starting values for the
 * EM algorithm for getting the highest likelihood in multivariate Gaussian mixture models", Comput. Stat.
 * Data Anal. 41, 2003): each runs `screenIter` iterations, and only the one with the highest log-likelihood
 * then runs on to convergence. A start in a poor basin is usually plain after a few iterations, but EM climbs
 * out of it so slowly that it would use the whole iteration cap: on 5,800 × 4 synthetic data, half the cold
 * restarts did, and a fit took 2–10 s instead of well under one.
 *
 * Starting points (`starts` lists them one by one; without it, cold restarts, or the warm start and perturbations):
 * - cold: restart r is a k-means++ clustering (init.ts) with its own seed `deriveSeed(seed, r)`, so a restart's
 *   start does not depend on how many restarts come before it;
 * - farthest, quantile: a k-means clustering seeded without randomness (init.ts), the same for every seed; the
 *   walk-forward uses these and the warm start only, so its fits do not depend on the seed;
 * - warm (`warmStart`, for walk-forward refits): restart 0 starts from the previous model itself, restarts
 *   1…restarts−1 from seeded perturbations of it. The result is relabelled to match the previous model's
 *   states (matching.ts), so labels carry over between refits. A warm start near the optimum converges in a
 *   few iterations; pass `restarts: 1` for the cheapest refit.
 *
 * Deterministic for a given seed, and for any seed when no start is `cold` or `perturbed`: all randomness comes
 * from pipeline/random.ts, the arithmetic is in a fixed order, and ties between restarts go to the lower index,
 * so the same inputs give the same model bit for bit.
 *
 * `stationaryDistribution` and `expectedDuration` (chain.ts) are re-exported here, as the pipeline reads them
 * beside the fit.
 */
import { createRng, deriveSeed } from '../random.js';
import { baumWelch, type EmRun, type EmSettings } from './baum-welch.js';
import { HmmError, invalidArgument, type HmmErrorCode } from './errors.js';
import { deterministicKmeansModel, kmeansModel, perturbModel } from './init.js';
import { matchStates, permuteModel } from './matching.js';
import { validateModel, validateObservations, type GaussianHmm, type Observations } from './model.js';
import type { StartProbMode } from './transition-update.js';

export { expectedDuration, stationaryDistribution } from './chain.js';

export interface FitOptions {
  /** Number of states. */
  K: number;
  /** Number of EM runs from different starting points; the best log-likelihood wins. */
  restarts: number;
  /** Cap on M-steps per run. */
  maxIter: number;
  /**
   * Iterations every restart runs before only the best goes on (em-EM, see the module comment). Set it to
   * `maxIter` to run every restart to convergence.
   */
  screenIter: number;
  /** A run stops when an iteration changes the log-likelihood by less than this (absolute, nats). */
  tol: number;
  /** Eigenvalue floor for every covariance (linalg.ts `floorCovariance`), in squared data units. */
  covFloor: number;
  /** Seed of all randomness (an unsigned 32-bit integer). */
  seed: number;
  /** One covariance shared by all states (statsmodels' `switching_variance=False`). */
  tiedCovariance: boolean;
  /** `estimate`: π = γ_1 (Rabiner); `stationary`: π is A's stationary distribution (statsmodels, Stata). */
  startProb: StartProbMode;
  /** A previous model to start from (walk-forward refits); see the module comment. */
  warmStart?: GaussianHmm;
  /**
   * The starting point of each restart, in order, in place of the default ones (`restarts` is then its
   * length): `cold` (seeded k-means++), `farthest` and `quantile` (k-means seeded without randomness,
   * init.ts), `warm` (`warmStart` itself), `perturbed` (a seeded perturbation of it). Only `cold` and
   * `perturbed` read the seed.
   */
  starts?: readonly StartKind[];
  /** Screens restarts elsewhere (a second thread, screen-thread.ts); by default one after another here. */
  screenRunner?: ScreenRunner;
}

/** What screening one restart gave: its run, or the numerical failure that ended it. */
export type ScreenOutcome = { run: EmRun } | { failure: { code: HmmErrorCode; message: string } };

/** Screens the restarts `indexes` of a fit with options `o`, each exactly as `screenRestart` does. */
export type ScreenRunner = (X: Observations, o: FitOptions, indexes: number[]) => ScreenOutcome[];

export const DEFAULT_FIT_OPTIONS: Readonly<Omit<FitOptions, 'warmStart' | 'screenRunner' | 'starts'>> = Object.freeze({
  K: 4,
  restarts: 8,
  maxIter: 200,
  screenIter: 10,
  tol: 1e-6,
  covFloor: 1e-4,
  seed: 0,
  tiedCovariance: false,
  startProb: 'estimate',
});

/** Where a restart starts: see `FitOptions.starts`. */
export type StartKind = 'cold' | 'farthest' | 'quantile' | 'warm' | 'perturbed';
const START_KINDS: readonly StartKind[] = ['cold', 'farthest', 'quantile', 'warm', 'perturbed'];

export interface RestartSummary {
  /** `cold` (k-means++), `farthest` or `quantile` (deterministic k-means), `warm` (the previous model) or `perturbed` (a perturbation of it). */
  start: StartKind;
  /** Log-likelihood where the run stopped (after screening, or at the end for the winner); −∞ if it failed. */
  logLikelihood: number;
  iterations: number;
  converged: boolean;
  /** Error code of a failed run (e.g. `hmm_not_positive_definite` with `covFloor: 0`). */
  failure?: string;
}

export interface FitResult {
  model: GaussianHmm;
  logLikelihood: number;
  /** Log-likelihood at each iteration of the winning run (history[0]: its starting model). */
  history: number[];
  converged: boolean;
  iterations: number;
  /** Index of the winning restart. */
  bestRestart: number;
  restarts: RestartSummary[];
}

function resolveOptions(options: Partial<FitOptions>): FitOptions {
  const o: FitOptions = { ...DEFAULT_FIT_OPTIONS, ...options };
  if (o.starts !== undefined) {
    if (o.starts.length === 0 || o.starts.some((k) => !START_KINDS.includes(k)))
      throw invalidArgument('options.starts', `expected a non-empty list of ${START_KINDS.join(', ')}, got ${String(o.starts)}`);
    if (!o.warmStart && o.starts.some((k) => k === 'warm' || k === 'perturbed'))
      throw invalidArgument('options.starts', 'warm and perturbed starts need options.warmStart');
    o.restarts = o.starts.length;
  }
  const check = (ok: boolean, name: keyof FitOptions, expected: string, value: unknown): void => {
    if (!ok) throw invalidArgument(`options.${name}`, `expected ${expected}, got ${String(value)}`);
  };
  const integer = (v: number, min: number): boolean => Number.isInteger(v) && v >= min;
  check(integer(o.K, 1), 'K', 'a positive integer', o.K);
  check(integer(o.restarts, 1), 'restarts', 'a positive integer', o.restarts);
  check(integer(o.maxIter, 0), 'maxIter', 'an integer ≥ 0', o.maxIter);
  check(integer(o.screenIter, 0), 'screenIter', 'an integer ≥ 0', o.screenIter);
  check(o.tol >= 0, 'tol', 'a number ≥ 0', o.tol);
  check(o.covFloor >= 0 && Number.isFinite(o.covFloor), 'covFloor', 'a finite number ≥ 0', o.covFloor);
  check(integer(o.seed, 0) && o.seed <= 0xffffffff, 'seed', 'an unsigned 32-bit integer', o.seed);
  check(o.startProb === 'estimate' || o.startProb === 'stationary', 'startProb', "'estimate' or 'stationary'", o.startProb);
  if (o.warmStart) {
    validateModel(o.warmStart);
    if (o.warmStart.K !== o.K) throw invalidArgument('options.warmStart', `has K = ${o.warmStart.K}, options.K is ${o.K}`);
  }
  return o;
}

/** A numerical failure ends one restart; an argument error is the caller's and ends the fit. */
function isNumericalFailure(error: unknown): error is HmmError {
  return error instanceof HmmError && error.code !== 'hmm_invalid_argument';
}

const emSettings = (o: FitOptions): EmSettings => ({
  maxIter: o.maxIter,
  tol: o.tol,
  covFloor: o.covFloor,
  tiedCovariance: o.tiedCovariance,
  startProb: o.startProb,
});
const startOf = (o: FitOptions, r: number): StartKind => o.starts?.[r] ?? (o.warmStart ? (r === 0 ? 'warm' : 'perturbed') : 'cold');

/**
 * Restart `r` of a fit, screened: its starting point (from its own seed, see the module comment) and at most
 * `screenIter` EM iterations. A pure function of its arguments, so any thread gives the same run bit for bit.
 * A numerical failure is an outcome; any other error is thrown.
 */
export function screenRestart(X: Observations, o: FitOptions, r: number): ScreenOutcome {
  const rng = createRng(deriveSeed(o.seed, r));
  const initSettings = { covFloor: o.covFloor, tiedCovariance: o.tiedCovariance, startProb: o.startProb };
  const start = startOf(o, r);
  try {
    const initial =
      start === 'cold'
        ? kmeansModel(X, o.K, rng, initSettings)
        : start === 'farthest' || start === 'quantile'
          ? deterministicKmeansModel(X, o.K, start, initSettings)
          : start === 'warm'
            ? o.warmStart!
            : perturbModel(o.warmStart!, X, rng, initSettings);
    return { run: baumWelch(X, initial, { ...emSettings(o), maxIter: Math.min(o.screenIter, o.maxIter) }) };
  } catch (error) {
    if (!isNumericalFailure(error)) throw error;
    return { failure: { code: error.code as HmmErrorCode, message: error.message } };
  }
}

/** Fits a K-state Gaussian HMM to X (T rows of d numbers) by EM with restarts; see the module comment. */
export function fit(X: Observations, options: Partial<FitOptions> = {}): FitResult {
  const o = resolveOptions(options);
  const d = X[0]?.length ?? 0;
  validateObservations(X, d);
  if (o.warmStart && o.warmStart.d !== d) throw invalidArgument('options.warmStart', `has d = ${o.warmStart.d}, X has ${d} columns`);
  if (X.length < o.K) throw invalidArgument('X', `has ${X.length} rows, fewer than K = ${o.K} states`);
  const settings = emSettings(o);

  // Screening: every restart runs for at most `screenIter` iterations.
  const indexes = Array.from({ length: o.restarts }, (_, r) => r);
  const outcomes = o.screenRunner ? o.screenRunner(X, o, indexes) : indexes.map((r) => screenRestart(X, o, r));
  const summaries: RestartSummary[] = [];
  let best: EmRun | undefined;
  let bestRestart = -1;
  let lastFailure: HmmError | undefined;
  for (let r = 0; r < o.restarts; r++) {
    const start = startOf(o, r);
    const outcome = outcomes[r]!;
    if ('failure' in outcome) {
      lastFailure = new HmmError(outcome.failure.code, outcome.failure.message);
      summaries.push({ start, logLikelihood: -Infinity, iterations: 0, converged: false, failure: outcome.failure.code });
      continue;
    }
    const run = outcome.run;
    summaries.push({ start, logLikelihood: run.logLikelihood, iterations: run.iterations, converged: run.converged });
    if (best === undefined || run.logLikelihood > best.logLikelihood) {
      best = run;
      bestRestart = r;
    }
  }
  if (best === undefined) throw lastFailure!;
  // The winner of the screening runs on to convergence or the cap. Continuing from its last model repeats exactly
  // what one uninterrupted run would have done, so the history simply goes on.
  if (!best.converged && best.iterations < o.maxIter) {
    try {
      const rest = baumWelch(X, best.model, { ...settings, maxIter: o.maxIter - best.iterations });
      best = {
        model: rest.model,
        logLikelihood: rest.logLikelihood,
        history: best.history.concat(rest.history.slice(1)),
        converged: rest.converged,
        iterations: best.iterations + rest.iterations,
      };
      const { logLikelihood, iterations, converged } = best;
      summaries[bestRestart] = { ...summaries[bestRestart]!, logLikelihood, iterations, converged };
    } catch (error) {
      // The screened model is valid and evaluated; a numerical failure later on leaves it the answer.
      if (!isNumericalFailure(error)) throw error;
      summaries[bestRestart] = { ...summaries[bestRestart]!, failure: error.code };
    }
  }
  const model = o.warmStart ? permuteModel(best.model, matchStates(o.warmStart.means, best.model.means)) : best.model;
  return {
    model,
    logLikelihood: best.logLikelihood,
    history: best.history,
    converged: best.converged,
    iterations: best.iterations,
    bestRestart,
    restarts: summaries,
  };
}
