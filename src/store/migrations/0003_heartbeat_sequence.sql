-- Heartbeat sequence ids of the regime signal service: one Postgres sequence, so ids strictly increase
-- across every instance that issues heartbeats (spec/DECISIONS.md, "Regime signal service").
create sequence heartbeat_sequence_id as bigint minvalue 1 start 1 no cycle;
