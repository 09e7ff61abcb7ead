-- The transparency log's queue rows are written by the engine's own statements (the one that seals a trace,
-- the one that binds it, the one that inserts an ORPHAN), in the same statement as the trace's row, instead of
-- by row triggers on `traces`: a plpgsql trigger per row cost about as much as the rest of the insert.
-- Every statement that writes a hash into traces (src/engine/store/traces.ts, src/engine/reconcile/store.ts)
-- queues its leaf through log_leaf() below, so the rule of what is logged has one definition; the tests
-- check each path (test/engine/log-queue-paths.test.ts). A trace written by hand in SQL is not queued.

drop trigger traces_log_insert on traces;
drop trigger traces_log_final_proof on traces;
drop function log_enqueue_trace_leaves();

-- A hash the engine logs: a SHA-256 hex digest as its 32 bytes; anything else (not a hash of the engine's) is
-- not logged (null). A plain SQL function, inlined by the planner.
create function log_leaf(hash text) returns bytea language sql immutable parallel safe as $$
  select case when hash ~ '^[0-9a-f]{64}$' then decode(hash, 'hex') end
$$;
