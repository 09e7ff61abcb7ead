-- Reconciliation against an exchange drop copy (src/engine/reconcile/).
--
-- One row per execution recorded as an ORPHAN trace. Its primary key on exchange_tx_id is what makes
-- reconciling the same drop copy again create nothing new: traces is partitioned by txn_time, so it cannot
-- carry a unique key on exchange_tx_id itself. A concurrent reconciliation of the same execution waits on
-- the key and then finds it taken.
create table orphan_executions (
  exchange_tx_id text primary key,
  trace_id       uuid not null,
  txn_time       timestamptz not null,
  agent_id       uuid not null
);

-- Matching an execution to the trace bound with its exchange_tx_id.
create index traces_by_exchange_tx_id on traces (exchange_tx_id) where exchange_tx_id is not null;
-- The bound traces of an agent in a window: those the drop copy of that window should list.
create index traces_bound_by_agent_time on traces (agent_id, execution_time) where exchange_tx_id is not null;
