/**
 * The research behind the regime method (`npm run research:signal`; the research notes, pipeline/README.md): every
 * variant that was tried, run again and judged as `npm run bench:signal` judges the method in force
 * (pipeline/reports/evaluate.ts: the regime strategy against the 200-day rule on the same days), on the
 * in-sample window 2007–2016, where the choice was made, and out of sample, 2017–2025, reported beside it.
 *
 * The choice rule (`choose`): on the in-sample window, each candidate's `score` = min(Sharpe / the 200-day
 * rule's Sharpe, Calmar / the 200-day rule's Calmar) at seed 7; the candidates within SEED_BAND of the best are
 * finalists, judged on their mean score over seeds 7, 1, 2 and 3; the largest mean wins, within 0.01 of it the
 * one with fewer regime changes a year. The out-of-sample columns play no part in it. Variants that only change
 * the seed or the number of cold restarts are robustness checks, not candidates: a seed is not a method.
 *
 * Each variant is a walk-forward with its options (inputs, restarts, seed, fit window) and a rule turning
 * daily probabilities into the published regime (the switch probability, an optional minimum number of days
 * a new regime must lead). The research-only inputs (other trend windows, trailing z-scores) are built here
 * from the frame, each from data up to its day. Runs each variant in a child process, two at a time:
 *
 *   npm run research:signal [-- --only NAME[,NAME]] [--jobs 2] [--out FILE]
 *   npm run research:signal -- --report FILE[,FILE]   (the table of runs already made, from their JSON)
 *
 * About 10 to 30 s per variant on one core. Writes the table as JSON to bench/results/signal-research-latest.json,
 * and, when the rows hold every variant (a full run, or --report files that cover them all), each variant's
 * in-sample Sharpe ratio to data/research/variants.json: the trials the deflated Sharpe ratio counts.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadFeatureFrame, type FeatureFrame } from '../pipeline/features/frame.js';
import { DEFAULT_WALK_FORWARD, walkForward, type WalkForwardOptions } from '../pipeline/model/walk-forward.js';
import { assemble } from '../pipeline/publish/assemble.js';
import { evaluate } from '../pipeline/reports/evaluate.js';
import { REGIMES } from '../src/core/vocabulary.js';
import { EVALUATION_WINDOWS } from '../pipeline/reports/evaluation-windows.js';
import { defaultVariantsFile, writeResearchVariants, type ResearchVariants } from '../pipeline/reports/research-trials.js';
import { renderTable } from '../src/cli/table.js';
import { SIGNAL_COST_BPS_DEFAULT } from '../src/core/config.js';
import { resultPath, writeResult } from './support/result-file.js';
import { switchedRegimes } from './support/switching-rule.js';

/** The first model's inputs (tradeseal-regime-1). */
const V1_INPUTS = ['net_liq_zscore', 'mom_z_curve', 'mom_z_ust10y', 'mom_z_hy', 'mom_z_vix', 'mom_z_dollar', 'curve_10y2y_pp', 'hy_spread_pct', 'vix'];
const without = (drop: string[], add: string[] = []): string[] => [...V1_INPUTS.filter((n) => !drop.includes(n)), ...add];
const T200 = 'equity_trend_200d';

interface Variant {
  name: string;
  what: string;
  inputs: string[];
  warmRestarts: number;
  restarts?: number;
  seed?: number;
  fitWindowDays?: number;
  /** The published regime: the most likely (0), or switched to at this probability (risk_off at once). */
  switchAt?: number;
  /** A new regime other than risk_off must lead this many days in a row before it is published. */
  minDays?: number;
  covFloor?: number;
  /** A robustness check (another seed, more cold restarts), not a candidate of the choice rule. */
  check?: true;
  /** Round 2: the method's deterministic starts (no seed), release-time data, execution at the next open. */
  round?: 2;
}

const w1 = (name: string, what: string, inputs: string[], extra: Partial<Variant> = {}): Variant => ({ name, what, inputs, warmRestarts: 1, ...extra });
const w3 = (name: string, what: string, inputs: string[], extra: Partial<Variant> = {}): Variant => ({ name, what, inputs, warmRestarts: 3, ...extra });
/** The inputs chosen in round 1 (tradeseal-regime-2 to -4); round 2 dropped the curve's momentum from them (pipeline/model/pca.ts, PCA_INPUTS). */
const CHOSEN_INPUTS = ['net_liq_zscore', 'mom_z_curve', 'mom_z_ust10y', 'mom_z_hy', 'mom_z_vix', 'mom_z_dollar', 'hy_spread_pct', 'vix', T200];
const NINE_YEARS = 2268;
const LOG_LEVELS = CHOSEN_INPUTS.map((n) => (n === 'vix' ? 'log_vix' : n === 'hy_spread_pct' ? 'log_hy' : n));

