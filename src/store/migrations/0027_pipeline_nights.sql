-- The nightly job (`tradeseal pipeline nightly`, `pipeline schedule`): one row per night, for the trading day that
-- was due (its regime is published at 06:30 New York on the next trading day). A night fetches every source,
-- checks that each series holds the rows its release rule says are out, and runs the pipeline; when a series is
-- late or a source is down it tries again until its deadline, then gives up without publishing anything, and
-- the row says why. `pipeline status` shows the nights; `/metrics` counts the days due and not published.
create table pipeline_nights (
  night_id    uuid primary key,
  started_at  timestamptz not null,
  -- The newest trading day due when the night started.
  due_day     date not null,
  deadline    timestamptz not null,
  status      text not null check (status in ('running', 'published', 'late', 'refused', 'failed')),
  attempts    integer not null default 0 check (attempts >= 0),
  -- Why the due day is not (yet) published: the late series and the rows they lack, a source's error, a refusal.
  reason      text,
  -- The late series of the last attempt ([{series, file, last_row, needed_row, released_at, rule}]).
  late        jsonb,
  -- What the last fetch wrote, per file ({file: {source, fetched_at, sha256, rows, last_date, revisions}}).
  fetched     jsonb,
  -- The code of the error that ended the night, if one did (the error table's code).
  error_code  text,
  run_id      uuid references model_runs (run_id) on delete set null,
  finished_at timestamptz
);
create index pipeline_nights_by_start on pipeline_nights (started_at desc);
