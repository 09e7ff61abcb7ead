-- What the FIX drop-copy session's state row says beside its state, for the officer (`engine dropcopy status`):
-- while the initiator waits to connect again, why the last attempt failed and when the next one is due; null
-- otherwise. Written by the process running the session with each state (src/engine/dropcopy/runner.ts).
alter table dropcopy_sessions add column state_detail text;
