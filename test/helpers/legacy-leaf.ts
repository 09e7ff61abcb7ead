/**
 * A track-log leaf as the service wrote it before signal-day records: no `entry_type`, the day under `package`,
 * which was the signal package `GET /v1/signals/{date}` served, built by the function below (a copy of
 * src/signals/views.ts `signalPackage` as it stood from 84b0d9c until records, kept here apart from the code
 * under test). The tests that show such leaves still verify write them with it.
 */
import type { SignalDayRow } from '../../src/core/records/signal-day.js';
import { canonicalJson } from '../../src/core/crypto/jcs.js';
import type { TrackLeaf, TrackLeafKind } from '../../src/signals/track/leaf.js';

/** The signal package of a row, as the service served and logged it before records. */
export const packageBeforeRecords = (r: SignalDayRow): Record<string, unknown> => ({
  date: r.date,
  available_at: r.available_at,
  regime: {
    most_likely: r.regime,
    probabilities: { expansion: r.prob_expansion, recovery: r.prob_recovery, tightening: r.prob_tightening, risk_off: r.prob_risk_off },
    confidence: r.confidence,
    persistence_days: r.persistence_days,
    expected_duration_remaining_days: r.expected_duration_remaining_days,
  },
  net_liquidity: { level_bn: r.level_bn, change_4w_bn: r.change_4w_bn, zscore: r.liquidity_zscore, trend: r.liquidity_trend },
  pca_factors: { pc1: r.pc1, pc2: r.pc2, pc3: r.pc3, pc4: r.pc4, variance_explained_pct: r.variance_explained_pct },
  model_metadata: { pca_fit_date: r.pca_fit_date, hmm_fit_date: r.hmm_fit_date, data_vintage: r.data_vintage.toISOString() },
});

/**
 * A day's first leaf in the old form: `text` is its data byte for byte as the old code wrote them (written out
 * here, not by the code under test), `leaf` what the code under test is given to append it.
 */
export function legacyLeaf(row: SignalDayRow, loggedAtMs: number, kind: TrackLeafKind = 'backfill'): { leaf: TrackLeaf; text: string } {
  const envelope = { date: row.date, kind, logged_at: new Date(loggedAtMs).toISOString(), run_id: null, supersedes: null };
  const pkg = packageBeforeRecords(row);
  return { leaf: { ...envelope, entry_type: 'signal-day/v0', record: pkg }, text: canonicalJson({ ...envelope, package: pkg }) };
}
