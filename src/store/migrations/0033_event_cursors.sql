-- How far each subscriber has read an event stream of the store. The regime broadcasts (regime_broadcasts, append-only,
-- ids in commit order: every insert holds the broadcast lock until it commits) are the events the signal service
-- subscribes to for its `regime_change` webhooks (src/signals/webhooks/regime-change.ts): it queues the deliveries
-- of the broadcasts after its cursor and moves the cursor in the same transaction, so each committed broadcast is
-- read once. The cursor starts at the newest broadcast: broadcasts made before this migration queued their
-- deliveries when they were made.
create table event_cursors (
  subscriber text primary key,
  last_id bigint not null
);

insert into event_cursors (subscriber, last_id)
select 'webhooks.regime_change', coalesce(max(id), 0) from regime_broadcasts;
