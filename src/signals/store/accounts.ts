/**
 * Accounts of the regime signal service and the listing, revocation and tier changes of their keys, in the
 * store (`signal_accounts`, `signal_keys`). A tier belongs to the account: every key of an account has its
 * tier, and a change reaches every server from the key's next request (the admission statement reads it).
 * Keys themselves are issued and admitted by ./keys.ts.
 */
import type { Sql } from 'postgres';
import type { Tier } from '../tiers.js';
import type { SqlOrTx } from '../../store/transaction.js';

export interface AccountRecord {
  account_id: string;
  email: string;
  tier: Tier;
  agent_count: number;
  payment_status: string;
  created_at: Date;
}

/** What `tradeseal signals keys list` shows of a key: never its secret or its hash. */
export interface KeyListing {
  key_id: string;
  key_prefix: string;
  account_id: string;
  email: string;
  tier: Tier;
  agent_count: number;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export async function accountByEmail(sql: SqlOrTx, email: string): Promise<AccountRecord | null> {
  const [row] = await sql<AccountRecord[]>`
    select account_id, email, tier, agent_count, payment_status, created_at from signal_accounts where email = ${email}`;
  return row ?? null;
}

/** The account of a key, whether the key is live or revoked. */
export async function accountByKeyId(sql: Sql, keyId: string): Promise<AccountRecord | null> {
  const [row] = await sql<AccountRecord[]>`
    select a.account_id, a.email, a.tier, a.agent_count, a.payment_status, a.created_at
    from signal_accounts a join signal_keys k using (account_id) where k.key_id = ${keyId}`;
  return row ?? null;
}

/** An account and the ids of all its keys, revoked ones included (their requests today still count). */
export async function accountWithKeyIds(sql: Sql, accountId: string): Promise<(AccountRecord & { key_ids: string[] }) | null> {
  const [row] = await sql<Array<AccountRecord & { key_ids: string[] }>>`
    select account_id, email, tier, agent_count, payment_status, created_at,
           array(select key_id::text from signal_keys k where k.account_id = a.account_id) as key_ids
    from signal_accounts a where account_id = ${accountId}`;
  return row ?? null;
}

/** Creates an account; null when the e-mail already has one (the unique e-mail decides, under any concurrency). */
export async function createAccount(
  sql: SqlOrTx,
  account: { account_id: string; email: string; tier: Tier; agent_count: number },
): Promise<AccountRecord | null> {
  const [row] = await sql<AccountRecord[]>`
    insert into signal_accounts (account_id, email, tier, agent_count)
    values (${account.account_id}, ${account.email}, ${account.tier}, ${account.agent_count})
    on conflict (email) do nothing
    returning account_id, email, tier, agent_count, payment_status, created_at`;
  return row ?? null;
}

/** Sets an account's tier, and its agent count when given; returns the account before and after. */
export async function setAccountTier(
  sql: SqlOrTx,
  accountId: string,
  tier: Tier,
  agentCount: number | undefined,
): Promise<{ before: AccountRecord; after: AccountRecord } | null> {
  const [row] = await sql<Array<AccountRecord & { previous_tier: Tier; previous_agent_count: number }>>`
    update signal_accounts a set tier = ${tier}, agent_count = coalesce(${agentCount ?? null}::int, a.agent_count)
    from (select account_id, tier as previous_tier, agent_count as previous_agent_count from signal_accounts where account_id = ${accountId} for update) old
    where a.account_id = old.account_id
    returning a.account_id, a.email, a.tier, a.agent_count, a.payment_status, a.created_at, old.previous_tier, old.previous_agent_count`;
  if (!row) return null;
  const { previous_tier: previousTier, previous_agent_count: previousAgents, ...after } = row;
  return { before: { ...after, tier: previousTier, agent_count: previousAgents }, after };
}

/**
 * Revokes a key at once; revoking a revoked key keeps its first revocation time. Null when there is no such
 * key. `revoked_now` says whether this call revoked it.
 */
export async function revokeKeyById(
  sql: SqlOrTx,
  keyId: string,
): Promise<{ key_id: string; key_prefix: string; email: string; revoked_at: Date; revoked_now: boolean } | null> {
  const [row] = await sql<Array<{ key_id: string; key_prefix: string; email: string; revoked_at: Date; revoked_now: boolean }>>`
    with revoked as (
      update signal_keys set revoked_at = now() where key_id = ${keyId} and revoked_at is null returning key_id, revoked_at
    )
    select k.key_id, k.key_prefix, a.email, coalesce((select revoked_at from revoked), k.revoked_at) as revoked_at,
           exists (select 1 from revoked) as revoked_now
    from signal_keys k join signal_accounts a using (account_id) where k.key_id = ${keyId}`;
  return row ?? null;
}

/** Every key, newest first, or those of one account's e-mail. */
export async function listKeys(sql: Sql, options: { email?: string | undefined } = {}): Promise<KeyListing[]> {
  return sql<KeyListing[]>`
    select k.key_id, k.key_prefix, k.account_id, a.email, a.tier, a.agent_count, k.created_at, k.revoked_at, k.last_used_at
    from signal_keys k join signal_accounts a using (account_id)
    where ${options.email === undefined ? sql`true` : sql`a.email = ${options.email}`}
    order by k.created_at desc, k.key_id`;
}
