-- A per-agent cap on open exposure: the notional of the agent's authorized, unbound, unexpired orders plus
-- the new one (null: no cap). Authorize sums them under a lock on the agent's row, through the partial index.
alter table agents add column max_open_notional double precision check (max_open_notional > 0);

create index traces_open_by_agent on traces (agent_id) include (notional) where verification_status = 'Pending';
