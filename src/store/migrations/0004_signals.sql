-- The regime signal service's published data, written by the pipeline in one transaction per run.

-- Every pipeline run, with what is needed to recompute what it published.
create table model_runs (
  run_id        uuid primary key,
  started_at    timestamptz not null,
  finished_at   timestamptz,
  status        text not null check (status in ('running', 'published', 'failed')),
  as_of         date,
  data_vintage  jsonb,
  model_version text not null,
  seed          bigint not null,
  parameters    jsonb not null,
  pca_fit_date  date,
  hmm_fit_date  date,
  days          integer,
  first_day     date,
  last_day      date,
  timings_ms    jsonb,
  error         text
);
create index model_runs_by_start on model_runs (started_at desc);

-- One signal package per trading day (the walk-forward output: day t uses only data usable on t).
create table signal_days (
  date                             date primary key,
  run_id                           uuid not null,
  regime                           text not null check (regime in ('expansion', 'recovery', 'tightening', 'risk_off')),
  prob_expansion                   double precision not null,
  prob_recovery                    double precision not null,
  prob_tightening                  double precision not null,
  prob_risk_off                    double precision not null,
  risk_score                       double precision not null,
  confidence                       text not null check (confidence in ('HIGH', 'MODERATE', 'LOW')),
  persistence_days                 integer not null,
  expected_duration_remaining_days integer not null,
  level_bn                         double precision not null,
  change_4w_bn                     double precision not null,
  liquidity_zscore                 double precision not null,
  liquidity_trend                  text not null check (liquidity_trend in ('EXPANDING', 'CONTRACTING', 'FLAT')),
  pc1                              double precision not null,
  pc2                              double precision not null,
  pc3                              double precision not null,
  pc4                              double precision not null,
  variance_explained_pct           double precision[] not null,
  pca_fit_date                     date not null,
  hmm_fit_date                     date not null,
  data_vintage                     timestamptz not null
);

-- Net liquidity per trading day, in billions of USD.
create table net_liquidity (
  date          date primary key,
  fed_assets_bn double precision not null,
  rrp_bn        double precision not null,
  tga_bn        double precision not null,
  level_bn      double precision not null,
  change_4w_bn  double precision not null,
  zscore        double precision not null,
  trend         text not null check (trend in ('EXPANDING', 'CONTRACTING', 'FLAT'))
);

-- The five gauges per trading day, each in [-1, 1].
create table scorecard_days (
  date               date primary key,
  growth_momentum    double precision not null,
  inflation_momentum double precision not null,
  liquidity          double precision not null,
  financial_stress   double precision not null,
  dollar_strength    double precision not null
);

-- The fitted models of each refit of a run (PCA and HMM parameters), so a later incremental run can carry on.
create table model_fits (
  run_id    uuid not null references model_runs (run_id) on delete cascade,
  fit_date  date not null,
  pca       jsonb not null,
  hmm       jsonb not null,
  primary key (run_id, fit_date)
);

-- A regime broadcast that repeats the one in force keeps its `effective_since`: agents who acted on it are
-- not behind (the agent_valid_time lag is measured from when the regime content took effect), while the new
-- `published_at` keeps it fresh for the maximum-age rule.
alter table regime_broadcasts add column effective_since timestamptz;
update regime_broadcasts set effective_since = published_at;
alter table regime_broadcasts alter column effective_since set not null;
