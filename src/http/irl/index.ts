/**
 * The IRL Engine compatibility edge: the IRL Engine's clients (its TypeScript, Python and Go SDKs) work
 * unmodified against tradeseal on `/irl/...`, served by the same handlers and schemas as `/engine/...`.
 *
 * Steps around the engine routes, each only for a request that came in on an `/irl` path:
 * - routing (./paths.ts): `irlRewriteUrl` hands the request to its engine route (a Fastify `rewriteUrl`);
 * - requests (./authorize-input.ts, ./requests.ts): a `preValidation` hook puts the body or query in
 *   tradeseal's form, so the engine's schema validates what the handler will act on. Pure: no store access
 *   before the schema has run;
 * - the order's model: the engine route authorizes an `/irl` order with hash-only model approval
 *   (src/engine/authorize.ts, `modelByHash`), from the same cache as the rest of the short path;
 * - answers (./answers.ts, ./error-codes.ts): an `onSend` hook adds the IRL fields to the serialized answer.
 *   It works on the text the route's serializer produced, so what tradeseal's schemas drop stays dropped
 *   and the added fields are not lost to the serializer.
 * Access, validation, policy and sealing are the engine's own: an `/engine` request meets none of this.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RawRequestDefaultExpression } from 'fastify';
import { readAuditLog } from '../../engine/audit/query.js';
import type { EngineContext } from '../../engine/context.js';
import { irlErrorBody, irlSuccessBody } from './answers.js';
import { authorizeBodyFromIrl, isRecord } from './authorize-input.js';
import { engineUrlOf, isIrlUrl } from './paths.js';
import { auditQueryFromIrl, bindBodyFromIrl, pendingQueryFromIrl, registerBodyFromIrl, shadowBodyFromIrl } from './requests.js';

/** Fastify's `rewriteUrl` option: an IRL path is routed to its engine route. */
export const irlRewriteUrl = (req: RawRequestDefaultExpression): string => engineUrlOf(req.url ?? '/');

const isIrl = (req: FastifyRequest): boolean => isIrlUrl(req.originalUrl);
/** The engine route pattern that serves the request; null for a 404. */
const routeOf = (req: FastifyRequest): string | null => (req.is404 ? null : (req.routeOptions.url ?? null));

/** The body or query in tradeseal's form; throws a 422 for what has no equivalent. Pure. */
function translateRequest(req: FastifyRequest): void {
  const route = routeOf(req);
  const post = req.method === 'POST';
  if (route === '/engine/authorize') req.body = authorizeBodyFromIrl(req.body);
  else if (route === '/engine/bind-execution') req.body = bindBodyFromIrl(req.body);
  else if (route === '/engine/admin/agents' && post) req.body = registerBodyFromIrl(req.body);
  else if (route === '/engine/admin/shadow-mode' && post) req.body = shadowBodyFromIrl(req.body);
  else if (route === '/engine/admin/audit-log') req.query = auditQueryFromIrl(req.query as Record<string, unknown>);
  else if (route === '/engine/pending') req.query = pendingQueryFromIrl(req.query as Record<string, unknown>);
}

/** The erasure's `gdpr.erase` audit entry: the IRL Engine's `gdpr_request_id`. */
async function gdprRequestId(ctx: EngineContext, req: FastifyRequest, agentId: unknown): Promise<string | null> {
  if (typeof agentId !== 'string') return null;
  try {
    const page = await readAuditLog(ctx.sql, { action: 'gdpr.erase', target_id: agentId, limit: 1 });
    return page.entries[0]?.id ?? null;
  } catch (err) {
    // The erasure is committed; an answer without its audit entry id beats a 500 for a done erasure.
    req.log.warn({ err, reqId: req.id }, 'the gdpr.erase audit entry could not be read for gdpr_request_id');
    return null;
  }
}

async function translateAnswer(ctx: EngineContext, req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return payload;
  }
  if (!isRecord(body)) return payload;
  const route = routeOf(req);
  if (reply.statusCode >= 400) return JSON.stringify(irlErrorBody(route, body));
  if (route === null) return payload;
  const out = irlSuccessBody(route, req.method, body);
  if (route === '/engine/admin/gdpr-erase/:agent_id') out.gdpr_request_id = await gdprRequestId(ctx, req, body.agent_id);
  return JSON.stringify(out);
}

/** Installs the edge's hooks; the app must also route with `irlRewriteUrl` (see src/http/app.ts). */
export function installIrlEdge(app: FastifyInstance, ctx: EngineContext): void {
  // Callback hooks, so an `/engine` request pays one string test and no promise.
  app.addHook('preValidation', (req, _reply, done) => {
    if (!isIrl(req)) return done();
    try {
      translateRequest(req);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    if (!isIrl(req)) return done(null, payload);
    translateAnswer(ctx, req, reply, payload).then((out) => done(null, out), done);
  });
}
