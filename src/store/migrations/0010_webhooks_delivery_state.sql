-- The state of a webhook delivery beyond "delivered": when it was last tried, and when it was given up
-- (after the last retry, or when the account removed its webhook). A failed delivery is kept, for
-- `GET /v1/webhook/info` and the operator; only deliveries neither delivered nor failed are due.
alter table webhook_deliveries
  add column last_attempt_at timestamptz,
  add column failed_at       timestamptz;

drop index webhook_deliveries_due;
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where delivered_at is null and failed_at is null;

-- An account's newest delivery (`last_delivery` of the webhook info).
create index webhook_deliveries_by_account on webhook_deliveries (account_id, created_at desc);
