/**
 * The table of `npm run bench` (bench/support/summary.ts) from small fixtures of each benchmark's JSON, and the
 * split of its command line (bench/support/all-flags.ts). No timings are measured here.
 */
import { describe, expect, it } from 'vitest';
import { planBenchmarks } from '../../bench/support/all-flags.js';
import { summaryCells, summaryRows, type SummaryRow } from '../../bench/support/summary.js';

const route = (name: string, rps: number, p50: number, p99: number) => ({
  route: name,
  rps,
  latency_ms: { p50, p90: p99, p99, p999: p99, max: p99, mean: p50 },
});
const FLOOR = 'POST /bench/floor (1 INSERT)';

/** The engine's JSON with scenarios: two runs (durable at 50, non-durable at 100 connections, 2 workers) and service times. */
const engineScenarios = {
  targets: { min_relative: 0.5, max_p99_relative: 4, max_service_p99_ms: 15 },
  scenarios: [
    {
      mode: 'durable',
      durable: true,
      workers: 1,
      connections: 50,
      history_traces: 0,
      floor_route: FLOOR,
      routes: [route(FLOOR, 4000, 10, 20), route('POST /engine/authorize', 2400, 18, 60), route('POST /engine/bind-execution', 1600, 25, 90)],
    },
    {
      mode: 'non-durable',
      durable: false,
      workers: 2,
      connections: 100,
      history_traces: 3_000_000,
      floor_route: FLOOR,
      routes: [route(FLOOR, 8000, 10, 20), route('POST /engine/authorize', 3000, 30, 100)],
    },
  ],
  scale: null,
  single_connection: [route(FLOOR, 900, 1, 2), route('POST /engine/authorize', 500, 2, 16)],
};

/** The engine's JSON before scenarios: one run at the top level. */
const engineLegacy = {
  database: { settings: { fsync: 'off' } },
  load: { connections: 50 },
  floor_route: FLOOR,
  routes: [route('GET /bench/noop', 30000, 1, 4), route(FLOOR, 5000, 8, 16), route('POST /engine/authorize', 2000, 20, 50)],
};

const signals = {
  load: { connections: 50 },
  bare_route: 'GET /bench/noop (bare route)',
  floor_route: FLOOR,
  routes: [
    route('GET /bench/noop (bare route)', 20000, 1, 3),
    route(FLOOR, 5000, 8, 16),
    route('GET /v1/signals/latest (Pro keys)', 3000, 12, 30),
    route('GET /v1/engine/heartbeat (one sidecar key)', 4000, 10, 25),
  ],
};

const pipeline = {
  runs: [
    { name: 'full, bundled history', wall_ms: 12_500, target_s: 20 },
    { name: 'incremental, +1 day', wall_ms: 3_500, target_s: 3 },
  ],
};

const quant = {
  target: { max_ms: 50 },
  floors: { select_1: { median_ms: 0.1, p95_ms: 0.2 }, read_window: { median_ms: 4, p95_ms: 5 } },
  backtest: { command: { median_ms: 10, p95_ms: 12 }, service: { median_ms: 2, p95_ms: 60 }, arithmetic: { median_ms: 1, p95_ms: 1.5 } },
};

/** The signal-quality benchmark's JSON, cut to what the table reads: the full window, and out of sample with an undefined Calmar. */
const figures = (sharpe: number | null, calmar: number | null) => ({
  sharpe,
  calmar,
  cagr: 0.05,
  max_drawdown: -0.2,
  avg_exposure: 0.5,
  turnover_per_year: 3,
  changes_per_year: 5,
});
const signal = {
  evaluation: {
    windows: {
      full: {
        first_day: '2007-10-09',
        last_day: '2025-11-26',
        strategies: { regime: figures(0.8, 0.3), ma200: figures(0.7, 0.3), buy_and_hold: figures(0.6, 0.2) },
      },
      out_of_sample: {
        first_day: '2017-01-03',
        last_day: '2025-11-26',
        strategies: { regime: figures(0.9, null), ma200: figures(0.9, 0.4), buy_and_hold: figures(0.8, 0.4) },
      },
    },
  },
};

const pick = (rows: SummaryRow[], run: string, what: string): SummaryRow | undefined => rows.find((r) => r.run === run && r.what === what);