export const VARIANTS: Variant[] = [
  // 1. The first model and one change at a time, one warm restart per refit (as the first model had).
  w1('v1', 'the first model (tradeseal-regime-1)', V1_INPUTS),
  w1('v1+trend', '+ equity trend (200-day)', without([], [T200])),
  w1('v1+trend+vol', '+ equity trend, + 20-day realized volatility', without([], [T200, 'eq_rvol20'])),
  w1('v1+trend100+mom60', '+ 100-day trend, + 60-day return', without([], ['eq_trend100', 'eq_mom60'])),
  w1('v1 p>=0.8', 'published regime switches at p >= 0.8', V1_INPUTS, { switchAt: 0.8 }),
  w1('v1 window 5y', 'rolling 5-year fit window', V1_INPUTS, { fitWindowDays: 1260 }),
  w1('v1 window 3y', 'rolling 3-year fit window', V1_INPUTS, { fitWindowDays: 756 }),
  w1('v1 window 7y', 'rolling 7-year fit window', V1_INPUTS, { fitWindowDays: 1764 }),
  w1('-curve', '- curve level', without(['curve_10y2y_pp'])),
  w1('-curve+trend', '- curve level, + equity trend', without(['curve_10y2y_pp'], [T200])),
  w1('-curve+3 trends', '- curve level, + 200/100-day trends, + 60-day return', without(['curve_10y2y_pp'], [T200, 'eq_trend100', 'eq_mom60'])),
  w1(
    'stress+3 trends',
    '- curve level and momentum, - dollar, + three trends',
    without(['curve_10y2y_pp', 'mom_z_curve', 'mom_z_dollar'], [T200, 'eq_trend100', 'eq_mom60']),
  ),
  w1('-levels', '- curve, spread and VIX levels', without(['curve_10y2y_pp', 'hy_spread_pct', 'vix'])),
  w1('-levels+trend', '- the three levels, + equity trend', without(['curve_10y2y_pp', 'hy_spread_pct', 'vix'], [T200])),
  w1('-levels+3 trends', '- the three levels, + three trends', without(['curve_10y2y_pp', 'hy_spread_pct', 'vix'], [T200, 'eq_trend100', 'eq_mom60'])),
  w1('-curve-vix', '- curve and VIX levels', without(['curve_10y2y_pp', 'vix'])),
  w1('-curve-vix+trend', '- curve and VIX levels, + equity trend', without(['curve_10y2y_pp', 'vix'], [T200])),
  w1('-curve-vix+trend seed 1', 'the same, seed 1', without(['curve_10y2y_pp', 'vix'], [T200]), { seed: 1, check: true }),
  w1('-curve-vix+trend seed 2', 'the same, seed 2', without(['curve_10y2y_pp', 'vix'], [T200]), { seed: 2, check: true }),
  w1('-curve-vix+trend seed 3', 'the same, seed 3', without(['curve_10y2y_pp', 'vix'], [T200]), { seed: 3, check: true }),
  w1('-curve-vix+trend100', '- curve and VIX levels, + 100-day trend', without(['curve_10y2y_pp', 'vix'], ['eq_trend100'])),
  w1('-curve-vix+mom60', '- curve and VIX levels, + 60-day return', without(['curve_10y2y_pp', 'vix'], ['eq_mom60'])),
  w1('-curve-vix+trend+vol', '- curve and VIX levels, + trend, + realized volatility', without(['curve_10y2y_pp', 'vix'], [T200, 'eq_rvol20'])),
  w1('-curve-hy+trend', '- curve and spread levels, + equity trend', without(['curve_10y2y_pp', 'hy_spread_pct'], [T200])),
  // 2. Three warm restarts per refit: the seed no longer decides the history.
  w3('v1 w3', 'the first model, 3 warm restarts', V1_INPUTS),
  w3('-curve-vix w3', '- curve and VIX levels', without(['curve_10y2y_pp', 'vix'])),
  w3('-curve-vix+trend w3', '- curve and VIX levels, + equity trend', without(['curve_10y2y_pp', 'vix'], [T200])),
  w3('-curve-vix+trend100 w3', '- curve and VIX levels, + 100-day trend', without(['curve_10y2y_pp', 'vix'], ['eq_trend100'])),
  w3('-levels+trend w3', '- the three levels, + equity trend', without(['curve_10y2y_pp', 'hy_spread_pct', 'vix'], [T200])),
  w3('-curve-hy+trend w3', '- curve and spread levels, + equity trend', without(['curve_10y2y_pp', 'hy_spread_pct'], [T200])),
  w3('-curve+trend w3', '- curve level, + equity trend (the inputs chosen)', CHOSEN_INPUTS),
  w3('-curve+trend w3 seed 1', 'the same, seed 1', CHOSEN_INPUTS, { seed: 1, check: true }),
  w3('-curve+trend w3 seed 2', 'the same, seed 2', CHOSEN_INPUTS, { seed: 2, check: true }),
  w3('-curve+trend w3 seed 3', 'the same, seed 3', CHOSEN_INPUTS, { seed: 3, check: true }),
  w3('-curve+trend w3 12 cold', 'the same, 12 cold restarts', CHOSEN_INPUTS, { restarts: 12, check: true }),
  w3('-curve+trend+trend100 w3', '- curve level, + 200- and 100-day trends', [...CHOSEN_INPUTS, 'eq_trend100']),
  w3('-curve+trend+liquidity w3', '- curve level, + trend, + 4-week liquidity change (z)', [...CHOSEN_INPUTS, 'liq_change_z252']),
  w3('-curve+trend+relative w3', '- curve level, + trend, + spread and VIX z over 1 year', [...CHOSEN_INPUTS, 'hy_z252', 'vix_z252']),
  w3(
    'relative+trend w3',
    '- the three levels, + spread and VIX z over 1 year, + trend',
    without(['curve_10y2y_pp', 'hy_spread_pct', 'vix'], [T200, 'hy_z252', 'vix_z252']),
  ),
  // 3. Switching rules on the chosen inputs.
  w3('chosen p>=0.6', 'switch at p >= 0.6', CHOSEN_INPUTS, { switchAt: 0.6 }),
  w3('chosen p>=0.7', 'switch at p >= 0.7', CHOSEN_INPUTS, { switchAt: 0.7 }),
  w3('chosen p>=0.8', 'switch at p >= 0.8 (tradeseal-regime-2)', CHOSEN_INPUTS, { switchAt: 0.8 }),
  w3('chosen p>=0.9', 'switch at p >= 0.9', CHOSEN_INPUTS, { switchAt: 0.9 }),
  w3('chosen 3 days', 'a new regime must lead 3 days', CHOSEN_INPUTS, { minDays: 3 }),
  w3('chosen 5 days', 'a new regime must lead 5 days', CHOSEN_INPUTS, { minDays: 5 }),
  w3('chosen p>=0.7+3 days', 'switch at p >= 0.7 after 3 days', CHOSEN_INPUTS, { switchAt: 0.7, minDays: 3 }),
  // 4. Faster stress inputs: a crash of days should move the probabilities within days.
  w3('chosen+vix5', '+ 5-day VIX change (log)', [...CHOSEN_INPUTS, 'vix_chg5'], { switchAt: 0.8 }),
  w3('chosen+hy5', '+ 5-day high-yield spread change', [...CHOSEN_INPUTS, 'hy_chg5'], { switchAt: 0.8 }),
  w3('chosen+dd20', '+ equity drawdown from its 20-day high', [...CHOSEN_INPUTS, 'eq_dd20'], { switchAt: 0.8 }),
  w3('chosen+dd60', '+ equity drawdown from its 60-day high', [...CHOSEN_INPUTS, 'eq_dd60'], { switchAt: 0.8 }),
  w3('chosen+ret5', '+ 5-day equity return', [...CHOSEN_INPUTS, 'eq_ret5'], { switchAt: 0.8 }),
  w3('chosen+vix5+hy5', '+ 5-day VIX and spread changes', [...CHOSEN_INPUTS, 'vix_chg5', 'hy_chg5'], { switchAt: 0.8 }),
  // 5. The stress levels in logs; regularized states; more restarts; fewer or other inputs.
  w3('chosen log levels', 'spread and VIX levels in logs', LOG_LEVELS, { switchAt: 0.8 }),
  w3('chosen log levels+dd60', 'levels in logs, + 60-day drawdown', [...LOG_LEVELS, 'eq_dd60'], { switchAt: 0.8 }),
  w3('chosen w5', '5 warm restarts', CHOSEN_INPUTS, { switchAt: 0.8, warmRestarts: 5 }),
  w3('chosen cov 0.01', 'covariance floor 0.01', CHOSEN_INPUTS, { switchAt: 0.8, covFloor: 0.01 }),
  w3('chosen cov 0.05', 'covariance floor 0.05', CHOSEN_INPUTS, { switchAt: 0.8, covFloor: 0.05 }),
  w3(
    'chosen -dollar',
    '- dollar momentum',
    CHOSEN_INPUTS.filter((n) => n !== 'mom_z_dollar'),
    { switchAt: 0.8 },
  ),
  w3('chosen+vix5+dd60', '+ 5-day VIX change, + 60-day drawdown', [...CHOSEN_INPUTS, 'vix_chg5', 'eq_dd60'], { switchAt: 0.8 }),
  w3(
    'chosen log vix',
    'VIX level in logs',
    CHOSEN_INPUTS.map((n) => (n === 'vix' ? 'log_vix' : n)),
    { switchAt: 0.8 },
  ),
  w3(
    'chosen log hy',
    'spread level in logs',
    CHOSEN_INPUTS.map((n) => (n === 'hy_spread_pct' ? 'log_hy' : n)),
    { switchAt: 0.8 },
  ),
  w3(
    'chosen log levels -dollar',
    'levels in logs, - dollar momentum',
    LOG_LEVELS.filter((n) => n !== 'mom_z_dollar'),
    { switchAt: 0.8 },
  ),
  w3('chosen log levels+vix5', 'levels in logs, + 5-day VIX change', [...LOG_LEVELS, 'vix_chg5'], { switchAt: 0.8 }),
  w3('chosen log levels p>=0.7', 'levels in logs, switch at p >= 0.7', LOG_LEVELS, { switchAt: 0.7 }),
  w3('chosen log levels+trend100', 'levels in logs, + 100-day trend', [...LOG_LEVELS, 'eq_trend100'], { switchAt: 0.8 }),
  w3('chosen+vol', '+ 20-day realized volatility', [...CHOSEN_INPUTS, 'eq_rvol20'], { switchAt: 0.8 }),
  w3('chosen+mom60', '+ 60-day return', [...CHOSEN_INPUTS, 'eq_mom60'], { switchAt: 0.8 }),
  w3(
    'chosen -curve mom',
    '- curve momentum',
    CHOSEN_INPUTS.filter((n) => n !== 'mom_z_curve'),
    { switchAt: 0.8 },
  ),
  w3(
    'chosen -vix mom',
    '- VIX momentum',
    CHOSEN_INPUTS.filter((n) => n !== 'mom_z_vix'),
    { switchAt: 0.8 },
  ),
  w3(
    'chosen -hy mom',
    '- spread momentum',
    CHOSEN_INPUTS.filter((n) => n !== 'mom_z_hy'),
    { switchAt: 0.8 },
  ),
  w3(
    'chosen vol for vix',
    'realized volatility instead of the VIX level',
    CHOSEN_INPUTS.map((n) => (n === 'vix' ? 'eq_rvol20' : n)),
    { switchAt: 0.8 },
  ),
  w3('chosen+dd60 -dollar', '+ 60-day drawdown, - dollar momentum', [...CHOSEN_INPUTS.filter((n) => n !== 'mom_z_dollar'), 'eq_dd60'], { switchAt: 0.8 }),
  // 6. Rolling fit windows on the chosen inputs (an expanding window holds every day since 2003-12; a window of
  //    N years differs from it from 2003 + N on).
  w3('chosen window 6y', 'rolling 6-year fit window', CHOSEN_INPUTS, { switchAt: 0.8, fitWindowDays: 1512 }),
  w3('chosen window 7y', 'rolling 7-year fit window', CHOSEN_INPUTS, { switchAt: 0.8, fitWindowDays: 1764 }),
  w3('chosen window 8y', 'rolling 8-year fit window', CHOSEN_INPUTS, { switchAt: 0.8, fitWindowDays: 2016 }),
  w3('chosen window 9y', 'rolling 9-year fit window (tradeseal-regime-3)', CHOSEN_INPUTS, { switchAt: 0.8, fitWindowDays: NINE_YEARS }),
  w3('chosen window 10y', 'rolling 10-year fit window', CHOSEN_INPUTS, { switchAt: 0.8, fitWindowDays: 2520 }),
  w3('chosen window 12y', 'rolling 12-year fit window', CHOSEN_INPUTS, { switchAt: 0.8, fitWindowDays: 3024 }),
  // 7. The nine-year window with the switching rules and inputs tried before on the expanding one.
  w3('9y most likely', 'nine years, the most likely regime every day (the method)', CHOSEN_INPUTS, { fitWindowDays: NINE_YEARS }),
  w3('9y p>=0.7', 'nine years, switch at p >= 0.7', CHOSEN_INPUTS, { switchAt: 0.7, fitWindowDays: NINE_YEARS }),
  w3('9y p>=0.9', 'nine years, switch at p >= 0.9', CHOSEN_INPUTS, { switchAt: 0.9, fitWindowDays: NINE_YEARS }),
  w3('9y log levels', 'nine years, spread and VIX levels in logs', LOG_LEVELS, { switchAt: 0.8, fitWindowDays: NINE_YEARS }),
  w3('9y+dd60', 'nine years, + 60-day drawdown', [...CHOSEN_INPUTS, 'eq_dd60'], { switchAt: 0.8, fitWindowDays: NINE_YEARS }),
  w3('9y+vol', 'nine years, + 20-day realized volatility', [...CHOSEN_INPUTS, 'eq_rvol20'], { switchAt: 0.8, fitWindowDays: NINE_YEARS }),
  w3(
    '9y -dollar',
    'nine years, - dollar momentum',
    CHOSEN_INPUTS.filter((n) => n !== 'mom_z_dollar'),
    { switchAt: 0.8, fitWindowDays: NINE_YEARS },
  ),
  w3('9y+hy5', 'nine years, + 5-day spread change', [...CHOSEN_INPUTS, 'hy_chg5'], { switchAt: 0.8, fitWindowDays: NINE_YEARS }),
];

