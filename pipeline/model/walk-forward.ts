/**
 * The walk-forward regime model (docs/decisions/0032-walk-forward.md): on the first trading day of every month
 * (and on the first day after the burn-in), refit on the last FIT_WINDOW_DAYS trading days known up to and
 * including that day (a rolling nine-year window; everything known while there is less): PCA of the
 * standardized features, then a 4-state Gaussian HMM on the four factors, its states named by the label rule
 * and stored in regime order. Between refits, each day's factors use the last PCA and its probabilities are
 * the HMM's filtered (forward-only) probabilities, one step at a time.
 * So the published probabilities of day t depend only on data usable on t: the no-look-ahead rule.
 *
 * Deterministic, and with the default starts independent of the seed (no start draws a random number; see
 * `DEFAULT_WALK_FORWARD`). Refits after the first warm-start from the previous fit's states,
 * re-expressed in the new factor basis through the previous smoothed posteriors, which keeps EM short;
 * those posteriors are computed from the previous fit as it is stored, so a run resuming from the stored
 * fits warm-starts exactly as a full run does.
 * Pure: a feature frame in, per-day model outputs out.
 */
import { HmmError } from '../hmm/errors.js';
import { DEFAULT_FIT_OPTIONS, fit as fitHmm, type ScreenRunner, type StartKind } from '../hmm/fit.js';
import { backward, filterStep, forward, smoothed } from '../hmm/inference.js';
import { permuteModel } from '../hmm/matching.js';
import { logEmissions, type GaussianHmm } from '../hmm/model.js';
import { labelStates, stateProfiles } from './labels.js';
import { fitPca, N_FACTORS, PCA_INPUTS, project, type PcaFit } from './pca.js';

export interface WalkForwardOptions {
  /**
   * Seed of the starts that draw random numbers (`cold`, `perturbed`). The default starts draw none, so with
   * them the seed changes nothing; it stays an option for the research variants that use seeded starts.
   */
  seed: number;
  /** Trading days of data before the first fit (3 years). */
  burnInDays: number;
  /** Starting points of the first (cold) fit, and of a refit whose warm starts all fail (fit.ts `starts`). */
  coldStarts: readonly StartKind[];
  /** Starting points of a refit after the first: the previous fit (`warm`) and others; the best likelihood wins. */
  warmStarts: readonly StartKind[];
  /**
   * Every this many refits (counted from the first fit), a refit runs every start to convergence instead of
   * screening them (fit.ts, em-EM): a cold start screened against a converged warm start almost never wins
   * after ten iterations even where it would end higher. 0 (the method's): never; every twelfth refit found
   * higher likelihoods at about 15 % more time than `tradeseal-regime-4`, over the pipeline's budget
   * (pipeline/README.md, "A method without a seed").
   */
  convergeAllEvery: number;
  maxIter: number;
  tol: number;
  covFloor: number;
  /** The feature-frame columns the PCA reads. */
  pcaInputs: readonly string[];
  /** Trading days in each refit's window, ending on the refit day; 0 for an expanding window from the first complete day. */
  fitWindowDays: number;
  /** Where the fits screen their restarts (a second thread: pipeline/hmm/screen-thread.ts); same numbers either way. */
  screenRunner?: ScreenRunner;
}

/**
 * Each refit's window: the last nine years of trading days (9 × 252). Chosen on 2007–2016 against the
 * expanding window and rolling windows of 6, 7, 8, 10 and 12 years (the research notes, pipeline/README.md): with
 * every day since 2003 in the window, the states of a decade ago (2008's spreads) set what "stress" means
 * today, and a fast crash at lower spreads (March 2020) read as a middle regime for two weeks.
 */
export const FIT_WINDOW_DAYS = 2268;

