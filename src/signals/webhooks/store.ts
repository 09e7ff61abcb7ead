/**
 * Webhooks and their deliveries in the store. One webhook per account (`signal_webhooks`); deliveries
 * (`webhook_deliveries`) are queued by regime-change.ts, claimed and settled by the worker, and recorded
 * by the test route.
 *
 * A claim takes due deliveries with `for update skip locked` and, in the same statement, counts the attempt
 * and moves `next_attempt_at` past the attempt's deadline (a lease): once it commits, no other worker on any
 * server sees those deliveries as due until the lease runs out, so one delivery is never attempted twice at
 * once. Settling is conditional on the attempt number the worker claimed, so a worker whose lease ran out
 * (it hung, or died mid-attempt) cannot overwrite what a later attempt recorded. Times are the database's.
 *
 * A webhook's secret is kept by the rule of every secret in the store (src/secrets/stored-secret.ts): sealed
 * under the key-management provider when one is configured, in clear otherwise; `webhookSecret` reads it back.
 */
import type { Sql } from 'postgres';
import { webhookSecretPlace } from '../../secrets/places.js';
import type { KeptSecret, SealedSecret, SecretKeeper } from '../../secrets/stored-secret.js';
import type { Tier } from '../tiers.js';

export interface WebhookRow {
  account_id: string;
  url: string;
  created_at: Date;
}

/** A webhook's secret as its row keeps it. */
interface SecretColumns {
  secret: string | null;
  secret_sealed: SealedSecret | null;
}

/** Sets (or replaces) the account's webhook: a new URL and a new secret, kept by `keeper`. */
export async function putWebhook(sql: Sql, keeper: SecretKeeper, accountId: string, url: string, secret: string): Promise<WebhookRow> {
  const kept = await keeper.keep(webhookSecretPlace(accountId), Buffer.from(secret, 'utf8'));
  const [row] = await sql<WebhookRow[]>`
    insert into signal_webhooks (account_id, url, secret, secret_sealed)
    values (${accountId}, ${url}, ${kept.clear?.toString('utf8') ?? null}, ${kept.sealed ? sql.json(kept.sealed as never) : null})
    on conflict (account_id) do update set url = excluded.url, secret = excluded.secret, secret_sealed = excluded.secret_sealed, created_at = clock_timestamp()
    returning account_id, url, created_at`;
  return row!;
}

/** The secret of the webhook of `accountId` whose row holds `columns`. */
export async function webhookSecret(keeper: SecretKeeper, accountId: string, columns: SecretColumns): Promise<string> {
  const kept: KeptSecret = { clear: columns.secret === null ? null : Buffer.from(columns.secret, 'utf8'), sealed: columns.secret_sealed };
  return (await keeper.reveal(webhookSecretPlace(accountId), kept)).toString('utf8');
}

/**
 * Removes the account's webhook; deliveries still queued for it fail at once (there is no receiver to
 * retry), and are kept. True when there was a webhook.
 */
export async function removeWebhook(sql: Sql, accountId: string): Promise<boolean> {
  return sql.begin(async (tx) => {
    const removed = await tx`delete from signal_webhooks where account_id = ${accountId} returning account_id`;
    await tx`
      update webhook_deliveries set failed_at = clock_timestamp(), last_error = 'the webhook was removed'
      where account_id = ${accountId} and delivered_at is null and failed_at is null`;
    return removed.length > 0;
  });
}