/**
 * Round 2, on release-time data (each day computed from what was out at 06:30 New York the next trading day),
 * every strategy traded at the first open after it is known, net of the default cost, and the method's
 * deterministic starts (no seed: pipeline/README.md, "A method without a seed"). It asks again the questions the
 * timing could answer differently: the fit window and which of the frame's inputs the model reads. Every
 * candidate is a walk-forward the pipeline can run with its own options (inputs of the feature frame, a window,
 * a covariance floor) and publishes the most likely regime, so the choice can be adopted as it is. The choice
 * rule (`chooseRound2`), fixed before any of these runs: the largest in-sample score; within 0.01 of it, the
 * fewer regime changes a year. The out-of-sample columns play no part.
 */
const WITHOUT = (drop: string[], add: string[] = []): string[] => [...CHOSEN_INPUTS.filter((n) => !drop.includes(n)), ...add];
const r2 = (name: string, what: string, inputs: string[], extra: Partial<Variant> = {}): Variant => ({
  name: `r2 ${name}`,
  what,
  inputs,
  warmRestarts: 0,
  round: 2,
  fitWindowDays: NINE_YEARS,
  ...extra,
});
export const ROUND_2: Variant[] = [
  r2('method', 'the method in force: the chosen inputs, nine years (tradeseal-regime-5)', CHOSEN_INPUTS),
  r2('window 6y', 'rolling 6-year fit window', CHOSEN_INPUTS, { fitWindowDays: 1512 }),
  r2('window 7y', 'rolling 7-year fit window', CHOSEN_INPUTS, { fitWindowDays: 1764 }),
  r2('window 8y', 'rolling 8-year fit window', CHOSEN_INPUTS, { fitWindowDays: 2016 }),
  r2('window 10y', 'rolling 10-year fit window', CHOSEN_INPUTS, { fitWindowDays: 2520 }),
  r2('window 12y', 'rolling 12-year fit window', CHOSEN_INPUTS, { fitWindowDays: 3024 }),
  r2('expanding', 'an expanding fit window', CHOSEN_INPUTS, { fitWindowDays: 0 }),
  r2('+curve level', "+ the 10Y-2Y curve level (the first model's inputs with the trend)", WITHOUT([], ['curve_10y2y_pp'])),
  r2('-trend', '- the equity trend', WITHOUT([T200])),
  r2('-dollar', '- dollar momentum', WITHOUT(['mom_z_dollar'])),
  r2('-curve mom', '- curve momentum', WITHOUT(['mom_z_curve'])),
  r2('-10y mom', '- 10-year yield momentum', WITHOUT(['mom_z_ust10y'])),
  r2('-vix mom', '- VIX momentum', WITHOUT(['mom_z_vix'])),
  r2('-hy mom', '- spread momentum', WITHOUT(['mom_z_hy'])),
  r2('-liquidity', '- the net-liquidity z-score', WITHOUT(['net_liq_zscore'])),
  r2('-vix level', '- the VIX level', WITHOUT(['vix'])),
  r2('-hy level', '- the spread level', WITHOUT(['hy_spread_pct'])),
  r2('-levels', '- the spread and VIX levels', WITHOUT(['vix', 'hy_spread_pct'])),
  r2('cov 0.01', 'covariance floor 0.01', CHOSEN_INPUTS, { covFloor: 0.01 }),
];

