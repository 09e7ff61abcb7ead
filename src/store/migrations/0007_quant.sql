-- What quants and analysts read, computed by each nightly run and published in the same transaction as the
-- regimes, so the HTTP layer only reads.

-- The base instrument and gold on each published day: the closes the backtest, the performance figures and
-- the chart data are computed from (SPY dividend-adjusted, GLD), so anyone can recompute them.
create table market_days (
  date      date primary key,
  spy_close double precision,
  gld_close double precision
);

-- The forecast of each publishing run: ARIMA(1,0,1) with a mean per probability column and for the risk
-- score, fitted on the published history up to `base_date`; `rows` holds the 10 business days after it.
create table forecasts (
  run_id       uuid primary key references model_runs (run_id) on delete cascade,
  generated_at timestamptz not null,
  base_date    date not null,
  horizon      integer not null check (horizon between 1 and 10),
  rows         jsonb not null,
  models       jsonb not null
);

-- The performance of the published history (the regime strategy against buy-and-hold) and the chart data of
-- its last 730 days, as of each publishing run.
create table performance_reports (
  run_id       uuid primary key references model_runs (run_id) on delete cascade,
  generated_at timestamptz not null,
  first_day    date not null,
  last_day     date not null,
  performance  jsonb not null,
  chart_data   jsonb not null
);
