/**
 * One pipeline run in its own process, so its peak memory is its own, run from the compiled build
 * (dist/bench/pipeline-run.js, built with the app) as `tradeseal pipeline run` runs: prints one JSON line
 * `{wall_ms, timings_ms, days, mode, max_rss_mb}`. Arguments: DATABASE_URL, as-of date or "-", "full"|"auto".
 */
import path from 'node:path';
import { connect } from '../src/store/driver.js';
import { runPipeline } from '../src/signals/publish/run.js';

const [url, asOf, mode] = process.argv.slice(2);
if (!url) throw new Error('usage: pipeline-run.ts DATABASE_URL AS_OF|- full|auto');
const sql = connect(url, { max: 4 });
const t0 = performance.now();
const cut = asOf && asOf !== '-' ? asOf : null;
// A run as of a date publishes only when asked (a backfill); the benchmark builds the history that way.
const s = await runPipeline(sql, { dataDir: path.resolve('data/macro'), asOf: cut, publish: cut !== null, seed: 7, full: mode === 'full' });
const wall = performance.now() - t0;
await sql.end();
console.log(
  JSON.stringify({
    wall_ms: Math.round(wall),
    timings_ms: s.timings_ms,
    days: s.days,
    mode: s.mode,
    last_day: s.last_day,
    max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
