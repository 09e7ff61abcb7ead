-- When the service last mailed an address for a registration: at most one mail a minute per address, so
-- POST /v1/auth/register cannot be used to flood someone's inbox.
create table signal_mail_throttle (
  email        text primary key,
  last_sent_at timestamptz not null
);
