-- Signed checkpoints of the audit chain's head (src/engine/audit/checkpoint.ts, anchor.ts).
--
-- A checkpoint says: the chain's entry number `size` (1 = the oldest) is `entry_id`, whose entry_hash is
-- `entry_hash`; the transparency log's key signed that, at `timestamp_ms`. Because each entry's hash covers
-- the one before it, the checkpoint fixes every entry up to it: `tradeseal engine audit-log verify` then
-- refuses a chain that ends before the anchored entry or holds another one in its place.
-- `seq` is the audit_log.seq of the anchored entry: where the next checkpoint starts counting (not signed).
-- The table is append-only, as audit_log is.

create table audit_checkpoints (
  size         bigint primary key check (size > 0),
  seq          bigint not null unique,
  entry_id     uuid not null,
  entry_hash   text not null check (entry_hash ~ '^[0-9a-f]{64}$'),
  timestamp_ms bigint not null,
  signature    bytea not null,
  key_id       text not null
);

create function audit_checkpoints_append_only() returns trigger
language plpgsql as $$
begin
  raise exception 'audit_checkpoints is append-only: % refused', tg_op using errcode = 'insufficient_privilege';
end $$;

create trigger audit_checkpoints_no_update_delete before update or delete on audit_checkpoints
  for each row execute function audit_checkpoints_append_only();
create trigger audit_checkpoints_no_truncate before truncate on audit_checkpoints
  for each statement execute function audit_checkpoints_append_only();
