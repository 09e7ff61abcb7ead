-- Secrets kept in the store are sealed under the key-management provider when one is configured (KMS_PROVIDER;
-- src/secrets/stored-secret.ts): the signal service's heartbeat and track-log keys and the verification-code key
-- (signal_service_secrets), the engine's transparency-log key (log_signing_key), and every webhook secret
-- (signal_webhooks). Each gets a `sealed` column holding {v, provider, key_id, wrapped_key, value} (the secret
-- under a data key of its own, AES-256-GCM, the data key wrapped by the provider); its clear column becomes
-- nullable, and a row holds exactly one of the two. Rows stored in clear before are sealed, and their clear
-- value set to null in the same transaction, by the first server start that has a provider (src/secrets/start.ts).

alter table signal_service_secrets alter column value drop not null;
alter table signal_service_secrets add column sealed jsonb;
alter table signal_service_secrets add constraint signal_service_secrets_one_form check ((value is null) <> (sealed is null));

-- The 32-byte check on secret_key stays: it holds for a clear key, and a null one passes it.
alter table log_signing_key alter column secret_key drop not null;
alter table log_signing_key add column sealed jsonb;
alter table log_signing_key add constraint log_signing_key_one_form check ((secret_key is null) <> (sealed is null));

alter table signal_webhooks alter column secret drop not null;
alter table signal_webhooks add column secret_sealed jsonb;
alter table signal_webhooks add constraint signal_webhooks_one_form check ((secret is null) <> (secret_sealed is null));

-- Verification codes are now stored as an HMAC-SHA256 under a key kept sealed (with a provider) or as scrypt
-- (without one), each in a form that names its construction (src/signals/verification.ts). A code pending under
-- the old form, a plain SHA-256 of the address and the code that a copy of the table lets anyone search in
-- seconds, is removed here rather than left to expire within its 15 minutes: its address is told that no code
-- is pending and registers again. The outbox's copies of those codes go with them (a mail shows `[removed]`).
delete from signal_verifications;
update signal_outbox set code = null where code is not null;
