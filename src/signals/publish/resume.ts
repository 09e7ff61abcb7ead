/**
 * The state an incremental run resumes from: every fit published so far by runs of the same model version
 * and seed (the newest run's fit for each date), and the last published day's probabilities, factors and
 * persistence. Null when there is nothing to resume (then the run is a full one).
 */
import type { Sql } from '../../store/driver.js';
import type { ModelFit, ResumePoint } from '../../../pipeline/model/walk-forward.js';
import { REGIMES } from '../../core/vocabulary.js';
import type { SignalDay } from '../../../pipeline/publish/types.js';

export interface StoredResume extends ResumePoint {
  last: SignalDay;
  persistence: { label: number; days: number };
}

export async function loadResumePoint(sql: Sql, modelVersion: string, seed: number): Promise<StoredResume | null> {
  const [last] = await sql<SignalDay[]>`
    select s.*, s.date::text as date, s.pca_fit_date::text as pca_fit_date, s.hmm_fit_date::text as hmm_fit_date
    from signal_days s join model_runs r using (run_id)
    where r.model_version = ${modelVersion} and r.seed = ${seed}
    order by s.date desc limit 1`;
  if (!last) return null;
  const rows = await sql<Array<{ fit_date: string; pca: ModelFit['pca']; hmm: ModelFit['hmm'] & { log_likelihood: number; iterations: number } }>>`
    select distinct on (f.fit_date) f.fit_date::text as fit_date, f.pca, f.hmm
    from model_fits f join model_runs r using (run_id)
    where r.status = 'published' and r.model_version = ${modelVersion} and r.seed = ${seed} and f.fit_date <= ${last.date}
    order by f.fit_date, r.started_at desc`;
  if (rows.length === 0) return null;
  return {
    fits: rows.map((r) => ({ fit_date: r.fit_date, pca: r.pca, hmm: r.hmm, log_likelihood: r.hmm.log_likelihood, iterations: r.hmm.iterations })),
    lastDate: last.date,
    lastProbs: [last.prob_expansion, last.prob_recovery, last.prob_tightening, last.prob_risk_off],
    lastFactors: [last.pc1, last.pc2, last.pc3, last.pc4],
    last,
    persistence: { label: REGIMES.indexOf(last.regime), days: last.persistence_days },
  };
}
