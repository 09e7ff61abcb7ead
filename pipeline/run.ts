/**
 * One pipeline run: ingest → features (DuckDB) → PCA + HMM walk-forward → signals, liquidity, scorecard →
 * publish (one Postgres transaction), under the run lock so two runs never overlap. The stages are data
 * (`STAGES`), so the CLI can show them one by one (listr2) while tests and the scheduler run them plainly.
 */
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import type { RegimeBroadcast } from '../src/engine/store/regime.js';
import type { Sql } from '../src/store/driver.js';
import { loadFeatureFrame, type FeatureFrame } from './features/frame.js';
import { DEFAULT_WALK_FORWARD, ResumeMismatch, walkForward, type WalkForwardResult } from './model/walk-forward.js';
import { loadResumePoint, type StoredResume } from './publish/resume.js';
import { assemble } from './publish/assemble.js';
import { publish } from './publish/publish.js';
import { withRunLock } from './publish/run-lock.js';
import type { Publication, RunRecord } from './publish/types.js';

export const MODEL_VERSION = 'tradeseal-regime-1: PCA(4) of 9 standardized features + 4-state Gaussian HMM, monthly expanding walk-forward';

export interface PipelineOptions {
  dataDir: string;
  /** Recompute every day even when the published history could be extended (default false). */
  full?: boolean;
  /** Run as of this date: inputs usable after it are ignored (null: all data). */
  asOf: string | null;
  seed: number;
}

export interface PipelineContext {
  sql: Sql;
  conn: postgres.ReservedSql;
  options: PipelineOptions;
  run: RunRecord;
  timings: Record<string, number>;
  frame?: FeatureFrame;
  model?: WalkForwardResult;
  rows?: ReturnType<typeof assemble>;
  resume?: StoredResume | null;
  /** `full`, or `incremental` when the run extended the published history. */
  mode?: 'full' | 'incremental';
  notes: string[];
  broadcast?: RegimeBroadcast | null;
}

export interface Stage {
  key: string;
  title: string;
  run(ctx: PipelineContext): Promise<string | void>;
}

const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`pipeline stage out of order: no ${what}`);
  return value;
};

export const STAGES: readonly Stage[] = [
  {
    key: 'features', title: 'Ingest the macro series and build point-in-time features (DuckDB)',
    async run(ctx) {
      ctx.frame = await loadFeatureFrame(ctx.options.dataDir, ctx.options.asOf ?? undefined);
      ctx.run.data_vintage = ctx.frame.vintage;
      return `${ctx.frame.dates.length} trading days, ${ctx.frame.dates[0]} to ${ctx.frame.dates.at(-1)}`;
    },
  },
  {
    key: 'models', title: 'Fit PCA and the HMM, walking forward month by month',
    async run(ctx) {
      const frame = need(ctx.frame, 'feature frame');
      ctx.resume = ctx.options.full ? null : await loadResumePoint(ctx.sql, MODEL_VERSION, ctx.options.seed);
      if (ctx.resume) {
        try {
          ctx.model = walkForward(frame, { seed: ctx.options.seed }, ctx.resume);
          ctx.mode = 'incremental';
          return `incremental from ${ctx.resume.lastDate}: ${ctx.model.fits.length} refits, ${ctx.model.days.length} new days`;
        } catch (err) {
          if (!(err instanceof ResumeMismatch)) throw err;
          ctx.notes.push(`full run: ${err.message}`);
          ctx.resume = null;
        }
      }
      ctx.model = walkForward(frame, { seed: ctx.options.seed });
      ctx.mode = 'full';
      return `${ctx.model.fits.length} refits, ${ctx.model.days.length} days`;
    },
  },
  {
    key: 'signals', title: 'Derive signals, net liquidity and the scorecard',
    async run(ctx) {
      ctx.rows = assemble(need(ctx.frame, 'feature frame'), need(ctx.model, 'model').days, ctx.resume?.persistence);
      return `${ctx.rows.signals.length} signal packages`;
    },
  },
  {
    key: 'publish', title: 'Publish in one transaction and broadcast the regime',
    async run(ctx) {
      const rows = need(ctx.rows, 'rows');
      const model = need(ctx.model, 'model');
      const frame = need(ctx.frame, 'feature frame');
      const lastFit = model.fits.at(-1) ?? ctx.resume?.fits.at(-1);
      const pub: Publication = {
        run: ctx.run,
        dataVintageAt: new Date(`${frame.vintage.end}T23:59:59Z`),
        ...rows,
        fits: model.fits.map((f) => ({ fit_date: f.fit_date, pca: f.pca, hmm: { ...f.hmm, log_likelihood: f.log_likelihood, iterations: f.iterations } })),
        pcaFitDate: lastFit?.fit_date ?? '',
        hmmFitDate: lastFit?.fit_date ?? '',
        timingsMs: ctx.timings,
      };
      const first = rows.signals[0]?.date;
      ctx.broadcast = await publish(ctx.conn, pub, ctx.mode === 'incremental' ? (first ?? '9999-12-31') : null, ctx.resume?.last ?? null);
      return ctx.broadcast ? `${ctx.broadcast.regime} on ${ctx.broadcast.date}` : 'nothing to publish';
    },
  },
];

