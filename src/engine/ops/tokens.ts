/**
 * Issuing and revoking engine tokens: the rules that the HTTP API (`/engine/admin/tokens`) and the CLI
 * (`tradeseal engine tokens …`) share, beyond what the request schema (src/engine/inputs.ts) says.
 *
 * - `agent_ids` binds client tokens only: an owner token acts for every agent and an auditor token reads
 *   every agent's traces, so a binding on them would promise a confinement that nothing enforces.
 * - Each id must name a registered agent: a token bound to no agent can do nothing, and would start acting
 *   for an agent registered later under that id.
 *
 * Both refusals are `validation_failed` (422, exit 2) naming the field (`agent_ids`, `agent_ids[1]`): the
 * request names the agents in its body, not in its URL, so an unknown one is a bad field, not a 404.
 *
 * Each issue and revocation is written to the audit log (`token.issue`, `token.revoke`) in the transaction
 * that makes it, by `actor`; the entry names the token, never its secret. A revocation is also notified to
 * every server on the database in that transaction (src/credentials/notify.ts).
 */
import type { Sql } from 'postgres';
import { notFound, validationError, type FieldError } from '../../core/errors.js';
import { notifyChange } from '../../credentials/notify.js';
import { withTransaction } from '../../store/transaction.js';
import { appendAudit } from '../audit/append.js';
import { registeredAgentIds } from '../store/agents.js';
import { issueToken, revokeToken, type IssuedToken, type IssueTokenInput } from '../store/tokens.js';

export async function issueEngineToken(sql: Sql, input: IssueTokenInput, actor: string): Promise<IssuedToken> {
  const errors = await agentBindingErrors(sql, input);
  if (errors.length > 0) throw validationError(errors);
  return withTransaction(sql, async (tx) => {
    const issued = await issueToken(tx, input);
    await appendAudit(tx, { actor, action: 'token.issue', target_id: issued.token_id, details: tokenIssueDetails(issued) });
    return issued;
  });
}

/** What the audit log keeps of an issued token: who it is for and what it may do, never the secret. */
export const tokenIssueDetails = (t: IssuedToken): Record<string, unknown> => ({
  client_name: t.client_name,
  role: t.role,
  agent_ids: t.agent_ids,
  expires_at: t.expires_at,
});

async function agentBindingErrors(sql: Sql, input: IssueTokenInput): Promise<FieldError[]> {
  const ids = input.agent_ids ?? [];
  if (ids.length === 0) return [];
  const role = input.role ?? 'client';
  if (role !== 'client') {
    return [{ field: 'agent_ids', message: `binds client tokens only; ${role === 'owner' ? 'an owner' : 'an auditor'} token is never bound to agents` }];
  }
  const registered = new Set(await registeredAgentIds(sql, ids));
  return ids.flatMap((id, i) => (registered.has(id.toLowerCase()) ? [] : [{ field: `agent_ids[${i}]`, message: `no agent ${id} is registered` }]));
}

/** Revokes a token at once; revoking a revoked one keeps its first revocation time. `not_found` when there is no such token. */
export async function revokeEngineToken(sql: Sql, tokenId: string, actor: string): Promise<{ token_id: string; revoked_at: Date }> {
  return withTransaction(sql, async (tx) => {
    const revoked = await revokeToken(tx, tokenId);
    if (!revoked) throw notFound(`no token ${tokenId}`, 'the tokens are listed by `tradeseal engine tokens list`');
    await appendAudit(tx, { actor, action: 'token.revoke', target_id: revoked.token_id, details: { revoked_at: revoked.revoked_at } });
    // Told to every server on the database when, and only if, this commits (src/credentials/notify.ts).
    await notifyChange(tx, { kind: 'engine_token', token_id: revoked.token_id });
    return revoked;
  });
}
