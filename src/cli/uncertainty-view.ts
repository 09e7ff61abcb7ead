/**
 * Terminal rendering of how sure the signal-quality evaluation's comparisons are
 * (pipeline/reports/evaluation-uncertainty.ts), for `tradeseal quant evaluate` and `npm run bench:signal`: per
 * named window and benchmark, the bootstrap intervals of the Sharpe and Calmar differences and P(lead ≤ 0); then
 * the regime strategy's deflated Sharpe ratio per window. Rounded here only; the JSON has every digit.
 */
import type { DifferenceInterval } from '../../pipeline/performance/bootstrap.js';
import type { Evaluation } from '../../pipeline/reports/evaluate.js';
import { BENCHMARKS, type WindowUncertainty } from '../../pipeline/reports/evaluation-uncertainty.js';
import { WINDOW_LABELS, WINDOW_NAMES, type WindowName } from '../../pipeline/reports/evaluation-windows.js';
import { renderTable, type Cell, type TableStyle } from './table.js';

const PER_YEAR = Math.sqrt(252);
const VERSUS = { ma200: '200-day MA rule', buy_and_hold: 'buy-and-hold' } as const;
const fixed = (x: number | null | undefined, digits: number): string => (x === null || x === undefined ? '-' : x.toFixed(digits));
const range = (r: [number, number] | null): string => (r === null ? '-' : `${r[0].toFixed(3)} to ${r[1].toFixed(3)}`);

function intervalCells(d: DifferenceInterval | undefined): Cell[] {
  if (d === undefined) return ['-', '-', '-', '-'];
  return [fixed(d.observed, 3), range(d.ci90), range(d.ci95), fixed(d.p_lead_le_0, 3)];
}

/** The bootstrap table: one row per named window and benchmark. */
export function renderBootstrap(u: Record<WindowName, WindowUncertainty>, style: TableStyle = {}): string {
  const rows = WINDOW_NAMES.flatMap((name) =>
    BENCHMARKS.map((b): Cell[] => {
      const w = u[name];
      const c = w.versus[b];
      return [WINDOW_LABELS[name], VERSUS[b], w.days, fixed(w.mean_block, 1), ...intervalCells(c?.sharpe), ...intervalCells(c?.calmar)];
    }),
  );
  const full = u.full;
  return [
    `how sure the leads are: stationary block bootstrap (Politis and Romano 1994) of regime strategy − benchmark, the same days resampled for all three strategies; ${full.resamples} resamples, seed ${full.seed}, mean block length b by Politis and White's rule (longest over the returns and their squares)`,
    "a lead is the regime strategy's figure minus the benchmark's; 90 % and 95 % percentile intervals; P(lead ≤ 0) = the share of resamples in which the regime strategy is not ahead (not a p-value: near 0 the lead holds in almost every resample, near 0.5 it is a coin toss)",
    renderTable(
      ['window', { name: 'versus', priority: 'key' }, 'days', 'b', 'sharpe lead', '90 %', '95 %', 'P(lead ≤ 0)', 'calmar lead', '90 %', '95 %', 'P(lead ≤ 0)'],
      rows,
      style,
    ),
  ].join('\n');
}

/** The deflated Sharpe ratio table: one row per named window. */
export function renderDeflated(u: Record<WindowName, WindowUncertainty>, style: TableStyle = {}): string {
  const any = WINDOW_NAMES.map((n) => u[n].deflated_sharpe).find((d) => d !== null);
  if (any === undefined) return 'deflated Sharpe ratio: no trials, or no window with a Sharpe ratio';
  const rows = WINDOW_NAMES.map((name): Cell[] => {
    const d = u[name].deflated_sharpe;
    return d === null
      ? [WINDOW_LABELS[name], u[name].days, '-', '-', '-', '-', '-', '-']
      : [
          WINDOW_LABELS[name],
          d.observations,
          fixed(d.sharpe * PER_YEAR, 3),
          fixed(d.skewness, 2),
          fixed(d.kurtosis, 2),
          fixed(d.expected_max_sharpe * PER_YEAR, 3),
          fixed(d.psr, 3),
          fixed(d.dsr, 3),
        ];
  });
  return [
    `the regime strategy's deflated Sharpe ratio (Bailey and López de Prado 2014): against the best of N = ${any.trials} variants tried in the research, whose annualised in-sample Sharpe ratios vary with variance ${fixed(any.trial_variance * 252, 4)} (${any.source})`,
    'SR0 = the Sharpe ratio the best of N worthless variants would show (annualised); PSR(0) = the probability that the true Sharpe ratio is above 0 had this been the only variant; DSR = the probability that it is above SR0, skewness and kurtosis counted. The choice was made in sample: there the DSR is the figure to read; out of sample, where the choice did not look, PSR(0) is',
    renderTable(['window', 'days', 'sharpe', 'skew', 'kurtosis', 'SR0', 'PSR(0)', 'DSR'], rows, style),
  ].join('\n');
}

/** Both tables, or nothing when the evaluation has no statistics. */
export function renderUncertainty(e: Evaluation, style: TableStyle = {}): string | null {
  return e.uncertainty === null ? null : [renderBootstrap(e.uncertainty, style), '', renderDeflated(e.uncertainty, style)].join('\n');
}
