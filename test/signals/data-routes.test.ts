/**
 * The `/v1` data, public and quant routes against a published pipeline run on real Postgres, each endpoint
 * row of the interface and each error row by name: the bodies are the published numbers, a free key cannot
 * read past 30 days, tiers gate the forecast and the backtest, bad parameters are 422 with every field, and
 * 503 `pipeline_lag` while nothing is published or a run publishes over stale data.
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

const CUT = '2009-03-31';
const CUT_AVAILABLE_AT = '2009-04-01T10:30:00.000Z';
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

describe('keyed data routes', () => {
  let pro: string;
  beforeAll(async () => {
    pro = await keyOf('pro');
  });

  it("GET /v1/signals/latest: the newest day's signal package, as published", async () => {
    const res = await get('/v1/signals/latest', pro);
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await store.sql`select * from signal_days order by date desc limit 1`;
    expect(res.json()).toEqual({
      date: CUT,
      // Tuesday 2009-03-31 is published at 06:30 New York (EDT since 2009-03-08) on Wednesday 2009-04-01.
      available_at: CUT_AVAILABLE_AT,
      regime: {
        most_likely: row!.regime,
        confidence: row!.confidence,
        persistence_days: row!.persistence_days,
        expected_duration_remaining_days: row!.expected_duration_remaining_days,
        probabilities: { expansion: row!.prob_expansion, recovery: row!.prob_recovery, tightening: row!.prob_tightening, risk_off: row!.prob_risk_off },
      },
      net_liquidity: { level_bn: row!.level_bn, change_4w_bn: row!.change_4w_bn, zscore: row!.liquidity_zscore, trend: row!.liquidity_trend },
      pca_factors: { pc1: row!.pc1, pc2: row!.pc2, pc3: row!.pc3, pc4: row!.pc4, variance_explained_pct: row!.variance_explained_pct },
      model_metadata: { pca_fit_date: expect.stringMatching(/^2009-03-02$/), hmm_fit_date: '2009-03-02', data_vintage: row!.data_vintage.toISOString() },
    });
    expect(res.headers['x-ratelimit-limit']).toBe('unlimited');
  });

  it('GET /v1/signals/{date}: a trading day; 404 on a weekend or before the data; 422 on a malformed date', async () => {
    expect((await get('/v1/signals/2008-10-10', pro)).json().regime.most_likely).toBe('risk_off');
    expectError(await get('/v1/signals/2008-10-11', pro), 404, 'not_found');
    expectError(await get('/v1/signals/2001-01-02', pro), 404, 'not_found');
    const bad = await get('/v1/signals/2008-13-01', pro);
    expectError(bad, 422, 'validation_failed');
    expect(bad.json().errors).toEqual([expect.objectContaining({ field: 'date' })]);
  });

  it('GET /v1/signals/range: inclusive bounds, at most 365 days; start after end and a long window are 422', async () => {
    const res = await get('/v1/signals/range?start=2008-10-06&end=2008-10-10', pro);
    expect(res.json().map((p: { date: string }) => p.date)).toEqual(['2008-10-06', '2008-10-07', '2008-10-08', '2008-10-09', '2008-10-10']);
    expectError(await get('/v1/signals/range?start=2008-10-10&end=2008-10-06', pro), 422, 'validation_failed');
    const long = await get('/v1/signals/range?start=2007-01-01&end=2008-01-01', pro);
    expectError(long, 422, 'validation_failed');
    expect(long.json().errors[0].message).toMatch(/spans 366 days; at most 365/);
    const both = await get('/v1/signals/range?start=nope&end=2008-02-30', pro);
    expect(
      both
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['end', 'start']);
  });

  it('GET /v1/signals/history: the last `days` days, oldest first, clamped to the tier (Free 30)', async () => {
    const res = await get('/v1/signals/history?days=5', pro);
    expect(res.json().map((r: { date: string }) => r.date)).toEqual(['2009-03-25', '2009-03-26', '2009-03-27', '2009-03-30', '2009-03-31']);
    // Each day is available at 06:30 New York on the next trading day: Friday's on Monday.
    expect(res.json().map((r: { available_at: string }) => r.available_at)).toEqual([
      '2009-03-26T10:30:00.000Z',
      '2009-03-27T10:30:00.000Z',
      '2009-03-30T10:30:00.000Z',
      '2009-03-31T10:30:00.000Z',
      CUT_AVAILABLE_AT,
    ]);
    const free = await keyOf('free');
    expect((await get('/v1/signals/history?days=365', free)).json()).toHaveLength(30);
    expectError(await get('/v1/signals/history?days=366', pro), 422, 'validation_failed');
  });

  it('403 history_limit: a free key reads 30 days back from the newest day, a starter key 180', async () => {
    const free = await keyOf('free');
    expect((await get('/v1/signals/2009-03-02', free)).statusCode).toBe(200);
    expectError(await get('/v1/signals/2009-02-27', free), 403, 'history_limit');
    expectError(await get('/v1/signals/range?start=2009-01-02&end=2009-01-30', free), 403, 'history_limit');
    const starter = await keyOf('starter');
    expect((await get('/v1/signals/2008-10-10', starter)).statusCode).toBe(200);
    expectError(await get('/v1/signals/2008-09-30', starter), 403, 'history_limit');
  });

  it('401 without a key or with an unknown one; 403 key_revoked', async () => {
    expectError(await get('/v1/signals/latest'), 401, 'unauthorized');
    expectError(await get('/v1/signals/latest', 'rsk_unknown'), 401, 'unauthorized');
    const key = await keyOf('pro');
    await store.sql`update signal_keys set revoked_at = now() where key_hash = encode(sha256(${key}::bytea), 'hex')`;
    expectError(await get('/v1/signals/latest', key), 403, 'key_revoked');
  });

  it('429 rate_limited with X-RateLimit-Reset once a free key made 50 requests in 24 hours', async () => {
    const free = await keyOf('free');
    for (let i = 0; i < 50; i++) {
      const ok = await get('/v1/signals/latest', free);
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(49 - i));
    }
    const res = await get('/v1/signals/latest', free);
    expectError(res, 429, 'rate_limited');
    expect(res.headers['x-ratelimit-limit']).toBe('50');
    const reset = Number(res.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(Date.now() / 1000 + 86_000);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 86_400);
  });
});

describe('public routes', () => {
  it('GET /v1/regime/current and /v1/public/regime: the broadcast in force, no key needed', async () => {
    const [b] = await store.sql`select * from regime_broadcasts order by id desc limit 1`;
    const current = (await get('/v1/regime/current')).json();
    expect(current).toMatchObject({ macro_regime: b!.regime, risk_score: b!.risk_score, probabilities: b!.probabilities, model_version: b!.model_version });
    // The broadcast names its day and when that day was published, so a subscriber knows from when it can act on it.
    expect(current).toMatchObject({ date: CUT, available_at: CUT_AVAILABLE_AT });
    expect(current.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(['low', 'normal', 'elevated']).toContain(current.volatility_state);
    const view = (await get('/v1/public/regime')).json();
    expect(view).toMatchObject({ date: CUT, regime: b!.regime, risk_score: b!.risk_score, upgrade: { url: 'https://signals.example/docs' } });
    expect(view.equity_exposure).toBe({ expansion: '100%', recovery: '75%', tightening: '25%', risk_off: '0%' }[b!.regime as string]);
  });

  it('GET /v1/regime/history: newest first with confidence; limit, start and end', async () => {
    const rows = (await get('/v1/regime/history?limit=3&end=2008-10-10')).json();
    expect(rows.map((r: { date: string }) => r.date)).toEqual(['2008-10-10', '2008-10-09', '2008-10-08']);
    expect(rows[0]).toMatchObject({ regime: 'risk_off', confidence: expect.stringMatching(/HIGH|MODERATE|LOW/) });
    expect((await get('/v1/regime/history')).json()).toHaveLength(90);
    expectError(await get('/v1/regime/history?limit=1001'), 422, 'validation_failed');
  });

  it('GET /v1/liquidity and /v1/scorecard', async () => {
    const liq = (await get('/v1/liquidity?limit=2')).json();
    const [row] = await store.sql`select * from net_liquidity order by date desc limit 1`;
    expect(liq[0]).toEqual({
      date: CUT,
      fed_assets_bn: row!.fed_assets_bn,
      rrp_bn: row!.rrp_bn,
      tga_bn: row!.tga_bn,
      level_bn: row!.level_bn,
      change_4w_bn: row!.change_4w_bn,
      zscore: row!.zscore,
      trend: row!.trend,
    });
    expect((await get('/v1/liquidity')).json()).toHaveLength(30);
    expectError(await get('/v1/liquidity?limit=501'), 422, 'validation_failed');
    const card = (await get('/v1/scorecard')).json();
    for (const g of ['growth_momentum', 'inflation_momentum', 'liquidity', 'financial_stress', 'dollar_strength']) {
      expect(card[g]).toBeGreaterThanOrEqual(-1);
      expect(card[g]).toBeLessThanOrEqual(1);
    }
  });

  it('GET /v1/public/chart-data: the published chart data', async () => {
    const res = (await get('/v1/public/chart-data')).json();
    expect(res.days).toBe(res.series.length);
    expect(res.series[0]).toMatchObject({ equity500: 100, gold: 100, strategy: 100 });
    expect(res.series.at(-1).date).toBe(CUT);
    expect(res.stats.total_days).toBe(res.days);
  });
});

describe('quant routes', () => {
  it('GET /v1/forecast: Starter and up; horizon 1..10, default 5', async () => {
    const starter = await keyOf('starter');
    const res = await get('/v1/forecast', starter);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ horizon: 5, generated_at: expect.stringMatching(/\+00:00$/) });
    expect(res.json().forecast).toHaveLength(5);
    expect((await get('/v1/forecast?horizon=10', starter)).json().forecast).toHaveLength(10);
    expectError(await get('/v1/forecast?horizon=11', starter), 422, 'validation_failed');
    expectError(await get('/v1/forecast?horizon=0', starter), 422, 'validation_failed');
    expectError(await get('/v1/forecast', await keyOf('free')), 403, 'tier_insufficient');
  });

  it('POST /v1/backtest: Pro; the summary of the window', async () => {
    const pro = await keyOf('pro');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/backtest',
      headers: { 'x-signals-key': pro },
      payload: { start: '2008-09-01', end: '2008-12-31' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().summary).toMatchObject({ total_days: expect.any(Number), transitions: expect.any(Number) });
    expect(res.json().summary.regime_distribution.risk_off).toBeGreaterThan(50);
    const starter = await keyOf('starter');
    expectError(
      await app.inject({ method: 'POST', url: '/v1/backtest', headers: { 'x-signals-key': starter }, payload: { start: '2008-09-01', end: '2008-12-31' } }),
      403,
      'tier_insufficient',
    );
    const bad = await app.inject({ method: 'POST', url: '/v1/backtest', headers: { 'x-signals-key': pro }, payload: { start: '2008-12-31' } });
    expectError(bad, 422, 'validation_failed');
    expect(bad.json().errors).toEqual([expect.objectContaining({ field: 'end' })]);
    expectError(
      await app.inject({ method: 'POST', url: '/v1/backtest', headers: { 'x-signals-key': pro }, payload: { start: '1990-01-01', end: '1990-12-31' } }),
      404,
      'not_found',
    );
  });

  it('GET /v1/performance: any key; the published report with what it rests on (every day of this history a backfill)', async () => {
    const res = await get('/v1/performance', await keyOf('free'));
    expect(res.statusCode, res.body).toBe(200);
    const [p] = await store.sql`select performance from performance_reports`;
    const days = p!.performance.days;
    expect(res.json()).toEqual({ ...p!.performance, record: { basis: 'all', days, live_days: 0, backfill_days: days, unlogged_days: 0 } });
  });

  it('GET /v1/export/csv: newest first, capped by tier (Free 30, Starter and Pro 730)', async () => {
    const free = await keyOf('free');
    const res = await get('/v1/export/csv', free);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.body.trim().split('\n');
    expect(lines[0]).toBe('date,regime,risk_score,equity_exposure,prob_expansion,prob_recovery,prob_tightening,prob_risk_off,available_at');
    expect(lines).toHaveLength(31);
    expect(lines[1]!.startsWith(`${CUT},`)).toBe(true);
    expect(lines[1]!.endsWith(`,${CUT_AVAILABLE_AT}`)).toBe(true);
    expectError(await get('/v1/export/csv?limit=31', free), 422, 'validation_failed');
    expect((await get('/v1/export/csv', await keyOf('pro'))).body.trim().split('\n')).toHaveLength(573);
  });
});

describe('503 pipeline_lag', () => {
  it('answers 503 while nothing is published, and while a run publishes over stale data', async () => {
    const empty = await testStore();
    const emptyApp = await documented(await buildApp(configWith({ logLevel: 'silent' }), { sql: empty.sql, logger: false, services: ['signals'] }));
    try {
      expectError(await emptyApp.inject({ url: '/v1/regime/current' }), 503, 'pipeline_lag');
    } finally {
      await emptyApp.close();
      await empty.close();
    }
    // A running run while the newest day (2009) is long past the previous trading day.
    await store.sql`insert into model_runs (run_id, started_at, status, model_version, seed, parameters, holder_pid, holder_host)
      values (${randomUUID()}, now(), 'running', 'm', 7, '{}'::jsonb, ${process.pid}, 'test')`;
    const lagging = await documented(await buildApp(configWith({ logLevel: 'silent' }), { sql: store.sql, logger: false, services: ['signals'] }));
    try {
      const res = await lagging.inject({ url: '/v1/liquidity' });
      expectError(res, 503, 'pipeline_lag');
      expect(res.json().detail).toMatch(/newest published day is 2009-03-31/);
    } finally {
      await lagging.close();
      await store.sql`update model_runs set status = 'failed' where status = 'running'`;
    }
  });
});