/** Round 2's choice rule: the largest in-sample score; within 0.01 of it, the fewer regime changes a year. */
export function chooseRound2(rows: Row[]): Row | undefined {
  const scored = rows.filter((r) => r.score !== null);
  const best = Math.max(...scored.map((r) => r.score as number));
  return scored
    .filter((r) => (r.score as number) >= best - 0.01)
    .reduce<Row | undefined>(
      (a, b) => (a === undefined || (b.in_sample.changes_per_year ?? Infinity) < (a.in_sample.changes_per_year ?? Infinity) ? b : a),
      undefined,
    );
}

/**
 * Candidates run again with seeds 1, 2 and 3 (the choice rule's second step: every candidate within
 * SEED_BAND of the best seed-7 score is judged on its mean score over the four seeds).
 */
const SEEDED = [
  'chosen p>=0.8',
  'chosen p>=0.7',
  'chosen cov 0.01',
  'chosen w5',
  'chosen+hy5',
  'chosen log hy',
  'chosen window 7y',
  'chosen window 8y',
  'chosen window 9y',
  'chosen window 12y',
  '9y most likely',
  '9y p>=0.7',
  '9y p>=0.9',
  '9y+dd60',
  '9y+hy5',
];
for (const name of SEEDED) {
  const v = VARIANTS.find((x) => x.name === name) as Variant;
  for (const seed of [1, 2, 3]) VARIANTS.push({ ...v, name: `${name} seed ${seed}`, what: `the same, seed ${seed}`, seed, check: true });
}