describe('the summary table', () => {
  it('reads every scenario of the engine JSON, each against its own floor, and judges authorize and bind', () => {
    const rows = summaryRows([['engine', { json: engineScenarios }]]);
    expect(rows.map((r) => [r.run, r.what])).toEqual([
      ['durable, 1 worker, 50 conn', FLOOR],
      ['durable, 1 worker, 50 conn', 'POST /engine/authorize'],
      ['durable, 1 worker, 50 conn', 'POST /engine/bind-execution'],
      ['non-durable, 2 workers, 100 conn, 3,000,000 traces stored', FLOOR],
      ['non-durable, 2 workers, 100 conn, 3,000,000 traces stored', 'POST /engine/authorize'],
      ['1 connection (service time)', FLOOR],
      ['1 connection (service time)', 'POST /engine/authorize'],
    ]);
    expect(pick(rows, 'durable, 1 worker, 50 conn', FLOOR)).toMatchObject({ ratio: 1, target: '', result: '' });
    // 2400 / 4000 = 0.6 and 60 / 20 = 3 < 4: met; 1600 / 4000 = 0.4: not met; 3000 / 8000 = 0.375: not met.
    expect(pick(rows, 'durable, 1 worker, 50 conn', 'POST /engine/authorize')).toMatchObject({
      ratio: 0.6,
      figure: '2,400 req/s, p99 60.0 ms (3.00x floor p99)',
      floor: '4,000 req/s, p99 20.0 ms',
      target: '>= 0.50x floor req/s, p99 < 4x floor p99 (80.0 ms)',
      result: 'MET',
    });
    expect(pick(rows, 'durable, 1 worker, 50 conn', 'POST /engine/bind-execution')).toMatchObject({ ratio: 0.4, result: 'NOT MET' });
    expect(pick(rows, 'non-durable, 2 workers, 100 conn, 3,000,000 traces stored', 'POST /engine/authorize')).toMatchObject({
      ratio: 0.375,
      result: 'NOT MET',
    });
    // Over one connection: p50 against the floor's p50, p99 against the absolute service-time target.
    expect(pick(rows, '1 connection (service time)', 'POST /engine/authorize')).toMatchObject({ ratio: 2, target: 'p99 < 15 ms', result: 'NOT MET' });
  });

  it("judges authorize against floor-verify and bind against the floor when the file names each route's target", () => {
    const VERIFY = 'POST /bench/floor-verify (verify + 1 INSERT)';
    const json = {
      targets: {
        routes: { 'POST /engine/authorize': { against: VERIFY, min_relative: 0.75 }, 'POST /engine/bind-execution': { against: FLOOR, min_relative: 0.6 } },
        max_p99_relative: 4,
      },
      scenarios: [
        {
          mode: 'durable',
          workers: 1,
          connections: 50,
          history_traces: 0,
          floor_route: FLOOR,
          routes: [
            route(FLOOR, 5000, 10, 20),
            route(VERIFY, 2500, 15, 50),
            route('POST /engine/authorize', 2000, 20, 70),
            route('POST /engine/bind-execution', 2900, 15, 40),
          ],
        },
      ],
    };
    const rows = summaryRows([['engine', { json }]]);
    // 2000 / 2500 = 0.8 >= 0.75 and 70 / 20 = 3.5 < 4: met, though only 0.4 x the 1-INSERT floor.
    expect(pick(rows, 'durable, 1 worker, 50 conn', 'POST /engine/authorize')).toMatchObject({
      ratio: 0.8,
      floor: '2,500 req/s, p99 50.0 ms',
      target: '>= 0.75x floor-verify req/s, p99 < 4x floor p99 (80.0 ms)',
      result: 'MET',
    });
    // 2900 / 5000 = 0.58 < 0.6: not met.
    expect(pick(rows, 'durable, 1 worker, 50 conn', 'POST /engine/bind-execution')).toMatchObject({
      ratio: 0.58,
      target: '>= 0.60x floor req/s, p99 < 4x floor p99 (80.0 ms)',
      result: 'NOT MET',
    });
    const noVerify = { ...json, scenarios: [{ ...json.scenarios[0], routes: json.scenarios[0]!.routes.filter((r) => r.route !== VERIFY) }] };
    // A file that names a baseline it does not hold is reported, not judged against another route.
    expect(summaryRows([['engine', { json: noVerify }]])).toEqual([
      expect.objectContaining({ benchmark: 'engine', what: expect.stringMatching(/relative to "POST \/bench\/floor-verify/) }),
    ]);
  });

  it('takes a scale scenario as one more run, and a file without scenarios as one run', () => {
    const scale = { ...engineScenarios.scenarios[1], history_traces: 10 };
    expect(summaryRows([['engine', { json: { ...engineScenarios, scale } }]]).filter((r) => r.run.endsWith('10 traces stored'))).toHaveLength(2);
    const rows = summaryRows([['engine', { json: engineLegacy }]]);
    expect(rows.map((r) => r.run)).toEqual(['non-durable, 50 conn', 'non-durable, 50 conn', 'non-durable, 50 conn']);
    expect(rows.map((r) => r.ratio)).toEqual([6, 1, 0.4]);
  });

  it("judges the scale run's two stores, measured in turns, against the band of the empty store's req/s", () => {
    const scale = {
      mode: 'durable',
      workers: 1,
      connections: 50,
      pool: 100,
      history_traces: 3_000_000,
      rounds: 4,
      max_change_pct: 10,
      routes: [
        {
          route: 'POST /engine/authorize',
          history: route('POST /engine/authorize', 1900, 20, 60),
          empty: route('POST /engine/authorize', 2000, 20, 55),
          change_pct: -5,
        },
        {
          route: 'POST /engine/bind-execution',
          history: route('POST /engine/bind-execution', 2600, 15, 50),
          empty: route('POST /engine/bind-execution', 3000, 15, 40),
          change_pct: -13.3,
        },
      ],
    };
    const rows = summaryRows([['engine', { json: { ...engineScenarios, scale } }]]);
    const run = 'durable, 1 worker, 50 conn, 3,000,000 traces stored vs an empty store, in turns';
    // 1900 / 2000 - 1 = -5 %: within ±10 %; 2600 / 3000 - 1 = -13.3 %: outside.
    expect(pick(rows, run, 'POST /engine/authorize')).toMatchObject({
      ratio: 0.95,
      figure: '1,900 req/s, p99 60.0 ms',
      floor: '2,000 req/s, p99 55.0 ms (empty store)',
      target: "req/s within ±10% of the empty store's (-5.0%)",
      result: 'MET',
    });
    expect(pick(rows, run, 'POST /engine/bind-execution')).toMatchObject({ target: "req/s within ±10% of the empty store's (-13.3%)", result: 'NOT MET' });
    // A faster store with the history is judged by the same band.
    const faster = { ...scale, routes: [{ ...scale.routes[0]!, history: route('POST /engine/authorize', 2300, 20, 60) }] };
    expect(pick(summaryRows([['engine', { json: { ...engineScenarios, scale: faster } }]]), run, 'POST /engine/authorize')).toMatchObject({
      result: 'NOT MET',
    });
  });

  it('judges the signal service against the floor, its heartbeat against the bare route', () => {
    const rows = summaryRows([['signals', { json: signals }]]);
    expect(rows.map((r) => [r.what, r.ratio, r.result])).toEqual([
      ['GET /bench/noop (bare route)', 1, ''],
      [FLOOR, 1, ''],
      ['GET /v1/signals/latest (Pro keys)', 0.6, 'MET'],
      ['GET /v1/engine/heartbeat (one sidecar key)', 0.2, 'NOT MET'],
    ]);
    expect(rows[3]?.floor).toBe('bare route: 20,000 req/s, p99 3.0 ms');
  });

  it('lists the pipeline against its absolute targets and quant against the bare read of the same rows', () => {
    const rows = summaryRows([
      ['pipeline', { json: pipeline }],
      ['quant', { json: quant }],
    ]);
    expect(summaryCells(rows)).toEqual([
      ['pipeline', '', 'full, bundled history', '12.50 s', '(none)', '', '< 20 s', 'MET'],
      ['pipeline', '', 'incremental, +1 day', '3.50 s', '(none)', '', '< 3 s', 'NOT MET'],
      ['quant', '', 'backtest, command (median)', '10.00 ms', "read of the window's rows: 4.00 ms", '2.50x', '< 50 ms', 'MET'],
      ['quant', '', 'backtest, service (p95)', '60.00 ms', "read of the window's rows: 5.00 ms", '12.00x', '< 50 ms', 'NOT MET'],
    ]);
  });

  it('judges the regime strategy against the 200-day rule: ahead over the full window, not behind out of sample', () => {
    expect(summaryCells(summaryRows([['signal', { json: signal }]]))).toEqual([
      ['signal', 'full 2007-10-09 to 2025-11-26', 'regime strategy, Sharpe', '0.800', '200-day MA rule: 0.700', '', '> 200-day MA rule', 'MET'],
      // Equal is not ahead over the full window…
      ['signal', 'full 2007-10-09 to 2025-11-26', 'regime strategy, Calmar', '0.300', '200-day MA rule: 0.300', '', '> 200-day MA rule', 'NOT MET'],
      // …but is not behind out of sample; an undefined figure meets no target.
      ['signal', 'out-of-sample 2017-01-03 to 2025-11-26', 'regime strategy, Sharpe', '0.900', '200-day MA rule: 0.900', '', '>= 200-day MA rule', 'MET'],
      ['signal', 'out-of-sample 2017-01-03 to 2025-11-26', 'regime strategy, Calmar', 'n/a', '200-day MA rule: 0.400', '', '>= 200-day MA rule', 'NOT MET'],
    ]);
    expect(summaryRows([['signal', { json: { evaluation: { windows: {} } } }]])[0]?.what).toMatch(/^no result: its JSON is not of the expected shape/);
  });

  it("judges the drop copy on the medians of its rounds: a burst's fills/s against the rows inserted, the paced stream's send -> commit against a one-row commit, authorize with the stream against without", () => {
    const dropcopy = {
      options: { fills: 10000, rounds: 3 },
      median: {
        burst: { fills_per_s: 2500, floor_rows_per_s: 25000, send_p99_ms: 4300 },
        paced: { offered_per_s: 1000, send_p50_ms: 8, send_p99_ms: 1200, floor_commit_p99_ms: 6, receipt_p50_ms: 7, receipt_p99_ms: 900 },
        authorize: { with_rps: 700, without_rps: 800, loss_pct: 12.5, stream_rate: 250 },
      },
    };
    expect(summaryCells(summaryRows([['dropcopy', { json: dropcopy }]]))).toEqual([
      [
        'dropcopy',
        'durable, median of 3 rounds',
        'reconciled fills/s (burst of 10,000)',
        '2,500 fills/s',
        '25,000 rows/s inserted',
        '0.10x',
        '>= 2,000 fills/s',
        'MET',
      ],
      [
        'dropcopy',
        'durable, median of 3 rounds',
        'send -> committed ORPHAN p50/p99 (paced 1,000/s)',
        '8 / 1,200 ms',
        'one-row commit p99 6.0 ms',
        '200.00x',
        'p99 < 1,000 ms',
        'NOT MET',
      ],
      ['dropcopy', 'durable, median of 3 rounds', 'receipt -> committed ORPHAN p50 / p99 (paced)', '7 / 900 ms', '', '', 'information', ''],
      ['dropcopy', 'durable, median of 3 rounds', 'send -> committed ORPHAN p99 (burst)', '4,300 ms', '', '', 'information', ''],
      [
        'dropcopy',
        'durable, median of 3 rounds',
        'POST /engine/authorize with 250 fills/s paced',
        '700 req/s',
        '800 req/s without',
        '0.88x',
        'within 10 %',
        'NOT MET',
      ],
    ]);
    expect(summaryRows([['dropcopy', { json: { burst: {} } }]])[0]?.what).toMatch(/^no result: its JSON is not of the expected shape/);
  });

  it('gives a benchmark without a usable result one row saying why, and keeps the others', () => {
    const rows = summaryRows([
      ['engine', { missing: 'it failed (exit code 1)' }],
      ['quant', { json: { floors: {} } }],
      ['pipeline', { json: pipeline }],
    ]);
    expect(rows[0]).toMatchObject({ benchmark: 'engine', what: 'no result: it failed (exit code 1)' });
    expect(rows[1]?.what).toMatch(/^no result: its JSON is not of the expected shape/);
    expect(rows.slice(2).map((r) => r.benchmark)).toEqual(['pipeline', 'pipeline']);
  });
});

describe('the command line of npm run bench', () => {
  it('passes the shared load flags to engine, signals and dropcopy, the rest to the engine', () => {
    const p = planBenchmarks(['--seconds', '5', '--connections=50,100', '--modes', 'non-durable', '--profile', '--only', 'signals,engine'], '/r');
    expect(p.only).toEqual(['engine', 'signals']);
    expect(p.flags.engine).toEqual(['--seconds', '5', '--connections', '50,100', '--modes', 'non-durable', '--profile']);
    expect(p.flags.signals).toEqual(['--seconds', '5', '--connections', '50']);
    expect(p.flags.dropcopy).toEqual(['--seconds', '5', '--connections', '50']);
    expect(p.flags.pipeline).toEqual([]);
  });

  it('refuses what it cannot place', () => {
    expect(() => planBenchmarks(['--only', 'engin'], '/r')).toThrow(/unknown benchmark engin/);
    expect(() => planBenchmarks(['5'], '/r')).toThrow(/unexpected argument 5/);
    expect(() => planBenchmarks(['--out', 'x.json'], '/r')).toThrow(/--results/);
  });
});
