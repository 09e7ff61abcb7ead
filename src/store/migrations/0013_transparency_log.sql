-- The engine's transparency log: every trace's reasoning_hash, and its final_proof once bound, is a leaf of an
-- RFC 9162 Merkle tree (leaf data: the 32 bytes of the hash). See src/engine/log/ and src/engine/store/log-*.ts.
--
-- Triggers on traces fill log_queue in the transaction that writes the trace, so a committed trace always has
-- its queued leaves and a rolled-back one never does, while authorize and bind do no Merkle work. One sequencer
-- at a time (a transaction-scoped advisory lock, and the row lock on log_state) moves committed queue rows
-- into log_leaves with consecutive indexes, stores the perfect subtrees they complete and signs a tree head.

-- Leaves waiting for the sequencer. `id` orders them: a trace's reasoning_hash before its final_proof.
create table log_queue (
  id       bigint generated always as identity primary key,
  trace_id uuid not null,
  agent_id uuid not null,
  kind     text not null check (kind in ('reasoning_hash', 'final_proof')),
  data     bytea not null check (octet_length(data) = 32)
);

-- The leaves, by index. `sequenced_at` is the timestamp (Unix ms) of the first signed head that includes the leaf.
create table log_leaves (
  leaf_index   bigint primary key check (leaf_index >= 0),
  trace_id     uuid not null,
  agent_id     uuid not null,
  kind         text not null check (kind in ('reasoning_hash', 'final_proof')),
  data         bytea not null check (octet_length(data) = 32),
  sequenced_at bigint not null,
  unique (trace_id, kind)
);

-- Perfect subtrees {level, idx}: the 2^level leaves from idx·2^level, stored once complete and never changed
-- (level 0: the leaf hashes). About 2n rows for n leaves; a head or a proof reads O(log n) of them.
create table log_nodes (
  level smallint not null check (level between 0 and 63),
  idx   bigint not null check (idx >= 0),
  hash  bytea not null check (octet_length(hash) = 32),
  primary key (level, idx)
);

-- Every signed tree head the sequencer made, by size.
create table log_heads (
  tree_size    bigint primary key check (tree_size >= 0),
  root_hash    bytea not null check (octet_length(root_hash) = 32),
  timestamp_ms bigint not null,
  signature    bytea not null check (octet_length(signature) = 64),
  key_id       text not null check (key_id ~ '^[0-9a-f]{64}$')
);

-- The tree's size and the newest head's timestamp (heads never go back in time, whatever the clocks).
create table log_state (
  singleton         boolean primary key default true check (singleton),
  tree_size         bigint not null default 0 check (tree_size >= 0),
  last_timestamp_ms bigint not null,
  created_at_ms     bigint not null
);
insert into log_state (last_timestamp_ms, created_at_ms)
  select t, t from (select (extract(epoch from clock_timestamp()) * 1000)::bigint as t) now_ms;

-- The log's Ed25519 signing key (a 32-byte seed) when LOG_SIGNING_KEY is not set: generated on first use.
create table log_signing_key (
  singleton  boolean primary key default true check (singleton),
  secret_key bytea not null check (octet_length(secret_key) = 32),
  created_at timestamptz not null default now()
);

-- Queues a trace's leaves: its reasoning_hash when it is inserted, its final_proof when it is set (bind, or an
-- insert that carries one). A value that is not a SHA-256 hex digest is not a hash of the engine's and is not logged.
create function log_enqueue_trace_leaves() returns trigger language plpgsql as $$
begin
  -- The UPDATE trigger fires only when final_proof goes from null to a value (its WHEN clause).
  if tg_op = 'INSERT' and new.reasoning_hash ~ '^[0-9a-f]{64}$' then
    insert into log_queue (trace_id, agent_id, kind, data) values (new.trace_id, new.agent_id, 'reasoning_hash', decode(new.reasoning_hash, 'hex'));
  end if;
  if new.final_proof ~ '^[0-9a-f]{64}$' then
    insert into log_queue (trace_id, agent_id, kind, data) values (new.trace_id, new.agent_id, 'final_proof', decode(new.final_proof, 'hex'));
  end if;
  return null;
end $$;

-- Row triggers on the partitioned table apply to every partition, present and future.
create trigger traces_log_insert after insert on traces
  for each row execute function log_enqueue_trace_leaves();
create trigger traces_log_final_proof after update of final_proof on traces
  for each row when (old.final_proof is null and new.final_proof is not null) execute function log_enqueue_trace_leaves();

-- Traces sealed before this migration: queued in the order they were sealed, then bound.
insert into log_queue (trace_id, agent_id, kind, data)
  select trace_id, agent_id, kind, data from (
    select trace_id, agent_id, 'reasoning_hash' as kind, decode(reasoning_hash, 'hex') as data, txn_time as at, 0 as step
      from traces where reasoning_hash ~ '^[0-9a-f]{64}$'
    union all
    select trace_id, agent_id, 'final_proof', decode(final_proof, 'hex'), coalesce(bound_at, txn_time), 1
      from traces where final_proof ~ '^[0-9a-f]{64}$'
  ) existing
  order by at, step, trace_id;
