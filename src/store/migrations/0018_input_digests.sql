-- What each published run read, so a later run can tell whether the inputs of the published days changed
-- (pipeline/publish/input-digests.ts): per series, the digest of its rows usable on or before the run's last
-- published day (`through`), and one digest per calendar year of those rows.
create table run_input_digests (
  run_id  uuid not null references model_runs (run_id) on delete cascade,
  series  text not null,
  through date not null,
  rows    integer not null,
  sha256  text not null,
  -- {"2019": "<sha256 of that year's canonical lines>", …}
  years   jsonb not null,
  primary key (run_id, series)
);

-- The text of each year's canonical lines (`date,value` per row), by its SHA-256: what lets a later run name
-- the first changed row. Content-addressed, so a run adds only the blocks that changed (the current year's).
create table input_blocks (
  sha256 text primary key,
  body   text not null
);
