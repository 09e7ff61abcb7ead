-- Three-way reconciliation of the drop copy (src/engine/reconcile/compare.ts, src/engine/dropcopy/apply.ts) and one
-- trace per execution whatever the order of arrival (src/engine/store/traces.ts, src/engine/bind.ts).
--
-- dropcopy_executions: a fill is identified as FIX identifies it, by its session, its trading day and its ExecID
-- (ExecID is unique within a trading day and session, not forever). The trading day is TradeDate (75) when the fill
-- carries one, else the UTC date of its TransactTime (60); rows applied before this migration take the UTC date of
-- their trace's execution time (their receipt's when they have no trace). Each row now keeps the fill's fields, so
-- that a repeat of its ExecID can be told a duplicate (the same fields) from a conflict (other fields), and the
-- quantities of one order's fills can be added up; rows applied before keep nulls there, and a repeat of one of them
-- is taken as a duplicate. `divergent`: a fill that differs from the authorization or the bind of its trace, the
-- fields in `differences`. `orphan_trace_id`: the ORPHAN trace the fill made before its bind arrived, resolved since
-- (trace_id is then the bound trace).
alter table dropcopy_executions
  add column trade_date date,
  add column asset text,
  add column side text,
  add column quantity double precision,
  add column price double precision,
  add column notional_currency text,
  add column agent_id uuid,
  add column client_order_id text,
  add column order_id text,
  add column execution_time timestamptz,
  add column differences jsonb,
  add column orphan_trace_id uuid;
update dropcopy_executions e
set trade_date = (coalesce((select t.execution_time from traces t where t.trace_id = e.trace_id limit 1), e.received_at) at time zone 'UTC')::date;
alter table dropcopy_executions alter column trade_date set not null;
alter table dropcopy_executions drop constraint dropcopy_executions_pkey;
alter table dropcopy_executions add primary key (session_key, trade_date, exec_id);
alter table dropcopy_executions drop constraint dropcopy_executions_outcome_check;
alter table dropcopy_executions add constraint dropcopy_executions_outcome_check check (outcome in ('matched', 'divergent', 'orphan', 'already_known'));
-- The fills of one trace (the order's cumulative quantity, the served trace), and of one exchange order (OrderID 37).
create index dropcopy_executions_by_trace on dropcopy_executions (trace_id) where trace_id is not null;
create index dropcopy_executions_by_order on dropcopy_executions (session_key, order_id) where order_id is not null;

-- A repeated ExecID (same session and trading day) whose fields differ from the fill recorded first: a conflict,
-- kept for the officer (never dropped, never applied over the first), with the fields that differ.
create table dropcopy_conflicts (
  id             uuid primary key,
  session_key    text not null,
  trade_date     date not null,
  exec_id        text not null,
  seq            integer not null,
  poss_dup       boolean not null,
  received_at    timestamptz not null,
  recorded_at    timestamptz not null,
  -- The trace the first fill was reconciled with.
  trace_id       uuid,
  -- [{field, recorded, received}]: the first fill's value and this one's.
  differences    jsonb not null,
  -- This fill's fields, as received.
  received       jsonb not null,
  audit_entry_id uuid
);
create index dropcopy_conflicts_by_time on dropcopy_conflicts (recorded_at desc);

-- orphan_executions becomes the claim of an execution by its one trace: an ORPHAN's (kind `orphan`, as before) or a
-- bind's (kind `bound`, written by the bind's statement). Both paths insert on its key, so a bind and a drop copy of
-- one execution serialize on it whichever comes first: a bind that finds an orphan's claim resolves it (resolved_by,
-- resolved_txn_time, resolved_at: the bound trace becomes the execution's trace; the ORPHAN trace is kept, and no
-- longer listed among what needs attention); a drop copy that finds a bind's claim is matched.
alter table orphan_executions
  add column kind text not null default 'orphan' check (kind in ('orphan', 'bound')),
  add column resolved_by uuid,
  add column resolved_txn_time timestamptz,
  add column resolved_at timestamptz,
  add column differences jsonb;
insert into orphan_executions (exchange_tx_id, trace_id, txn_time, agent_id, kind)
select distinct on (exchange_tx_id) exchange_tx_id, trace_id, txn_time, agent_id, 'bound'
from traces where exchange_tx_id is not null and status <> 'ORPHAN'
order by exchange_tx_id, txn_time, trace_id
on conflict (exchange_tx_id) do nothing;
-- The resolved ORPHAN traces, for the listings that leave them out.
create index orphan_executions_resolved on orphan_executions (trace_id) where resolved_by is not null;
create index orphan_executions_by_resolver on orphan_executions (resolved_by) where resolved_by is not null;
