/**
 * `GET /engine/admin/audit-log` (owner or auditor): the hash-chained audit log, newest first, by action,
 * target, time window, with a `before_id` cursor. The examples are real entries: their hashes are computed
 * with the engine's own function and chain from the genesis hash.
 * `GET /engine/admin/audit-log/checkpoint`: the newest signed checkpoint of the chain's head, for an auditor to
 * keep (src/engine/audit/checkpoint.ts); its example is the example chain's, signed with the example log key.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createSigner, publicKeyFromSecret } from '../../core/crypto/ed25519.js';
import { notFound } from '../../core/errors.js';
import { newestCheckpoint } from '../../engine/audit/anchor.js';
import { CHECKPOINT_CONTEXT, signCheckpoint } from '../../engine/audit/checkpoint.js';
import { keyIdOf } from '../../core/log/tree-head.js';
import { requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { AUDIT_ACTIONS, entryHash, GENESIS_HASH, type AuditEntry, type UnhashedEntry } from '../../engine/audit/entry.js';
import { auditLogQuery, readAuditLog, type AuditLogQuery } from '../../engine/audit/query.js';
import { bearer, dateTime, errorResponse, errorResponses, hex64, uuid } from '../../engine/schemas.js';

export const auditEntrySchema = {
  type: 'object',
  required: ['id', 'at', 'actor', 'action', 'target_id', 'details', 'prev_hash', 'entry_hash'],
  properties: {
    id: uuid,
    at: { ...dateTime, description: 'when it was appended: ISO 8601 UTC to the millisecond, exactly the text hashed' },
    actor: { type: 'string', description: '`token:<token_id> (<client_name>)` over HTTP, `cli:<user>` from the CLI' },
    action: { type: 'string', enum: [...AUDIT_ACTIONS] },
    target_id: { type: ['string', 'null'], format: 'uuid', description: 'the agent or token acted on; null when none' },
    details: { type: 'object', additionalProperties: true, description: 'what was done (never a secret)' },
    prev_hash: { ...hex64, description: 'the entry_hash of the entry before this one; 64 zeros for the first' },
    entry_hash: { ...hex64, description: 'SHA-256 of the JCS of this entry without entry_hash' },
  },
} as const;

const chained = (entries: Omit<UnhashedEntry, 'prev_hash'>[]): AuditEntry[] => {
  let prev = GENESIS_HASH;
  return entries.map((e) => {
    const entry = { ...e, prev_hash: prev, entry_hash: entryHash({ ...e, prev_hash: prev }) };
    prev = entry.entry_hash;
    return entry;
  });
};

const OWNER = 'token:9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b (ops desk)';
const AGENT_ID = '6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b';
const examples = chained([
  {
    id: '3d0f1a52-7c1e-4b8a-9f0e-5a6b7c8d9e01',
    at: '2026-01-02T08:30:00.000Z',
    actor: OWNER,
    action: 'agent.register',
    target_id: AGENT_ID,
    details: {
      name: 'momentum-equities-eu',
      max_notional: 250_000,
      allowed_regimes: ['expansion', 'recovery'],
      models: [{ model_id: 'alpha-7', model_hash_hex: 'a'.repeat(64) }],
    },
  },
  {
    id: '8b2e4c61-0d3f-4a7b-8c9d-1e2f3a4b5c02',
    at: '2026-01-05T14:31:02.118Z',
    actor: 'token:c3a7e2d1-5f6b-4a8c-9d0e-2b1f3c4d5e6f (momentum-equities-eu executor)',
    action: 'authorize.reject',
    target_id: AGENT_ID,
    details: {
      code: 'notional_cap_exceeded',
      detail: 'notional 400000 USD exceeds the cap 250000 USD (agent max_notional 250000 × regime scale 1)',
      order: { client_order_id: 'ord-20260105-0002', action: 'Long', asset: 'AAPL', order_type: 'Market', venue_id: 'XNAS', quantity: 2000, notional: 400_000 },
    },
  },
]).reverse();

/** The key of the log's examples (./log-examples.ts), so the example checkpoint names the example heads' key_id. */
const exampleKey = new Uint8Array(createHash('sha256').update('tradeseal example log key').digest());
const newestExample = examples[0] as AuditEntry;
const checkpointExample = signCheckpoint(
  { size: examples.length, entry_id: newestExample.id, entry_hash: newestExample.entry_hash, timestamp: Date.parse('2026-01-05T14:31:03.000Z') },
  createSigner(exampleKey),
  keyIdOf(publicKeyFromSecret(exampleKey)),
);