// ------------------------------------------------------------------------------- research-only inputs

function addResearchColumns(frame: FeatureFrame): void {
  const n = frame.dates.length;
  const eq = frame.columns.equity_close as Float64Array;
  const make = (f: (t: number) => number): Float64Array => Float64Array.from({ length: n }, (_, t) => f(t));
  const trailingMean = (a: Float64Array, t: number, w: number): number => {
    if (t - w + 1 < 0) return Number.NaN;
    let s = 0;
    for (let k = t - w + 1; k <= t; k++) s += a[k] as number;
    return s / w;
  };
  /** (x(t) − trailing mean) / trailing sample std over the w days ending on t. */
  const trailingZ = (a: Float64Array, w: number): Float64Array =>
    make((t) => {
      const m = trailingMean(a, t, w);
      if (!Number.isFinite(m)) return Number.NaN;
      let v = 0;
      for (let k = t - w + 1; k <= t; k++) v += ((a[k] as number) - m) ** 2 / (w - 1);
      const z = ((a[t] as number) - m) / Math.sqrt(v);
      return Number.isFinite(z) ? z : Number.NaN;
    });
  const logReturn = make((t) => (t >= 1 ? Math.log((eq[t] as number) / (eq[t - 1] as number)) : Number.NaN));
  frame.columns.eq_trend100 = make((t) => Math.log((eq[t] as number) / trailingMean(eq, t, 100)));
  frame.columns.eq_mom60 = make((t) => (t >= 60 ? Math.log((eq[t] as number) / (eq[t - 60] as number)) : Number.NaN));
  frame.columns.eq_rvol20 = make((t) => {
    if (t < 20) return Number.NaN;
    let s = 0;
    for (let k = t - 19; k <= t; k++) s += (logReturn[k] as number) ** 2;
    return Math.log(Math.sqrt((s / 20) * 252));
  });
  const vix = frame.columns.vix as Float64Array;
  const hy = frame.columns.hy_spread_pct as Float64Array;
  const trailingMax = (a: Float64Array, t: number, w: number): number => {
    if (t - w + 1 < 0) return Number.NaN;
    let m = -Infinity;
    for (let k = t - w + 1; k <= t; k++) m = Math.max(m, a[k] as number);
    return m;
  };
  frame.columns.log_vix = make((t) => Math.log(vix[t] as number));
  frame.columns.log_hy = make((t) => Math.log(hy[t] as number));
  frame.columns.vix_chg5 = make((t) => (t >= 5 ? Math.log((vix[t] as number) / (vix[t - 5] as number)) : Number.NaN));
  frame.columns.hy_chg5 = make((t) => (t >= 5 ? (hy[t] as number) - (hy[t - 5] as number) : Number.NaN));
  frame.columns.eq_dd20 = make((t) => Math.log((eq[t] as number) / trailingMax(eq, t, 20)));
  frame.columns.eq_dd60 = make((t) => Math.log((eq[t] as number) / trailingMax(eq, t, 60)));
  frame.columns.eq_ret5 = make((t) => (t >= 5 ? Math.log((eq[t] as number) / (eq[t - 5] as number)) : Number.NaN));
  frame.columns.hy_z252 = trailingZ(frame.columns.hy_spread_pct as Float64Array, 252);
  frame.columns.vix_z252 = trailingZ(frame.columns.vix as Float64Array, 252);
  frame.columns.liq_change_z252 = trailingZ(frame.columns.net_liq_change_4w_bn as Float64Array, 252);
}

