/**
 * Publishing a run: every table a run writes is replaced together in ONE transaction, so readers never see
 * half a run (PIPELINE.md, "Publishing"): the signal packages, net liquidity, the scorecard, the fitted
 * models, the run record, and the regime broadcast of the newest day (source `pipeline`), which every
 * engine instance enforces within a second.
 */
import type postgres from 'postgres';
import type { Sql } from '../../src/store/driver.js';
import { transactionOn } from '../../src/store/advisory-lock.js';
import { publishRegime, type RegimeBroadcast } from '../../src/engine/store/regime.js';
import type { Publication, SignalDay } from './types.js';

const CHUNK = 1000;

async function insertChunked(conn: postgres.ReservedSql, table: string, rows: object[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK) as Array<Record<string, postgres.ParameterOrJSON<never>>>;
    await conn`insert into ${conn(table)} ${conn(chunk)}`;
  }
}

/**
 * Replaces published rows from `replaceFrom` on (all rows when null) with the publication's, records the
 * run as published, and broadcasts the newest day's regime. Returns the broadcast.
 */
export async function publish(conn: postgres.ReservedSql, pub: Publication, replaceFrom: string | null, previousLast: SignalDay | null = null): Promise<RegimeBroadcast | null> {
  return transactionOn(conn, async (tx) => {
    for (const table of ['signal_days', 'net_liquidity', 'scorecard_days']) {
      if (replaceFrom === null) await tx`delete from ${tx(table)}`;
      else await tx`delete from ${tx(table)} where date >= ${replaceFrom}`;
    }
    await insertChunked(tx, 'signal_days', pub.signals.map((s) => ({ ...s, run_id: pub.run.run_id, data_vintage: pub.dataVintageAt })));
    await insertChunked(tx, 'net_liquidity', pub.liquidity);
    await insertChunked(tx, 'scorecard_days', pub.scorecard);
    for (const f of pub.fits) {
      await tx`insert into model_fits (run_id, fit_date, pca, hmm) values (${pub.run.run_id}, ${f.fit_date}, ${tx.json(f.pca as never)}, ${tx.json(f.hmm as never)})`;
    }
    const first = pub.signals[0]?.date ?? null;
    // An incremental run with no new day re-broadcasts the newest published day, which keeps it fresh.
    const last = pub.signals[pub.signals.length - 1] ?? previousLast;
    await tx`
      update model_runs set status = 'published', finished_at = clock_timestamp(), data_vintage = ${tx.json(pub.run.data_vintage as never)}, pca_fit_date = ${pub.pcaFitDate || null},
        hmm_fit_date = ${pub.hmmFitDate || null}, days = ${pub.signals.length}, first_day = ${first}, last_day = ${last?.date ?? null},
        timings_ms = ${tx.json(pub.timingsMs)}
      where run_id = ${pub.run.run_id}`;
    if (!last) return null;
    return publishRegime(tx as unknown as Sql, {
      date: last.date,
      regime: last.regime,
      risk_score: last.risk_score,
      probabilities: { expansion: last.prob_expansion, recovery: last.prob_recovery, tightening: last.prob_tightening, risk_off: last.prob_risk_off },
      model_version: pub.run.model_version,
      source: 'pipeline',
      reason: `pipeline run ${pub.run.run_id}`,
      published_by: 'pipeline',
    });
  });
}
