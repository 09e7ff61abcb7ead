-- The signal service's track record: every published day's signal package is a leaf of an RFC 9162 Merkle tree
-- of its own (src/signals/track/, src/signals/store/track-log.ts), appended in the transaction that publishes the
-- day and signed by the service's own log key. A day republished with other content gets a new leaf; the first
-- leaf of a day is never replaced. Days published before this migration are not logged.

-- The leaves, by index. `data` is the leaf data: the canonical JSON (RFC 8785) text of the leaf's envelope, UTF-8
-- (the date, the kind, when it was logged, the signal package). `logged_at_ms` is the timestamp of the signed head
-- of the transaction that appended it.
create table signal_log_leaves (
  leaf_index   bigint primary key check (leaf_index >= 0),
  date         date not null,
  kind         text not null check (kind in ('live', 'backfill', 'republication')),
  run_id       uuid,
  data         bytea not null,
  logged_at_ms bigint not null
);
create index signal_log_leaves_by_date on signal_log_leaves (date, leaf_index);

-- Perfect subtrees {level, idx} (the 2^level leaves from idx·2^level), level 0 (the leaf hashes) included, stored
-- once complete.
create table signal_log_nodes (
  level smallint not null check (level between 0 and 63),
  idx   bigint not null check (idx >= 0),
  hash  bytea not null check (octet_length(hash) = 32),
  primary key (level, idx)
);

-- Every signed tree head, by size.
create table signal_log_heads (
  tree_size    bigint primary key check (tree_size >= 0),
  root_hash    bytea not null check (octet_length(root_hash) = 32),
  timestamp_ms bigint not null,
  signature    bytea not null check (octet_length(signature) = 64),
  key_id       text not null check (key_id ~ '^[0-9a-f]{64}$')
);

-- The tree's size and the newest head's timestamp (heads never go back in time, whatever the clocks).
create table signal_log_state (
  singleton         boolean primary key default true check (singleton),
  tree_size         bigint not null default 0 check (tree_size >= 0),
  last_timestamp_ms bigint not null,
  created_at_ms     bigint not null
);
insert into signal_log_state (last_timestamp_ms, created_at_ms)
  select t, t from (select (extract(epoch from clock_timestamp()) * 1000)::bigint as t) now_ms;

-- What is logged stays as logged: no statement changes or deletes a leaf, a node or a head.
create function signal_log_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'the signal track log is append-only: % on % refused', tg_op, tg_table_name using errcode = '55000';
end $$;
create trigger signal_log_leaves_append_only before update or delete on signal_log_leaves
  for each row execute function signal_log_append_only();
create trigger signal_log_nodes_append_only before update or delete on signal_log_nodes
  for each row execute function signal_log_append_only();
create trigger signal_log_heads_append_only before update or delete on signal_log_heads
  for each row execute function signal_log_append_only();
