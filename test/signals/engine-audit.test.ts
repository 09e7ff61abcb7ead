/**
 * `GET /v1/engine/audit` after a published pipeline run (cut at 2009-03-31): every field is checked against a
 * value recomputed here, with plain arithmetic of this file, from the published tables (signal_days,
 * net_liquidity, indicator_days, model_fits); the indicator levels the run published are the feature
 * frame's. Only engine_audit accounts with at least three agents get it.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFeatureFrame } from '../../pipeline/features/frame.js';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { INPUT_LABELS } from '../../src/signals/audit.js';
import { issueKey } from '../../src/signals/store/keys.js';
import type { Tier } from '../../src/signals/tiers.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { documented } from '../helpers/documented.js';

const CUT = '2009-03-31';
const DATA_DIR = path.join(REPO_ROOT, 'data/macro');
const REGIMES = ['expansion', 'recovery', 'tightening', 'risk_off'];

let store: TestStore;
let app: FastifyInstance;
let auditKey: string;
let audit: Record<string, any>;

async function account(tier: Tier, agentCount: number): Promise<string> {
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier, agent_count) values (${id}, ${`${id}@example.test`}, ${tier}, ${agentCount})`;
  return (await issueKey(store.sql, id)).api_key;
}

const get = (key: string) => app.inject({ method: 'GET', url: '/v1/engine/audit', headers: { 'x-signals-key': key } });

beforeAll(async () => {
  // The bundled data published as of 2009-03-31 with seed 7, made once for the run (test/setup/published-history.ts).
  store = await testStore({ history: 'published' });
  app = await documented(await buildApp(configWith({ logLevel: 'silent' }), { sql: store.sql, logger: false, services: ['signals'] }));
  await app.ready();
  auditKey = await account('engine_audit', 5);
  const res = await get(auditKey);
  expect(res.statusCode, res.body).toBe(200);
  audit = res.json();
}, 600_000);
afterAll(async () => {
  await app?.close();
  await store?.close();
});

// What the test reads from the published tables, with its own queries.
const newestDay = async () =>
  (
    await store.sql`
  select date::text as date, regime, risk_score, pc1, pc2, pc3, pc4, pca_fit_date::text as pca_fit_date, hmm_fit_date::text as hmm_fit_date
  from signal_days order by date desc limit 1`
  )[0]!;
const fitOf = async (date: string) => (await store.sql`select pca, hmm from model_fits where fit_date = ${date}`)[0]!;
const lastDays = async (n: number) =>
  (
    await store.sql`
  select s.date::text as date, i.vix, i.hy_spread_pct, i.curve_10y2y_pp, i.dollar, n.level_bn, n.zscore, n.trend
  from signal_days s join indicator_days i using (date) join net_liquidity n using (date) order by s.date desc limit ${n}`
  ).reverse();

const avg = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]): number => {
  const m = avg(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) * (x - m), 0) / (xs.length - 1));
};

describe('the published indicator levels', () => {
  it("are the feature frame's vix, hy_spread_pct, curve_10y2y_pp and dollar on every published day", async () => {
    const frame = await loadFeatureFrame(DATA_DIR, CUT);
    const rows = await store.sql`select date::text as date, vix, hy_spread_pct, curve_10y2y_pp, dollar from indicator_days order by date`;
    const [{ n }] = (await store.sql`select count(*) as n from signal_days`) as unknown as [{ n: number }];
    expect(rows).toHaveLength(n);
    for (const r of rows) {
      const t = frame.dates.indexOf(r.date);
      for (const c of ['vix', 'hy_spread_pct', 'curve_10y2y_pp', 'dollar']) {
        const v = frame.columns[c]![t]!;
        expect(r[c], `${c} on ${r.date}`).toBe(Number.isFinite(v) ? v : null);
      }
    }
  });
});

describe('GET /v1/engine/audit: the audit decomposition of the newest published day', () => {
  it("names the day, its regime, risk score and the account's agents", async () => {
    const day = await newestDay();
    expect(day.date).toBe(CUT);
    expect(audit).toMatchObject({ date: CUT, regime: day.regime, risk_score: day.risk_score, agent_count: 5 });
    expect(Date.parse(audit.generated_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('factor_attribution: the published factors, described by their largest loadings, with the documented direction', async () => {
    const day = await newestDay();
    const { pca } = await fitOf(day.pca_fit_date);
    const stressSign: Record<string, number> = { hy_spread_pct: 1, vix: 1, mom_z_hy: 1, mom_z_vix: 1, net_liq_zscore: -1 };
    expect(audit.factor_attribution.map((f: { factor: string }) => f.factor)).toEqual(['PC1', 'PC2', 'PC3', 'PC4']);
    for (let c = 0; c < 4; c++) {
      const f = audit.factor_attribution[c];
      const value = day[`pc${c + 1}`];
      expect(f.value).toBe(value);
      const loadings: number[] = pca.components[c];
      const share: number = pca.variance_explained_pct[c];
      const top = loadings
        .map((l, j) => ({ l, j }))
        .sort((a, b) => Math.abs(b.l) - Math.abs(a.l))
        .slice(0, 3)
        .map(({ l, j }) => `${INPUT_LABELS[pca.inputs[j]]} (${l < 0 ? '−' : '+'}${Math.abs(l).toFixed(2)})`);
      expect(f.description).toBe(`keeps ${share.toFixed(1)}% of the standardized inputs' variance; loads most on ${top.join(', ')}`);
      const inSd = value / Math.sqrt((share / 100) * pca.inputs.length);
      let orientation = 0;
      loadings.forEach((l, j) => {
        orientation += l * (stressSign[pca.inputs[j]] ?? 0);
      });
      const expected = Math.abs(inSd) < 0.5 || orientation === 0 ? 'neutral' : inSd * orientation > 0 ? 'bearish' : 'bullish';
      expect(f.direction, `PC${c + 1}`).toBe(expected);
    }
    // pc1 loads positively on the high-yield spread (the pipeline's sign rule): in March 2009 it is high stress.
    expect(audit.factor_attribution[0].direction).toBe('bearish');
  });

  it('stress_indicators: levels and z-scores against the trailing 90 published days', async () => {
    const days = await lastDays(90);
    expect(days).toHaveLength(90);
    const columns = [
      ['volatility_index', 'vix'],
      ['high_yield_spread', 'hy_spread_pct'],
      ['curve_10y_2y', 'curve_10y2y_pp'],
      ['dollar_index', 'dollar'],
      ['net_liquidity', 'level_bn'],
    ];
    expect(audit.stress_indicators.map((s: { name: string }) => s.name)).toEqual(columns.map(([n]) => n));
    columns.forEach(([, col], i) => {
      const xs = days.map((d) => d[col!] as number);
      const z = (xs.at(-1)! - avg(xs)) / sd(xs);
      const s = audit.stress_indicators[i];
      expect(s.value).toBe(xs.at(-1));
      expect(s.z_score).toBeCloseTo(z, 9);
      expect(s.flag).toBe(Math.abs(z) >= 3 ? 'extreme' : Math.abs(z) >= 2 ? 'elevated' : 'normal');
    });
  });

  it('liquidity: the trend, the level and the change since the newest day at least 30 calendar days before', async () => {
    const [today] = await lastDays(1);
    const [earlier] = await store.sql`select level_bn from net_liquidity where date <= date '2009-03-01' order by date desc limit 1`;
    expect(audit.liquidity).toMatchObject({ trend: today!.trend.toLowerCase(), latest_bn_usd: today!.level_bn });
    expect(audit.liquidity['30d_change_bn_usd']).toBeCloseTo(today!.level_bn - earlier!.level_bn, 6);
  });

  it("transition_risk: the row of the fitted transition matrix for the day's regime", async () => {
    const day = await newestDay();
    const { hmm } = await fitOf(day.hmm_fit_date);
    const k = REGIMES.indexOf(day.regime);
    expect(audit.transition_risk).toEqual(Object.fromEntries(REGIMES.map((r, j) => [r, hmm.transmat[k * 4 + j]])));
    const sum = Object.values(audit.transition_risk as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1, 9);
  });

  it('model_health: explained variance, persistence, mean shift of the published inputs, and the flags they raise', async () => {
    const day = await newestDay();
    const { pca } = await fitOf(day.pca_fit_date);
    const { hmm } = await fitOf(day.hmm_fit_date);
    const explained = (pca.variance_explained_pct as number[]).reduce((a, b) => a + b, 0);
    const persistence = (hmm.transmat[0] + hmm.transmat[5] + hmm.transmat[10] + hmm.transmat[15]) / 4;
    const recent = await lastDays(20);
    // The published inputs of the fit in force (the curve's level was one until tradeseal-regime-2).
    const shift = Math.max(
      ...[
        ['vix', 'vix'],
        ['hy_spread_pct', 'hy_spread_pct'],
        ['curve_10y2y_pp', 'curve_10y2y_pp'],
        ['net_liq_zscore', 'zscore'],
      ]
        .filter(([input]) => pca.inputs.includes(input))
        .map(([input, col]) => {
          const j = pca.inputs.indexOf(input);
          return Math.abs(avg(recent.map((d) => d[col!] as number)) - pca.means[j]) / pca.sds[j];
        }),
    );
    const flags = [
      ...(explained < 60 ? ['low_explained_variance'] : []),
      ...(persistence < 0.9 ? ['low_regime_persistence'] : []),
      ...(shift > 2 ? ['feature_mean_shift'] : []),
    ];
    expect(audit.model_health.pca_explained_variance).toBeCloseTo(explained, 9);
    expect(audit.model_health.regime_persistence).toBeCloseTo(persistence, 12);
    expect(audit.model_health.feature_mean_shift).toBeCloseTo(shift, 9);
    expect(audit.model_health.flags).toEqual(flags);
    expect(audit.model_health.status).toBe(flags.length ? 'degraded' : 'ok');
    // March 2009: VIX and the high-yield spread far above anything the fit window (from 2003) had seen.
    expect(flags).toContain('feature_mean_shift');
  });
});

describe('who may read it', () => {
  it('403 audit_requires_agents for an engine_audit account with fewer than three agents', async () => {
    const res = await get(await account('engine_audit', 2));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      code: 'audit_requires_agents',
      detail: 'the audit decomposition needs an account with at least 3 agents; this one has 2',
    });
  });

  it.each(['engine_sidecar', 'owner', 'pro'] as const)('403 tier_insufficient for a %s key', async (tier) => {
    const res = await get(await account(tier, 10));
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('tier_insufficient');
  });

  it('exactly three agents is enough', async () => {
    expect((await get(await account('engine_audit', 3))).statusCode).toBe(200);
  });
});
