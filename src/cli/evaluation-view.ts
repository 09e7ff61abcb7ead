/**
 * Terminal rendering of the signal-quality evaluation (pipeline/reports/evaluate.ts), the same for `tradeseal
 * quant evaluate` and `npm run bench:signal`: the three strategies over the named windows, the same per
 * calendar year, the share of days in each regime per year, and the verdict line. Figures are rounded here
 * only; the JSON of either has every digit.
 */
import type { Evaluation, StrategyFigures, StrategyName, WindowEvaluation } from '../../pipeline/reports/evaluate.js';
import { STRATEGIES } from '../../pipeline/reports/evaluate.js';
import { WINDOW_LABELS, WINDOW_NAMES } from '../../pipeline/reports/evaluation-windows.js';
import { REGIMES } from '../core/vocabulary.js';
import { renderTable, type Cell, type TableStyle } from './table.js';
import { renderUncertainty } from './uncertainty-view.js';

export const STRATEGY_LABELS: Readonly<Record<StrategyName, string>> = { regime: 'regime strategy', ma200: '200-day MA rule', buy_and_hold: 'buy-and-hold' };

const FIGURE_HEADERS = ['sharpe', 'CAGR %', 'max DD %', 'calmar', 'avg exposure', 'turnover/yr', 'changes/yr'];

const fixed = (x: number | null, digits: number): string => (x === null ? '-' : x.toFixed(digits));
const percent = (x: number | null): string => (x === null ? '-' : (x * 100).toFixed(2));

function figureCells(f: StrategyFigures): Cell[] {
  return [
    fixed(f.sharpe, 3),
    percent(f.cagr),
    percent(f.max_drawdown),
    fixed(f.calmar, 3),
    fixed(f.avg_exposure, 3),
    fixed(f.turnover_per_year, 2),
    fixed(f.changes_per_year, 2),
  ];
}

const span = (w: WindowEvaluation): string => (w.days === 0 ? 'no evaluated day' : `${w.first_day} to ${w.last_day}, ${w.days} days`);

/** The three strategies over the full window, in-sample and out-of-sample. */
export function renderWindows(e: Evaluation, style: TableStyle = {}): string {
  const rows = WINDOW_NAMES.flatMap((name) => STRATEGIES.map((s) => [WINDOW_LABELS[name], STRATEGY_LABELS[s], ...figureCells(e.windows[name].strategies[s])]));
  const spans = WINDOW_NAMES.map((name) => {
    const w = e.windows[name];
    return w.from > w.to ? `${WINDOW_LABELS[name]} (none of it in the full window)` : `${WINDOW_LABELS[name]} ${w.from} to ${w.to} (${span(w)})`;
  });
  return [`windows: ${spans.join('; ')}`, renderTable(['window', { name: 'strategy', priority: 'key' }, ...FIGURE_HEADERS], rows, style)].join('\n');
}

/** The three strategies in each calendar year. */
export function renderYears(e: Evaluation, style: TableStyle = {}): string {
  return renderTable(
    ['year', 'days', { name: 'strategy', priority: 'key' }, ...FIGURE_HEADERS],
    e.years.flatMap((y) => STRATEGIES.map((s) => [y.name, y.days, STRATEGY_LABELS[s], ...figureCells(y.strategies[s])])),
    style,
  );
}

/** The share of days on which each regime was published, per calendar year and over the full window, in percent. */
export function renderRegimeShares(e: Evaluation, style: TableStyle = {}): string {
  const row = (w: WindowEvaluation, name: string): Cell[] => [name, w.days, ...REGIMES.map((r) => (w.days === 0 ? '-' : (w.regime_share[r] * 100).toFixed(1)))];
  return renderTable(['year', 'days', ...REGIMES.map((r) => `${r} %`)], [...e.years.map((y) => row(y, y.name)), row(e.windows.full, 'full')], style);
}

/** Whether the regime strategy is ahead of the 200-day rule over the full window and not behind it out of sample, with the figures. */
export function renderVerdict(e: Evaluation): string {
  const v = e.verdict;
  const versus = (w: WindowEvaluation, figure: 'sharpe' | 'calmar', ok: boolean, yes: string, no: string): string =>
    `${figure === 'sharpe' ? 'Sharpe' : 'Calmar'} ${fixed(w.strategies.regime[figure], 3)} vs ${fixed(w.strategies.ma200[figure], 3)} ${ok ? yes : no}`;
  const full = e.windows.full;
  const out = e.windows.out_of_sample;
  return (
    `verdict: the regime strategy is ahead of the 200-day rule on Sharpe and Calmar over the full window (${full.from} to ${full.to}) and not behind it out of sample: ${v.holds ? 'YES' : 'NO'}` +
    ` (full: ${versus(full, 'sharpe', v.full.sharpe_ahead, 'ahead', 'not ahead')}, ${versus(full, 'calmar', v.full.calmar_ahead, 'ahead', 'not ahead')};` +
    ` out-of-sample: ${versus(out, 'sharpe', v.out_of_sample.sharpe_not_behind, 'not behind', 'behind')}, ${versus(out, 'calmar', v.out_of_sample.calmar_not_behind, 'not behind', 'behind')})`
  );
}

/** `style` fits the tables to a terminal (the prose is wrapped by the command); without one, every column whole. */
export function renderEvaluation(e: Evaluation, style: TableStyle = {}): string {
  const f = e.windows.full;
  return [
    `the published regimes on SPY, ${span(f)}: the regime strategy (each regime's exposure, expansion 1, recovery 0.75, tightening 0.25, risk_off 0, taken at the first open after its publication) against the 200-day moving-average rule and buy-and-hold, on the same days, net of ${e.cost_bps} bp per unit of exposure change`,
    'a day is evaluated when it has the regime of the day before and 200 closes before it; risk-free 0; turnover/yr = sum of |exposure change| per year, changes/yr = position changes per year',
    '',
    renderWindows(e, style),
    '',
    'by calendar year:',
    renderYears(e, style),
    '',
    'share of days in each regime (the regime published that day):',
    renderRegimeShares(e, style),
    '',
    ...(e.uncertainty === null ? [] : [renderUncertainty(e, style), '']),
    `${renderVerdict(e)}. Information, not a test.`,
  ].join('\n');
}
