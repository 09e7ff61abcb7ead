/**
 * The research behind the regime method (`npm run research:signal`; pipeline/README.md, "Research"): every
 * variant that was tried, run again and judged as `npm run bench:signal` judges the method in force
 * (pipeline/reports/evaluate.ts: the regime strategy against the 200-day rule on the same days), on the
 * in-sample window 2007–2016, where the choice was made, and out of sample, 2017–2025, reported beside it.
 *
 * The choice rule: on the in-sample window, of the candidate variants, the one with the largest `score` =
 * min(Sharpe / the 200-day rule's Sharpe, Calmar / the 200-day rule's Calmar) wins; within 0.01 of it, the one
 * with fewer regime changes a year. The out-of-sample columns play no part in it. Variants that only change
 * the seed or the number of cold restarts are robustness checks, not candidates: a seed is not a method.
 *
 * Each variant is a walk-forward with its options (inputs, restarts, seed, fit window) and a rule turning
 * daily probabilities into the published regime (the switch probability, an optional minimum number of days
 * a new regime must lead). The research-only inputs (other trend windows, trailing z-scores) are built here
 * from the frame, each from data up to its day. Runs each variant in a child process, two at a time:
 *
 *   npm run research:signal [-- --only NAME[,NAME]] [--jobs 2] [--out FILE]
 *   npm run research:signal -- --report FILE     (the table of a run already made, from its JSON)
 *
 * About 10 to 30 s per variant on one core. Writes the table as JSON to bench/results/signal-research-latest.json.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadFeatureFrame, type FeatureFrame } from '../pipeline/features/frame.js';
import { PCA_INPUTS } from '../pipeline/model/pca.js';
import { DEFAULT_WALK_FORWARD, walkForward, type WalkForwardOptions } from '../pipeline/model/walk-forward.js';
import { assemble } from '../pipeline/publish/assemble.js';
import { evaluate } from '../pipeline/reports/evaluate.js';
import { mostLikely, publishedRegimes, REGIME_ORDER, SWITCH_PROBABILITY } from '../pipeline/regime/signals.js';
import { renderTable } from '../src/cli/table.js';
import { resultPath, writeResult } from './support/result-file.js';

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
  /** A robustness check (another seed, more cold restarts), not a candidate of the choice rule. */
  check?: true;
}

