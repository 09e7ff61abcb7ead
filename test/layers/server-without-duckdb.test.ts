/**
 * The HTTP server does not load DuckDB: a process that starts the server (both services, on a store with a
 * published history) and serves the requests that reach the pipeline's code (a signal, the forecast, the
 * performance report, a backtest, the CSV, Arrow and Parquet exports) has no DuckDB native binding among its loaded shared objects (Node's diagnostic
 * report lists them). The same probe in the same process then opens a DuckDB database and sees the binding, so the
 * check cannot pass for want of seeing it. The static side of the rule is `.dependency-cruiser.cjs`
 * (`http-without-duckdb`), which `npm test` runs.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { issueKey } from '../../src/signals/store/keys.js';
import { testStore, type TestStore } from '../helpers/db.js';

const root = path.resolve(import.meta.dirname, '../..');
let store: TestStore;
let key: string;

beforeAll(async () => {
  store = await testStore({ max: 5, history: 'published' });
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, 'owner')`;
  key = (await issueKey(store.sql, id)).api_key;
}, 600_000);
afterAll(async () => store?.close());

/** Run in a child process: serve, make the requests, then report the loaded DuckDB objects before and after opening DuckDB. */
const CHILD = `
const { startServer } = await import(${JSON.stringify(path.join(root, 'src/http/server.ts'))});
const { configWith } = await import(${JSON.stringify(path.join(root, 'src/core/config.ts'))});
const duckObjects = () => process.report.getReport().sharedObjects.filter((o) => /duckdb/i.test(o));
const server = await startServer(configWith({ databaseUrl: process.env.TEST_DATABASE_URL, logLevel: 'silent', port: 0 }));
const statuses = {};
const requests = [['GET', '/v1/signals/latest'], ['GET', '/v1/forecast'], ['GET', '/v1/performance'], ['POST', '/v1/backtest', { start: '2008-01-02', end: '2009-03-31' }],
  ['GET', '/v1/export/csv'], ['GET', '/v1/export/arrow'], ['GET', '/v1/export/parquet']];
for (const [method, p, body] of requests) {
  const res = await fetch(server.url + p, { method, headers: { 'x-signals-key': process.env.TEST_KEY, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  await res.arrayBuffer();
  statuses[p] = res.status;
}
const served = duckObjects();
await server.close();
const { openDatabase } = await import(${JSON.stringify(path.join(root, 'pipeline/ingest/duckdb.ts'))});
const db = await openDatabase(1);
const afterDuckDb = duckObjects();
db.close();
console.log(JSON.stringify({ statuses, served, afterDuckDb }));
process.exit(0);
`;

it('serves signals, the forecast, performance, a backtest and every export format without loading DuckDB', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    cwd: root,
    env: { ...process.env, TEST_DATABASE_URL: store.url, TEST_KEY: key },
    timeout: 120_000,
    maxBuffer: 1 << 20,
  });
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { statuses: Record<string, number>; served: string[]; afterDuckDb: string[] };
  expect(report.statuses).toEqual({
    '/v1/signals/latest': 200,
    '/v1/forecast': 200,
    '/v1/performance': 200,
    '/v1/backtest': 200,
    '/v1/export/csv': 200,
    '/v1/export/arrow': 200,
    '/v1/export/parquet': 200,
  });
  expect(report.served).toEqual([]);
  expect(report.afterDuckDb.length).toBeGreaterThan(0);
}, 180_000);
