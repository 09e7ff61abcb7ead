/**
 * Bearer-token authentication of the engine (docs/decisions/0013-engine-tokens.md).
 *
 * - missing, malformed, unknown, revoked or expired token: 401 `unauthorized`;
 * - a valid token of the wrong role: 403 `forbidden`. Owners may do everything; auditors read, never write;
 *   clients authorize, bind and read, and a client token bound to agent ids acts and reads for those only.
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { forbidden, unauthorized } from '../core/errors.js';
import type { TokenRecord } from './store/tokens.js';
import type { TokenCache } from './token-cache.js';

/** What a route needs: `read` (any role), `write` (client or owner), `owner`, `audit` (owner or auditor). */
export type Access = 'read' | 'write' | 'owner' | 'audit';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: TokenRecord;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function requireToken(ctx: { tokens: TokenCache }, access: Access): onRequestAsyncHookHandler {
  return async function authenticate(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match?.[1]) {
      void reply.header('www-authenticate', 'Bearer realm="tradeseal-engine"');
      throw unauthorized('an engine token is required: Authorization: Bearer tse_…');
    }
    const token = await ctx.tokens.find(match[1]);
    if (!token) {
      void reply.header('www-authenticate', 'Bearer realm="tradeseal-engine", error="invalid_token"');
      throw unauthorized('the token is unknown, revoked or expired');
    }
    if (access === 'owner' && token.role !== 'owner') throw forbidden('forbidden', `this operation needs an owner token; this token's role is ${token.role}`);
    if (access === 'write' && token.role === 'auditor') throw forbidden('forbidden', 'an auditor token reads, never writes');
    if (access === 'audit' && token.role === 'client')
      throw forbidden('forbidden', "this operation needs an owner or auditor token; this token's role is client");
    req.principal = token;
  };
}

/** Whether the principal may act or read for `agentId` (client tokens bound to agent ids are scoped). */
export function mayActFor(principal: TokenRecord | undefined, agentId: string): boolean {
  if (!principal) return false;
  if (principal.role !== 'client' || !principal.agent_ids) return true;
  return principal.agent_ids.includes(agentId);
}

/** The agent ids a principal's reads are confined to, or null for all. */
export const readScope = (principal: TokenRecord | undefined): string[] | null =>
  principal && principal.role === 'client' && principal.agent_ids ? principal.agent_ids : null;

/** Who did it, for `changed_by`, `published_by` and audit entries. */
export const actorOf = (principal: TokenRecord | undefined): string => (principal ? `token:${principal.token_id} (${principal.client_name})` : 'cli');
