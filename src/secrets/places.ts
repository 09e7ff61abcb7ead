/**
 * Where the store keeps secrets (./stored-secret.ts is the rule they are kept by), and the statements that
 * read, create and seal them:
 *
 * - `signal_service_secrets` (`value` in clear, or `sealed`): the heartbeat signing key
 *   (`heartbeat_signing_key`), the track-log key (`track_log_signing_key`), the verification-code key
 *   (`verification_code_key`, only ever made with a provider);
 * - `log_signing_key` (`secret_key`, or `sealed`): the engine's transparency-log key;
 * - `signal_webhooks` (`secret`, or `secret_sealed`): each account's webhook secret.
 *
 * A secret that exists is created once, race-safe across processes: each contender inserts its own with
 * `on conflict do nothing`, then reads back the row in a new statement (a new snapshot under READ COMMITTED),
 * so all end up with the one that won.
 */
import { TradesealError } from '../core/errors.js';
import type { SqlOrTx } from '../store/transaction.js';
import type { KeptSecret, SealedSecret, SecretKeeper, SecretPlace } from './stored-secret.js';

/** What each named secret of `signal_service_secrets` is. */
const SERVICE_SECRETS: Record<string, string> = {
  heartbeat_signing_key: 'the heartbeat signing key',
  track_log_signing_key: 'the track-log signing key',
  verification_code_key: 'the verification-code key',
};

export const serviceSecretPlace = (name: string): SecretPlace => ({
  where: `signal_service_secrets/${name}`,
  what: SERVICE_SECRETS[name] ?? `the service secret ${name}`,
});

export const LOG_KEY_PLACE: SecretPlace = Object.freeze({ where: 'log_signing_key', what: "the engine's transparency-log key" });

export const webhookSecretPlace = (accountId: string): SecretPlace => ({
  where: `signal_webhooks/${accountId.toLowerCase()}`,
  what: `the webhook secret of account ${accountId.toLowerCase()}`,
});

interface Row {
  clear: Buffer | null;
  sealed: SealedSecret | null;
}

const kept = (row: Row): KeptSecret => ({ clear: row.clear, sealed: row.sealed });

/** The secret `name` of `signal_service_secrets`, or null when there is none. */
export async function readServiceSecret(sql: SqlOrTx, name: string): Promise<KeptSecret | null> {
  const [row] = await sql<Row[]>`select value as clear, sealed from signal_service_secrets where name = ${name}`;
  return row ? kept(row) : null;
}

/** Inserts `secret` as `name` unless one is kept already; true when this call inserted it. */
export async function insertServiceSecret(sql: SqlOrTx, name: string, secret: KeptSecret): Promise<boolean> {
  const rows = await sql`
    insert into signal_service_secrets (name, value, sealed) values (${name}, ${secret.clear}, ${sealedJson(sql, secret)})
    on conflict (name) do nothing returning name`;
  return rows.length === 1;
}

/** The engine's log key, or null when there is none. */
export async function readLogKeySecret(sql: SqlOrTx): Promise<KeptSecret | null> {
  const [row] = await sql<Row[]>`select secret_key as clear, sealed from log_signing_key`;
  return row ? kept(row) : null;
}

export async function insertLogKeySecret(sql: SqlOrTx, secret: KeptSecret): Promise<boolean> {
  const rows = await sql`
    insert into log_signing_key (secret_key, sealed) values (${secret.clear}, ${sealedJson(sql, secret)})
    on conflict (singleton) do nothing returning singleton`;
  return rows.length === 1;
}

/** A kept secret, made by `make` and kept by `keeper` when there is none yet; `created` when this call made it. */
export interface Revealed {
  secret: Buffer;
  created: boolean;
}

/** The secret `name` of `signal_service_secrets`, created on the first call. */
export const keptServiceSecret = (sql: SqlOrTx, keeper: SecretKeeper, name: string, make: () => Uint8Array): Promise<Revealed> =>
  readOrCreate(
    keeper,
    serviceSecretPlace(name),
    () => readServiceSecret(sql, name),
    (kept) => insertServiceSecret(sql, name, kept),
    make,
  );

