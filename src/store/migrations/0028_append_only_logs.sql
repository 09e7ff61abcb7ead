-- What is logged stays logged, TRUNCATE included. The signal service's track log (0025) refused UPDATE and DELETE
-- by row triggers, but a statement-level TRUNCATE of its tables and a reset of its state row went through, and a
-- log of the same size could then be written again under the same key; the engine's transparency log (0013) had
-- no trigger at all. Now every table of both logs refuses UPDATE, DELETE and TRUNCATE, and each log's state row
-- refuses DELETE and TRUNCATE and every UPDATE but the sequencer's: its size and its last timestamp only grow,
-- and its creation time is fixed once anything is logged. (The audit log and its checkpoints, 0014 and 0019,
-- refused all of these already.) The engine's queue of leaves to log (log_queue) is a work queue, emptied by its
-- sequencer row by row, so it refuses TRUNCATE only: dropping it whole would lose leaves of committed traces.
--
-- A table's owner can still disable a trigger: these refuse the statements of an application, a mistake, a casual
-- tamperer; what proves a log is its signed heads, which a subscriber or an officer keeps (docs/proving.md).

create function log_append_only() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only: % refused', tg_table_name, tg_op using errcode = '55000';
end $$;

create trigger log_leaves_append_only before update or delete on log_leaves for each row execute function log_append_only();
create trigger log_nodes_append_only before update or delete on log_nodes for each row execute function log_append_only();
create trigger log_heads_append_only before update or delete on log_heads for each row execute function log_append_only();
create trigger log_leaves_no_truncate before truncate on log_leaves for each statement execute function log_append_only();
create trigger log_nodes_no_truncate before truncate on log_nodes for each statement execute function log_append_only();
create trigger log_heads_no_truncate before truncate on log_heads for each statement execute function log_append_only();
create trigger log_queue_no_truncate before truncate on log_queue for each statement execute function log_append_only();

create trigger signal_log_leaves_no_truncate before truncate on signal_log_leaves for each statement execute function log_append_only();
create trigger signal_log_nodes_no_truncate before truncate on signal_log_nodes for each statement execute function log_append_only();
create trigger signal_log_heads_no_truncate before truncate on signal_log_heads for each statement execute function log_append_only();

-- A log's state row: deleted or truncated never; updated only forward. While nothing is logged (size 0) its
-- timestamps may be set (a store begun on another clock); once a leaf is logged, never back.
create function log_state_forward_only() returns trigger language plpgsql as $$
begin
  if tg_op <> 'UPDATE' then
    raise exception '%: % refused: the log''s state row stays', tg_table_name, tg_op using errcode = '55000';
  end if;
  if new.tree_size < old.tree_size
     or (old.tree_size > 0 and (new.last_timestamp_ms < old.last_timestamp_ms or new.created_at_ms <> old.created_at_ms)) then
    raise exception '%: UPDATE refused: a log''s size and time only grow (size % to %, last timestamp % to %)',
      tg_table_name, old.tree_size, new.tree_size, old.last_timestamp_ms, new.last_timestamp_ms using errcode = '55000';
  end if;
  return new;
end $$;

create trigger log_state_forward_only before update or delete on log_state for each row execute function log_state_forward_only();
create trigger log_state_no_truncate before truncate on log_state for each statement execute function log_state_forward_only();
create trigger signal_log_state_forward_only before update or delete on signal_log_state for each row execute function log_state_forward_only();
create trigger signal_log_state_no_truncate before truncate on signal_log_state for each statement execute function log_state_forward_only();