/**
 * The starts (pipeline/README.md, "A method without a seed"): the first fit from the two deterministic k-means
 * seedings (init.ts: farthest points, quantiles of the first factor); each refit from the previous fit and the
 * same two seedings on the new window, screened as every fit's restarts are. No start draws a random number, so
 * the published history is a function of the data alone: with the seeded starts of
 * `tradeseal-regime-4` (six k-means++ restarts, then the warm start and two seeded perturbations), seeds 1 to 8
 * agreed on as few as 83 % of the days.
 */
export const DEFAULT_WALK_FORWARD: WalkForwardOptions = Object.freeze({
  seed: 7,
  burnInDays: 756,
  coldStarts: Object.freeze(['farthest', 'quantile'] as const),
  warmStarts: Object.freeze(['warm', 'farthest', 'quantile'] as const),
  convergeAllEvery: 0,
  maxIter: 200,
  tol: 1e-3,
  covFloor: 1e-3,
  pcaInputs: PCA_INPUTS,
  fitWindowDays: FIT_WINDOW_DAYS,
});

export interface ModelDay {
  /** Index into the frame's dates. */
  index: number;
  /** Probabilities in regime order (expansion, recovery, tightening, risk_off). */
  probs: Float64Array;
  factors: Float64Array;
  variance_explained_pct: number[];
  pca_fit_date: string;
  hmm_fit_date: string;
  /** a_ii of each regime in the model in force. */
  stay: Float64Array;
}

export interface ModelFit {
  fit_date: string;
  pca: PcaFit;
  hmm: { startProb: number[]; transmat: number[]; means: number[][]; covars: number[][] };
  log_likelihood: number;
  iterations: number;
}

export interface WalkForwardResult {
  days: ModelDay[];
  fits: ModelFit[];
  firstIndex: number;
}

export interface FrameLike {
  dates: string[];
  columns: Record<string, Float64Array>;
}

const LABEL_INPUTS = { hy: 'hy_spread_pct', vix: 'vix', ret: 'ret_equity', y10Mom: 'mom_z_ust10y', liqChange: 'net_liq_change_4w_bn' } as const;

function columnOf(frame: FrameLike, name: string): Float64Array {
  const c = frame.columns[name];
  if (!c) throw new Error(`feature frame has no column ${name}`);
  return c;
}

/** The first day of the window of a refit on day `at`: `fitWindowDays` days ending on it, never before `s0` (0: from `s0`). */
export function fitWindowStart(s0: number, at: number, fitWindowDays: number): number {
  return fitWindowDays > 0 ? Math.max(s0, at - fitWindowDays + 1) : s0;
}

/** The first index from which every model input is a finite number on every day. */
export function firstCompleteIndex(frame: FrameLike, pcaInputs: readonly string[] = PCA_INPUTS): number {
  const cols = [...pcaInputs, ...Object.values(LABEL_INPUTS)].map((n) => columnOf(frame, n));
  let last = -1;
  for (let t = 0; t < frame.dates.length; t++) if (cols.some((c) => !Number.isFinite(c[t]))) last = t;
  return last + 1;
}

/** Refit days: the first fit day, then the first trading day of each month. */
export function refitIndices(dates: readonly string[], first: number): number[] {
  const out: number[] = [];
  for (let t = first; t < dates.length; t++) {
    if (t === first || dates[t]!.slice(0, 7) !== dates[t - 1]!.slice(0, 7)) out.push(t);
  }
  return out;
}

/**
 * The refits a run resumed from `resume` would make: none when every new day falls before the next refit day
 * (the usual nightly run), when the days are filtered one step each and no model is fitted.
 */
export function refitsAfter(frame: FrameLike, options: Partial<WalkForwardOptions>, resume: Pick<ResumePoint, 'lastDate'>): number {
  const o = { ...DEFAULT_WALK_FORWARD, ...options };
  const first = firstCompleteIndex(frame, o.pcaInputs) + o.burnInDays;
  const last = frame.dates.indexOf(resume.lastDate);
  return refitIndices(frame.dates, first).filter((t) => t > last).length;
}

