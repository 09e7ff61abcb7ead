/**
 * Appending an entry to the engine's audit chain (src/engine/audit/entry.ts says what an entry is).
 *
 * `appendAudit` is meant to run inside the caller's transaction, so that the action and its entry commit
 * or roll back together: pass the transaction handle. Given the pool handle instead, it opens a transaction
 * of its own. Appends serialize on a transaction-scoped advisory lock (`ADVISORY_LOCKS.auditChain`): the
 * head of the chain is read, the entry hashed and inserted, and the lock released at commit, so the chain
 * never forks however many engines append at once (the unique index on `prev_hash` would refuse a fork
 * anyway). The price: appends, and therefore the transactions that append, run one at a time from the
 * moment they append until they commit, so a caller appends last, just before committing.
 *
 * `appendAuditMany` appends several entries at once under one lock: they are hashed in sequence, each linking
 * to the one before it, and inserted in one statement (the FIX drop copy records a batch of fills this way).
 */
import { randomUUID } from 'node:crypto';
import type { TransactionSql } from 'postgres';
import { sha256Hex } from '../../core/crypto/hash.js';
import { canonicalJsonOfPlain } from '../../core/crypto/jcs-plain.js';
import { ADVISORY_LOCKS } from '../../store/advisory-lock.js';
import { withTransaction, type SqlOrTx } from '../../store/transaction.js';
import { GENESIS_HASH, type AuditAction, type AuditEntry, type UnhashedEntry } from './entry.js';

export interface AuditInput {
  /** Who did it: `actorOf(principal)` over HTTP, `cliActor()` from the CLI. */
  actor: string;
  action: AuditAction;
  /** The UUID acted on (an agent, a token), or null. */
  target_id: string | null;
  /** What was done, as a JSON object; never a secret (no token, no key). */
  details: Record<string, unknown>;
}

/**
 * Appends one entry and returns it. `sql` should be the caller's transaction; a pool handle gets a
 * transaction of its own. (A reserved connection must already be in a transaction: the lock is released
 * at the end of the transaction it is taken in.)
 */
export async function appendAudit(sql: SqlOrTx, input: AuditInput): Promise<AuditEntry> {
  const [entry] = await appendAuditMany(sql, [input]);
  return entry as AuditEntry;
}

/**
 * Appends `inputs` in order, as consecutive entries of the chain, and returns them. The same rules as
 * `appendAudit`: run it in the caller's transaction, last.
 */
export function appendAuditMany(sql: SqlOrTx, inputs: AuditInput[]): Promise<AuditEntry[]> {
  if (inputs.length === 0) return Promise.resolve([]);
  return withTransaction(sql, (tx) => appendIn(tx, inputs));
}

async function appendIn(tx: TransactionSql, inputs: AuditInput[]): Promise<AuditEntry[]> {
  // The lock and the read of the head are sent together (one round trip); the read runs once the lock is held.
  const [, [head]] = await Promise.all([
    tx`select pg_advisory_xact_lock(${ADVISORY_LOCKS.auditChain})`,
    tx<Array<{ entry_hash: string; now: Date }>>`
      select h.entry_hash, date_trunc('milliseconds', clock_timestamp()) as now
      from (select 1) one left join (select entry_hash from audit_log order by seq desc limit 1) h on true`,
  ]);
  const at = (head?.now ?? new Date()).toISOString();
  let prevHash = head?.entry_hash ?? GENESIS_HASH;
  const detailsTexts: string[] = [];
  const entries: AuditEntry[] = inputs.map((input) => {
    // JSON values only, as they read back: what is hashed is what is stored (as its JCS text) and served.
    const details = JSON.parse(JSON.stringify(input.details)) as Record<string, unknown>;
    const unhashed = {
      id: randomUUID(),
      at,
      actor: input.actor,
      action: input.action,
      target_id: input.target_id === null ? null : input.target_id.toLowerCase(),
      details,
      prev_hash: prevHash,
    };
    const detailsText = canonicalJsonOfPlain(details);
    detailsTexts.push(detailsText);
    const entry: AuditEntry = { ...unhashed, entry_hash: entryHashOf(unhashed, detailsText) };
    prevHash = entry.entry_hash;
    return entry;
  });
  // One statement, whatever the number of entries: the rows as one JSON text parameter (JSON.stringify escapes the
  // details natively, far faster than an array literal's escaping), inserted in the order listed (ordinality), so
  // the identity column numbers them in the chain's order.
  const rows = JSON.stringify(entries.map((e, i) => ({ ...e, details: detailsTexts[i] })));
  await tx`
    insert into audit_log (id, at, actor, action, target_id, details, prev_hash, entry_hash)
    select u.id, u.at, u.actor, u.action, u.target_id, u.details, u.prev_hash, u.entry_hash
    from rows from (json_to_recordset(${rows}::text::json) as (id uuid, at timestamptz, actor text, action text, target_id uuid, details text,
      prev_hash text, entry_hash text)) with ordinality as u(id, at, actor, action, target_id, details, prev_hash, entry_hash, n)
    order by u.n`;
  return entries;
}

/**
 * entryHash (entry.ts), given the canonical text of the details (which is also what is stored): the JCS of the same
 * members, written out in JCS's order (member names sorted), each value through the plain-data path of canonical
 * JSON (crypto/jcs-plain.ts). The same text, so the same hash that verify recomputes with entryHash, without
 * walking the details a second time for each of a batch's hundreds of entries.
 */
function entryHashOf(u: UnhashedEntry, detailsText: string): string {
  const c = canonicalJsonOfPlain;
  return sha256Hex(
    `{"action":${c(u.action)},"actor":${c(u.actor)},"at":${c(u.at)},"details":${detailsText},"id":${c(u.id)},"prev_hash":${c(u.prev_hash)},"target_id":${c(u.target_id)}}`,
  );
}
