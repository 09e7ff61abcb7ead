/**
 * The method, named in every run record and compared before a run extends a history: a history made by
 * another version is recomputed only with `--full`. Version 1 had the 10Y−2Y curve's level among its inputs
 * (instead of the equity trend), one warm restart per refit, and published the most likely regime every day;
 * version 2 refitted on an expanding window (every day since the first complete one) and published a new
 * regime only at p >= 0.8 (risk_off at once); version 3 kept that rule on the last nine years; version 4
 * publishes the most likely regime again, on the last nine years.
 */
export const MODEL_VERSION =
  'tradeseal-regime-5: PCA(4) of 8 standardized features (with the equity trend, without the curve) + 4-state Gaussian HMM, monthly walk-forward on a rolling 9-year window (deterministic starts: no seed), the most likely regime published each day, computed from what was released by 06:30 New York the next trading day';
