-- A bind that resolves the ORPHAN of its execution (migration 0030) does so in its own statement; the comparison,
-- the fill's move to the bound trace and the `orphan.resolved` audit entry follow in a transaction of their own
-- (src/engine/reconcile/resolve.ts), which sets resolution_recorded_at. Should that second step not happen (the
-- process stopped in between, the store failed), the sweeper completes every resolution not recorded yet.
alter table orphan_executions add column resolution_recorded_at timestamptz;
update orphan_executions set resolution_recorded_at = resolved_at where resolved_by is not null;
create index orphan_executions_unrecorded on orphan_executions (exchange_tx_id) where resolved_by is not null and resolution_recorded_at is null;
