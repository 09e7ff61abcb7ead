/**
 * Benchmark of the regime pipeline (`npm run bench:pipeline`): a full run over the bundled history, then an
 * incremental run that adds one trading day, each in its own process from the compiled build, as
 * `tradeseal pipeline run` runs (wall time, per-stage timings, peak resident memory), against a throwaway
 * PostgreSQL 15 cluster (or a scratch database on DATABASE_URL).
 * Targets on a 2-core machine, printed as information: full run < 20 s, incremental < 3 s. The figures also go
 * to `--out FILE` as JSON (default bench/results/pipeline-latest.json).
 */
import { execFile, spawnSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs, promisify } from 'node:util';
import { connect } from '../src/store/driver.js';
import { migrate } from '../src/store/migrate.js';
import { renderTable } from '../src/cli/table.js';
import { openBenchDatabase } from './support/pg.js';
import { resultPath, writeResult } from './support/result-file.js';

const run = promisify(execFile);
const LAST_BUT_ONE = '2025-11-25';

interface Measured {
  wall_ms: number;
  timings_ms: Record<string, number>;
  days: number;
  mode: string;
  last_day: string;
  max_rss_mb: number;
}

/** One run in its own process, from the compiled build (as `tradeseal pipeline run` runs it: no tsx loader, no transpiling in the model threads). */
async function measure(url: string, asOf: string, mode: 'full' | 'auto'): Promise<Measured> {
  const { stdout } = await run(process.execPath, ['dist/bench/pipeline-run.js', url, asOf, mode], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as Measured;
}

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = resultPath('pipeline', values.out);
const built = spawnSync(process.execPath, ['scripts/build-if-stale.js'], { stdio: 'inherit' });
if (built.status !== 0) throw new Error(`building dist/ for the pipeline benchmark failed (exit ${built.status ?? built.signal})`);

const db = await openBenchDatabase({ serverUrl: process.env.DATABASE_URL ?? null, durable: false, maxConnections: 20 });
try {
  const sql = connect(db.url, { max: 2 });
  await migrate(sql);
  await sql.end();
  console.error(`[bench] ${db.description}`);
  console.error('[bench] full run over the bundled history up to the last day but one…');
  const full = await measure(db.url, LAST_BUT_ONE, 'full');
  console.error('[bench] incremental run adding the last day…');
  const incremental = await measure(db.url, '-', 'auto');
  console.error('[bench] full recompute over all days…');
  const fullAll = await measure(db.url, '-', 'full');
  const row = (name: string, m: Measured, target: number): (string | number)[] => [
    name,
    m.mode,
    m.days,
    m.last_day,
    (m.wall_ms / 1000).toFixed(2),
    Object.entries(m.timings_ms)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
    m.max_rss_mb,
    m.wall_ms < target * 1000 ? `MET (< ${target} s)` : `NOT MET (< ${target} s)`,
  ];
  console.log(`tradeseal pipeline benchmark: ${os.cpus().length} cores, Node ${process.version}, ${db.version}, ${db.description}`);
  console.log(
    renderTable(
      ['run', 'mode', 'days published', 'last day', 'wall s', 'stage ms', 'peak RSS MB', 'target'],
      [row('full, bundled history', full, 20), row('incremental, +1 day', incremental, 3), row('full recompute, all days', fullAll, 20)],
    ),
  );
  console.log(
    'each run in its own process from the compiled build (dist/); wall time includes opening the store and taking the run lock, not the process start.',
  );
  const runJson = (name: string, m: Measured, targetS: number) => ({ name, ...m, target_s: targetS, met: m.wall_ms < targetS * 1000 });
  console.log(
    `written: ${writeResult(out, {
      database: { description: db.description, version: db.version },
      runs: [runJson('full, bundled history', full, 20), runJson('incremental, +1 day', incremental, 3), runJson('full recompute, all days', fullAll, 20)],
    })}`,
  );
} finally {
  await db.drop();
}
