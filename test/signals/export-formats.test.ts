/**
 * `GET /v1/export/arrow` and `GET /v1/export/parquet` against a published pipeline run on real Postgres, read
 * back by readers other than the writers (test/helpers/columnar-readers.ts): every row and column equals the
 * CSV export's for the same key and limit, the columns typed as documented, and the CSV's tier rules hold (a
 * free key gets 30 rows, no key 401, a limit past the tier's cap or malformed 422). Each response is checked
 * against the served API document (test/helpers/documented.ts), which lists both with their media types.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { issueKey } from '../../src/signals/store/keys.js';
import type { Tier } from '../../src/signals/tiers.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { documented } from '../helpers/documented.js';
import { csvRows, readArrow, readParquet, type ReadBack } from '../helpers/columnar-readers.js';

const CUT = '2009-03-31';
const CUT_AVAILABLE_AT = '2009-04-01T10:30:00.000Z';
const NUMERIC = ['risk_score', 'equity_exposure', 'prob_expansion', 'prob_recovery', 'prob_tightening', 'prob_risk_off'];
const NAMES = ['date', 'regime', ...NUMERIC, 'available_at'];

/** Each format: its path, media type, file name, reader, and the column types its file declares. */
const FORMATS = {
  arrow: {
    type: 'application/vnd.apache.arrow.file',
    read: async (b: Uint8Array): Promise<ReadBack> => readArrow(b),
    columns: ['date: date32', 'regime: dictionary<utf8>', ...NUMERIC.map((n) => `${n}: float64`), 'available_at: timestamp[ms, UTC]'],
  },
  parquet: {
    type: 'application/vnd.apache.parquet',
    read: readParquet,
    columns: ['date: INT32 DATE', 'regime: BYTE_ARRAY UTF8', ...NUMERIC.map((n) => `${n}: DOUBLE`), 'available_at: INT64 TIMESTAMP(MICROS, UTC)'],
  },
} as const;

let store: TestStore;
let app: FastifyInstance;

beforeAll(async () => {
  // The bundled data published as of 2009-03-31 with seed 7, made once for the run (test/setup/published-history.ts).
  store = await testStore({ max: 20, history: 'published' });
  app = await documented(
    await buildApp(configWith({ logLevel: 'silent', publicBaseUrl: 'https://signals.example' }), { sql: store.sql, logger: false, services: ['signals'] }),
  );
}, 600_000);
afterAll(async () => {
  await app?.close();
  await store?.close();
});

async function keyOf(tier: Tier): Promise<string> {
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, ${tier})`;
  return (await issueKey(store.sql, id)).api_key;
}

const get = (url: string, key?: string): Promise<LightMyRequestResponse> => app.inject({ url, headers: key ? { 'x-signals-key': key } : {} });

function expectError(res: LightMyRequestResponse, status: number, code: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toMatchObject({ code, detail: expect.any(String) });
}

/** The CSV export's rows for the same key and query. */
async function csvOf(query: string, key: string): Promise<ReturnType<typeof csvRows>> {
  const res = await get(`/v1/export/csv${query}`, key);
  expect(res.statusCode, res.body).toBe(200);
  return csvRows(res.body, NUMERIC);
}

describe.each(Object.entries(FORMATS))('GET /v1/export/%s', (format, spec) => {
  it("a free key: the CSV export's 30 rows, every value equal, typed columns in the CSV's order, as an attachment", async () => {
    const free = await keyOf('free');
    const res = await get(`/v1/export/${format}`, free);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe(spec.type);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="regimes.${format}"`);
    const file = await spec.read(new Uint8Array(res.rawPayload));
    expect(file.columns).toEqual(spec.columns);
    expect(file.columns.map((c) => c.split(':')[0])).toEqual(NAMES);
    expect(file.rows).toHaveLength(30);
    expect(file.rows[0]).toMatchObject({ date: CUT, available_at: CUT_AVAILABLE_AT });
    expect(file.rows).toEqual(await csvOf('', free));
  });

  it("the whole published history for an owner key, equal to the CSV's row for row, nulls where the CSV is empty", async () => {
    const owner = await keyOf('owner');
    // Days published before release-time data was kept have no available_at (a store migrated from then).
    await store.sql`update signal_days set available_at = null where date < '2008-01-01'`;
    const res = await get(`/v1/export/${format}?limit=1000000`, owner);
    expect(res.statusCode, res.body).toBe(200);
    const file = await spec.read(new Uint8Array(res.rawPayload));
    const csv = await csvOf('?limit=1000000', owner);
    const [count] = await store.sql<Array<{ days: number }>>`select count(*)::int as days from signal_days`;
    expect(file.rows).toHaveLength(count!.days);
    expect(file.rows).toEqual(csv);
    // A null in the file, not a zero or an empty string.
    const unpublished = csv.filter((r) => r.available_at === null).length;
    expect(unpublished).toBeGreaterThan(0);
    expect(file.rows.filter((r) => r.available_at === null)).toHaveLength(unpublished);
  });

  it("the CSV's tier rules and parameters: a Pro key gets the CSV's rows by default; no key 401; past the tier's cap or malformed 422", async () => {
    const pro = await keyOf('pro');
    const byDefault = await get(`/v1/export/${format}`, pro);
    expect((await spec.read(new Uint8Array(byDefault.rawPayload))).rows).toEqual(await csvOf('', pro));
    const res = await get(`/v1/export/${format}?limit=5`, pro);
    expect(res.statusCode, res.body).toBe(200);
    expect((await spec.read(new Uint8Array(res.rawPayload))).rows).toEqual(await csvOf('?limit=5', pro));
    expectError(await get(`/v1/export/${format}`), 401, 'unauthorized');
    const free = await keyOf('free');
    expectError(await get(`/v1/export/${format}?limit=31`, free), 422, 'validation_failed');
    expectError(await get(`/v1/export/${format}?limit=0`, free), 422, 'validation_failed');
    expectError(await get(`/v1/export/${format}?limit=ten`, free), 422, 'validation_failed');
    expectError(await get(`/v1/export/${format}?limit=731`, pro), 422, 'validation_failed');
  });

  it('is in the API document with its media type', async () => {
    const doc = app.swagger() as { paths: Record<string, { get: { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> } }> };
    const op = doc.paths[`/v1/export/${format}`]!.get;
    expect(Object.keys(op.responses['200']!.content!)).toEqual([spec.type]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '422', '429', '503']));
  });
});
