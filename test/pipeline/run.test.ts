/**
 * A pipeline run against a real store: everything published in one transaction, the model-run record,
 * the regime broadcast the engine then enforces, the same numbers on a re-run, and never two runs at once.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { createEngineContext } from '../../src/engine/context.js';
import { loadPolicy, parsePolicy } from '../../src/engine/policy/policy.js';
import { broadcastHash, currentRegime } from '../../src/store/regime-broadcasts.js';
import { bootstrapOwnerToken } from '../../src/engine/store/tokens.js';
import { buildApp } from '../../src/http/app.js';
import { runPipeline, runSequentially, type RunSummary, type StageRunner } from '../../src/signals/publish/run.js';
import { MODEL_HASH } from '../helpers/engine.js';
import { testStore, type TestStore } from '../helpers/db.js';

const options = { dataDir: path.resolve('data/macro'), asOf: null, seed: 7 };
/** The first run stops before the 2025-11-03 refit, so the incremental run below must refit as the full run does. */
const FIRST_AS_OF = '2025-10-24';
let store: TestStore;
let first: RunSummary;

const publishedDays = (s: TestStore) => s.sql`select * from signal_days order by date`;

beforeAll(async () => {
  store = await testStore();
  first = await runPipeline(store.sql, { ...options, asOf: FIRST_AS_OF, publish: true });
}, 600_000);
afterAll(async () => store?.close());

