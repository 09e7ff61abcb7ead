-- The regime signal service's customers: accounts, their API keys, e-mail verification, the local mail
-- outbox, per-key rate windows, webhooks and their delivery queue, and the service's own signing key.

create table signal_accounts (
  account_id     uuid primary key,
  email          text not null unique,
  tier           text not null check (tier in ('free', 'starter', 'pro', 'engine_sidecar', 'engine_audit', 'owner')),
  agent_count    integer not null default 0 check (agent_count >= 0),
  payment_status text not null default 'active',
  created_at     timestamptz not null default now()
);

-- Keys are stored as SHA-256 hashes only; `key_prefix` (the first characters) lets an operator tell them apart.
-- `last_ip` / `last_used_at` carry the IP lock (free, starter, pro): a use from another address while the last
-- use is under 15 minutes old is refused.
create table signal_keys (
  key_id       uuid primary key,
  account_id   uuid not null references signal_accounts (account_id),
  key_hash     text not null unique check (key_hash ~ '^[0-9a-f]{64}$'),
  key_prefix   text not null,
  created_at   timestamptz not null default now(),
  revoked_at   timestamptz,
  last_ip      text,
  last_used_at timestamptz
);
create index signal_keys_by_account on signal_keys (account_id);

-- The rolling 24-hour window of each limited key: the times of its requests in the window, oldest first.
-- One row per key, updated by one conditional statement per request, so concurrent requests on any number
-- of servers are counted exactly (the update waits for the row and re-checks the condition).
create table signal_rate_windows (
  key_id uuid primary key references signal_keys (key_id),
  hits   timestamptz[] not null default '{}'
);

-- Requests per key and UTC day, for the account's `usage.today_requests` (every tier, limited or not).
create table signal_usage_days (
  key_id   uuid not null references signal_keys (key_id),
  day      date not null,
  requests integer not null default 0,
  primary key (key_id, day)
);

-- A registration's 6-digit code, hashed, valid 15 minutes; five wrong tries invalidate it.
create table signal_verifications (
  email      text primary key,
  code_hash  text not null,
  expires_at timestamptz not null,
  attempts   integer not null default 0,
  created_at timestamptz not null default now()
);

-- Mail that would have gone through SMTP when SMTP_URL is not set (`tradeseal signals outbox`).
create table signal_outbox (
  id         bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  recipient  text not null,
  subject    text not null,
  body       text not null
);

-- One webhook per account (pro): its URL and the secret its deliveries are signed with (shown once).
create table signal_webhooks (
  account_id uuid primary key references signal_accounts (account_id),
  url        text not null,
  secret     text not null,
  created_at timestamptz not null default now()
);

-- Deliveries, queued in the transaction that publishes a regime transition, delivered by a worker in the
-- server and retried with backoff; a delivery is done once `delivered_at` is set.
create table webhook_deliveries (
  delivery_id     uuid primary key,
  account_id      uuid not null references signal_accounts (account_id),
  event           text not null,
  payload         jsonb not null,
  created_at      timestamptz not null default clock_timestamp(),
  attempts        integer not null default 0,
  next_attempt_at timestamptz not null default clock_timestamp(),
  delivered_at    timestamptz,
  last_status     integer,
  last_error      text
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where delivered_at is null;

-- The service's own secrets (the heartbeat signing key when REGIME_SIGNING_KEY is not set).
create table signal_service_secrets (
  name       text primary key,
  value      bytea not null,
  created_at timestamptz not null default now()
);
