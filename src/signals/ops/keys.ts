/**
 * Keys of the regime signal service, beyond registration: a customer rotates the key it presents
 * (`POST /v1/auth/rotate`); an operator issues keys, changes an account's tier and revokes keys
 * (`tradeseal signals keys …`). Every change is in the store; a rotation, revocation or tier change is also
 * notified, in its transaction, to every server on the database (src/credentials/notify.ts), whose admission
 * caches drop the key or account at once.
 *
 * Rotating is a replacement, not a fresh start: the new key takes over the old key's rolling 24-hour window
 * (rotating is no way around the daily limit) and its IP lock (nor around the lock). The old key is revoked in
 * the same transaction; of two concurrent rotations of one key one succeeds, the other finds it revoked.
 */
import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { notifyChange } from '../../credentials/notify.js';
import { conflict, notFound, TradesealError } from '../../core/errors.js';
import { withTransaction } from '../../store/transaction.js';
import type { IssueKeyInput, SetTierInput } from '../account-inputs.js';
import { accountByEmail, accountByKeyId, createAccount, revokeKeyById, setAccountTier, type AccountRecord } from '../store/accounts.js';
import { issueKey, type KeyRecord } from '../store/keys.js';
import type { Tier } from '../tiers.js';
import { normalizeEmail } from '../verification.js';

export interface Rotated {
  api_key: string;
  key_prefix: string;
  tier: Tier;
  rotated_at: Date;
}

export async function rotateKey(sql: Sql, key: KeyRecord): Promise<Rotated> {
  const rotated = await sql.begin(async (t): Promise<Rotated | null> => {
    const [old] = await t<Array<{ revoked_at: Date; last_ip: string | null; last_used_at: Date | null }>>`
      update signal_keys set revoked_at = now() where key_id = ${key.key_id} and revoked_at is null
      returning revoked_at, last_ip, last_used_at`;
    if (!old) return null;
    const issued = await issueKey(t, key.account_id);
    await t`update signal_keys set last_ip = ${old.last_ip}, last_used_at = ${old.last_used_at} where key_id = ${issued.key_id}`;
    await t`insert into signal_rate_windows (key_id, hits) select ${issued.key_id}, hits from signal_rate_windows where key_id = ${key.key_id}`;
    const [account] = await t<Array<{ tier: Tier }>>`select tier from signal_accounts where account_id = ${key.account_id}`;
    await notifyChange(t, { kind: 'signals_key', key_id: key.key_id });
    return { api_key: issued.api_key, key_prefix: issued.key_prefix, tier: account!.tier, rotated_at: old.revoked_at };
  });
  if (!rotated)
    throw new TradesealError('key_revoked', `the API key ${key.key_prefix}… was revoked meanwhile (rotated by another request)`, {
      hint: 'use the key that replaced it',
    });
  return rotated;
}

export interface IssuedKey {
  api_key: string;
  key_id: string;
  key_prefix: string;
  account_id: string;
  email: string;
  tier: Tier;
  agent_count: number;
  /** Whether this call created the account. */
  account_created: boolean;
  created_at: Date;
}

/**
 * Issues a key for the account of `email`, creating the account with `tier` (and `agent_count`) when it has
 * none. An existing account keeps its tier: a different `tier` or `agent_count` is a conflict, since a tier is
 * the account's and changing it changes every one of its keys (`set-tier` does that, on purpose).
 */
export async function issueAccountKey(sql: Sql, input: IssueKeyInput): Promise<IssuedKey> {
  const email = normalizeEmail(input.email);
  return sql.begin(async (t) => {
    const created = await createAccount(t, { account_id: randomUUID(), email, tier: input.tier, agent_count: input.agent_count ?? 0 });
    const account = created ?? (await accountByEmail(t, email));
    if (!account) throw new TradesealError('conflict', `the account of ${email} changed meanwhile; try again`);
    if (!created) assertSameTerms(account, input);
    const key = await issueKey(t, account.account_id);
    return {
      api_key: key.api_key,
      key_id: key.key_id,
      key_prefix: key.key_prefix,
      account_id: account.account_id,
      email,
      tier: account.tier,
      agent_count: account.agent_count,
      account_created: created !== null,
      created_at: key.created_at,
    };
  }) as Promise<IssuedKey>;
}

function assertSameTerms(account: AccountRecord, input: IssueKeyInput): void {
  const differs =
    account.tier !== input.tier
      ? `its tier is ${account.tier}, not ${input.tier}`
      : input.agent_count !== undefined && input.agent_count !== account.agent_count
        ? `its agent count is ${account.agent_count}, not ${input.agent_count}`
        : null;
  if (differs) {
    throw conflict(
      'conflict',
      `${account.email} already has an account and ${differs}; no key was issued`,
      `change the account's tier with \`tradeseal signals keys set-tier ${account.email} --tier ${input.tier}\`, or issue with --tier ${account.tier}`,
    );
  }
}

export interface TierChange {
  account_id: string;
  email: string;
  tier: Tier;
  agent_count: number;
  previous_tier: Tier;
  previous_agent_count: number;
}

/** Sets the tier (and agent count) of the account of a key or an e-mail. `not_found` when there is none. */
export async function setTier(sql: Sql, input: SetTierInput): Promise<TierChange> {
  const email = input.email === undefined ? undefined : normalizeEmail(input.email);
  const account = email !== undefined ? await accountByEmail(sql, email) : input.key_id !== undefined ? await accountByKeyId(sql, input.key_id) : null;
  if (!account) {
    throw notFound(
      email !== undefined ? `no account has the address ${email}` : `no key ${input.key_id}`,
      'accounts and their keys are listed by `tradeseal signals keys list`',
    );
  }
  const changed = await withTransaction(sql, async (tx) => {
    const result = await setAccountTier(tx, account.account_id, input.tier, input.agent_count);
    if (result) await notifyChange(tx, { kind: 'signals_account', account_id: account.account_id });
    return result;
  });
  if (!changed) throw notFound(`the account of ${account.email} no longer exists`);
  const { before, after } = changed;
  return {
    account_id: after.account_id,
    email: after.email,
    tier: after.tier,
    agent_count: after.agent_count,
    previous_tier: before.tier,
    previous_agent_count: before.agent_count,
  };
}

/** Revokes a key at once; revoking a revoked one keeps its first revocation time. `not_found` when there is no such key. */
export async function revokeKey(
  sql: Sql,
  keyId: string,
): Promise<{ key_id: string; key_prefix: string; email: string; revoked_at: Date; revoked_now: boolean }> {
  const revoked = await withTransaction(sql, async (tx) => {
    const result = await revokeKeyById(tx, keyId);
    if (result) await notifyChange(tx, { kind: 'signals_key', key_id: result.key_id });
    return result;
  });
  if (!revoked) throw notFound(`no key ${keyId}`, 'keys are listed by `tradeseal signals keys list`');
  return revoked;
}
