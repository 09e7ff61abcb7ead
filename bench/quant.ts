/**
 * Benchmark of what quants read (`npm run bench:quant`): the forecast's fit time per column on the whole
 * published history, the reports stage of a run, and a backtest over the whole history as the signal service
 * runs it (two indexed reads and the arithmetic), next to floors measured in the same run: a bare `select 1`
 * round trip and the bare read of the same regime rows. Against a throwaway PostgreSQL 15 cluster (or a
 * scratch database on DATABASE_URL), after one full pipeline run over the bundled history.
 * Target: a backtest over the full history under 50 ms (issue of the quant toolkit). The figures also go to
 * `--out FILE` as JSON (default bench/results/quant-latest.json).
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from '../src/store/driver.js';
import { migrate } from '../src/store/migrate.js';
import { renderTable } from '../src/cli/table.js';
import { PublishedHistoryCache } from '../src/signals/history-cache.js';
import { backtest } from '../src/signals/ops/backtest.js';
import { backtestSummary } from '../pipeline/reports/backtest.js';
import { performanceReport } from '../pipeline/reports/performance.js';
import { strategyDays } from '../pipeline/reports/strategy.js';
import { fitArma11 } from '../pipeline/forecast/fit.js';
import { FORECAST_COLUMNS } from '../pipeline/reports/forecast.js';
import { buildReports } from '../pipeline/reports/reports.js';
import { publishedHistory, publishedMarket } from '../src/signals/publish/published.js';
import { runPipeline } from '../src/signals/publish/run.js';
import { SIGNAL_COST_BPS_DEFAULT } from '../src/core/config.js';
import { openBenchDatabase } from './support/pg.js';
import { resultPath, writeResult } from './support/result-file.js';

const REPEAT = 30;
const TARGET_MS = 50;
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = resultPath('quant', values.out);

/** Median and 95th percentile of `n` timed runs of `fn`, in ms. */
async function time(n: number, fn: () => unknown): Promise<{ median: number; p95: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(n / 2)]!, p95: ms[Math.min(n - 1, Math.ceil(n * 0.95) - 1)]! };
}

const db = await openBenchDatabase({ serverUrl: process.env.DATABASE_URL ?? null, durable: false, maxConnections: 20 });
try {
  const sql = connect(db.url, { max: 4 });
  await migrate(sql);
  console.error(`[bench] ${db.description}: a full pipeline run over the bundled history…`);
  const run = await runPipeline(sql, { dataDir: path.resolve('data/macro'), asOf: null, seed: 7 });
  const history = await publishedHistory(sql, null);
  const market = await publishedMarket(sql, null);
  console.error(`[bench] ${history.length} published days (${history[0]!.date} to ${history.at(-1)!.date}); timing…`);

  const fits = [];
  for (const column of FORECAST_COLUMNS) {
    const y = Float64Array.from(history, (d) => d[column]);
    let evaluations = 0;
    const t = await time(3, () => {
      evaluations = fitArma11(y, { withMean: true }).evaluations;
    });
    fits.push([column, y.length, evaluations, t.median.toFixed(1)]);
  }
  const reports = await time(3, () => buildReports(history, market, new Date(), SIGNAL_COST_BPS_DEFAULT));
  const range = { start: history[0]!.date, end: history.at(-1)!.date };
  const floorPing = await time(REPEAT, () => sql`select 1`);
  const floorRead = await time(
    REPEAT,
    () => sql`select date, regime, risk_score from signal_days where date between ${range.start} and ${range.end} order by date`,
  );
  const cold = await time(REPEAT, () => backtest(sql, range, SIGNAL_COST_BPS_DEFAULT));
  const cache = new PublishedHistoryCache();
  await cache.all(sql);
  const served = await time(REPEAT, () => backtest(sql, range, SIGNAL_COST_BPS_DEFAULT, cache));
  const rows = await cache.all(sql);
  const arithmetic = await time(REPEAT, () => {
    const strategy = strategyDays(rows, new Map(rows.map((r) => [r.date, r])), SIGNAL_COST_BPS_DEFAULT);
    return [backtestSummary(rows), performanceReport(strategy, SIGNAL_COST_BPS_DEFAULT)];
  });
  await sql.end();

  console.log(`tradeseal quant benchmark: ${os.cpus().length} cores, Node ${process.version}, ${db.version}, ${db.description}`);
  console.log(`pipeline run ${run.run_id}: reports stage ${run.timings_ms.reports} ms in the run`);
  console.log('\nforecast fits on the whole published history (exact ML, median of 3):');
  console.log(renderTable(['column', 'observations', 'likelihood evaluations', 'fit ms'], fits));
  console.log(`\nreports (forecast of 5 columns, performance, chart data): median ${reports.median.toFixed(0)} ms`);
  console.log(`\nbacktest over the full history (${history.length} days), ${REPEAT} runs:`);
  console.log(
    renderTable(
      ['what', 'median ms', 'p95 ms'],
      [
        ['floor: select 1', floorPing.median.toFixed(2), floorPing.p95.toFixed(2)],
        ["floor: read the window's regime rows", floorRead.median.toFixed(2), floorRead.p95.toFixed(2)],
        ['backtest, command (one read of the window + arithmetic)', cold.median.toFixed(2), cold.p95.toFixed(2)],
        ['backtest, service (cached history, freshness check + arithmetic)', served.median.toFixed(2), served.p95.toFixed(2)],
        ['  of which the arithmetic (summary, strategy, figures)', arithmetic.median.toFixed(2), arithmetic.p95.toFixed(2)],
      ],
    ),
  );
  console.log(
    `target: backtest under 50 ms over the full history: service ${served.p95 < TARGET_MS ? 'MET' : 'NOT MET'} (p95 ${served.p95.toFixed(1)} ms), command ${cold.median < TARGET_MS ? 'MET' : 'NOT MET'} at the median (${cold.median.toFixed(1)} ms; p95 ${cold.p95.toFixed(1)} ms)`,
  );
  const ms = (t: { median: number; p95: number }) => ({ median_ms: t.median, p95_ms: t.p95 });
  console.log(
    `written: ${writeResult(out, {
      database: { description: db.description, version: db.version },
      days: history.length,
      repeat: REPEAT,
      fits: fits.map(([column, observations, evaluations, fitMs]) => ({ column, observations, evaluations, fit_ms: Number(fitMs) })),
      reports: ms(reports),
      floors: { select_1: ms(floorPing), read_window: ms(floorRead) },
      backtest: { command: ms(cold), service: ms(served), arithmetic: ms(arithmetic) },
      target: { max_ms: TARGET_MS, service_p95: served.p95 < TARGET_MS ? 'MET' : 'NOT MET', command_median: cold.median < TARGET_MS ? 'MET' : 'NOT MET' },
    })}`,
  );
} finally {
  await db.drop();
}