/** The account's webhook, with its secret as kept (`webhookSecret` reads it). */
export async function getWebhook(sql: Sql, accountId: string): Promise<(WebhookRow & SecretColumns) | null> {
  const [row] = await sql<
    Array<WebhookRow & SecretColumns>
  >`select account_id, url, created_at, secret, secret_sealed from signal_webhooks where account_id = ${accountId}`;
  return row ?? null;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliverySummary {
  delivery_id: string;
  event: string;
  state: DeliveryState;
  delivered: boolean;
  created_at: Date;
  /** When it was last tried; null before the first attempt. */
  attempted_at: Date | null;
  attempts: number;
  /** The receiver's HTTP status of the last attempt; null when none came. */
  status: number | null;
  error: string | null;
  /** When the next attempt is due; null once delivered or failed. */
  next_attempt_at: Date | null;
}

/** The account's newest delivery, or null. */
export async function lastDelivery(sql: Sql, accountId: string): Promise<DeliverySummary | null> {
  const [row] = await sql<DeliverySummary[]>`
    select delivery_id, event,
           case when delivered_at is not null then 'delivered' when failed_at is not null then 'failed' else 'pending' end as state,
           delivered_at is not null as delivered, created_at, last_attempt_at as attempted_at, attempts, last_status as status,
           last_error as error, case when delivered_at is null and failed_at is null then next_attempt_at end as next_attempt_at
    from webhook_deliveries where account_id = ${accountId}
    order by created_at desc, delivery_id desc limit 1`;
  return row ?? null;
}

/** A delivery claimed for one attempt, with the webhook (its secret as kept) and tier of its account as they are now. */
export interface ClaimedDelivery extends SecretColumns {
  delivery_id: string;
  account_id: string;
  event: string;
  payload: unknown;
  /** This attempt's number (1 for the first). */
  attempts: number;
  url: string | null;
  tier: Tier;
}

/** Claims up to `limit` due deliveries for one attempt each, leasing them for `leaseMs`. */
export async function claimDue(sql: Sql, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  return sql<ClaimedDelivery[]>`
    with due as (
      select delivery_id, account_id from webhook_deliveries
      where delivered_at is null and failed_at is null and next_attempt_at <= clock_timestamp()
      order by next_attempt_at, delivery_id
      limit ${limit}
      for update skip locked
    )
    update webhook_deliveries d
    set attempts = d.attempts + 1, last_attempt_at = clock_timestamp(),
        next_attempt_at = clock_timestamp() + make_interval(secs => ${leaseMs / 1000})
    from due join signal_accounts a on a.account_id = due.account_id
         left join signal_webhooks w on w.account_id = due.account_id
    where d.delivery_id = due.delivery_id
    returning d.delivery_id, d.account_id, d.event, d.payload, d.attempts, w.url, w.secret, w.secret_sealed, a.tier`;
}

export type Outcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string; delayMs: number }
  | { kind: 'failed'; status: number | null; error: string };

/** Records the outcome of attempt `attempt` of a claimed delivery; false when a later claim owns it now. */
export async function settle(sql: Sql, deliveryId: string, attempt: number, outcome: Outcome): Promise<boolean> {
  const status = outcome.status;
  const error = outcome.kind === 'delivered' ? null : outcome.error;
  const rows = await sql`
    update webhook_deliveries
    set last_status = ${status}, last_error = ${error},
        delivered_at = case when ${outcome.kind} = 'delivered' then clock_timestamp() end,
        failed_at = case when ${outcome.kind} = 'failed' then clock_timestamp() end,
        next_attempt_at = case when ${outcome.kind} = 'retry' then clock_timestamp() + make_interval(secs => ${outcome.kind === 'retry' ? outcome.delayMs / 1000 : 0}) else next_attempt_at end
    where delivery_id = ${deliveryId} and attempts = ${attempt} and delivered_at is null and failed_at is null
    returning delivery_id`;
  return rows.length > 0;
}

/**
 * Hands a claimed delivery back, due at once, without counting its attempt (the worker stopped while
 * sending; the attempt's number is taken back so the retry limit counts only real failures).
 */
export async function release(sql: Sql, deliveryId: string, attempt: number, error: string): Promise<void> {
  await sql`
    update webhook_deliveries set attempts = attempts - 1, next_attempt_at = clock_timestamp(), last_error = ${error}
    where delivery_id = ${deliveryId} and attempts = ${attempt} and delivered_at is null and failed_at is null`;
}

/** Records a test delivery, already attempted once: delivered or failed, never retried. */
export async function recordTest(
  sql: Sql,
  accountId: string,
  deliveryId: string,
  payload: unknown,
  result: { delivered: boolean; status: number | null; error: string | null },
): Promise<void> {
  await sql`
    insert into webhook_deliveries (delivery_id, account_id, event, payload, attempts, last_attempt_at, delivered_at, failed_at, last_status, last_error)
    values (${deliveryId}, ${accountId}, 'test', ${sql.json(payload as never)}, 1, clock_timestamp(),
            case when ${result.delivered} then clock_timestamp() end, case when ${!result.delivered} then clock_timestamp() end,
            ${result.status}, ${result.error})`;
}