export const auditCheckpointSchema = {
  type: 'object',
  required: ['size', 'entry_id', 'entry_hash', 'timestamp', 'signature', 'key_id'],
  properties: {
    size: { type: 'integer', minimum: 1, description: "the anchored entry's position in the chain, 1 = the oldest: the chain held this many entries" },
    entry_id: { ...uuid, description: 'the id of the anchored entry' },
    entry_hash: { ...hex64, description: 'its entry_hash' },
    timestamp: { type: 'integer', minimum: 0, description: "when the log's key signed the checkpoint, Unix ms" },
    signature: {
      type: 'string',
      pattern: '^[A-Za-z0-9+/]{86}==$',
      description: `Base64 Ed25519 signature, by the transparency log's key, over the UTF-8 of the JCS (RFC 8785) of {context: "${CHECKPOINT_CONTEXT}", size, entry_id, entry_hash, timestamp}`,
    },
    key_id: { ...hex64, description: "SHA-256 of the DER SubjectPublicKeyInfo of the log's public key (RFC 6962 §3.2 LogID): the key of the tree heads" },
  },
} as const;

export function auditLogRoutes(app: FastifyInstance, ctx: EngineContext): void {
  app.get<{ Querystring: AuditLogQuery }>(
    '/engine/admin/audit-log',
    {
      onRequest: requireToken(ctx, 'audit'),
      schema: {
        tags: ['engine admin'],
        operationId: 'listAuditLog',
        security: bearer,
        summary: 'The audit log: every admin action and every refused authorization, hash-chained, newest first',
        description:
          "Owner and auditor tokens. Each entry's `entry_hash` is the SHA-256 of the JCS of the entry without it, and its `prev_hash` the `entry_hash` " +
          'of the entry before it (64 zeros for the first), so anyone holding the entries can recompute the chain. Page to older entries with ' +
          '`before_id` = `next_before_id`. `from` and `to` are inclusive.',
        querystring: auditLogQuery,
        response: {
          200: {
            type: 'object',
            description: 'A page of entries, newest first',
            required: ['count', 'has_more', 'next_before_id', 'entries'],
            properties: {
              count: { type: 'integer' },
              has_more: { type: 'boolean', description: 'older entries match too' },
              next_before_id: { type: ['string', 'null'], format: 'uuid', description: 'pass as `before_id` for the next page; null on the last page' },
              entries: { type: 'array', items: auditEntrySchema },
            },
            examples: [{ count: 2, has_more: false, next_before_id: null, entries: examples }],
          },
          ...errorResponses(401, 403, 422),
          404: errorResponse('`before_id` names no entry: `not_found`.'),
        },
      },
    },
    async (req) => readAuditLog(ctx.sql, req.query),
  );

  app.get(
    '/engine/admin/audit-log/checkpoint',
    {
      onRequest: requireToken(ctx, 'audit'),
      schema: {
        tags: ['engine admin'],
        operationId: 'getAuditCheckpoint',
        security: bearer,
        summary: "The newest signed checkpoint of the audit chain's head: keep it to prove later that no entry up to it was cut or changed",
        description:
          "Owner and auditor tokens. The server signs one, with the transparency log's key, within about a second of the chain growing. " +
          '`tradeseal engine audit-log verify --checkpoint FILE` proves that the chain extends a kept checkpoint: it holds entry `size`, ' +
          'with that id and entry_hash, and so every entry before it unchanged.',
        response: {
          200: { ...auditCheckpointSchema, description: 'The newest checkpoint', examples: [checkpointExample] },
          ...errorResponses(401, 403),
          404: errorResponse('No checkpoint was signed yet (the audit log is empty, or its first entry is less than a second old): `not_found`.'),
        },
      },
    },
    async () => {
      const checkpoint = await newestCheckpoint(ctx.sql);
      if (!checkpoint) throw notFound('no checkpoint of the audit chain was signed yet', 'the server signs one within a second of the first entry');
      return checkpoint;
    },
  );
}