describe('runPipeline', () => {
  it('publishes a signal package, net liquidity and the scorecard for every day, and records the run', async () => {
    const [counts] = await store.sql<Array<{ signals: number; liquidity: number; scorecard: number }>>`
      select (select count(*)::int from signal_days) as signals, (select count(*)::int from net_liquidity) as liquidity,
             (select count(*)::int from scorecard_days) as scorecard`;
    expect(counts).toEqual({ signals: first.days, liquidity: first.days, scorecard: first.days });
    expect(first.days).toBeGreaterThan(4000);
    const [run] = await store.sql`select * from model_runs where run_id = ${first.run_id}`;
    expect(run).toMatchObject({ status: 'published', seed: 7, days: first.days });
    expect(first.mode).toBe('full');
    expect(first.last_day! <= FIRST_AS_OF).toBe(true);
    expect(run!.finished_at.getTime()).toBeGreaterThanOrEqual(run!.started_at.getTime());
    expect(run!.data_vintage.inputSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(run!.timings_ms).sort()).toEqual(['features', 'models', 'publish', 'reports', 'signals']);
    const fits = await store.sql`select count(*)::int as n from model_fits where run_id = ${first.run_id}`;
    expect(fits[0]!.n).toBeGreaterThan(200);
  });

  it('publishes well-formed packages: probabilities summing to 1, the documented risk score, regime and confidence', async () => {
    const names = ['expansion', 'recovery', 'tightening', 'risk_off'];
    for (const d of await publishedDays(store)) {
      const p = [d.prob_expansion, d.prob_recovery, d.prob_tightening, d.prob_risk_off];
      expect(p.reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(1, 9);
      expect(d.risk_score).toBeCloseTo(1 - (p[0] + 0.75 * p[1] + 0.25 * p[2]), 9);
      // The published regime is the most likely one, its confidence that regime's probability.
      expect(d.regime, d.date).toBe(names[p.indexOf(Math.max(...p))]);
      expect(d.confidence).toBe(Math.max(...p) >= 0.7 ? 'HIGH' : Math.max(...p) >= 0.5 ? 'MODERATE' : 'LOW');
      expect(d.variance_explained_pct).toHaveLength(4);
      expect(d.pca_fit_date <= d.date).toBe(true);
    }
  });

  it("broadcasts the newest day's regime from the pipeline, with the documented hash", async () => {
    const b = await currentRegime(store.sql);
    expect(b).toMatchObject({ source: 'pipeline', date: first.last_day, regime: first.latest!.regime, hash: first.broadcast_hash });
    expect(b!.hash).toBe(broadcastHash(b!));
  });

  it("is enforced by the engine: authorize seals the pipeline's regime", async () => {
    const config = configWith({ logLevel: 'silent' });
    // The bundled data are more than a year old: a policy that accepts data of any age lets the engine use them.
    const policy = parsePolicy({ ...loadPolicy(config.policyPath).document, regime_max_age_ms: 100 * 365 * 86_400_000 });
    const ctx = await createEngineContext(config, store.sql, { policy });
    const app = await buildApp(config, { sql: store.sql, logger: false, engine: ctx });
    try {
      const owner = (await bootstrapOwnerToken(store.sql))!.token;
      const auth = { authorization: `Bearer ${owner}` };
      const agent = (
        await app.inject({
          method: 'POST',
          url: '/engine/admin/agents',
          headers: auth,
          payload: { name: 'a', max_notional: 1e6, models: [{ model_id: 'm', model_hash_hex: MODEL_HASH }] },
        })
      ).json();
      const regime = (await app.inject({ url: '/engine/regime', headers: auth })).json();
      expect(regime).toMatchObject({ source: 'pipeline', hash: first.broadcast_hash });
      const res = await app.inject({
        method: 'POST',
        url: '/engine/authorize',
        headers: auth,
        payload: {
          agent_id: agent.agent_id,
          model_hash_hex: MODEL_HASH,
          model_id: 'm',
          prompt_version: 'p',
          feature_schema_id: 'f',
          hyperparameter_checksum: 'h',
          action: 'Long',
          asset: 'SPY',
          order_type: 'Market',
          venue_id: 'ARCX',
          quantity: 1,
          notional: 500,
          client_order_id: 'pipeline-1',
          agent_valid_time: Date.now(),
          reduce_only: true,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      const trace = (await app.inject({ url: `/engine/trace/${res.json().trace_id}`, headers: auth })).json();
      expect(trace.mta).toMatchObject({ hash: first.broadcast_hash, regime_id: regime.regime_id, version: regime.model_version });
    } finally {
      await app.close();
      ctx.state.stop();
    }
  });

  it('extends the history incrementally with exactly the numbers a full run publishes', async () => {
    const incremental = await runPipeline(store.sql, options);
    expect(incremental.mode).toBe('incremental');
    expect(incremental.first_day! > first.last_day!).toBe(true);
    expect(incremental.days).toBeGreaterThan(5);
    const fits = await store.sql`select fit_date::text as d from model_fits where run_id = ${incremental.run_id}`;
    expect(fits.map((f) => f.d)).toContain('2025-11-03');
    const extended = await publishedDays(store);
    const full = await runPipeline(store.sql, { ...options, full: true });
    expect(full.mode).toBe('full');
    // Bit for bit the same history: nothing to confirm, nothing rewritten.
    expect(full.plan).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: extended.length });
    const recomputed = await publishedDays(store);
    expect(recomputed.length).toBe(extended.length);
    recomputed.forEach((row, i) => {
      const { run_id: _a, data_vintage: _va, ...rest } = row;
      const { run_id: _b, data_vintage: _vb, ...was } = extended[i]!;
      expect(rest, row.date).toEqual(was);
    });
    expect(full.broadcast_hash).toBe(incremental.broadcast_hash);
  }, 600_000);

  it('never runs twice at once, and a re-run on the same data and seed publishes the same numbers', async () => {
    const before = await publishedDays(store);
    const hashBefore = (await currentRegime(store.sql))!.hash;
    let release!: () => void;
    let holding!: () => void;
    const held = new Promise<void>((r) => {
      holding = r;
    });
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow: StageRunner = async (stages, ctx) => {
      holding();
      await gate;
      await runSequentially(stages, ctx);
    };
    const second = runPipeline(store.sql, options, { runner: slow });
    await held;
    await expect(runPipeline(store.sql, options)).rejects.toMatchObject({ code: 'pipeline_running', exit: 4 });
    release();
    const summary = await second;
    expect(summary.run_id).not.toBe(first.run_id);
    const after = await publishedDays(store);
    expect(after.length).toBe(before.length);
    after.forEach((row, i) => {
      const { run_id: _a, ...rest } = row;
      const { run_id: _b, ...was } = before[i]!;
      expect(rest).toEqual(was);
    });
    expect(summary.broadcast_hash).toBe(hashBefore);
  }, 600_000);
});
