/**
 * The FIX drop-copy session for the officer (owner and auditor tokens, as the audit log): `GET
 * /engine/admin/dropcopy` (its state, sequence numbers, fills by outcome, refused messages; ../../engine/dropcopy/status.ts)
 * and `GET /engine/admin/dropcopy/rejects` (the refused messages themselves, newest first). Both only read.
 */
import type { FastifyInstance } from 'fastify';
import { requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { configuredSession, listDropCopyRejects, NOT_CONFIGURED, readDropCopyStatus } from '../../engine/dropcopy/status.js';
import { listingQuery } from '../../engine/inputs.js';
import { bearer, dateTime, errorResponses } from '../../engine/schemas.js';

const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const KEY = 'FIX.4.4:TRADESEAL->XNAS-DC';

export const dropCopyStatusSchema = {
  type: 'object',
  description: 'The FIX drop-copy session: its state, sequence numbers, fills and refused messages',
  required: [
    'state',
    'summary',
    'configured',
    'session',
    'fills',
    'last_fill_at',
    'conflicts',
    'last_conflict_at',
    'orphans_resolved',
    'rejects',
    'last_reject_at',
    'checked_at',
  ],
  properties: {
    state: {
      type: 'string',
      description:
        "The state row's `state` (connecting, logged_on, logged_out, disconnected, stopped); with no row, " +
        '`not_configured` (FIX_DROPCOPY_ROLE unset on this server, and no session ever ran) or `not_started` (configured, never run)',
    },
    summary: { type: 'string', description: 'the state in one line, for a person' },
    configured: {
      type: ['object', 'null'],
      description: "the session this server's settings configure; null when FIX_DROPCOPY_ROLE is unset",
      required: ['session_key', 'role', 'host', 'port'],
      properties: {
        session_key: { type: 'string' },
        role: { type: 'string', enum: ['initiator', 'acceptor'] },
        host: { type: 'string' },
        port: { type: 'integer' },
      },
    },
    session: {
      type: ['object', 'null'],
      description: "the state row the server running the session keeps: the configured session's, else the last one updated; null when none ever ran",
      required: [
        'session_key',
        'role',
        'state',
        'owner',
        'epoch',
        'next_sender_seq',
        'next_target_seq',
        'last_inbound_at',
        'last_outbound_at',
        'last_logon_at',
        'updated_at',
      ],
      properties: {
        session_key: { type: 'string', description: '`FIX.4.4:<SenderCompID>-><TargetCompID>`, ours first' },
        role: { type: 'string', enum: ['initiator', 'acceptor'] },
        state: { type: 'string' },
        owner: { type: ['string', 'null'], description: '`<hostname>:<pid>` of the instance that runs (or last ran) it' },
        epoch: { type: 'integer', description: 'raised each time an instance takes the session' },
        next_sender_seq: { type: 'integer', minimum: 1, description: 'the MsgSeqNum (34) of our next message' },
        next_target_seq: { type: 'integer', minimum: 1, description: 'the lowest inbound MsgSeqNum not yet applied: every one below it is' },
        last_inbound_at: nullableTime,
        last_outbound_at: nullableTime,
        last_logon_at: nullableTime,
        updated_at: dateTime,
      },
    },
    fills: {
      type: 'object',
      description: 'fills (ExecutionReport 150=F) applied, once each, by outcome (divergent: they differ from the authorization or the bind of their trace)',
      required: ['matched', 'divergent', 'orphan', 'already_known', 'total'],
      properties: { matched: count, divergent: count, orphan: count, already_known: count, total: count },
    },
    last_fill_at: { ...nullableTime, description: 'when the last fill was applied' },
    conflicts: {
      ...count,
      description: 'fills repeating the ExecID of one applied on the same trading day with other fields (kept, never applied over the first)',
    },
    last_conflict_at: nullableTime,
    orphans_resolved: { ...count, description: 'ORPHAN traces of fills whose bind arrived after them and resolved them' },
    rejects: { ...count, description: 'inbound messages refused (GET /engine/admin/dropcopy/rejects lists them)' },
    last_reject_at: nullableTime,
    checked_at: { ...dateTime, description: 'when the server read this: ages are counted from it' },
  },
} as const;

export const dropCopyRejectSchema = {
  type: 'object',
  required: ['received_at', 'seq', 'msg_type', 'answer', 'reason_code', 'ref_tag', 'reason', 'raw', 'session_key', 'id'],
  properties: {
    received_at: dateTime,
    seq: { type: ['integer', 'null'], description: 'MsgSeqNum (34); null for bytes that were not a message' },
    msg_type: { type: ['string', 'null'], description: 'MsgType (35)' },
    answer: {
      type: 'string',
      enum: ['reject', 'business_reject', 'none'],
      description: 'Reject (35=3), BusinessMessageReject (35=j), or none (not a message: the peer resends it)',
    },
    reason_code: { type: ['integer', 'null'], description: 'SessionRejectReason (373) or BusinessRejectReason (380) sent' },
    ref_tag: { type: ['integer', 'null'], description: 'RefTagID (371): the tag at fault' },
    reason: { type: 'string', description: 'Text (58) as sent, or why it was not a message' },
    raw: {
      type: 'string',
      description:
        'what was received, byte for byte: | for SOH, a printable ASCII byte but | and \\ as itself, any other byte as \\xNN (two lowercase hex digits)',
    },
    session_key: { type: 'string' },
    id: { type: 'string', format: 'uuid' },
  },
} as const;

const statusExample = {
  state: 'logged_on',
  summary: `${KEY} (initiator) logged_on on ts-engine-1:4121`,
  configured: { session_key: KEY, role: 'initiator', host: 'dropcopy.xnas.example', port: 9878 },
  session: {
    session_key: KEY,
    role: 'initiator',
    state: 'logged_on',
    owner: 'ts-engine-1:4121',
    epoch: 3,
    next_sender_seq: 412,
    next_target_seq: 1873,
    last_inbound_at: '2026-01-05T15:02:11.031Z',
    last_outbound_at: '2026-01-05T15:02:05.000Z',
    last_logon_at: '2026-01-05T06:30:00.118Z',
    updated_at: '2026-01-05T15:02:11.031Z',
  },
  fills: { matched: 1839, divergent: 1, orphan: 2, already_known: 0, total: 1842 },
  last_fill_at: '2026-01-05T15:02:11.044Z',
  conflicts: 0,
  last_conflict_at: null,
  orphans_resolved: 3,
  rejects: 1,
  last_reject_at: '2026-01-05T11:17:42.250Z',
  checked_at: '2026-01-05T15:02:12.000Z',
};

const rejectExample = {
  received_at: '2026-01-05T11:17:42.250Z',
  seq: 1207,
  msg_type: '8',
  answer: 'reject',
  reason_code: 1,
  ref_tag: 31,
  reason: 'Required tag missing: LastPx (31)',
  raw: '8=FIX.4.4|9=141|35=8|34=1207|49=XNAS-DC|56=TRADESEAL|52=20260105-11:17:42.248|37=O-88|17=XNAS-20260105-000777|150=F|39=2|55=AAPL|54=1|32=100|60=20260105-11:17:42.201|1=6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b|10=201|',
  session_key: KEY,
  id: '3f2e1d0c-9b8a-4c7d-8e6f-5a4b3c2d1e0f',
};

export function dropCopyRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const audit = requireToken(ctx, 'audit');

  app.get(
    '/engine/admin/dropcopy',
    {
      onRequest: audit,
      schema: {
        tags: ['engine admin'],
        operationId: 'getDropCopyStatus',
        security: bearer,
        summary: 'The FIX drop-copy session: its state, sequence numbers, fills by outcome and refused messages',
        description: `Owner and auditor tokens. With no session configured and none ever run, \`state\` is \`not_configured\` ("${NOT_CONFIGURED}"), not an error.`,
        response: { 200: { ...dropCopyStatusSchema, examples: [statusExample] }, ...errorResponses(401, 403) },
      },
    },
    async () => readDropCopyStatus(ctx.sql, configuredSession(ctx.config), new Date(ctx.now())),
  );

  app.get<{ Querystring: { limit: number } }>(
    '/engine/admin/dropcopy/rejects',
    {
      onRequest: audit,
      schema: {
        tags: ['engine admin'],
        operationId: 'listDropCopyRejects',
        security: bearer,
        summary: 'The inbound messages the FIX drop-copy session refused, newest first',
        description:
          'Owner and auditor tokens. Each as received, with how it was answered at the FIX level and why; an audit entry `dropcopy.reject` records each.',
        querystring: listingQuery,
        response: {
          200: {
            type: 'object',
            description: 'The refused messages, newest first',
            required: ['count', 'rejects'],
            properties: { count: { type: 'integer' }, rejects: { type: 'array', items: dropCopyRejectSchema } },
            examples: [{ count: 1, rejects: [rejectExample] }],
          },
          ...errorResponses(401, 403, 422),
        },
      },
    },
    async (req) => {
      const rejects = await listDropCopyRejects(ctx.sql, req.query.limit);
      return { count: rejects.length, rejects };
    },
  );
}
