/**
 * The month's report, as `npm run replay` prints it and docs/operations.md shows it: one line per night (when it
 * ran, the day due, what it did, how the track log took the days), the operator's step, the engine's answer each
 * morning, and what a subscriber checks (the days against a full run, the live record), each figure with what it
 * rests on.
 */
import { renderTable } from '../src/cli/table.js';
import type { PerformanceWithRecord } from '../src/signals/ops/track-record.js';
import type { Comparison } from './checks.js';
import type { ReplayResult } from './month.js';

const newYork = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const local = (iso: string): string => newYork.format(new Date(iso)).replace(',', '');

const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(2)}%`);

function kinds(t: ReplayResult['nights'][number]['track_log']): string {
  if (!t) return '';
  return (['live', 'backfill', 'republication'] as const)
    .filter((k) => t[k] > 0)
    .map((k) => `${t[k]} ${k}`)
    .join(', ');
}

export function renderReport(r: ReplayResult, comparison: Comparison | null, live: PerformanceWithRecord | null): string {
  const mornings = new Map(r.mornings.map((m) => [m.day, m]));
  const lines: string[] = [];
  lines.push(`nights of ${r.scenario.first} to ${r.scenario.last}, each at 06:30 New York on a weekday (PIPELINE_CRON), deadline 09:00:`);
  lines.push(
    renderTable(
      ['night (New York)', 'due', 'status', 'tries', 'published', 'track log', 'regime', 'order at 09:35'],
      r.nights.map((n) => {
        const day = n.at.slice(0, 10);
        return [
          local(n.at),
          n.due,
          n.status,
          n.attempts,
          n.published.length === 0 ? '-' : n.published.map((d) => d.slice(5)).join(' '),
          kinds(n.track_log),
          n.regime ?? '-',
          mornings.get(day)?.authorize ?? '-',
        ];
      }),
    ),
  );
  // The request line of a source's failure names the local server's port, which differs from run to run.
  const reason = (text: string | null): string => (text ?? '').replace(/\. Request: GET [^\s;]+/g, '');
  for (const n of r.nights.filter((x) => x.status === 'late' || x.status === 'refused'))
    lines.push('', `${local(n.at)} ${n.status} (${n.error_code}): ${reason(n.reason)}`);
  for (const o of r.operator) {
    const t = o.summary.track_log;
    lines.push(
      '',
      `${local(o.at)} the operator: ${o.what}: ${o.summary.plan?.changed ?? 0} days rewritten (from ${o.summary.plan?.changed_first ?? '-'}), ${o.summary.days} days published, track log: ${t ? `${t.republication} republication, ${t.live} live, ${t.backfill} backfill` : 'nothing new'}`,
    );
  }
  const accepted = r.mornings.filter((m) => m.authorize === '200').length;
  lines.push(
    '',
    `the engine: ${accepted} of ${r.mornings.length} trading mornings accepted the agent's order (a heartbeat signed by the signal service, carrying the regime in force)`,
  );
  if (comparison) {
    lines.push(
      `a full run over the same data, as of ${r.scenario.last}, on a new store: ${comparison.days} days compared, ${comparison.differing.length} differ in a number, ${comparison.market_differing.length} in a price or an action`,
    );
  }
  if (live) {
    const rec = live.record;
    lines.push(
      `the live record (signals performance --record live): ${live.days} days with a return, ${live.first_day} to ${live.last_day}; strategy ${pct(live.total_return)}, buy-and-hold SPY ${pct(live.benchmark.total_return)}, net of ${live.cost_bps} bp a unit of exposure change`,
    );
    lines.push(
      `  of the ${rec.live_days + rec.backfill_days + rec.unlogged_days} published days ${rec.live_days} rest on regimes logged live and ${rec.backfill_days} on backfills; ${live.days} days are far too few for a Sharpe ratio to say anything: the record grows by a day each night`,
    );
  }
  return lines.join('\n');
}
