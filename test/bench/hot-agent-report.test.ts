/**
 * The busy-agent benchmark's arithmetic (bench/support/hot-agent-report.ts, bench/support/summary-hot-agent.ts):
 * the rounds' order turns and reverses so no load always runs first or last, each figure is the median of its
 * rounds with their range, the targets are judged on the medians, and `npm run bench`'s table shows the same.
 */
import { describe, expect, it } from 'vitest';
import { hotAgentReport, median, roundOrder, type LoadName, type Round } from '../../bench/support/hot-agent-report.js';
import { hotAgentRows } from '../../bench/support/summary-hot-agent.js';
import { planBenchmarks } from '../../bench/support/all-flags.js';

const loads: LoadName[] = ['floor', 'engine_many', 'engine_one', 'irl_one'];
const round = (rps: Record<LoadName, number>, p99: Record<LoadName, number>): Round[] =>
  loads.map((load) => ({ load, rps: rps[load], p50_ms: null, p99_ms: p99[load], requests: rps[load] * 10, conflicts_409: load === 'irl_one' ? 3 : 0 }));

describe('the busy-agent benchmark report', () => {
  it('turns and reverses the order of the loads from round to round', () => {
    const orders = Array.from({ length: 4 }, (_, r) => roundOrder(loads, r));
    expect(orders).toEqual([
      ['floor', 'engine_many', 'engine_one', 'irl_one'],
      ['floor', 'irl_one', 'engine_one', 'engine_many'],
      ['engine_one', 'irl_one', 'floor', 'engine_many'],
      ['engine_one', 'engine_many', 'floor', 'irl_one'],
    ]);
    // Each load is first once over four rounds.
    expect(new Set(orders.map((o) => o[0])).size).toBeGreaterThanOrEqual(2);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('judges the targets on the medians and gives the same figures to the table of npm run bench', () => {
    const p99 = { floor: 10, engine_many: 30, engine_one: 35, irl_one: 45 };
    const rounds = [
      round({ floor: 5000, engine_many: 2000, engine_one: 1900, irl_one: 1700 }, p99),
      round({ floor: 5200, engine_many: 2100, engine_one: 2000, irl_one: 1750 }, p99),
      round({ floor: 4000, engine_many: 1000, engine_one: 2050, irl_one: 1800 }, p99),
      round({ floor: 5100, engine_many: 2200, engine_one: 2100, irl_one: 1900 }, p99),
      round({ floor: 5300, engine_many: 2300, engine_one: 900, irl_one: 1850 }, p99),
    ];
    const { text, summary } = hotAgentReport(rounds, { machine: 'm', wrk: 'wrk -t2 -c100 -d10s', rounds: 5, agents: 100 });
    expect(summary.loads.engine_many.rps).toEqual({ median: 2100, min: 1000, max: 2300 });
    expect(summary.loads.engine_one.rps.median).toBe(2000);
    expect(summary.targets.map((t) => [t.ratio.toFixed(3), t.met])).toEqual([
      [(1800 / 2100).toFixed(3), false],
      [(2000 / 2100).toFixed(3), true],
      ['3.000', true],
      ['3.500', true],
      ['4.500', false],
    ]);
    expect(text).toContain('/engine/authorize, 100 agents                       2,100  (1,000-2,300)     30.0  (30.0-30.0)    -, -, -');
    const rows = hotAgentRows(JSON.parse(JSON.stringify({ summary })));
    expect(rows.filter((r) => r.run === 'targets').map((r) => r.result)).toEqual(['NOT MET', 'MET', 'MET', 'MET', 'NOT MET']);
    expect(rows[0]).toMatchObject({ what: 'POST /engine/authorize, many agents', figure: '2,100 req/s, p99 30.0 ms', floor: '5,100 req/s, p99 10.0 ms' });
  });

  it('is part of npm run bench, and takes its load flags', () => {
    const plan = planBenchmarks(['--seconds', '5', '--pool', '20', '--only', 'hot-agent'], '/tmp/r');
    expect(plan.only).toEqual(['hot-agent']);
    expect(plan.flags['hot-agent']).toEqual(['--seconds', '5', '--pool', '20']);
    expect(planBenchmarks([], '/tmp/r').only).toContain('hot-agent');
  });
});