/** The fit before: its smoothed posteriors over its window (which began at frame index `start`) and its model. */
interface Previous {
  gamma: Float64Array;
  model: GaussianHmm;
  start: number;
}

/** A warm start in the new basis: the previous fit's states, re-estimated from its smoothed posteriors. */
function warmStartFrom(prev: Previous, X: Float64Array[], xStart: number): GaussianHmm {
  const K = prev.model.K;
  const d = X[0]!.length;
  // The previous window's days that are also in this one (all of them with an expanding window).
  const skip = xStart - prev.start;
  const T = Math.min(prev.gamma.length / K - skip, X.length);
  const means: Float64Array[] = [];
  const covars: Float64Array[] = [];
  for (let k = 0; k < K; k++) {
    const m = new Float64Array(d);
    let w = 0;
    for (let t = 0; t < T; t++) {
      const g = prev.gamma[(t + skip) * K + k]!;
      w += g;
      for (let j = 0; j < d; j++) m[j]! += g * X[t]![j]!;
    }
    for (let j = 0; j < d; j++) m[j] = m[j]! / (w || 1);
    const c = new Float64Array(d * d);
    for (let t = 0; t < T; t++) {
      const g = prev.gamma[(t + skip) * K + k]!;
      for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) c[a * d + b]! += (g * (X[t]![a]! - m[a]!) * (X[t]![b]! - m[b]!)) / (w || 1);
    }
    for (let a = 0; a < d; a++) c[a * d + a]! += 1e-3;
    means.push(m);
    covars.push(c);
  }
  return { K, d, startProb: Float64Array.from(prev.model.startProb), transmat: Float64Array.from(prev.model.transmat), means, covars };
}

const finiteModel = (m: GaussianHmm): boolean => [m.startProb, m.transmat, ...m.means, ...m.covars].every((a) => a.every((x) => Number.isFinite(x)));

/**
 * Refit number `r`: from the warm start and the other warm starts, or from the cold starts for the first fit.
 * When every warm start fails numerically (a state the new window leaves empty can make the warm start
 * degenerate), the refit starts cold instead, so a night's run never stops on it.
 */
function refit(X: Float64Array[], warm: GaussianHmm | null, o: WalkForwardOptions, seed: number, r: number): ReturnType<typeof fitHmm> {
  const screenIter = o.convergeAllEvery > 0 && r % o.convergeAllEvery === 0 ? o.maxIter : DEFAULT_FIT_OPTIONS.screenIter;
  const common = { K: 4, maxIter: o.maxIter, screenIter, tol: o.tol, covFloor: o.covFloor, seed, ...(o.screenRunner ? { screenRunner: o.screenRunner } : {}) };
  if (warm && finiteModel(warm)) {
    try {
      return fitHmm(X, { ...common, starts: o.warmStarts, warmStart: warm });
    } catch (error) {
      if (!(error instanceof HmmError) || error.code === 'hmm_invalid_argument') throw error;
    }
  }
  return fitHmm(X, { ...common, starts: o.coldStarts });
}

const plain = (m: GaussianHmm): ModelFit['hmm'] => ({
  startProb: [...m.startProb],
  transmat: [...m.transmat],
  means: m.means.map((x) => [...x]),
  covars: m.covars.map((x) => [...x]),
});

/** Where an incremental run picks up: every fit so far (oldest first) and the last published day. */
export interface ResumePoint {
  fits: ModelFit[];
  lastDate: string;
  /** The last published day's probabilities, in regime order. */
  lastProbs: ArrayLike<number>;
  /** Its published factors, to check that the data up to it are unchanged. */
  lastFactors: ArrayLike<number>;
}

export class ResumeMismatch extends Error {
  override name = 'ResumeMismatch';
}