interface Row {
  name: string;
  check: boolean;
  what: string;
  score: number | null;
  in_sample: Figures;
  out_of_sample: Figures;
  full: Figures;
  seconds: number;
}
interface Figures {
  sharpe: number | null;
  calmar: number | null;
  cagr: number | null;
  max_drawdown: number | null;
  avg_exposure: number | null;
  changes_per_year: number | null;
  ma200_sharpe: number | null;
  ma200_calmar: number | null;
}

async function runVariant(v: Variant): Promise<Row> {
  const started = performance.now();
  const frame = await loadFeatureFrame(path.resolve('data/macro'));
  addResearchColumns(frame);
  const options: Partial<WalkForwardOptions> =
    v.round === 2
      ? {
          // The method's own starts (deterministic); only the inputs, the window and the floor vary.
          pcaInputs: v.inputs,
          fitWindowDays: v.fitWindowDays ?? DEFAULT_WALK_FORWARD.fitWindowDays,
          covFloor: v.covFloor ?? DEFAULT_WALK_FORWARD.covFloor,
        }
      : {
          // The seeded starts of the methods up to tradeseal-regime-4: k-means++ restarts, the warm start and seeded perturbations of it.
          pcaInputs: v.inputs,
          coldStarts: Array<'cold'>(v.restarts ?? 6).fill('cold'),
          warmStarts: ['warm', ...Array<'perturbed'>(v.warmRestarts - 1).fill('perturbed')],
          convergeAllEvery: 0,
          seed: v.seed ?? DEFAULT_WALK_FORWARD.seed,
          fitWindowDays: v.fitWindowDays ?? 0,
          covFloor: v.covFloor ?? DEFAULT_WALK_FORWARD.covFloor,
        };
  const model = walkForward(frame, options);
  const { signals, market } = assemble(frame, model.days);
  const regimes = switchedRegimes(
    model.days.map((d) => d.probs),
    v,
  );
  const days = signals.map((s, i) => ({ ...s, regime: REGIMES[regimes[i] as number]! }));
  const e = evaluate(days, market, {}, SIGNAL_COST_BPS_DEFAULT);
  const figures = (w: keyof typeof e.windows): Figures => {
    const { regime, ma200 } = e.windows[w].strategies;
    return { ...regime, ma200_sharpe: ma200.sharpe, ma200_calmar: ma200.calmar };
  };
  const ins = figures('in_sample');
  const ratio = (a: number | null, b: number | null): number | null => (a === null || b === null || b <= 0 ? null : a / b);
  const rs = ratio(ins.sharpe, ins.ma200_sharpe);
  const rc = ratio(ins.calmar, ins.ma200_calmar);
  return {
    name: v.name,
    check: v.check === true,
    what: v.what,
    score: rs === null || rc === null ? null : Math.min(rs, rc),
    in_sample: ins,
    out_of_sample: figures('out_of_sample'),
    full: figures('full'),
    seconds: (performance.now() - started) / 1000,
  };
}

