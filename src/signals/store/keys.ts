/**
 * API keys of the regime signal service in the store: `rsk_` + 256 random bits (base64url), kept only as
 * SHA-256 hashes; the secret is returned once, by `issueKey`.
 *
 * `admit` lets one keyed request in, or says why not, in one statement: it finds the key by its hash, with
 * its account, and, for a tier with a daily limit, appends the request to the key's rolling 24-hour window
 * only if the window holds fewer than the limit. The window is one row per key updated by a conditional
 * UPDATE: a concurrent request waits for the row and Postgres re-checks the condition on the row it then
 * finds (READ COMMITTED's re-evaluation of an UPDATE's WHERE clause), so N requests left admit exactly N
 * whatever the concurrency and however many servers share the database. The IP lock works the same way on
 * the key's row, written only when the address changes or its last use is more than `TOUCH_MS` old, so a
 * busy key that stays on one address does not write on every request.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { sha256Hex } from '../../core/crypto/hash.js';
import { IP_LOCK_MS, RATE_WINDOW_MS, TIER_SPECS, type Tier } from '../tiers.js';
import type { SqlOrTx } from '../../store/transaction.js';

export const KEY_PREFIX = 'rsk_';

export const newKeySecret = (): string => KEY_PREFIX + randomBytes(32).toString('base64url');
export const keyHash = (key: string): string => sha256Hex(key);

/** How stale a key's `last_used_at` may get before a request from the same address refreshes it. */
export const TOUCH_MS = 10_000;

export interface KeyRecord {
  key_id: string;
  account_id: string;
  email: string;
  tier: Tier;
  agent_count: number;
  key_prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}

/** Issues a new key for an account; returns the secret (shown once) and its record. */
export async function issueKey(sql: SqlOrTx, accountId: string): Promise<{ api_key: string; key_id: string; key_prefix: string; created_at: Date }> {
  const secret = newKeySecret();
  const [row] = await sql<Array<{ key_id: string; key_prefix: string; created_at: Date }>>`
    insert into signal_keys (key_id, account_id, key_hash, key_prefix) values (${randomUUID()}, ${accountId}, ${keyHash(secret)}, ${secret.slice(0, 10)})
    returning key_id, key_prefix, created_at`;
  return { api_key: secret, ...row! };
}

export type Admission =
  | { ok: true; key: KeyRecord; limit: number | null; remaining: number | null }
  | { ok: false; why: 'unknown' }
  | { ok: false; why: 'revoked'; key: KeyRecord }
  | { ok: false; why: 'ip_locked'; key: KeyRecord; unlocks_at: Date }
  | { ok: false; why: 'rate_limited'; key: KeyRecord; limit: number; resets_at: Date };

const LIMITS = JSON.stringify(Object.fromEntries(Object.entries(TIER_SPECS).map(([t, s]) => [t, s.dailyLimit])));
const LOCKED = JSON.stringify(Object.fromEntries(Object.entries(TIER_SPECS).map(([t, s]) => [t, s.ipLock])));

interface AdmitRow extends KeyRecord {
  ip_ok: boolean;
  admitted: boolean;
  in_window: number | null;
  frees_at: Date | null;
  locked_until: Date | null;
}

const WINDOW = `make_interval(secs => ${RATE_WINDOW_MS / 1000})`;

/*
 * The rolling window of a key of limit L is the times of its newest requests, at most L of them, oldest
 * first (a row's requests are serialised by its row lock, so they are appended in time order). A request is
 * admitted when fewer than L stored requests are inside the last 24 hours: when fewer than L are stored, or
 * the L-th newest is older than 24 hours. Both are O(1) on the array; the oldest stored is dropped when L are
 * stored. The L-th newest, plus 24 hours, is when the next request frees up.
 */
const windowAdmits = (limit: string): string =>
  `(cardinality(w.hits) < ${limit} or w.hits[cardinality(w.hits) - ${limit} + 1] <= clock_timestamp() - ${WINDOW})`;
const windowSet = (limit: string): string =>
  `(case when cardinality(w.hits) >= ${limit} then w.hits[cardinality(w.hits) - ${limit} + 2 : cardinality(w.hits)] else w.hits end) || clock_timestamp()`;
const IN_WINDOW = `(select count(*) from unnest(hits) h where h > clock_timestamp() - ${WINDOW})::int`;
const LOCK = `make_interval(secs => ${IP_LOCK_MS / 1000})`;
const TOUCH = `make_interval(secs => ${TOUCH_MS / 1000})`;

/**
 * The admission statement. `k`: the key and its account, as of the statement's snapshot. `touched`: the IP
 * lock moved to this address, under the row lock, only where the lock allows it (another address's use is 15
 * minutes old) and a write is due (a new address, or a stale `last_used_at`). `ip_ok`: the address is the
 * key's (as read) or the lock was just moved to it. `counted`: the request added to the window, under the
 * window row's lock, only if the window holds fewer than the tier's limit.
 */
