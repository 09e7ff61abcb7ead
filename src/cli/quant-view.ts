/** Terminal rendering of the quant figures: a performance report with its per-regime table, a regime distribution. */
import { type Regime, REGIMES } from '../core/vocabulary.js';
import type { RecordCounts } from '../signals/ops/track-record.js';
import type { PerformanceReport } from '../../pipeline/reports/performance.js';
import { renderTable, type TableStyle } from './table.js';

const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(2)}%`);
const num = (x: number | null, digits = 3): string => (x === null ? '-' : x.toFixed(digits));

export function renderRegimeDistribution(d: Record<Regime, number>): string {
  return `regime distribution: ${REGIMES.map((r) => `${r} ${d[r].toFixed(1)}%`).join(', ')}`;
}

/** What a figure rests on (`record`), when it says so: a line, or none. */
export function recordLine(p: { record?: RecordCounts }): string[] {
  const r = p.record;
  if (!r) return [];
  const what = r.basis === 'live' ? 'the days resting on regimes logged live in the track log' : 'every published day';
  return [
    `rests on ${r.days} days: ${what}; of the whole history's, ${r.live_days} rest on regimes logged live, ${r.backfill_days} on backfilled ones, ${r.unlogged_days} on regimes published before the track log`,
  ];
}

export function renderPerformance(p: PerformanceReport & { record?: RecordCounts }, style: TableStyle = {}): string {
  // A report published before costs were counted has no cost_bps: it says nothing rather than a wrong cost.
  const cost = p.cost_bps === undefined ? '' : `, net of ${p.cost_bps} bp per unit of exposure change`;
  const head = `regime strategy against buy-and-hold SPY, ${p.days} days (${p.first_day ?? '-'} to ${p.last_day ?? '-'})${cost}`;
  const figures = renderTable(
    ['', 'strategy', 'buy-and-hold'],
    [
      ['sharpe', num(p.sharpe), num(p.benchmark.sharpe)],
      ['annual return', pct(p.annual_return), pct(p.benchmark.annual_return)],
      ['total return', pct(p.total_return), pct(p.benchmark.total_return)],
      ['max drawdown', pct(p.max_drawdown), pct(p.benchmark.max_drawdown)],
      ['alpha (annual)', pct(p.alpha), '-'],
    ],
    style,
  );
  const byRegime = renderTable(
    ['regime held', 'days', 'SPY mean daily', 'SPY annualised', 'hit rate'],
    REGIMES.map((r) => {
      const x = p.by_regime[r];
      return [r, x.days, pct(x.mean_daily_return), pct(x.annualized_return), pct(x.hit_rate)];
    }),
    style,
  );
  return [
    head,
    ...recordLine(p),
    figures,
    '',
    "by regime (the regime whose exposure was taken at the day's open, the newest published before it):",
    byRegime,
  ].join('\n');
}