/** Runs `names` in child processes, `jobs` at a time, in the order given. */
async function runAll(names: string[], jobs: number): Promise<Row[]> {
  const self = fileURLToPath(import.meta.url);
  const rows = new Array<Row>(names.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const i = next++;
      const name = names[i] as string;
      rows[i] = await new Promise<Row>((resolve, reject) => {
        const child = spawn(process.execPath, [...process.execArgv, self, `--child=${name}`], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (b: Buffer) => (out += b.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Row) : reject(new Error(`variant ${name} failed (exit ${code})`))));
      });
      console.error(`[research] ${name}: ${rows[i]!.seconds.toFixed(0)} s`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  return rows;
}

const f2 = (x: number | null): string => (x === null ? '-' : x.toFixed(2));
const pct = (x: number | null): string => (x === null ? '-' : (x * 100).toFixed(1));

/** The seed-7 score band within which candidates are judged on their four-seed mean (wider than the method's own seed spread, 0.09). */
const SEED_BAND = 0.15;
const SEEDS = [1, 2, 3];

/**
 * The choice rule. 1. Every candidate within SEED_BAND of the best seed-7 score is a finalist; 2. a finalist's
 * score is its mean over seeds 7, 1, 2 and 3 (its `NAME seed N` checks); 3. the largest mean wins, within 0.01
 * of it the one with fewer regime changes a year. A finalist whose seed runs are missing is reported, never chosen.
 */
export function choose(rows: Row[]): { chosen: Row | undefined; means: Map<string, number>; missing: string[] } {
  const byName = new Map(rows.map((r) => [r.name, r]));
  const candidates = rows.filter((r) => !r.check && r.score !== null);
  const best = Math.max(...candidates.map((r) => r.score as number));
  const means = new Map<string, number>();
  const missing: string[] = [];
  for (const r of candidates.filter((c) => (c.score as number) >= best - SEED_BAND)) {
    const seeded = SEEDS.map((k) => byName.get(`${r.name} seed ${k}`)?.score);
    if (seeded.some((x) => x === undefined || x === null)) missing.push(r.name);
    else means.set(r.name, ((r.score as number) + (seeded as number[]).reduce((a, b) => a + b, 0)) / (1 + SEEDS.length));
  }
  const top = Math.max(...means.values());
  const near = [...means].filter(([, m]) => m >= top - 0.01).map(([n]) => byName.get(n) as Row);
  const chosen = near.reduce<Row | undefined>(
    (a, b) => (a === undefined || (b.in_sample.changes_per_year ?? Infinity) < (a.in_sample.changes_per_year ?? Infinity) ? b : a),
    undefined,
  );
  return { chosen, means, missing };
}

function report(rows: Row[]): string {
  const { chosen, means, missing } = choose(rows);
  const table = renderTable(
    [
      'variant',
      'IS sharpe',
      'IS calmar',
      'IS chg/yr',
      'IS exposure',
      'score',
      'seed mean',
      'OOS sharpe',
      'OOS calmar',
      'OOS max DD %',
      'full sharpe',
      'full calmar',
    ],
    rows.map((r) => [
      `${r === chosen ? '* ' : ''}${r.name}${r.check ? ' (check)' : ''}`,
      f2(r.in_sample.sharpe),
      f2(r.in_sample.calmar),
      f2(r.in_sample.changes_per_year),
      f2(r.in_sample.avg_exposure),
      f2(r.score),
      f2(means.get(r.name) ?? null),
      f2(r.out_of_sample.sharpe),
      f2(r.out_of_sample.calmar),
      pct(r.out_of_sample.max_drawdown),
      f2(r.full.sharpe),
      f2(r.full.calmar),
    ]),
  );
  const first = rows[0] as Row;
  return [
    `200-day rule on the same days: in-sample Sharpe ${f2(first.in_sample.ma200_sharpe)}, Calmar ${f2(first.in_sample.ma200_calmar)}; out of sample ${f2(first.out_of_sample.ma200_sharpe)}, ${f2(first.out_of_sample.ma200_calmar)}; full ${f2(first.full.ma200_sharpe)}, ${f2(first.full.ma200_calmar)}`,
    `score = min(IS Sharpe / the rule's, IS Calmar / the rule's) at seed 7; seed mean = the score's mean over seeds 7, ${SEEDS.join(', ')} for the finalists (within ${SEED_BAND} of the best score); * = the choice rule's pick (the largest seed mean; within 0.01, fewer changes); (check) = a robustness check, not a candidate`,
    ...(missing.length > 0 ? [`finalists without their seed runs (not chosen): ${missing.join(', ')}`] : []),
    '',
    table,
  ].join('\n');
}

/**
 * Rewrites data/research/variants.json, the trials the deflated Sharpe ratio of `npm run bench:signal` and
 * `tradeseal quant evaluate` counts, when `rows` hold every variant; a partial run (--only) leaves it as it is.
 */
function writeVariants(rows: Row[], source: string): void {
  const missing = VARIANTS.filter((v) => !rows.some((r) => r.name === v.name)).map((v) => v.name);
  if (missing.length > 0) {
    console.error(`[research] data/research/variants.json not rewritten: ${missing.length} variants not run`);
    return;
  }
  const { chosen } = choose(rows);
  const variants = rows.map((r) => ({
    name: r.name,
    check: r.check,
    in_sample_sharpe: r.in_sample.sharpe as number,
    ...(r === chosen ? { chosen: true } : {}),
  }));
  const trials = writeResearchVariants(variants, EVALUATION_WINDOWS.in_sample, source);
  console.log(`written: data/research/variants.json (${trials.trials} variants)`);
}

/** Where the trials before round 2 come from, in data/research/variants.json. */
const EARLIER_ROUNDS =
  'the research tables of pipeline/README.md: round 1 ("Every variant") and the starts of "A method without a seed", two decimals as printed there';

/** Round 2's table: every candidate, the rule's pick starred. */
function reportRound2(rows: Row[]): string {
  const chosen = chooseRound2(rows);
  const first = rows[0] as Row;
  return [
    `200-day rule on the same days (traded at the next open, ${SIGNAL_COST_BPS_DEFAULT} bp): in-sample Sharpe ${f2(first.in_sample.ma200_sharpe)}, Calmar ${f2(first.in_sample.ma200_calmar)}; out of sample ${f2(first.out_of_sample.ma200_sharpe)}, ${f2(first.out_of_sample.ma200_calmar)}; full ${f2(first.full.ma200_sharpe)}, ${f2(first.full.ma200_calmar)}`,
    "score = min(IS Sharpe / the rule's, IS Calmar / the rule's); * = the choice rule's pick (the largest score; within 0.01, fewer changes)",
    '',
    renderTable(
      ['variant', 'IS sharpe', 'IS calmar', 'IS chg/yr', 'IS exposure', 'score', 'OOS sharpe', 'OOS calmar', 'OOS max DD %', 'full sharpe', 'full calmar'],
      rows.map((r) => [
        `${r === chosen ? '* ' : ''}${r.name}`,
        f2(r.in_sample.sharpe),
        f2(r.in_sample.calmar),
        f2(r.in_sample.changes_per_year),
        f2(r.in_sample.avg_exposure),
        f2(r.score),
        f2(r.out_of_sample.sharpe),
        f2(r.out_of_sample.calmar),
        pct(r.out_of_sample.max_drawdown),
        f2(r.full.sharpe),
        f2(r.full.calmar),
      ]),
    ),
  ].join('\n');
}

/**
 * Adds round 2's variants to data/research/variants.json, keeping the earlier rounds' trials (they were tried
 * too, and the deflated Sharpe ratio counts every trial); round 2's pick is the one variant marked chosen (the
 * method in force). A partial run (--only) leaves the file as it is.
 */
function writeRound2Variants(rows: Row[], source: string): void {
  if (ROUND_2.some((v) => !rows.some((r) => r.name === v.name))) {
    console.error('[research] data/research/variants.json not rewritten: not every round-2 variant was run');
    return;
  }
  const before = JSON.parse(readFileSync(defaultVariantsFile(), 'utf8')) as ResearchVariants;
  const chosen = chooseRound2(rows);
  const kept = before.variants.filter((v) => !v.name.startsWith('r2 ')).map(({ chosen: _c, ...v }) => v);
  const added = rows.map((r) => ({ name: r.name, check: false, in_sample_sharpe: r.in_sample.sharpe as number, ...(r === chosen ? { chosen: true } : {}) }));
  const trials = writeResearchVariants([...kept, ...added], EVALUATION_WINDOWS.in_sample, `${EARLIER_ROUNDS}; round 2 ("Round 2"): ${source}`);
  console.log(`written: data/research/variants.json (${trials.trials} variants)`);
}

const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    only: { type: 'string' },
    jobs: { type: 'string', default: '2' },
    out: { type: 'string' },
    report: { type: 'string' },
    round: { type: 'string', default: '2' },
  },
});
if (values.round !== '1' && values.round !== '2') throw new Error(`--round: 1 or 2, got ${values.round}`);
if (values.report) {
  // The table of a run already made (its JSON), without running the variants again.
  // Several files (comma-separated) are merged, a later file's row replacing an earlier one of the same name,
  // in the order of VARIANTS.
  const merged = new Map<string, Row>();
  for (const file of values.report.split(',')) for (const r of (JSON.parse(readFileSync(file, 'utf8')) as { rows: Row[] }).rows) merged.set(r.name, r);
  const checks = new Set(VARIANTS.filter((v) => v.check).map((v) => v.name));
  const order = VARIANTS.map((v) => v.name).filter((n) => merged.has(n));
  const rows = order.map((n) => ({ ...(merged.get(n) as Row), check: checks.has(n) }));
  console.log(report(rows));
  writeVariants(rows, `npm run research:signal -- --report ${values.report}`);
} else if (values.child) {
  const v = [...VARIANTS, ...ROUND_2].find((x) => x.name === values.child);
  if (!v) throw new Error(`no variant named ${values.child}`);
  process.stdout.write(JSON.stringify(await runVariant(v)));
} else if (values.round === '2') {
  const names = values.only ? values.only.split(',') : ROUND_2.map((v) => v.name);
  for (const n of names)
    if (!ROUND_2.some((v) => v.name === n)) throw new Error(`no round-2 variant named ${n}; the variants: ${ROUND_2.map((v) => v.name).join(', ')}`);
  const rows = await runAll(names, Number(values.jobs));
  console.log(reportRound2(rows));
  console.log(`written: ${writeResult(resultPath('signal-research-r2', values.out), { variants: ROUND_2, rows })}`);
  writeRound2Variants(rows, `npm run research:signal, ${new Date().toISOString().slice(0, 10)}`);
} else {
  const names = values.only ? values.only.split(',') : VARIANTS.map((v) => v.name);
  for (const n of names)
    if (!VARIANTS.some((v) => v.name === n)) throw new Error(`no variant named ${n}; the variants: ${VARIANTS.map((v) => v.name).join(', ')}`);
  const rows = await runAll(names, Number(values.jobs));
  console.log(report(rows));
  console.log(`written: ${writeResult(resultPath('signal-research', values.out), { variants: VARIANTS, rows })}`);
  writeVariants(rows, `npm run research:signal, ${new Date().toISOString().slice(0, 10)}`);
}