/** The frame has fewer complete days than the burn-in needs: no day can be published from it. */
export class NotEnoughHistory extends RangeError {
  override name = 'NotEnoughHistory';
  constructor(
    readonly completeDays: number,
    readonly needed: number,
  ) {
    super(`not enough history: ${completeDays} complete days, the burn-in needs ${needed}`);
  }
}

/** Called after each refit: `done` of `total` refits of this run, and the refit's date. */
export type RefitProgress = (done: number, total: number, date: string) => void;

const modelOf = (h: ModelFit['hmm']): GaussianHmm => ({
  K: 4,
  d: N_FACTORS,
  startProb: Float64Array.from(h.startProb),
  transmat: Float64Array.from(h.transmat),
  means: h.means.map((m) => Float64Array.from(m)),
  covars: h.covars.map((c) => Float64Array.from(c)),
});

interface InForce {
  pca: PcaFit;
  model: GaussianHmm;
  fitDate: string;
  stay: Float64Array;
}

/**
 * Runs the walk-forward over the frame, or, given a resume point, only over the days after it: the stored
 * fits stand in for the refits already made, and the result is the same as a full run's, day for day.
 * Throws `ResumeMismatch` when the stored state does not fit the data (the caller then runs in full).
 */
export function walkForward(frame: FrameLike, options: Partial<WalkForwardOptions> = {}, resume?: ResumePoint, onRefit?: RefitProgress): WalkForwardResult {
  const o = { ...DEFAULT_WALK_FORWARD, ...options };
  const s0 = firstCompleteIndex(frame, o.pcaInputs);
  const f0 = s0 + o.burnInDays;
  if (f0 >= frame.dates.length) throw new NotEnoughHistory(frame.dates.length - s0, o.burnInDays + 1);
  const inputs = o.pcaInputs.map((n) => columnOf(frame, n));
  // Each day's input row, made once: every refit reads its whole window again.
  const rowCache: Float64Array[] = [];
  const rowAt = (t: number): Float64Array => {
    let row = rowCache[t];
    if (!row) {
      row = new Float64Array(inputs.length);
      for (let j = 0; j < inputs.length; j++) row[j] = inputs[j]![t]!;
      rowCache[t] = row;
    }
    return row;
  };
  const label = Object.fromEntries(Object.entries(LABEL_INPUTS).map(([k, n]) => [k, columnOf(frame, n)])) as Record<keyof typeof LABEL_INPUTS, Float64Array>;
  const refits = refitIndices(frame.dates, f0);
  const isRefit = new Map(refits.map((t, r) => [t, r]));
  const windowStart = (at: number): number => fitWindowStart(s0, at, o.fitWindowDays);
  const windowRows = (at: number): Float64Array[] => {
    const rows: Float64Array[] = [];
    for (let t = windowStart(at); t <= at; t++) rows.push(rowAt(t));
    return rows;
  };
  /**
   * The smoothed posteriors of a fit over its own window, in regime order, computed from the fit as it is
   * published (its PCA and its model in regime order), never carried over from its EM: the EM's own
   * posteriors are in the order its states came out in, and forward-backward sums over the states in that
   * order, so they differ from these in the last bits. An incremental run has only the published fit; a
   * warm start from anything else would make its refits, and every day after them, differ from a full run's.
   */
  const posteriorsOf = (fit: InForce): Previous => {
    const at = frame.dates.indexOf(fit.fitDate);
    const X = windowRows(at).map((row) => project(fit.pca, row));
    const le = logEmissions(fit.model, X);
    const fw = forward(fit.model, le);
    return { gamma: smoothed(fw, backward(fit.model, le, fw.logNormalizers)), model: fit.model, start: windowStart(at) };
  };
  const stayOf = (m: GaussianHmm): Float64Array => Float64Array.from({ length: 4 }, (_, k) => m.transmat[k * 4 + k]!);

  const days: ModelDay[] = [];
  const fits: ModelFit[] = [];
  let current: InForce | null = null;
  let filtered = new Float64Array(4);
  let from = f0;

  if (resume) {
    const lastIdx = frame.dates.indexOf(resume.lastDate);
    if (lastIdx < f0) throw new ResumeMismatch(`the last published day ${resume.lastDate} is not a day of this run's calendar`);
    const made = refits.filter((t) => t <= lastIdx).map((t) => frame.dates[t]!);
    if (made.length !== resume.fits.length || made.some((d, i) => d !== resume.fits[i]!.fit_date)) {
      throw new ResumeMismatch("the stored fits do not follow this run's refit schedule");
    }
    const last = resume.fits.at(-1)!;
    current = { pca: last.pca, model: modelOf(last.hmm), fitDate: last.fit_date, stay: stayOf(modelOf(last.hmm)) };
    const x = project(current.pca, rowAt(lastIdx));
    if (x.some((v, j) => Math.abs(v - (resume.lastFactors[j] as number)) > 1e-8 * Math.max(1, Math.abs(v)))) {
      throw new ResumeMismatch(`the data up to ${resume.lastDate} changed since it was published`);
    }
    filtered = Float64Array.from(resume.lastProbs);
    from = lastIdx + 1;
  }

  const total = refits.filter((t) => t >= from).length;
  for (let t = from; t < frame.dates.length; t++) {
    const r = isRefit.get(t);
    if (r === undefined) {
      const c = current as InForce;
      const x = project(c.pca, rowAt(t));
      filtered = Float64Array.from(filterStep(filtered, logEmissions(c.model, [x]), c.model.transmat).filtered);
      days.push({
        index: t,
        probs: filtered,
        factors: x,
        variance_explained_pct: c.pca.variance_explained_pct,
        pca_fit_date: c.fitDate,
        hmm_fit_date: c.fitDate,
        stay: c.stay,
      });
      continue;
    }
    // The warm start comes from the fit in force as it is stored, so a run resuming from the stored fits and
    // a full run start this refit from the same numbers, bit for bit (see `posteriorsOf`).
    const prev = current ? posteriorsOf(current) : null;
    const rows = windowRows(t);
    const pca = fitPca(rows, o.pcaInputs);
    const X = rows.map((row) => project(pca, row));
    const result = refit(X, prev ? warmStartFrom(prev, X, windowStart(t)) : null, o, (o.seed + r * 7919) >>> 0, r);
    const raw = result.model;
    const le = logEmissions(raw, X);
    const fw = forward(raw, le);
    const gamma = smoothed(fw, backward(raw, le, fw.logNormalizers));
    const slice = (c: Float64Array): Float64Array => c.subarray(windowStart(t), t + 1);
    const names = labelStates(
      stateProfiles(gamma, 4, {
        hy: slice(label.hy),
        vix: slice(label.vix),
        ret: slice(label.ret),
        y10Mom: slice(label.y10Mom),
        liqChange: slice(label.liqChange),
      }),
    );
    const perm = [names.expansion, names.recovery, names.tightening, names.risk_off];
    const model = permuteModel(raw, perm);
    const T = X.length;
    const fitDate = frame.dates[t]!;
    current = { pca, model, fitDate, stay: stayOf(model) };
    fits.push({ fit_date: fitDate, pca, hmm: plain(model), log_likelihood: result.logLikelihood, iterations: result.iterations });
    onRefit?.(fits.length, total, fitDate);
    // The refit day: its filtered probability under the new model; the days after it filter one step at a time.
    filtered = Float64Array.from({ length: 4 }, (_, k) => fw.filtered[(T - 1) * 4 + perm[k]!]!);
    days.push({
      index: t,
      probs: filtered,
      factors: X[T - 1]!,
      variance_explained_pct: pca.variance_explained_pct,
      pca_fit_date: fitDate,
      hmm_fit_date: fitDate,
      stay: current.stay,
    });
  }
  return { days, fits, firstIndex: f0 };
}
