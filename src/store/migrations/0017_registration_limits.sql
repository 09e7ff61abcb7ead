-- Registration is not a mail relay, and no verification code rests in the store.

-- Each registration mail sent, with the client address it was sent for: at most REGISTER_PER_CLIENT_PER_HOUR
-- per client address and REGISTER_TOTAL_PER_HOUR in all in any rolling hour. A client address is personal
-- data: rows older than the hour are deleted by the signal service's housekeeping.
create table signal_registration_mails (
  id        bigint generated always as identity primary key,
  client_ip text not null,
  sent_at   timestamptz not null
);
create index signal_registration_mails_client on signal_registration_mails (client_ip, sent_at);
create index signal_registration_mails_sent on signal_registration_mails (sent_at);

-- The local outbox keeps a mail's verification code apart from its text (which holds a mark in its place),
-- only until the code is delivered (shown once by `tradeseal signals outbox` or GET /v1/admin/outbox), used,
-- replaced, or expired, whichever comes first; then the code is set to null. The text never holds it.
alter table signal_outbox add column code text;
alter table signal_outbox add column code_expires_at timestamptz;
alter table signal_outbox add column delivered_at timestamptz;
alter table signal_outbox add constraint signal_outbox_code_expires check (code is null or code_expires_at is not null);
create index signal_outbox_live_codes on signal_outbox (code_expires_at) where code is not null;

-- Mail kept before this held its code in its text: the codes are removed (a pending registration simply
-- registers again).
update signal_outbox set body = regexp_replace(body, '\m\d{6}\M', '[removed]', 'g') where subject like '%verification code%';
