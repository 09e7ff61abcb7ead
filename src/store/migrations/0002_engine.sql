-- The compliance engine: agents and their approved models, tokens, the regime broadcast, shadow mode,
-- heartbeat marks, the per-agent order rate, traces (partitioned by month of txn_time) and idempotency.

create table agents (
  agent_id        uuid primary key,
  name            text not null,
  status          text not null default 'Active' check (status in ('Active', 'Suspended', 'Deregistered')),
  status_reason   text,
  max_notional    double precision not null check (max_notional > 0),
  allowed_regimes text[] check (allowed_regimes <@ array['expansion', 'recovery', 'tightening', 'risk_off']),
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now()
);

create table agent_models (
  agent_id       uuid not null references agents (agent_id),
  model_id       text not null,
  model_hash_hex text not null check (model_hash_hex ~ '^[0-9a-f]{64}$'),
  created_at     timestamptz not null default now(),
  primary key (agent_id, model_id, model_hash_hex)
);

-- Tokens are stored only as SHA-256 hashes of the secret; the secret is shown once, at issue.
create table engine_tokens (
  token_id    uuid primary key,
  token_hash  text not null unique,
  client_name text not null,
  role        text not null check (role in ('client', 'owner', 'auditor')),
  agent_ids   uuid[],
  created_at  timestamptz not null default now(),
  expires_at  timestamptz,
  revoked_at  timestamptz
);

-- The regime broadcast: append-only; the newest row is the one in force. `hash` is SHA-256 over the JCS of
-- {date, regime, regime_id, risk_score, probabilities, model_version}: the value a heartbeat's mta_ref carries.
create table regime_broadcasts (
  id            bigint generated always as identity primary key,
  date          date not null,
  regime        text not null check (regime in ('expansion', 'recovery', 'tightening', 'risk_off')),
  regime_id     smallint not null check (regime_id between 0 and 3),
  risk_score    double precision not null check (risk_score >= 0 and risk_score <= 1),
  probabilities jsonb not null,
  model_version text not null,
  source        text not null check (source in ('pipeline', 'manual')),
  reason        text,
  published_by  text,
  published_at  timestamptz not null default clock_timestamp(),
  hash          text not null check (hash ~ '^[0-9a-f]{64}$')
);

-- Shadow mode: one row, shared by every engine instance.
create table engine_shadow_mode (
  singleton  boolean primary key default true check (singleton),
  enabled    boolean not null default false,
  reason     text,
  changed_at timestamptz,
  changed_by text
);
insert into engine_shadow_mode (singleton) values (true);

-- Layer 2 replay marks: the last heartbeat sequence_id accepted from each agent.
create table heartbeat_marks (
  agent_id         uuid primary key,
  last_sequence_id bigint not null,
  accepted_at      timestamptz not null default now()
);

-- The per-agent message throttle (MiFID II RTS 6): orders counted per agent per wall-clock second.
create table agent_order_rate (
  agent_id uuid not null,
  second   bigint not null,
  orders   integer not null,
  primary key (agent_id, second)
);

-- Traces. Range-partitioned by month of txn_time so that old months can be detached and archived; the
-- default partition catches any row whose month partition does not exist yet.
create table traces (
  trace_id            uuid not null,
  txn_time            timestamptz not null,
  agent_id            uuid not null,
  client_order_id     text not null,
  status              text not null check (status in ('PENDING', 'MATCHED', 'DIVERGENT', 'ORPHAN', 'EXPIRED', 'MISMATCH', 'SHADOW_HALTED')),
  verification_status text not null check (verification_status in ('Pending', 'Matched', 'Divergent', 'Orphan', 'Expired', 'Mismatch')),
  action              text not null,
  asset               text not null,
  quantity            double precision not null,
  notional            double precision not null,
  notional_currency   text not null,
  reasoning_hash      text not null,
  -- The sealed form, byte for byte: the JCS text that reasoning_hash covers.
  sealed              text not null,
  -- Personal data (the regulatory block) and the salt of its commitment.
  regulatory          jsonb,
  regulatory_salt     bytea,
  policy_result       text not null,
  exchange_tx_id      text,
  execution_status    text,
  execution_time      timestamptz,
  executed_asset      text,
  executed_quantity   double precision,
  executed_side       text,
  execution_price     double precision,
  divergence_reason   text,
  final_proof         text,
  bound_at            timestamptz,
  expired_at          timestamptz,
  primary key (trace_id, txn_time)
) partition by range (txn_time);

create table traces_default partition of traces default;
create index traces_by_id on traces (trace_id);
create index traces_by_time on traces (txn_time desc, trace_id desc);
create index traces_by_agent on traces (agent_id, txn_time desc, trace_id desc);
create index traces_by_status on traces (status, txn_time desc, trace_id desc);

-- Creates the monthly partitions of traces from the month of `start_at` for `months` months, if missing.
create function ensure_trace_partitions(start_at timestamptz, months integer) returns integer
language plpgsql as $$
declare
  created integer := 0;
  m date := date_trunc('month', start_at at time zone 'UTC')::date;
  name text;
begin
  for i in 0 .. months - 1 loop
    name := format('traces_y%sm%s', to_char(m, 'YYYY'), to_char(m, 'MM'));
    if to_regclass(name) is null then
      execute format(
        'create table %I partition of traces for values from (%L) to (%L)',
        name, (m::timestamp at time zone 'UTC'), ((m + interval '1 month')::timestamp at time zone 'UTC'));
      created := created + 1;
    end if;
    m := (m + interval '1 month')::date;
  end loop;
  return created;
end $$;

select ensure_trace_partitions(now() - interval '1 month', 4);

-- Idempotency of authorize on (agent_id, client_order_id): the original response is kept and replayed.
create table trace_idempotency (
  agent_id        uuid not null,
  client_order_id text not null,
  order_hash      text not null,
  trace_id        uuid not null,
  txn_time        timestamptz not null,
  response        jsonb not null,
  primary key (agent_id, client_order_id)
);