const ADMIT_SQL = `
  with k as (
    select k.key_id, k.account_id, a.email, a.tier, a.agent_count, k.key_prefix, k.created_at, k.revoked_at, k.last_ip, k.last_used_at,
           ($2::text::jsonb ->> a.tier)::int as day_limit, ($3::text::jsonb ->> a.tier)::boolean as ip_lock
    from signal_keys k join signal_accounts a using (account_id)
    where k.key_hash = $1
  ), touched as (
    update signal_keys s set last_ip = $4, last_used_at = clock_timestamp()
    from k
    where s.key_id = k.key_id and k.revoked_at is null and k.ip_lock
      and (s.last_ip is distinct from $4 or s.last_used_at < clock_timestamp() - ${TOUCH})
      and (s.last_ip is null or s.last_ip = $4 or s.last_used_at <= clock_timestamp() - ${LOCK})
    returning s.key_id
  ), ok as (
    select k.*, (not k.ip_lock or k.last_ip = $4 or exists (select 1 from touched)) as ip_ok from k where k.revoked_at is null
  ), counted as (
    insert into signal_rate_windows as w (key_id, hits)
    select key_id, array[clock_timestamp()] from ok where ip_ok and day_limit is not null
    on conflict (key_id) do update set hits = ${windowSet('(select day_limit from ok)')} where ${windowAdmits('(select day_limit from ok)')}
    returning ${IN_WINDOW} as in_window
  )
  select k.key_id, k.account_id, k.email, k.tier, k.agent_count, k.key_prefix, k.created_at, k.revoked_at,
         coalesce((select ip_ok from ok), false) as ip_ok,
         coalesce((select ip_ok from ok), false) and (k.day_limit is null or exists (select 1 from counted)) as admitted,
         (select in_window from counted) as in_window,
         (select w.hits[cardinality(w.hits) - k.day_limit + 1] + ${WINDOW} from signal_rate_windows w where w.key_id = k.key_id) as frees_at,
         case when k.last_ip is distinct from $4 then k.last_used_at + ${LOCK} end as locked_until
  from k`;

/**
 * Admits one request of the key whose secret is `key`, from address `ip`, at the database's clock. A key of
 * a limited tier is counted in its rolling window; the IP lock of free, starter and pro keys is checked and
 * moved. One round trip.
 */
export function admit(sql: Sql, key: string, ip: string): Promise<Admission> {
  return admitting(sql, key, ip, false);
}

async function admitting(sql: Sql, key: string, ip: string, again: boolean): Promise<Admission> {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return { ok: false, why: 'unknown' };
  const [row] = await sql.unsafe<AdmitRow[]>(ADMIT_SQL, [keyHash(key), LIMITS, LOCKED, ip], { prepare: true });
  if (!row) return { ok: false, why: 'unknown' };
  const { ip_ok: ipOk, admitted, in_window: inWindow, frees_at: freesAt, locked_until: lockedUntil, ...record } = row;
  const limit = TIER_SPECS[record.tier].dailyLimit;
  if (record.revoked_at !== null) return { ok: false, why: 'revoked', key: record };
  // A concurrent request from this same address may have moved the lock here after this statement's snapshot
  // was taken (the first uses of a new key, at once): `touched` then finds nothing to move and the snapshot
  // still names no address or the old one. A refused admission wrote nothing, so asking once more, with a
  // fresh snapshot, tells that apart from a use from another address.
  if (!ipOk && !again) return admitting(sql, key, ip, true);
  if (!ipOk) return { ok: false, why: 'ip_locked', key: record, unlocks_at: lockedUntil ?? new Date(Date.now() + IP_LOCK_MS) };
  if (admitted) return { ok: true, key: record, limit, remaining: limit === null ? null : Math.max(0, limit - (inWindow ?? 0)) };
  return { ok: false, why: 'rate_limited', key: record, limit: limit ?? 0, resets_at: freesAt ?? new Date(Date.now() + RATE_WINDOW_MS) };
}

export type Counted = { ok: true; remaining: number } | { ok: false; resets_at: Date };

const COUNT_SQL = `
  with counted as (
    insert into signal_rate_windows as w (key_id, hits) values ($1, array[clock_timestamp()])
    on conflict (key_id) do update set hits = ${windowSet('$2::int')} where ${windowAdmits('$2::int')}
    returning ${IN_WINDOW} as in_window
  )
  select (select in_window from counted) as in_window,
         (select w.hits[cardinality(w.hits) - $2::int + 1] + ${WINDOW} from signal_rate_windows w where w.key_id = $1) as frees_at`;

/**
 * Counts one request of a key already known (its admission cached by src/signals/admission-cache.ts) in its
 * rolling window of `limit`: the same rule as `admit`, exact under concurrency, in one statement.
 */
export async function countRequest(sql: Sql, keyId: string, limit: number): Promise<Counted> {
  const [row] = await sql.unsafe<Array<{ in_window: number | null; frees_at: Date | null }>>(COUNT_SQL, [keyId, limit], { prepare: true });
  if (row?.in_window != null) return { ok: true, remaining: Math.max(0, limit - row.in_window) };
  return { ok: false, resets_at: row?.frees_at ?? new Date(Date.now() + RATE_WINDOW_MS) };
}
