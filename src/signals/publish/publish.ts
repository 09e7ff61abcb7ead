/**
 * Publishing a run: every table a run writes is replaced together in ONE transaction, so readers never see
 * half a run (docs/decisions/0036-publishing.md): the signal packages, net liquidity, the scorecard, the fitted
 * models, the market closes, the stress indicators' levels, the forecast, the performance report and chart
 * data, the run record with its publication plan and the digests of its inputs (input-record.ts), and the
 * regime broadcast of the newest day (source `pipeline`), which every engine instance enforces within a
 * second, unless an operator's override is in force: then the history is published and the override stays
 * (src/store/regime-broadcasts.ts), and every day whose package is new or changed as a leaf of the signal service's
 * track log under a new signed head (src/signals/store/track-log.ts): a day is never published unlogged.
 * What may be replaced was decided before (`plan.ts`, `run.ts`); this module writes what it is told.
 */
import type postgres from 'postgres';
import { transactionOn } from '../../store/advisory-lock.js';
import { publishFromPipeline, type PipelineBroadcast } from '../../store/regime-broadcasts.js';
import { signalsBetween } from '../store/published.js';
import { appendPublishedDays, type TrackAppend } from '../store/track-log.js';
import type { TrackLogKey } from '../track/key.js';
import { signalDayRecord } from '../../core/records/signal-day.js';
import { recordInputDigests } from './input-record.js';
import { sameSignal, type PublishPlan } from '../../../pipeline/publish/plan.js';
import { publishedWithVintage } from './published.js';
import type { Publication, SignalDay } from '../../../pipeline/publish/types.js';

const CHUNK = 1000;

async function insertChunked(conn: postgres.ReservedSql, table: string, rows: object[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK) as Array<Record<string, postgres.ParameterOrJSON<never>>>;
    await conn`insert into ${conn(table)} ${conn(chunk)}`;
  }
}

export interface Published extends PipelineBroadcast {
  /** What the track log took of the publication. */
  track: TrackAppend;
}

/**
 * Replaces published rows from `replaceFrom` on (all rows when null) with the publication's, logs the days
 * in the track log (signed with `trackKey`, at `clock.nowMs`), records the run as published with its plan, and
 * broadcasts the newest day's regime unless an override holds (at `clock.nowMs` when the run has a clock of its
 * `own`, else at the store's clock).
 */
export async function publish(
  conn: postgres.ReservedSql,
  pub: Publication,
  replaceFrom: string | null,
  plan: PublishPlan,
  trackKey: TrackLogKey,
  previousLast: SignalDay | null = null,
  clock: { nowMs: number; own: boolean } = { nowMs: Date.now(), own: false },
): Promise<Published> {
  return transactionOn(conn, async (tx) => {
    // A full publication keeps the data vintage of every day it publishes again with the same numbers: the day's
    // package stays byte for byte what was logged, so the track log takes only the days that changed.
    const before = replaceFrom === null ? await publishedWithVintage(tx) : new Map<string, { signal: SignalDay; data_vintage: Date }>();
    const vintageOf = (s: SignalDay): Date => {
      const old = before.get(s.date);
      return old && sameSignal(s, old.signal) ? old.data_vintage : pub.dataVintageAt;
    };
    for (const table of ['signal_days', 'net_liquidity', 'scorecard_days', 'market_days', 'indicator_days']) {
      if (replaceFrom === null) await tx`delete from ${tx(table)}`;
      else await tx`delete from ${tx(table)} where date >= ${replaceFrom}`;
    }
    await insertChunked(
      tx,
      'signal_days',
      pub.signals.map((s) => ({ ...s, run_id: pub.run.run_id, data_vintage: vintageOf(s) })),
    );
    await insertChunked(tx, 'net_liquidity', pub.liquidity);
    await insertChunked(tx, 'scorecard_days', pub.scorecard);
    await insertChunked(tx, 'market_days', pub.market);
    await insertChunked(tx, 'indicator_days', pub.indicators);
    // The days' signal-day records (what `GET /v1/signals/{date}` is built from), read back from the rows just written.
    const first = pub.signals[0]?.date ?? null;
    const newest = pub.signals.at(-1)?.date ?? null;
    const records = first && newest ? (await signalsBetween(tx, first, newest)).map((row) => ({ date: row.date, record: signalDayRecord(row) })) : [];
    const track = await appendPublishedDays(tx, records, trackKey, clock.nowMs, pub.run.run_id);
    for (const f of pub.fits) {
      await tx`insert into model_fits (run_id, fit_date, pca, hmm) values (${pub.run.run_id}, ${f.fit_date}, ${tx.json(f.pca as never)}, ${tx.json(f.hmm as never)})`;
    }
    const { forecast, performance, chart } = pub.reports;
    if (forecast) {
      await tx`insert into forecasts (run_id, generated_at, base_date, horizon, rows, models)
               values (${pub.run.run_id}, ${forecast.envelope.generated_at}, ${forecast.base_date}, ${forecast.envelope.horizon},
                       ${tx.json(forecast.envelope.forecast as never)}, ${tx.json(forecast.models as never)})`;
    }
    if (performance.first_day && performance.last_day) {
      await tx`insert into performance_reports (run_id, generated_at, first_day, last_day, performance, chart_data)
               values (${pub.run.run_id}, clock_timestamp(), ${performance.first_day}, ${performance.last_day}, ${tx.json(performance as never)}, ${tx.json(chart as never)})`;
    }
    // An incremental run with no new day broadcasts the newest published day again (the same content keeps
    // its effective_since); its data do not get younger for it (the engine measures age from the data day).
    const last = pub.signals[pub.signals.length - 1] ?? previousLast;
    await tx`
      update model_runs set status = 'published', finished_at = clock_timestamp(), data_vintage = ${tx.json(pub.run.data_vintage as never)}, pca_fit_date = ${pub.pcaFitDate || null},
        hmm_fit_date = ${pub.hmmFitDate || null}, days = ${pub.signals.length}, first_day = ${first}, last_day = ${last?.date ?? null},
        timings_ms = ${tx.json(pub.timingsMs)}, publish_plan = ${tx.json(plan as never)}, confirmed_by = ${pub.confirmedBy}
      where run_id = ${pub.run.run_id}`;
    if (pub.inputDigests) await recordInputDigests(tx, pub.run.run_id, pub.inputDigests);
    if (!last) return { broadcast: null, override: null, track };
    const broadcast = await publishFromPipeline(tx, {
      date: last.date,
      regime: last.regime,
      risk_score: last.risk_score,
      probabilities: { expansion: last.prob_expansion, recovery: last.prob_recovery, tightening: last.prob_tightening, risk_off: last.prob_risk_off },
      model_version: pub.run.model_version,
      reason: `pipeline run ${pub.run.run_id}`,
      published_by: 'pipeline',
      available_at: last.available_at,
      // A run on a clock of its own publishes the broadcast at its time; otherwise the store's clock decides.
      published_at_ms: clock.own ? clock.nowMs : null,
    });
    return { ...broadcast, track };
  });
}
