/**
 * The published performance (`GET /v1/performance`) and chart data (`GET /v1/public/chart-data`), recomputed by a
 * subscriber from what they have: the regimes of the CSV export (`GET /v1/export/csv`) with their publication
 * instants (`available_at`), and the bundled `data/macro/SPY.csv` read here. The daily returns come from test/helpers/
 * subscriber-returns.ts (the documented rule and formula, no code of pipeline/reports/): each regime taken at
 * the first SPY open at or after its `available_at`, 5 bp per unit of exposure change. Every served figure must
 * be the recomputed one to about 1e-12. Over a real socket, against the published history of the test run
 * (the bundled data as of 2009-03-31).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartData } from '../../pipeline/reports/chart.js';
import type { PerformanceReport } from '../../pipeline/reports/performance.js';
import { configWith } from '../../src/core/config.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { issueKey } from '../../src/signals/store/keys.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import {
  alpha,
  annual,
  maxDrawdown,
  mean,
  readSpy,
  sharpe,
  subscriberReturns,
  wealth,
  type PublishedRegime,
  type SubscriberDay,
} from '../helpers/subscriber-returns.js';

/** SIGNAL_COST_BPS's documented default, which the test run's pipeline used. */
const COST_BPS = 5;
const TOLERANCE = 1e-12;

let store: TestStore;
let server: RunningServer;
let key: string;
let regimes: PublishedRegime[];
let days: SubscriberDay[];

const get = async (url: string, withKey = true): Promise<Response> => fetch(`${server.url}${url}`, { headers: withKey ? { 'x-signals-key': key } : {} });

/** |a − b| within TOLERANCE of b's size (or absolutely, near 0). */
function close(served: number | null, recomputed: number, what: string): void {
  expect(served, what).not.toBeNull();
  expect(Math.abs(served! - recomputed), `${what}: served ${served}, recomputed ${recomputed}`).toBeLessThanOrEqual(
    TOLERANCE * Math.max(1, Math.abs(recomputed)),
  );
}

beforeAll(async () => {
  store = await testStore({ history: 'published' });
  server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0, host: '127.0.0.1' }));
  const account = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${account}, ${`${account}@example.test`}, 'owner')`;
  key = (await issueKey(store.sql, account)).api_key;

  const csv = await get('/v1/export/csv?limit=1000000');
  expect(csv.status).toBe(200);
  const [head, ...lines] = (await csv.text()).trim().split('\n');
  const cols = head!.split(',');
  // Each day's publication instant as the export gives it (every day of this history has one).
  regimes = lines
    .map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i]!, v])))
    .reverse()
    .map((r) => ({
      date: r.date!,
      regime: r.regime!,
      equity_exposure: Number(r.equity_exposure),
      available_at: r.available_at!,
    }));
  for (const r of regimes) expect(r.available_at, r.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const spy = readSpy(path.join(REPO_ROOT, 'data/macro/SPY.csv'));
  days = subscriberReturns(regimes, spy.dates, spy.prices, COST_BPS);
}, 600_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
});

describe('GET /v1/performance, recomputed from the export and SPY.csv', () => {
  it("has a return on every published day but the first, the first position taken at the second day's open", () => {
    expect(regimes.length).toBeGreaterThan(500);
    expect(days.map((d) => d.date)).toEqual(regimes.slice(1).map((r) => r.date));
  });

  it('serves the Sharpe ratio, total and annual return, drawdown and alpha of the recomputed returns, and of buy-and-hold', async () => {
    const res = await get('/v1/performance');
    expect(res.status).toBe(200);
    const p = (await res.json()) as PerformanceReport;
    const s = days.map((d) => d.strategy);
    const b = days.map((d) => d.buyAndHold);
    expect(p).toMatchObject({ days: days.length, first_day: days[0]!.date, last_day: days.at(-1)!.date, cost_bps: COST_BPS });
    close(p.sharpe, sharpe(s), 'sharpe');
    close(p.total_return, wealth(s) - 1, 'total_return');
    close(p.annual_return, annual(s), 'annual_return');
    close(p.max_drawdown, maxDrawdown(s), 'max_drawdown');
    close(p.alpha, alpha(s, b), 'alpha');
    close(p.benchmark.sharpe, sharpe(b), 'benchmark sharpe');
    close(p.benchmark.total_return, wealth(b) - 1, 'benchmark total_return');
    close(p.benchmark.annual_return, annual(b), 'benchmark annual_return');
    close(p.benchmark.max_drawdown, maxDrawdown(b), 'benchmark max_drawdown');
    for (const regime of ['expansion', 'recovery', 'tightening', 'risk_off'] as const) {
      const r = days.filter((d) => d.held === regime).map((d) => d.buyAndHold);
      expect(p.by_regime[regime].days, regime).toBe(r.length);
      if (r.length === 0) continue;
      close(p.by_regime[regime].mean_daily_return, mean(r), `${regime} mean`);
      close(p.by_regime[regime].annualized_return, annual(r), `${regime} annualized`);
      close(p.by_regime[regime].hit_rate, r.filter((x) => x > 0).length / r.length, `${regime} hit rate`);
    }
    // Every regime appears in this history, so every row above was compared.
    expect(Object.values(p.by_regime).every((f) => f.days > 0)).toBe(true);
  });

  it('differs from the returns of the old timing (each day earning the exposure of the day before, close to close, free)', async () => {
    const p = (await (await get('/v1/performance')).json()) as PerformanceReport;
    const spy = readSpy(path.join(REPO_ROOT, 'data/macro/SPY.csv')).prices;
    const old = regimes.slice(1).map((r, i) => regimes[i]!.equity_exposure * (spy.get(r.date)!.close / spy.get(regimes[i]!.date)!.close - 1));
    expect(Math.abs(p.total_return! - (wealth(old) - 1))).toBeGreaterThan(1e-6);
  });
});

describe('GET /v1/public/chart-data, recomputed from the export and SPY.csv', () => {
  it('serves the strategy and SPY from 100 over the last 730 published days, and their statistics', async () => {
    const res = await get('/v1/public/chart-data', false);
    expect(res.status).toBe(200);
    const c = (await res.json()) as ChartData;
    const window = regimes.slice(-730);
    expect(c.days).toBe(window.length);
    expect(c.series.map((r) => r.date)).toEqual(window.map((r) => r.date));
    // The window's first day is the base (100); its own return is not counted.
    const byDate = new Map(days.map((d) => [d.date, d]));
    const inside = window.slice(1).map((r) => byDate.get(r.date)!);
    let strategy = 100;
    let equity = 100;
    c.series.forEach((row, i) => {
      if (i > 0) {
        strategy *= 1 + inside[i - 1]!.strategy;
        equity *= 1 + inside[i - 1]!.buyAndHold;
      }
      close(row.strategy, strategy, `strategy on ${row.date}`);
      close(row.equity500, equity, `equity500 on ${row.date}`);
    });
    const s = inside.map((d) => d.strategy);
    close(c.stats.sharpe_proxy, sharpe(s), 'sharpe_proxy');
    close(c.stats.max_drawdown, maxDrawdown(s), 'max_drawdown');
    close(c.stats.strategy_annual_return, annual(s), 'strategy_annual_return');
    close(c.stats.bh_annual_return, annual(inside.map((d) => d.buyAndHold)), 'bh_annual_return');
  });
});
