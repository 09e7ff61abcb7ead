/**
 * One pipeline run: ingest → features (DuckDB) → PCA + HMM walk-forward (in a worker thread) → signals,
 * liquidity, scorecard → publish (one Postgres transaction), under the run lock so two runs never overlap.
 * The stages are data (`STAGES`), so the CLI can show them one by one (listr2) while tests and the scheduler
 * run them plainly.
 *
 * What a run may do to the live service is decided here, once, whatever calls it:
 * - a run as of a past date (`asOf`) is a what-if: it computes and reports, takes no lock and writes nothing,
 *   unless `publish` asks for a backfill;
 * - a run only ever adds days after the last published one; when it cannot extend the published history
 *   (another seed or model version, or the data up to the last published day changed: any row of an input
 *   usable by then, checked against the digests the last run recorded, `publish/input-digests.ts`) it stops
 *   (`history_not_extendable`, naming the series and the first changed date) instead of silently recomputing it;
 * - `full` recomputes everything; a publication that would rewrite published days with other numbers, or
 *   remove published days, is planned first (`publish/plan.ts`) and needs the caller's confirmation
 *   (`confirm`), and removing days needs `force` as well;
 * - an operator's manual broadcast is never replaced by a run (src/store/regime-broadcasts.ts); the summary says
 *   that it holds and what the model says.
 */
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import type { RegimeBroadcast } from '../../store/regime-broadcasts.js';
import { SIGNAL_COST_BPS_DEFAULT } from '../../core/config.js';
import { TradesealError } from '../../core/errors.js';
import type { Sql } from '../../store/driver.js';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { dueDay } from '../nightly/due.js';
import { firstPublishableDay } from '../../../pipeline/model/first-day.js';
import { DEFAULT_WALK_FORWARD, NotEnoughHistory, ResumeMismatch, type WalkForwardResult } from '../../../pipeline/model/walk-forward.js';
import { walkForwardOffThread } from '../../../pipeline/model/walk-forward-thread.js';
import { assemble } from '../../../pipeline/publish/assemble.js';
import { describePlan, planPublication, RECOMPUTE_HINT, type PublishedRange, type PublishPlan } from '../../../pipeline/publish/plan.js';
import { publish } from './publish.js';
import { loadTrackLogKey } from '../track/key.js';
import { NO_KEY_PROVIDER, type KeySettings } from '../../secrets/kms/from-config.js';
import type { TrackAppend } from '../store/track-log.js';
import { describeChanges, digestInputs, type InputChange } from '../../../pipeline/publish/input-digests.js';
import { checkInputs, NOT_RECORDED_NOTICE } from './input-record.js';
import { newestMaker, publishedHistory, publishedMarket, publishedRange, publishedSignals } from './published.js';
import { buildReports, type Reports } from '../../../pipeline/reports/reports.js';
import { loadResumePoint, type StoredResume } from './resume.js';
import { withRunLock } from './run-lock.js';
import { MODEL_VERSION } from '../../../pipeline/model/version.js';
import type { Publication, RunRecord } from '../../../pipeline/publish/types.js';
import type { ForecastRow } from '../../../pipeline/reports/forecast.js';
import type { PerformanceReport } from '../../../pipeline/reports/performance.js';

export { MODEL_VERSION };

export interface PipelineOptions {
  dataDir: string;
  /** Run as of this date: inputs usable after it are ignored (null: all data). Without `publish`, a what-if. */
  asOf: string | null;
  seed: number;
  /** Recompute every day instead of extending the published history (default false). */
  full?: boolean;
  /** With `asOf`: write the run to the live history (a backfill). Runs without `asOf` always publish. */
  publish?: boolean;
  /** Allow a publication that removes published days (it still needs the confirmation). */
  force?: boolean;
  /** The cost the published performance is net of, basis points per unit of exposure change (default `SIGNAL_COST_BPS`'s, 5). */
  costBps?: number;
  /** The track log's signing key (`SIGNAL_LOG_SIGNING_KEY`); unset: the key kept in the store (src/signals/track/key.ts). */
  trackLogSigningKey?: Uint8Array | null;
  /** The key-management settings the stored track-log key is kept sealed under (`KMS_PROVIDER`…); unset: none, the key in clear. */
  keySettings?: KeySettings;
  /**
   * The clock (ms since the epoch; default `Date.now`): when the run starts, the date of its forecast and the
   * timestamp of the track log's leaves, which decides whether a day is logged `live`. A replay runs nights on
   * simulated time through it.
   */
  now?: () => number;
}

