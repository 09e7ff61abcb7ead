/**
 * A change of credentials: what a process that caches credentials must drop when a token is revoked, a key
 * is rotated or revoked, or an account's tier changes. The same value travels three ways: applied to this
 * process's caches, told to the sibling workers of `serve --workers N` over the cluster's IPC channel, and
 * sent to every other server on the database with PostgreSQL's NOTIFY (as JSON, `encodeChange`).
 *
 * It names what changed, never a secret: a token's or key's id, an account's id.
 */

/** The NOTIFY channel of credential changes. */
export const CREDENTIALS_CHANNEL = 'tradeseal_credentials';

export type CredentialChange =
  /** An engine token was revoked: every cached token is dropped (the token cache holds no more than that). */
  | { kind: 'engine_token'; token_id: string }
  /** A signal service key was rotated or revoked. */
  | { kind: 'signals_key'; key_id: string }
  /** An account's tier (or agent count) changed: every key of the account. */
  | { kind: 'signals_account'; account_id: string }
  /**
   * Everything cached: a process that may have missed changes (its notification connection was down) or
   * received one it cannot read (from a newer version) drops all it holds rather than guess.
   */
  | { kind: 'everything' };

export const EVERYTHING: CredentialChange = { kind: 'everything' };

export const encodeChange = (change: CredentialChange): string => JSON.stringify(change);

const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 100;

/** The change a payload names; anything that is not one exactly is `everything` (fail safe, never ignored). */
export function decodeChange(payload: unknown): CredentialChange {
  let value: unknown = payload;
  if (typeof payload === 'string') {
    try {
      value = JSON.parse(payload);
    } catch {
      return EVERYTHING;
    }
  }
  if (typeof value !== 'object' || value === null) return EVERYTHING;
  const v = value as Record<string, unknown>;
  if (v.kind === 'engine_token' && isId(v.token_id)) return { kind: 'engine_token', token_id: v.token_id };
  if (v.kind === 'signals_key' && isId(v.key_id)) return { kind: 'signals_key', key_id: v.key_id };
  if (v.kind === 'signals_account' && isId(v.account_id)) return { kind: 'signals_account', account_id: v.account_id };
  return EVERYTHING;
}
