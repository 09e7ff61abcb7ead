-- The primary key (trace_id, txn_time) already serves lookups by trace_id; the separate index only cost a
-- write per authorize and per bind.
drop index traces_by_id;