export interface RunSummary {
  run_id: string;
  mode: 'full' | 'incremental';
  days: number;
  first_day: string | null;
  last_day: string | null;
  latest: { date: string; regime: string; risk_score: number; confidence: string; probabilities: Record<string, number> } | null;
  broadcast_hash: string | null;
  timings_ms: Record<string, number>;
  warnings: string[];
}

export type StageRunner = (stages: readonly Stage[], ctx: PipelineContext) => Promise<void>;

/** Runs the stages one after another, timing each. */
export const runSequentially: StageRunner = async (stages, ctx) => {
  for (const stage of stages) await timed(stage, ctx);
};

export async function timed(stage: Stage, ctx: PipelineContext): Promise<string | void> {
  const t0 = performance.now();
  const note = await stage.run(ctx);
  ctx.timings[stage.key] = Math.round(performance.now() - t0);
  return note;
}

export async function runPipeline(sql: Sql, options: PipelineOptions, runner: StageRunner = runSequentially): Promise<RunSummary> {
  const run: RunRecord = {
    run_id: randomUUID(), started_at: new Date(), as_of: options.asOf, data_vintage: null, model_version: MODEL_VERSION,
    seed: options.seed, parameters: { walk_forward: { ...DEFAULT_WALK_FORWARD, seed: options.seed }, data_dir: options.dataDir },
  };
  return withRunLock(sql, run, async (conn) => {
    const ctx: PipelineContext = { sql, conn, options, run, timings: {}, notes: [] };
    await runner(STAGES, ctx);
    // The publish stage's own timing is known only after its transaction: record the complete set.
    await conn`update model_runs set timings_ms = ${conn.json(ctx.timings)} where run_id = ${run.run_id}`;
    const signals = ctx.rows?.signals ?? [];
    const last = signals.at(-1) ?? ctx.resume?.last;
    return {
      run_id: run.run_id,
      mode: ctx.mode ?? 'full',
      days: signals.length,
      first_day: signals[0]?.date ?? null,
      last_day: last?.date ?? null,
      latest: last ? {
        date: last.date, regime: last.regime, risk_score: last.risk_score, confidence: last.confidence,
        probabilities: { expansion: last.prob_expansion, recovery: last.prob_recovery, tightening: last.prob_tightening, risk_off: last.prob_risk_off },
      } : null,
      broadcast_hash: ctx.broadcast?.hash ?? null,
      timings_ms: ctx.timings,
      warnings: [...(ctx.frame?.vintage.warnings ?? []), ...ctx.notes],
    };
  });
}
