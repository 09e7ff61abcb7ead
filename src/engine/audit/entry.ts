/**
 * An entry of the engine's audit log and its hash: the pure part of the audit chain, no I/O.
 *
 * An entry is `{id, at, actor, action, target_id, details, prev_hash, entry_hash}`:
 * - `id`: a UUID, lowercase text as Postgres prints it (`0b5f…-…`);
 * - `at`: when it was appended, ISO 8601 UTC to the millisecond with a `Z` (`2025-01-02T03:04:05.678Z`,
 *   what `Date.prototype.toISOString` writes); the store keeps it to the millisecond, so this text is exact;
 * - `actor`: who did it (`token:<token_id> (<client_name>)` over HTTP, `cli:<os user>` from the CLI);
 * - `action`: one of `AUDIT_ACTIONS`; `target_id`: the UUID acted on (agent, token), lowercase, or null;
 * - `details`: a JSON object saying what was done (never a secret);
 * - `prev_hash`: the `entry_hash` of the entry before it, `GENESIS_HASH` (64 zeros) for the first;
 * - `entry_hash` = SHA-256 hex over the RFC 8785 (JCS) canonical JSON of the entry without `entry_hash`.
 * Anyone holding the entries can recompute every hash and check every link, oldest first.
 */
import { hashJson } from '../../core/crypto/hash.js';

/** The `prev_hash` of the first entry of the chain. */
export const GENESIS_HASH = '0'.repeat(64);

/** Every action the audit log records. */
export const AUDIT_ACTIONS = [
  'token.issue',
  'token.revoke',
  'shadow.enable',
  'shadow.disable',
  'agent.register',
  'agent.model_add',
  'agent.status',
  'regime.publish',
  'regime.release',
  'reconcile',
  'authorize.reject',
  'gdpr.erase',
  'dropcopy.fill',
  'dropcopy.reject',
  'dropcopy.session',
  'dropcopy.conflict',
  'orphan.resolved',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** An entry as served and as hashed: JSON values only (`at` is its ISO text). */
export interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  action: AuditAction;
  target_id: string | null;
  details: Record<string, unknown>;
  prev_hash: string;
  entry_hash: string;
}

export type UnhashedEntry = Omit<AuditEntry, 'entry_hash'>;

/** SHA-256 over the JCS of the entry without `entry_hash` (any `entry_hash` member given is ignored). */
export function entryHash(entry: UnhashedEntry): string {
  const { id, at, actor, action, target_id, details, prev_hash } = entry;
  return hashJson({ id, at, actor, action, target_id, details, prev_hash });
}

/** Why `entry` does not follow an entry whose hash is `prevHash`, or null when the link holds. */
export function brokenLink(entry: AuditEntry, prevHash: string): string | null {
  if (entry.prev_hash !== prevHash) return `its prev_hash ${entry.prev_hash} is not the entry_hash ${prevHash} of the entry before it`;
  const recomputed = entryHash(entry);
  if (recomputed !== entry.entry_hash) return `its entry_hash ${entry.entry_hash} is not the SHA-256 ${recomputed} of its content`;
  return null;
}