/** The engine's log key, created on the first call. */
export const keptLogKey = (sql: SqlOrTx, keeper: SecretKeeper, make: () => Uint8Array): Promise<Revealed> =>
  readOrCreate(
    keeper,
    LOG_KEY_PLACE,
    () => readLogKeySecret(sql),
    (kept) => insertLogKeySecret(sql, kept),
    make,
  );

async function readOrCreate(
  keeper: SecretKeeper,
  place: SecretPlace,
  read: () => Promise<KeptSecret | null>,
  insert: (kept: KeptSecret) => Promise<boolean>,
  make: () => Uint8Array,
): Promise<Revealed> {
  let row = await read();
  let created = false;
  if (!row) {
    created = await insert(await keeper.keep(place, make()));
    // Read back in a new statement: the row of whichever contender won.
    row = await read();
  }
  if (!row) throw new TradesealError('store_error', `${place.what} (${place.where}) vanished while it was being created`);
  return { secret: await keeper.reveal(place, row), created };
}

const sealedJson = (sql: SqlOrTx, secret: KeptSecret) => (secret.sealed ? sql.json(secret.sealed as never) : null);

/** A secret kept in clear, and how to replace it with its sealed form. */
export interface ClearSecret {
  place: SecretPlace;
  value: Buffer;
  /** Stores `sealed` and erases the clear value, unless the row changed since it was read; true when it did. */
  replace(tx: SqlOrTx, sealed: SealedSecret): Promise<boolean>;
}

/** Every secret the store keeps in clear. */
export async function secretsInClear(sql: SqlOrTx): Promise<ClearSecret[]> {
  const service = await sql<Array<{ name: string; value: Buffer }>>`select name, value from signal_service_secrets where value is not null order by name`;
  const log = await sql<Array<{ value: Buffer }>>`select secret_key as value from log_signing_key where secret_key is not null`;
  const hooks = await sql<
    Array<{ account_id: string; secret: string }>
  >`select account_id, secret from signal_webhooks where secret is not null order by account_id`;
  return [
    ...service.map(({ name, value }): ClearSecret => ({
      place: serviceSecretPlace(name),
      value,
      replace: async (tx, sealed) =>
        (
          await tx`update signal_service_secrets set value = null, sealed = ${tx.json(sealed as never)} where name = ${name} and value = ${value} returning name`
        ).length === 1,
    })),
    ...log.map(({ value }): ClearSecret => ({
      place: LOG_KEY_PLACE,
      value,
      replace: async (tx, sealed) =>
        (await tx`update log_signing_key set secret_key = null, sealed = ${tx.json(sealed as never)} where secret_key = ${value} returning singleton`)
          .length === 1,
    })),
    ...hooks.map(({ account_id: accountId, secret }): ClearSecret => ({
      place: webhookSecretPlace(accountId),
      value: Buffer.from(secret, 'utf8'),
      replace: async (tx, sealed) =>
        (
          await tx`update signal_webhooks set secret = null, secret_sealed = ${tx.json(sealed as never)} where account_id = ${accountId} and secret = ${secret} returning account_id`
        ).length === 1,
    })),
  ];
}

/** A sealed secret of the store, for the start's check. */
export interface SealedSample {
  place: SecretPlace;
  sealed: SealedSecret;
}

/** One sealed secret of each (provider, key id) the store's secrets are sealed under. */
export async function sealedSamples(sql: SqlOrTx): Promise<SealedSample[]> {
  const rows = await sql<Array<{ kind: string; id: string; sealed: SealedSecret }>>`
    select distinct on (sealed->>'provider', sealed->>'key_id') kind, id, sealed from (
      select 'service' as kind, name as id, sealed from signal_service_secrets where sealed is not null
      union all select 'log', '', sealed from log_signing_key where sealed is not null
      union all select 'webhook', account_id::text, secret_sealed from signal_webhooks where secret_sealed is not null
    ) s order by sealed->>'provider', sealed->>'key_id', kind, id`;
  return rows.map((r) => ({
    place: r.kind === 'service' ? serviceSecretPlace(r.id) : r.kind === 'log' ? LOG_KEY_PLACE : webhookSecretPlace(r.id),
    sealed: r.sealed,
  }));
}
