/**
 * Engine tokens in the store. A token is `tse_` + 256 random bits (base64url); only its SHA-256 is kept,
 * so a database leak yields no usable token. The secret is returned once, by `issueToken`.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Sql } from 'postgres';
import { sha256Hex } from '../../core/crypto/hash.js';
import { appendAudit } from '../audit/append.js';
import type { SqlOrTx } from '../../store/transaction.js';

export const TOKEN_PREFIX = 'tse_';
export const TOKEN_ROLES = ['client', 'owner', 'auditor'] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

export interface TokenRecord {
  token_id: string;
  client_name: string;
  role: TokenRole;
  agent_ids: string[] | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface IssuedToken extends TokenRecord {
  token: string;
}

export interface IssueTokenInput {
  client_name: string;
  role?: TokenRole;
  agent_ids?: string[] | null;
  ttl_days?: number | null;
}

export const newTokenSecret = (): string => TOKEN_PREFIX + randomBytes(32).toString('base64url');

export const tokenHash = (token: string): string => sha256Hex(token);

const COLUMNS = 'token_id, client_name, role, agent_ids, created_at, expires_at, revoked_at';

export async function issueToken(sql: SqlOrTx, input: IssueTokenInput, secret: string = newTokenSecret()): Promise<IssuedToken> {
  const ttl = input.ttl_days ?? null;
  const rows = await sql.unsafe<TokenRecord[]>(
    `insert into engine_tokens (token_id, token_hash, client_name, role, agent_ids, expires_at)
     values ($1, $2, $3, $4, $5, case when $6::float8 is null then null else now() + make_interval(secs => $6::float8 * 86400) end)
     returning ${COLUMNS}`,
    [randomUUID(), tokenHash(secret), input.client_name, input.role ?? 'client', input.agent_ids ?? null, ttl] as never[],
  );
  return { ...(rows[0] as TokenRecord), token: secret };
}

/** The live token whose secret is `token`, or null (unknown, revoked or expired). */
export async function findLiveToken(sql: Sql, token: string): Promise<TokenRecord | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const hash = tokenHash(token);
  const rows = await sql.unsafe<Array<TokenRecord & { token_hash: string }>>(
    `select ${COLUMNS}, token_hash from engine_tokens
     where token_hash = $1 and revoked_at is null and (expires_at is null or expires_at > now())`,
    [hash],
  );
  const row = rows[0];
  // The lookup is by hash; the constant-time comparison guards against any collation or index surprise.
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(hash))) return null;
  const { token_hash: _h, ...record } = row;
  return record;
}

/**
 * What moves whenever a token is revoked: how many are revoked and the latest revocation time (revocations
 * are never undone and tokens never deleted, so the pair changes with every revocation).
 */
export async function revocationWatermark(sql: Sql): Promise<string> {
  const [row] = await sql<Array<{ mark: string }>>`
    select count(revoked_at)::text || '/' || coalesce(max(revoked_at)::text, '') as mark from engine_tokens`;
  return row?.mark ?? '';
}

export async function revokeToken(sql: SqlOrTx, tokenId: string): Promise<{ token_id: string; revoked_at: Date } | null> {
  const rows = await sql<Array<{ token_id: string; revoked_at: Date }>>`
    update engine_tokens set revoked_at = coalesce(revoked_at, now()) where token_id = ${tokenId}
    returning token_id, revoked_at`;
  return rows[0] ?? null;
}

export async function listTokens(sql: Sql): Promise<TokenRecord[]> {
  return sql.unsafe<TokenRecord[]>(`select ${COLUMNS} from engine_tokens order by created_at desc, token_id`);
}

export async function hasOwnerToken(sql: SqlOrTx): Promise<boolean> {
  const [row] = await sql<Array<{ n: number }>>`
    select count(*)::int as n from engine_tokens
    where role = 'owner' and revoked_at is null and (expires_at is null or expires_at > now())`;
  return (row?.n ?? 0) > 0;
}

/**
 * Registers the first owner token, from a given secret (ENGINE_OWNER_TOKEN) or a fresh one, only when no
 * live owner token exists. Serialised by an advisory lock so two instances starting at once register one.
 * The issue is written to the audit log (`token.issue`) in the same transaction, by `actor`.
 */
export async function bootstrapOwnerToken(
  sql: Sql,
  secret?: string,
  actor: string = secret ? 'setting:ENGINE_OWNER_TOKEN' : 'bootstrap',
): Promise<IssuedToken | null> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('tradeseal.engine.bootstrap'))`;
    if (await hasOwnerToken(tx)) return null;
    // A configured token that was registered before (and since revoked or expired) is not brought back.
    if (secret && (await tx`select 1 from engine_tokens where token_hash = ${tokenHash(secret)}`).length > 0) return null;
    const issued = await issueToken(tx, { client_name: secret ? 'ENGINE_OWNER_TOKEN' : 'bootstrap', role: 'owner' }, secret ?? newTokenSecret());
    await appendAudit(tx, {
      actor,
      action: 'token.issue',
      target_id: issued.token_id,
      details: { client_name: issued.client_name, role: issued.role, agent_ids: null, expires_at: null, bootstrap: true },
    });
    return issued;
  }) as Promise<IssuedToken | null>;
}