/** Asked before a publication that rewrites or removes published days: resolves with who confirmed, or throws. */
export type ConfirmPublication = (plan: PublishPlan, sentence: string) => Promise<string>;

export interface PipelineContext {
  sql: Sql;
  options: PipelineOptions;
  run: RunRecord;
  timings: Record<string, number>;
  /** Progress within a stage (refit n of N), for the display; set by the stage runner. */
  report?: (text: string) => void;
  published: PublishedRange;
  conn?: postgres.ReservedSql;
  frame?: FeatureFrame;
  model?: WalkForwardResult;
  rows?: ReturnType<typeof assemble>;
  reports?: Reports;
  resume?: StoredResume | null;
  /** `full`, or `incremental` when the run extends the published history. */
  mode?: 'full' | 'incremental';
  plan?: PublishPlan;
  confirmedBy?: string | null;
  notes: string[];
  broadcast?: RegimeBroadcast | null;
  override?: RegimeBroadcast | null;
  track?: TrackAppend;
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

const isWhatIf = (o: PipelineOptions): boolean => o.asOf !== null && o.publish !== true;

const clockOf = (o: PipelineOptions): (() => number) => o.now ?? Date.now;

/**
 * Where the run's data are cut: its `asOf`; a publishing run without one at the newest day due by its clock
 * (../nightly/due.ts), so that no day is published before its publication instant, when a series that does not
 * bind the calendar's end (SPY, GLD, T10Y2Y) may still lack its row, and when the day could only be logged as a
 * backfill (never at the published days' expense: not before the last one).
 */
function cutOf(ctx: PipelineContext): string | null {
  const o = ctx.options;
  if (o.asOf !== null || isWhatIf(o)) return o.asOf;
  const due = dueDay(clockOf(o)());
  return ctx.published.last !== null && ctx.published.last > due ? ctx.published.last : due;
}

/** Computes the walk-forward, extending the published history when it can; decides the run's mode. */
async function model(ctx: PipelineContext, frame: FeatureFrame): Promise<string> {
  try {
    return await fitModels(ctx, frame);
  } catch (err) {
    if (err instanceof NotEnoughHistory) throw await notEnoughHistory(ctx, err);
    throw err;
  }
}

async function fitModels(ctx: PipelineContext, frame: FeatureFrame): Promise<string> {
  const { options } = ctx;
  const onRefit = (done: number, total: number, date: string): void => ctx.report?.(`refit ${done} of ${total} (${date})`);
  const wf = { seed: options.seed };
  // The inputs of the published days first: a change anywhere up to the last published day stops an
  // extension, even where the last day's numbers would not show it (publish/input-digests.ts).
  const inputs = await changedInputs(ctx, frame);
  const changes = inputs?.changes ?? [];
  let cannotExtend: string | null = inputs && changes.length > 0 ? describeChanges(changes, inputs.through) : null;
  ctx.resume = options.full || cannotExtend !== null ? null : await loadResumePoint(ctx.sql, MODEL_VERSION, options.seed);
  if (ctx.resume) {
    try {
      ctx.model = await walkForwardOffThread(frame, wf, ctx.resume, onRefit);
      ctx.mode = 'incremental';
      return `incremental from ${ctx.resume.lastDate}: ${ctx.model.fits.length} refits, ${ctx.model.days.length} new days`;
    } catch (err) {
      if (!(err instanceof ResumeMismatch)) throw err;
      cannotExtend = err.message;
      ctx.resume = null;
    }
  } else if (!options.full && cannotExtend === null && ctx.published.days > 0) {
    const maker = await newestMaker(ctx.sql);
    cannotExtend = maker
      ? `the published history was made with seed ${maker.seed}${maker.model_version === MODEL_VERSION ? '' : ` by model version "${maker.model_version}"`}; this run has seed ${options.seed} and model version "${MODEL_VERSION}"`
      : 'the published history has no run record to resume from';
  }
  // A what-if computes in full whatever the history; a publishing run recomputes it only when asked to.
  if (cannotExtend !== null && !isWhatIf(options) && !options.full && !options.force) {
    throw new TradesealError(
      'history_not_extendable',
      `this run cannot extend the published history (${ctx.published.first} to ${ctx.published.last}): ${cannotExtend}`,
      {
        hint: RECOMPUTE_HINT,
        ...(changes.length > 0 ? { extra: { input_changes: changes } } : {}),
      },
    );
  }
  if (cannotExtend !== null) ctx.notes.push(`full run: ${cannotExtend}`);
  ctx.model = await walkForwardOffThread(frame, wf, undefined, onRefit);
  ctx.mode = 'full';
  return `${ctx.model.fits.length} refits, ${ctx.model.days.length} days`;
}

/**
 * The changes of the inputs of the published days, for a run that would extend the history (none for a
 * what-if or `--full`, which do not extend it). A history published before digests were recorded gets a notice.
 */
async function changedInputs(ctx: PipelineContext, frame: FeatureFrame): Promise<{ changes: InputChange[]; through: string } | null> {
  if (ctx.options.full || isWhatIf(ctx.options) || ctx.published.days === 0) return null;
  const check = await checkInputs(ctx.sql, frame.inputs, ctx.options.asOf);
  if (check.status === 'not_recorded') ctx.notes.push(NOT_RECORDED_NOTICE);
  return check.status === 'changed' ? { changes: check.changes, through: check.through } : null;
}

/** The error for a cut before the first publishable day, naming that day (from the whole data set). */
async function notEnoughHistory(ctx: PipelineContext, err: NotEnoughHistory): Promise<TradesealError> {
  const first = await firstPublishableDay(ctx.options.dataDir, DEFAULT_WALK_FORWARD.burnInDays).catch(() => null);
  const asOf = ctx.options.asOf ? ` as of ${ctx.options.asOf}` : '';
  return new TradesealError(
    'not_enough_history',
    `not enough history${asOf}: ${err.completeDays} trading days with every input, the model's burn-in needs ${err.needed}; ${first ? `the first day a run can publish is ${first}` : 'the data have no day a run can publish'}`,
    {
      hint: first ? `use --as-of ${first} or later` : 'add history to the data directory (see data/macro/PROVENANCE.md)',
    },
  );
}

/** The plan of the publication, and the checks it must pass before anything is written. */
async function plan(ctx: PipelineContext, confirm: ConfirmPublication | undefined): Promise<string> {
  const signals = need(ctx.rows, 'rows').signals;
  const mode = need(ctx.mode, 'mode');
  const p = planPublication(mode, signals, ctx.published, mode === 'full' && ctx.published.days > 0 ? await publishedSignals(ctx.sql) : []);
  ctx.plan = p;
  const sentence = describePlan(p);
  if (p.removed > 0 && !ctx.options.force) {
    throw new TradesealError('published_days_would_be_removed', `${sentence} Nothing was published.`, {
      hint: 'removing published days needs --force and a confirmation; a what-if (--as-of without --publish) writes nothing',
    });
  }
  ctx.confirmedBy = null;
  if (p.changed > 0 || p.removed > 0) {
    if (!confirm) throw new TradesealError('confirmation_required', `${sentence} Nobody confirmed it; nothing was published.`);
    ctx.confirmedBy = await confirm(p, sentence);
  }
  return sentence;
}

export const STAGES: readonly Stage[] = [
  {
    key: 'features',
    title: 'Validate the inputs and build point-in-time features (DuckDB)',
    async run(ctx) {
      ctx.frame = await loadFeatureFrame(ctx.options.dataDir, cutOf(ctx) ?? undefined);
      ctx.run.data_vintage = ctx.frame.vintage;
      if (ctx.frame.dates.length === 0) return 'no trading day';
      return `${ctx.frame.dates.length} trading days, ${ctx.frame.dates[0]} to ${ctx.frame.dates.at(-1)}`;
    },
  },
  {
    key: 'models',
    title: 'Fit PCA and the HMM, walking forward month by month',
    run: (ctx) => model(ctx, need(ctx.frame, 'feature frame')),
  },
  {
    key: 'signals',
    title: 'Derive signals, net liquidity and the scorecard',
    async run(ctx) {
      ctx.rows = assemble(need(ctx.frame, 'feature frame'), need(ctx.model, 'model').days, ctx.resume?.persistence);
      return `${ctx.rows.signals.length} signal packages`;
    },
  },
  {
    key: 'reports',
    title: 'Forecast, backtest the strategy, chart data',
    async run(ctx) {
      const rows = need(ctx.rows, 'rows');
      // An incremental run extends the published history; a full one replaces it.
      const before = ctx.mode === 'incremental' ? (rows.signals[0]?.date ?? '9999-12-31') : null;
      const [history, market] = before === null ? [[], []] : await Promise.all([publishedHistory(ctx.sql, before), publishedMarket(ctx.sql, before)]);
      ctx.reports = buildReports(
        [...history, ...rows.signals],
        [...market, ...rows.market],
        new Date(clockOf(ctx.options)()),
        ctx.options.costBps ?? SIGNAL_COST_BPS_DEFAULT,
      );
      ctx.notes.push(...ctx.reports.notes);
      const f = ctx.reports.forecast?.envelope.forecast;
      const p = ctx.reports.performance;
      return `${f ? `forecast to ${f.at(-1)?.date}` : 'no forecast'}, strategy Sharpe ${p.sharpe?.toFixed(2) ?? '-'} over ${p.days} days`;
    },
  },
];

export const PUBLISH_STAGE: Stage = {
  key: 'publish',
  title: 'Publish in one transaction and broadcast the regime',
  async run(ctx) {
    const rows = need(ctx.rows, 'rows');
    const m = need(ctx.model, 'model');
    const frame = need(ctx.frame, 'feature frame');
    const lastFit = m.fits.at(-1) ?? ctx.resume?.fits.at(-1);
    // What the published days were computed from, through the history's last day after this publication.
    const through = rows.signals.at(-1)?.date ?? ctx.resume?.last.date ?? null;
    const pub: Publication = {
      run: ctx.run,
      dataVintageAt: new Date(`${frame.vintage.end}T23:59:59Z`),
      ...rows,
      fits: m.fits.map((f) => ({ fit_date: f.fit_date, pca: f.pca, hmm: { ...f.hmm, log_likelihood: f.log_likelihood, iterations: f.iterations } })),
      pcaFitDate: lastFit?.fit_date ?? '',
      hmmFitDate: lastFit?.fit_date ?? '',
      timingsMs: ctx.timings,
      confirmedBy: ctx.confirmedBy ?? null,
      reports: need(ctx.reports, 'reports'),
      inputDigests: through === null ? null : digestInputs(frame.inputs, through),
    };
    const first = rows.signals[0]?.date;
    const conn = need(ctx.conn, 'run lock');
    const trackKey = await loadTrackLogKey(conn, {
      signalLogSigningKey: ctx.options.trackLogSigningKey ?? null,
      ...(ctx.options.keySettings ?? NO_KEY_PROVIDER),
    });
    const out = await publish(
      conn,
      pub,
      ctx.mode === 'incremental' ? (first ?? '9999-12-31') : null,
      need(ctx.plan, 'plan'),
      trackKey,
      ctx.resume?.last ?? null,
      { nowMs: clockOf(ctx.options)(), own: ctx.options.now !== undefined },
    );
    ctx.broadcast = out.broadcast;
    ctx.override = out.override;
    ctx.track = out.track;
    const logged = trackNote(out.track);
    if (out.override) return `history published; the operator's override #${out.override.id} (${out.override.regime}) stays in force; ${logged}`;
    return out.broadcast ? `${out.broadcast.regime} on ${out.broadcast.date}; ${logged}` : 'nothing to publish';
  },
};

/** What the track log took of a publication, in a few words. */
function trackNote(t: TrackAppend): string {
  if (t.appended.length === 0) return 'no new or changed day to log';
  const c = trackCounts(t);
  const parts = (['live', 'backfill', 'republication'] as const).filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  return `logged ${parts.join(', ')} (track log of ${c.tree_size} leaves)`;
}

export interface RunSummary {
  /** Null for a what-if, which records nothing. */
  run_id: string | null;
  mode: 'full' | 'incremental';
  /** False for a what-if: nothing was written. */
  published: boolean;
  as_of: string | null;
  days: number;
  first_day: string | null;
  last_day: string | null;
  latest: { date: string; regime: string; risk_score: number; confidence: string; probabilities: Record<string, number> } | null;
  broadcast_hash: string | null;
  /** The operator's broadcast that stayed in force instead of the model's, if any. */
  override: { id: number; regime: string; date: string; published_by: string | null; reason: string | null } | null;
  /** The leaves the publication added to the track log by kind, the days it left as logged, the log's size after it (null when nothing was appended); null when nothing was published. */
  track_log: { live: number; backfill: number; republication: number; unchanged: number; tree_size: number | null } | null;
  plan: PublishPlan | null;
  /** The forecast's days (empty when the history was too short to fit). */
  forecast: ForecastRow[];
  /** The regime strategy over the whole history, against buy-and-hold SPY. */
  performance: Pick<PerformanceReport, 'days' | 'sharpe' | 'total_return' | 'max_drawdown' | 'alpha'> | null;
  timings_ms: Record<string, number>;
  warnings: string[];
}

function trackCounts(t: TrackAppend): NonNullable<RunSummary['track_log']> {
  const count = (kind: string): number => t.appended.filter((l) => l.kind === kind).length;
  return {
    live: count('live'),
    backfill: count('backfill'),
    republication: count('republication'),
    unchanged: t.unchanged,
    tree_size: t.head?.tree_size ?? null,
  };
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

export interface PipelineHooks {
  runner?: StageRunner;
  /** Asked before a publication that rewrites or removes published days; without it such a publication is refused. */
  confirm?: ConfirmPublication;
}

function summarize(ctx: PipelineContext, published: boolean): RunSummary {
  const signals = ctx.rows?.signals ?? [];
  const last = signals.at(-1) ?? ctx.resume?.last;
  const o = ctx.override;
  return {
    run_id: published ? ctx.run.run_id : null,
    mode: ctx.mode ?? 'full',
    published,
    as_of: ctx.options.asOf,
    days: signals.length,
    first_day: signals[0]?.date ?? null,
    last_day: last?.date ?? null,
    latest: last
      ? {
          date: last.date,
          regime: last.regime,
          risk_score: last.risk_score,
          confidence: last.confidence,
          probabilities: { expansion: last.prob_expansion, recovery: last.prob_recovery, tightening: last.prob_tightening, risk_off: last.prob_risk_off },
        }
      : null,
    broadcast_hash: ctx.broadcast?.hash ?? null,
    override: o ? { id: o.id, regime: o.regime, date: o.date, published_by: o.published_by, reason: o.reason } : null,
    track_log: ctx.track ? trackCounts(ctx.track) : null,
    plan: ctx.plan ?? null,
    forecast: ctx.reports?.forecast?.envelope.forecast ?? [],
    performance: ctx.reports
      ? (({ days, sharpe, total_return, max_drawdown, alpha }) => ({ days, sharpe, total_return, max_drawdown, alpha }))(ctx.reports.performance)
      : null,
    timings_ms: ctx.timings,
    warnings: [...(ctx.frame?.vintage.warnings ?? []), ...ctx.notes],
  };
}

export async function runPipeline(sql: Sql, options: PipelineOptions, hooks: PipelineHooks = {}): Promise<RunSummary> {
  const runner = hooks.runner ?? runSequentially;
  const run: RunRecord = {
    run_id: randomUUID(),
    started_at: new Date(clockOf(options)()),
    as_of: options.asOf,
    data_vintage: null,
    model_version: MODEL_VERSION,
    seed: options.seed,
    parameters: { walk_forward: { ...DEFAULT_WALK_FORWARD, seed: options.seed }, data_dir: options.dataDir },
  };
  const ctx: PipelineContext = { sql, options, run, timings: {}, notes: [], published: await publishedRange(sql) };
  if (isWhatIf(options)) {
    await runner(STAGES, ctx);
    return summarize(ctx, false);
  }
  // A backfill that would remove the days after its cut is refused before any work, unless forced.
  if (options.asOf !== null && !options.force && ctx.published.last !== null && ctx.published.last > options.asOf) {
    throw new TradesealError(
      'published_days_would_be_removed',
      `a backfill as of ${options.asOf} would remove the published days after it (the history runs to ${ctx.published.last}); nothing was published`,
      {
        hint: 'without --publish, --as-of computes and reports without writing; removing published days needs --force and a confirmation',
      },
    );
  }
  return withRunLock(sql, run, async (conn) => {
    ctx.conn = conn;
    // Read again under the lock: what the run may do is judged against the history as no other run can change it.
    ctx.published = await publishedRange(sql);
    await runner(STAGES, ctx);
    await plan(ctx, hooks.confirm);
    await runner([PUBLISH_STAGE], ctx);
    // The publish stage's own timing is known only after its transaction: record the complete set.
    await conn`update model_runs set timings_ms = ${conn.json(ctx.timings)} where run_id = ${run.run_id}`;
    return summarize(ctx, true);
  });
}
