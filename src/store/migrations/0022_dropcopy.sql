-- The FIX 4.4 drop-copy session run by `tradeseal serve` (src/engine/dropcopy/).
--
-- One row per session (BeginString:SenderCompID->TargetCompID). Its sequence numbers are the session's state
-- that must survive a restart or a failover to another instance:
-- - next_target_seq: every inbound MsgSeqNum below it has been applied (its fills reconciled, in the same
--   transaction that advanced it). After a crash the peer's next MsgSeqNum is higher, the session asks for a
--   resend, and the peer replays what was not applied (PossDupFlag 43=Y).
-- - next_sender_seq: never below the MsgSeqNum of a message already sent (a jump forward is answered with a
--   gap fill when the peer asks for it; a reused number would end the session).
-- - epoch: raised each time an instance takes the session; every write is fenced on it, so an instance that
--   lost the session (its lock connection died) can no longer write.
create table dropcopy_sessions (
  session_key      text primary key,
  role             text not null check (role in ('initiator', 'acceptor')),
  state            text not null default 'stopped',
  next_sender_seq  integer not null default 1 check (next_sender_seq >= 1),
  next_target_seq  integer not null default 1 check (next_target_seq >= 1),
  epoch            bigint not null default 0,
  owner            text,
  last_inbound_at  timestamptz,
  last_outbound_at timestamptz,
  last_logon_at    timestamptz,
  updated_at       timestamptz not null default now()
);

-- Messages this side sent, for answering the peer's ResendRequest (administrative messages are gap-filled,
-- Rejects and BusinessMessageRejects resent).
create table dropcopy_outbound (
  session_key text not null references dropcopy_sessions on delete cascade,
  seq         integer not null,
  msg_type    text not null,
  raw         text not null,
  sent_at     timestamptz not null,
  primary key (session_key, seq)
);

-- Every fill (ExecutionReport 35=8, ExecType 150=F) applied, once: the key on exec_id (ExecID 17, the
-- exchange_tx_id) is what makes a resent or duplicated fill change nothing, matched ones included
-- (orphan_executions covers only orphans).
create table dropcopy_executions (
  exec_id     text primary key,
  session_key text not null,
  seq         integer not null,
  poss_dup    boolean not null,
  received_at timestamptz not null,
  applied_at  timestamptz not null,
  outcome     text not null check (outcome in ('matched', 'orphan', 'already_known')),
  trace_id    uuid
);
create index dropcopy_executions_by_applied on dropcopy_executions (applied_at desc);

-- Every inbound message the session refused (malformed, unmappable) or could not read, kept for the officer:
-- what was received, how it was answered at the FIX level (35=3 Reject, 35=j BusinessMessageReject, or
-- none for bytes that were not a message, which the session's gap detection has the peer resend), and why.
create table dropcopy_rejects (
  id             uuid primary key,
  session_key    text not null,
  seq            integer,
  msg_type       text,
  received_at    timestamptz not null,
  answer         text not null check (answer in ('reject', 'business_reject', 'none')),
  reason_code    integer,
  ref_tag        integer,
  reason         text not null,
  raw            text not null,
  audit_entry_id uuid
);
create index dropcopy_rejects_by_time on dropcopy_rejects (received_at desc);
