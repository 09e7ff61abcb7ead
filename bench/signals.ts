/**
 * Benchmark of the regime signal service's two busiest routes (`npm run bench:signals`), next to the floors
 * measured in the same run, on the same server process, pool and load generator as bench/engine.ts:
 *
 * - `GET /bench/noop`: the bare Fastify route; `POST /bench/floor`: the bare route with one INSERT;
 * - `GET /v1/signals/latest` with a key and rate limiting on: each connection has its own Starter key (a
 *   limited tier: every request is counted in its rolling window, exactly, by the admission statement) and,
 *   in a second run, its own Pro key (unlimited, IP-locked: the admission without the window);
 * - `GET /v1/engine/heartbeat` with one engine_sidecar key shared by every connection, as a sidecar does.
 *
 * Targets (printed as information): signals/latest at least 0.5 × the 1-INSERT floor's throughput; the
 * heartbeat at least 0.25 × the bare route's. The Starter run is bounded by its keys' limit (500 a day), so it
 * runs a fixed number of requests per connection rather than for a fixed time.
 *
 * The figures also go to `--out FILE` as JSON (default bench/results/signals-latest.json).
 *
 *   npx tsx bench/signals.ts [--seconds 8] [--connections 50] [--pool 50] [--out FILE]
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from '../src/store/driver.js';
import { migrate } from '../src/store/migrate.js';
import { issueKey } from '../src/signals/store/keys.js';
import type { Tier } from '../src/signals/tiers.js';
import { renderTable } from '../src/cli/table.js';
import { runPipeline } from '../src/signals/publish/run.js';
import { runLoad, type LoadResult, type LoadSpec } from './support/load.js';
import { openBenchDatabase } from './support/pg.js';
import { resultPath, writeResult } from './support/result-file.js';
import { startServer } from './support/server.js';

const { values } = parseArgs({ options: { seconds: { type: 'string' }, connections: { type: 'string' }, pool: { type: 'string' }, out: { type: 'string' } } });
const seconds = Number(values.seconds ?? 8);
const connections = Number(values.connections ?? 50);
const pool = Number(values.pool ?? 50);
const STARTER_REQUESTS = 450;

const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

const db = await openBenchDatabase({ serverUrl: process.env.DATABASE_URL ?? null, durable: false, maxConnections: pool + 20 });
try {
  const sql = connect(db.url, { max: 4 });
  await migrate(sql);
  log(`${db.description}: publishing the bundled history to 2009-03-31…`);
  await runPipeline(sql, { dataDir: path.resolve('data/macro'), asOf: '2009-03-31', publish: true, seed: 7 });
  const keyOf = async (tier: Tier): Promise<string> => {
    const id = randomUUID();
    await sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@bench.example`}, ${tier})`;
    return (await issueKey(sql, id)).api_key;
  };
  const starter = await Promise.all(Array.from({ length: connections }, () => keyOf('starter')));
  const pro = await Promise.all(Array.from({ length: connections }, () => keyOf('pro')));
  const sidecar = await keyOf('engine_sidecar');
  await sql.end();

  const server = await startServer({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', BENCH_POOL: String(pool) });
  try {
    const keyed = (name: string, url: string, keys: string[]): LoadSpec => ({
      name,
      method: 'GET',
      path: url,
      connection: (i) => ({ next: () => ({ headers: { 'x-signals-key': keys[i % keys.length]! } }) }),
    });
    const specs = {
      noop: { name: 'GET /bench/noop (bare route)', method: 'GET', path: '/bench/noop', connection: () => ({ next: () => ({}) }) } as LoadSpec,
      floor: {
        name: 'POST /bench/floor (1 INSERT)',
        method: 'POST',
        path: '/bench/floor',
        connection: () => ({ next: () => ({ body: '{"payload":"floor"}', headers: { 'content-type': 'application/json' } }) }),
      } as LoadSpec,
      latestPro: keyed('GET /v1/signals/latest (Pro keys)', '/v1/signals/latest', pro),
      heartbeat: keyed('GET /v1/engine/heartbeat (one sidecar key)', '/v1/engine/heartbeat', [sidecar]),
    };
    const load = { url: server.url, connections };
    const results: Array<[LoadSpec, LoadResult]> = [];
    for (const spec of [specs.noop, specs.floor, specs.latestPro, specs.heartbeat]) {
      log(`${spec.name}: warm-up, then ${seconds} s`);
      await runLoad(spec, { ...load, seconds: 1 });
      results.push([spec, await runLoad(spec, { ...load, seconds })]);
    }
    // Starter keys: every request counted in its window; a fixed number per key, below the daily limit.
    const latestStarter = keyed('GET /v1/signals/latest (Starter keys, rate-limited)', '/v1/signals/latest', starter);
    log(`${latestStarter.name}: ${STARTER_REQUESTS} requests per key`);
    results.push([latestStarter, await runLoad(latestStarter, { ...load, amount: STARTER_REQUESTS * connections })]);

    const rate = (name: string): number => results.find(([s]) => s.name.startsWith(name))![1].rps;
    const noop = rate('GET /bench/noop');
    const floor = rate('POST /bench/floor');
    console.log(
      `tradeseal signal service benchmark: ${os.cpus().length} cores, Node ${process.version}, ${db.version}, ${connections} connections, pool ${pool}`,
    );
    console.log(
      renderTable(
        ['route', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', '× bare route', '× 1-INSERT floor'],
        results.map(([s, r]) => [
          s.name,
          r.rps.toFixed(0),
          r.latency.p50.toFixed(1),
          r.latency.p99.toFixed(1),
          r.non2xx + r.socketErrors,
          (r.rps / noop).toFixed(2),
          (r.rps / floor).toFixed(2),
        ]),
      ),
    );
    const latest = Math.min(rate('GET /v1/signals/latest (Pro'), rate('GET /v1/signals/latest (Starter'));
    const hb = rate('GET /v1/engine/heartbeat');
    console.log(
      `target: signals/latest ≥ 0.5 × the 1-INSERT floor: ${latest >= 0.5 * floor ? 'MET' : 'NOT MET'} (${(latest / floor).toFixed(2)} ×, the slower of the two key kinds)`,
    );
    console.log(`target: heartbeat ≥ 0.25 × the bare route: ${hb >= 0.25 * noop ? 'MET' : 'NOT MET'} (${(hb / noop).toFixed(2)} ×)`);
    console.log(
      `written: ${writeResult(resultPath('signals', values.out), {
        database: { description: db.description, version: db.version },
        load: { connections, pool, seconds, starter_requests_per_key: STARTER_REQUESTS },
        bare_route: specs.noop.name,
        floor_route: specs.floor.name,
        routes: results.map(([spec, r]) => ({
          route: spec.name,
          rps: r.rps,
          latency_ms: r.latency,
          responses: r.responses,
          errors: r.non2xx + r.socketErrors,
          relative_to_bare: r.rps / noop,
          relative_to_floor: r.rps / floor,
        })),
        targets: [
          { what: 'signals/latest, the slower key kind', relative_to_floor: latest / floor, min_relative_to_floor: 0.5, met: latest >= 0.5 * floor },
          { what: 'heartbeat', relative_to_bare: hb / noop, min_relative_to_bare: 0.25, met: hb >= 0.25 * noop },
        ],
      })}`,
    );
  } finally {
    await server.stop();
  }
} finally {
  await db.drop();
}
