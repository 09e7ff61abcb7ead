/**
 * The track log's routes: every published day is a leaf (src/signals/track/leaf.ts), under heads signed with the
 * service's log key. The heads, the key and the consistency proofs are public (no key): anyone may keep the heads
 * and check that the log only grows. A day's leaves carry its signal-day record, so its proof needs a key that may
 * read the day (`history_limit` otherwise), as `GET /v1/signals/{date}` does; the list of logged days a key asks
 * for holds the days it may read.
 */
import type { FastifyInstance } from 'fastify';
import { consistencyProofSchema, signedTreeHeadSchema } from '../../core/log/schemas.js';
import { hex64 } from '../../engine/schemas.js';
import { requireKey } from '../../signals/auth.js';
import type { SignalsContext } from '../../signals/context.js';
import { trackConsistencyQuery, trackHeadQuery, trackProofQuery } from '../../signals/inputs.js';
import { assertReadable, earliestReadable } from '../../signals/ops/history-limit.js';
import { dayProof, trackConsistency, trackDays, trackHead } from '../../signals/ops/track-log.js';
import { trackLogKeyLoader } from '../../signals/track/key.js';
import { TRACK_LEAF_KINDS } from '../../signals/track/leaf.js';
import { publicKeyForms } from '../../signals/signing-key.js';
import { errorResponses, signalsKeySecurity } from './schemas.js';

const noKey: never[] = [];

const dayProofSchema = {
  type: 'object',
  required: ['date', 'tree_size', 'leaves'],
  properties: {
    date: { type: 'string', format: 'date' },
    tree_size: { type: 'integer', minimum: 1, description: 'The tree the proofs are for: that of the head of this size' },
    leaves: {
      type: 'array',
      description: "The day's leaves in that tree, oldest first: the first is the original, any later one a republication",
      items: {
        type: 'object',
        required: ['leaf_index', 'kind', 'data', 'leaf_hash', 'audit_path'],
        properties: {
          leaf_index: { type: 'integer', minimum: 0 },
          kind: { type: 'string', enum: [...TRACK_LEAF_KINDS] },
          data: {
            type: 'string',
            description:
              'The leaf data: canonical JSON (RFC 8785) of {date, entry_type, kind, logged_at, record, run_id, supersedes}, `record` holding exactly the fields its ' +
              '`entry_type` defines (`signal-day/v1`); a leaf logged before entry types is {date, kind, logged_at, package, run_id, supersedes}, read as `signal-day/v0`. The leaf is its UTF-8 bytes',
          },
          leaf_hash: { ...hex64, description: 'SHA-256(0x00 ‖ data)' },
          audit_path: { type: 'array', items: hex64, description: "RFC 9162 §2.1.3.1 inclusion proof, from the leaf's sibling up" },
        },
      },
    },
  },
} as const;

const loggedDaysSchema = {
  type: 'object',
  required: ['tree_size', 'days', 'beyond_history'],
  properties: {
    tree_size: { type: 'integer', minimum: 1, description: 'The tree the days are of: that of the head of this size' },
    days: { type: 'array', items: { type: 'string', format: 'date' }, description: 'The dates with a leaf in that tree that the key may read, oldest first' },
    beyond_history: { type: 'integer', minimum: 0, description: "Logged days older than the key's tier reads, not listed (a higher tier reads them)" },
  },
} as const;

const logKeySchema = {
  type: 'object',
  required: ['key_id', 'hex', 'base64', 'pem'],
  properties: {
    key_id: { ...hex64, description: "The key's fingerprint: SHA-256 of its DER SubjectPublicKeyInfo (RFC 6962 §3.2 LogID); every head names it" },
    hex: { type: 'string' },
    base64: { type: 'string' },
    pem: { type: 'string' },
  },
} as const;

export function trackLogRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  const keyed = requireKey(ctx, 'key');
  const tags = ['signals track log'];
  const logKey = trackLogKeyLoader(ctx.sql, ctx.config);

  app.get<{ Querystring: { tree_size?: number } }>(
    '/v1/log/head',
    {
      schema: {
        operationId: 'getTrackLogHead',
        tags,
        security: noKey,
        summary: 'A signed tree head of the track log: the newest, or one signed at a past size',
        description:
          "Ed25519 over RFC 6962 §3.5's 50 bytes (`0x00 ‖ 0x01 ‖ timestamp ‖ tree_size ‖ root_hash`). Keep the heads you fetch: " +
          '`tradeseal signals verify --head FILE` proves a day against one, and that the log only grew since.',
        querystring: trackHeadQuery,
        response: { 200: signedTreeHeadSchema, ...errorResponses(404, 422) },
      },
    },
    async (req) => trackHead(ctx.sql, req.query.tree_size),
  );

  app.get(
    '/v1/log/key',
    {
      schema: {
        operationId: 'getTrackLogKey',
        tags,
        security: noKey,
        summary: "The track log's public key and fingerprint (compare the fingerprint with one obtained apart from this service)",
        response: { 200: logKeySchema },
      },
    },
    async () => {
      const key = await logKey();
      return { key_id: key.keyId, ...publicKeyForms(key.publicKey) };
    },
  );

  app.get<{ Querystring: { date: string; tree_size?: number } }>(
    '/v1/log/proof',
    {
      onRequest: keyed,
      schema: {
        operationId: 'getTrackLogProof',
        tags,
        security: signalsKeySecurity,
        summary: "A published day's leaves in the track log, with their inclusion proofs (RFC 9162 §2.1.3)",
        description:
          'Verify against the root of the head of the same `tree_size`. A day republished with other content has several leaves; the first is the original.',
        querystring: trackProofQuery,
        response: { 200: dayProofSchema, ...errorResponses(400, 401, 403, 404, 422, 429, 503) },
      },
    },
    async (req) => {
      const newest = await ctx.data.assertServable();
      assertReadable(req.signalsKey!.tier, newest, req.query.date);
      return dayProof(ctx.sql, req.query.date, req.query.tree_size);
    },
  );

  app.get<{ Querystring: { tree_size?: number } }>(
    '/v1/log/days',
    {
      onRequest: keyed,
      schema: {
        operationId: 'getTrackLogDays',
        tags,
        security: signalsKeySecurity,
        summary: 'The days logged in the tree of a signed head that the key may read, oldest first',
        description:
          "`tradeseal signals verify` without `--date` proves each of them against the head you saved. Days older than the key's tier reads are counted in `beyond_history`.",
        querystring: trackHeadQuery,
        response: { 200: loggedDaysSchema, ...errorResponses(400, 401, 403, 404, 422, 429, 503) },
      },
    },
    async (req) => {
      const newest = await ctx.data.assertServable();
      return trackDays(ctx.sql, req.query.tree_size, earliestReadable(req.signalsKey!.tier, newest));
    },
  );

  app.get<{ Querystring: { from: number; to?: number } }>(
    '/v1/log/consistency',
    {
      schema: {
        operationId: 'getTrackLogConsistency',
        tags,
        security: noKey,
        summary: 'The consistency proof between two signed sizes of the track log: the older tree is a prefix of the newer (RFC 9162 §2.1.4)',
        querystring: trackConsistencyQuery,
        response: { 200: consistencyProofSchema, ...errorResponses(404, 422) },
      },
    },
    async (req) => trackConsistency(ctx.sql, req.query.from, req.query.to),
  );
}
