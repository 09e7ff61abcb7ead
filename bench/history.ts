/**
 * Seeds trace history into a scratch database and reports how long it took and how large the database got
 * (`npx tsx bench/history.ts --traces 3000000 --months 36`): the cost of the `--history` setup of
 * bench/engine.ts, measured on its own. The database (a scratch database on the server of DATABASE_URL,
 * else a throwaway cluster) is dropped at the end, unless `--keep` is given with DATABASE_URL (then its URL is
 * printed, to look at the history or to run against it).
 *
 *   npx tsx bench/history.ts [--traces 3000000] [--months 36] [--concurrency 2] [--keep]
 */
import { parseArgs } from 'node:util';
import { connect } from '../src/store/driver.js';
import { migrate } from '../src/store/migrate.js';
import { seedHistory } from './support/history.js';
import { openBenchDatabase } from './support/pg.js';

const { values } = parseArgs({
  options: {
    traces: { type: 'string' },
    months: { type: 'string' },
    concurrency: { type: 'string' },
    keep: { type: 'boolean' },
  },
});
const traces = Number(values.traces ?? 3_000_000);
const months = Number(values.months ?? 36);
const concurrency = Number(values.concurrency ?? 2);
if (values.keep && !process.env.DATABASE_URL) throw new Error('--keep needs DATABASE_URL: a throwaway cluster is deleted at the end');

const db = await openBenchDatabase({ serverUrl: process.env.DATABASE_URL ?? null, durable: false, maxConnections: 20 });
try {
  const sql = connect(db.url, { max: concurrency + 1 });
  try {
    await migrate(sql);
    process.stderr.write(`[bench] ${db.description}: seeding ${traces} traces over ${months} months, ${concurrency} at a time\n`);
    let shown = 0;
    const result = await seedHistory(sql, {
      traces,
      months,
      now: new Date(),
      concurrency,
      onProgress: (p) => {
        if (p.chunks === p.totalChunks || p.traces - shown >= traces / 10) {
          shown = p.traces;
          process.stderr.write(`[bench] ${p.traces} / ${p.total} traces (${p.chunks} / ${p.totalChunks} chunks)\n`);
        }
      },
    });
    const [sizes] = await sql<Array<{ traces: number; idempotency: number }>>`
      select (select sum(pg_total_relation_size(inhrelid)) from pg_inherits where inhparent = 'traces'::regclass)::bigint as traces,
             pg_total_relation_size('trace_idempotency') as idempotency`;
    const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
    console.log(
      `history: ${result.traces} traces (${result.idempotency} idempotency rows, ${result.orphans} orphans) from ${result.from.toISOString()} to ${result.to.toISOString()}, ${result.agents.length} agents`,
    );
    console.log(`time: ${(result.insertMs / 1000).toFixed(1)} s inserting, ${(result.vacuumMs / 1000).toFixed(1)} s vacuum analyze`);
    console.log(`size: database ${mb(result.databaseBytes)}; traces with indexes ${mb(sizes?.traces ?? 0)}, trace_idempotency ${mb(sizes?.idempotency ?? 0)}`);
    if (values.keep) console.log(`kept: ${db.url}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
} finally {
  if (!values.keep) await db.drop();
}
