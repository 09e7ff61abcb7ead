/** Reading traces: one trace, its verification, and the listings officers work from. */
import type { FastifyInstance } from 'fastify';
import { forbidden, notFound } from '../../core/errors.js';
import { mayActFor, readScope, requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { listingQuery, pendingQuery, traceParams, tracesQuery } from '../../engine/inputs.js';
import { tracePersonal } from '../../engine/ops/trace-personal.js';
import { checkTraceWindow, listingCursor } from '../../engine/ops/trace-window.js';
import { getTrace, listTraces, type TraceFilter } from '../../engine/store/traces.js';
import type { TokenRecord } from '../../engine/store/tokens.js';
import { readTraceReconciliation } from '../../engine/reconcile/trace-view.js';
import { traceDocument, verifyTrace } from '../../engine/trace/read.js';
import type { TraceStatus } from '../../core/vocabulary.js';
import { traceExample, traceListingExample, traceVerificationExample } from './examples.js';
import { bearer, errorResponse, errorResponses } from '../../engine/schemas.js';
import { listing, traceDocumentSchema, traceVerificationSchema } from './trace-schemas.js';

const listingResponse = { ...listing, description: 'Traces, newest first' };
const noTrace = errorResponse('No trace with this `trace_id`: `not_found`.');
const otherAgent = errorResponse('A client token bound to other agents: `agent_not_permitted`.');

export function traceRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const read = requireToken(ctx, 'read');
  const tags = ['engine traces'];

  const list = async (principal: TokenRecord | undefined, filter: Omit<TraceFilter, 'agentIds'> & { agentId?: string }) => {
    const scope = readScope(principal);
    if (filter.agentId && scope && !scope.includes(filter.agentId))
      throw forbidden('agent_not_permitted', `this token may not read traces of agent ${filter.agentId}`);
    const { agentId, ...rest } = filter;
    const { items, hasMore } = await listTraces(ctx.sql, { ...rest, agentIds: agentId ? [agentId] : scope });
    return { count: items.length, has_more: hasMore, traces: items };
  };

  const loadReadable = async (principal: TokenRecord | undefined, traceId: string) => {
    const row = await getTrace(ctx.sql, traceId);
    if (!row) throw notFound(`no trace ${traceId}`);
    if (!mayActFor(principal, row.agent_id)) throw forbidden('agent_not_permitted', `this token may not read traces of agent ${row.agent_id}`);
    return row;
  };

  app.get<{ Params: { trace_id: string } }>(
    '/engine/trace/:trace_id',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'getTrace',
        security: bearer,
        summary: 'One trace, in the Reasoning_Trace_v1 layout',
        params: traceParams,
        response: {
          200: {
            ...traceDocumentSchema,
            description:
              'The trace: the sealed document with its personal data (`regulatory`, null once erased), and `integrity`, which holds every field that is not sealed (the listing status among them). Without `integrity`, and with `regulatory` replaced by `{commitment: integrity.regulatory_commitment}` (null when that is null), it is the sealed document whose JCS `reasoning_hash` covers',
            examples: [traceExample],
          },
          ...errorResponses(400, 401, 422),
          403: otherAgent,
          404: noTrace,
        },
      },
    },
    async (req) => {
      const row = await loadReadable(req.principal, req.params.trace_id);
      const [personal, reconciliation] = await Promise.all([tracePersonal(ctx.sql, ctx.keys, row), readTraceReconciliation(ctx.sql, row.trace_id)]);
      return traceDocument(row, personal, reconciliation);
    },
  );

  app.get<{ Params: { trace_id: string } }>(
    '/engine/trace/:trace_id/verify',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'verifyTrace',
        security: bearer,
        summary: 'Recompute reasoning_hash and final_proof from the stored trace',
        params: traceParams,
        response: {
          200: { ...traceVerificationSchema, description: 'Each check, and whether all passed (`valid`)', examples: [traceVerificationExample] },
          ...errorResponses(400, 401, 422),
          403: otherAgent,
          404: noTrace,
        },
      },
    },
    async (req) => {
      const row = await loadReadable(req.principal, req.params.trace_id);
      return verifyTrace(row, await tracePersonal(ctx.sql, ctx.keys, row));
    },
  );

  app.get<{
    Querystring: {
      agent_id?: string;
      from?: number;
      to?: number;
      status?: TraceStatus;
      limit: number;
      search?: string;
      before_time?: number;
      before_trace_id?: string;
      needs_attention?: boolean;
    };
  }>(
    '/engine/traces',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'listTraces',
        security: bearer,
        summary: 'Traces by filter, newest first (txn_time, then trace_id); the next page with before_time and before_trace_id of the last trace',
        querystring: tracesQuery,
        response: {
          200: { ...listingResponse, examples: [traceListingExample] },
          ...errorResponses(401, 422),
          403: errorResponse('`agent_id` names an agent this token may not read: `agent_not_permitted`.'),
        },
      },
    },
    async (req) => {
      const q = req.query;
      checkTraceWindow(q.from, q.to);
      return list(req.principal, {
        limit: q.limit,
        ...(q.agent_id ? { agentId: q.agent_id } : {}),
        ...(q.from !== undefined ? { from: new Date(q.from) } : {}),
        ...(q.to !== undefined ? { to: new Date(q.to) } : {}),
        ...(q.status ? { statuses: [q.status] } : {}),
        search: q.search ?? null,
        after: listingCursor(q.before_time, q.before_trace_id),
        ...(q.needs_attention ? { needsAttention: true } : {}),
      });
    },
  );

  app.get<{ Querystring: { age_seconds: number; limit: number } }>(
    '/engine/pending',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'listPendingTraces',
        security: bearer,
        summary: 'PENDING traces older than age_seconds',
        querystring: pendingQuery,
        response: { 200: listingResponse, ...errorResponses(401, 422) },
      },
    },
    async (req) => list(req.principal, { limit: req.query.limit, statuses: ['PENDING'], olderThan: new Date(ctx.now() - req.query.age_seconds * 1000) }),
  );

  app.get<{ Querystring: { limit: number } }>(
    '/engine/orphans',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'listOrphanTraces',
        security: bearer,
        summary: 'Traces that need attention: DIVERGENT, EXPIRED, MISMATCH, ORPHAN, and SHADOW_HALTED ones whose verification failed',
        querystring: listingQuery,
        response: { 200: listingResponse, ...errorResponses(401, 422) },
      },
    },
    async (req) => list(req.principal, { limit: req.query.limit, needsAttention: true }),
  );

  app.get<{ Querystring: { limit: number } }>(
    '/engine/shadow-violations',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'listShadowViolations',
        security: bearer,
        summary: 'SHADOW_HALTED traces',
        querystring: listingQuery,
        response: { 200: listingResponse, ...errorResponses(401, 422) },
      },
    },
    async (req) => list(req.principal, { limit: req.query.limit, statuses: ['SHADOW_HALTED'] }),
  );
}