const w1 = (name: string, what: string, inputs: string[], extra: Partial<Variant> = {}): Variant => ({ name, what, inputs, warmRestarts: 1, ...extra });
const w3 = (name: string, what: string, inputs: string[], extra: Partial<Variant> = {}): Variant => ({ name, what, inputs, warmRestarts: 3, ...extra });
const CHOSEN_INPUTS = [...PCA_INPUTS];

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
  w1('stress+3 trends', '- curve level and momentum, - dollar, + three trends', without(['curve_10y2y_pp', 'mom_z_curve', 'mom_z_dollar'], [T200, 'eq_trend100', 'eq_mom60'])),
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
  w3('relative+trend w3', '- the three levels, + spread and VIX z over 1 year, + trend', without(['curve_10y2y_pp', 'hy_spread_pct', 'vix'], [T200, 'hy_z252', 'vix_z252'])),
  // 3. Switching rules on the chosen inputs.
  w3('chosen p>=0.6', 'switch at p >= 0.6', CHOSEN_INPUTS, { switchAt: 0.6 }),
  w3('chosen p>=0.7', 'switch at p >= 0.7', CHOSEN_INPUTS, { switchAt: 0.7 }),
  w3('chosen p>=0.8', 'switch at p >= 0.8 (the method)', CHOSEN_INPUTS, { switchAt: 0.8 }),
  w3('chosen p>=0.9', 'switch at p >= 0.9', CHOSEN_INPUTS, { switchAt: 0.9 }),
  w3('chosen 3 days', 'a new regime must lead 3 days', CHOSEN_INPUTS, { minDays: 3 }),
  w3('chosen 5 days', 'a new regime must lead 5 days', CHOSEN_INPUTS, { minDays: 5 }),
  w3('chosen p>=0.7, 3 days', 'switch at p >= 0.7 after 3 days', CHOSEN_INPUTS, { switchAt: 0.7, minDays: 3 }),
];

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
  const trailingZ = (a: Float64Array, w: number): Float64Array => make((t) => {
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
  frame.columns.hy_z252 = trailingZ(frame.columns.hy_spread_pct as Float64Array, 252);
  frame.columns.vix_z252 = trailingZ(frame.columns.vix as Float64Array, 252);
  frame.columns.liq_change_z252 = trailingZ(frame.columns.net_liq_change_4w_bn as Float64Array, 252);
}

/** The published regime of each day under a variant's rule. */
function regimesOf(probs: Float64Array[], v: Variant): Int32Array {
  if (!v.minDays) return v.switchAt ? publishedRegimes(probs, -1, v.switchAt) : Int32Array.from(probs, (p) => mostLikely(p));
  const riskOff = REGIME_ORDER.indexOf('risk_off');
  const out = new Int32Array(probs.length);
  let held = -1;
  let lead = -1;
  let run = 0;
  probs.forEach((p, i) => {
    const top = mostLikely(p);
    run = top === lead ? run + 1 : 1;
    lead = top;
    if (held < 0 || top === riskOff || (run >= (v.minDays as number) && (p[top] as number) >= (v.switchAt ?? 0))) held = top;
    out[i] = held;
  });
  return out;
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
  const options: Partial<WalkForwardOptions> = {
    pcaInputs: v.inputs, warmRestarts: v.warmRestarts, restarts: v.restarts ?? DEFAULT_WALK_FORWARD.restarts,
    seed: v.seed ?? DEFAULT_WALK_FORWARD.seed, fitWindowDays: v.fitWindowDays ?? 0,
  };
  const model = walkForward(frame, options);
  const { signals, market } = assemble(frame, model.days);
  const regimes = regimesOf(model.days.map((d) => d.probs), v);
  const days = signals.map((s, i) => ({ ...s, regime: REGIME_ORDER[regimes[i] as number]! }));
  const e = evaluate(days, market);
  const figures = (w: keyof typeof e.windows): Figures => {
    const { regime, ma200 } = e.windows[w].strategies;
    return { ...regime, ma200_sharpe: ma200.sharpe, ma200_calmar: ma200.calmar };
  };
  const ins = figures('in_sample');
  const ratio = (a: number | null, b: number | null): number | null => (a === null || b === null || b <= 0 ? null : a / b);
  const rs = ratio(ins.sharpe, ins.ma200_sharpe);
  const rc = ratio(ins.calmar, ins.ma200_calmar);
  return {
    name: v.name, check: v.check === true, what: v.what, score: rs === null || rc === null ? null : Math.min(rs, rc),
    in_sample: ins, out_of_sample: figures('out_of_sample'), full: figures('full'), seconds: (performance.now() - started) / 1000,
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

function report(rows: Row[]): string {
  const candidates = rows.filter((r) => !r.check);
  const best = Math.max(...candidates.map((r) => r.score ?? -Infinity));
  const near = candidates.filter((r) => r.score !== null && r.score >= best - 0.01);
  const chosen = near.reduce((a, b) => ((b.in_sample.changes_per_year ?? Infinity) < (a.in_sample.changes_per_year ?? Infinity) ? b : a));
  const table = renderTable(
    ['variant', 'IS sharpe', 'IS calmar', 'IS chg/yr', 'IS exposure', 'score', 'OOS sharpe', 'OOS calmar', 'OOS max DD %', 'full sharpe', 'full calmar'],
    rows.map((r) => [
      `${r === chosen ? '* ' : ''}${r.name}${r.check ? ' (check)' : ''}`, f2(r.in_sample.sharpe), f2(r.in_sample.calmar), f2(r.in_sample.changes_per_year), f2(r.in_sample.avg_exposure), f2(r.score),
      f2(r.out_of_sample.sharpe), f2(r.out_of_sample.calmar), pct(r.out_of_sample.max_drawdown), f2(r.full.sharpe), f2(r.full.calmar),
    ]),
  );
  const first = rows[0] as Row;
  return [
    `200-day rule on the same days: in-sample Sharpe ${f2(first.in_sample.ma200_sharpe)}, Calmar ${f2(first.in_sample.ma200_calmar)}; out of sample ${f2(first.out_of_sample.ma200_sharpe)}, ${f2(first.out_of_sample.ma200_calmar)}; full ${f2(first.full.ma200_sharpe)}, ${f2(first.full.ma200_calmar)}`,
    'score = min(IS Sharpe / the rule\'s, IS Calmar / the rule\'s); * = the choice rule\'s pick (the largest score of the candidates; within 0.01, fewer changes); (check) = a robustness check, not a candidate',
    '',
    table,
  ].join('\n');
}

const { values } = parseArgs({ options: { child: { type: 'string' }, only: { type: 'string' }, jobs: { type: 'string', default: '2' }, out: { type: 'string' }, report: { type: 'string' } } });
if (values.report) {
  // The table of a run already made (its JSON), without running the variants again.
  const saved = JSON.parse(readFileSync(values.report, 'utf8')) as { rows: Row[] };
  const checks = new Set(VARIANTS.filter((v) => v.check).map((v) => v.name));
  console.log(report(saved.rows.map((r) => ({ ...r, check: checks.has(r.name) }))));
} else if (values.child) {
  const v = VARIANTS.find((x) => x.name === values.child);
  if (!v) throw new Error(`no variant named ${values.child}`);
  process.stdout.write(JSON.stringify(await runVariant(v)));
} else {
  const names = values.only ? values.only.split(',') : VARIANTS.map((v) => v.name);
  for (const n of names) if (!VARIANTS.some((v) => v.name === n)) throw new Error(`no variant named ${n}; the variants: ${VARIANTS.map((v) => v.name).join(', ')}`);
  const rows = await runAll(names, Number(values.jobs));
  console.log(report(rows));
  console.log(`written: ${writeResult(resultPath('signal-research', values.out), { switch_probability_in_force: SWITCH_PROBABILITY, variants: VARIANTS, rows })}`);
}
