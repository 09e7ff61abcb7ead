-- Two costs taken off every authorize (issue: engine throughput against its lower bound).
--
-- 1. The message throttle's per-second counts are unlogged: counting an order writes no WAL, so the counting
--    statement's commit does not wait for a flush to disk. What it gives up: after a crash of PostgreSQL (not a
--    clean restart) the table is empty, so each agent's count for the current second starts again from zero: at
--    most one second's worth of orders more than the limit, once, after a crash. The counts are never kept
--    longer than a minute anyway (the sweeper prunes them), and a standby does not need them.
alter table agent_order_rate set unlogged;

-- 2. log_leaf() checks a SHA-256 hex digest without a bounded repetition: 64 bytes, none outside [0-9a-f] is
--    the same set of strings as '^[0-9a-f]{64}$' (64 bytes of ASCII hex digits are 64 characters), at about a
--    tenth of the cost; it runs twice for every trace sealed and every trace bound.
create or replace function log_leaf(hash text) returns bytea language sql immutable parallel safe as $$
  select case when octet_length(hash) = 64 and hash !~ '[^0-9a-f]' then decode(hash, 'hex') end
$$;
