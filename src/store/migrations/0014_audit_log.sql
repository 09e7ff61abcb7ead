-- The engine's audit log: every admin action and every refused authorization, as a hash chain.
--
-- Each entry's entry_hash is SHA-256 over the JCS of {id, at, actor, action, target_id, details, prev_hash}
-- (src/engine/audit/entry.ts), prev_hash being the entry_hash of the entry before it, or 64 zeros for the
-- first. `seq` orders the chain; it is not part of the hashed entry (the links are). `at` is kept to the
-- millisecond, so the ISO 8601 text served and hashed is exactly what is stored.
--
-- Appends serialize on a transaction-scoped advisory lock (src/engine/audit/append.ts); the unique index on
-- prev_hash makes a fork impossible even so: two entries can never follow the same one.
-- The table is append-only: a trigger refuses UPDATE, DELETE and TRUNCATE.

create table audit_log (
  seq        bigint generated always as identity primary key,
  id         uuid not null unique,
  at         timestamptz not null check (at = date_trunc('milliseconds', at)),
  actor      text not null,
  action     text not null,
  target_id  uuid,
  -- The JCS text of the details, exactly as hashed (text, not jsonb: jsonb refuses \u0000 and rewrites numbers,
  -- and a refused order's fields are recorded as sent).
  details    text not null,
  prev_hash  text not null unique check (prev_hash ~ '^[0-9a-f]{64}$'),
  entry_hash text not null unique check (entry_hash ~ '^[0-9a-f]{64}$')
);

create index audit_log_by_action on audit_log (action, seq desc);
create index audit_log_by_target on audit_log (target_id, seq desc);
create index audit_log_by_at on audit_log (at, seq desc);

create function audit_log_append_only() returns trigger
language plpgsql as $$
begin
  raise exception 'audit_log is append-only: % refused', tg_op using errcode = 'insufficient_privilege';
end $$;

create trigger audit_log_no_update_delete before update or delete on audit_log
  for each row execute function audit_log_append_only();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_append_only();
