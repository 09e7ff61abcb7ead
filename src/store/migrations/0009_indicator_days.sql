-- The levels of the market stress indicators on each published day, from the feature frame of the run that
-- published it (the audit decomposition's stress indicators are z-scores of these): VIX close (index
-- points), the high-yield option-adjusted spread (percent), the 10Y-2Y Treasury curve (percentage points)
-- and the broad dollar index (Jan 2006 = 100). Null where the frame has no value that day. Written in the
-- same transaction as the signal packages; days published before this table existed have no row until a
-- run rewrites them (`tradeseal pipeline run --full`).
create table indicator_days (
  date           date primary key,
  vix            double precision,
  hy_spread_pct  double precision,
  curve_10y2y_pp double precision,
  dollar         double precision
);
