/**
 * tradeseal's answers in the shapes the IRL clients read, for `/irl/...` requests only.
 *
 * Fields are added beside tradeseal's own, never removed, so an answer stays a tradeseal answer too. Values
 * are restated only outside the sealed document: the bind's statuses (`MATCHED`, `DIVERGENT`, `FILLED`: the
 * IRL Engine's spelling; its `DIVERGENT` also covers tradeseal's `Mismatch`, an opposite side), the listings'
 * `verification_status`, and agents' `allowed_regimes` as the IRL wire ids. A trace document is served as
 * sealed, with `reasoning_hash` (its `integrity.reasoning_hash`) and `trace` (the document itself) added at
 * the top for the IRL Go client; a reader recomputing the hash drops those two keys first. Pure.
 */
import { REGIME_IDS, type Regime } from '../../core/vocabulary.js';
import { isRecord } from './authorize-input.js';
import { irlErrorCode } from './error-codes.js';
import { IRL_MODEL_ID } from './requests.js';

type Body = Record<string, unknown>;

/** Tradeseal's verification status in the IRL Engine's spelling. */
export const irlVerificationStatus = (v: unknown): unknown => (v === 'Mismatch' ? 'DIVERGENT' : typeof v === 'string' ? v.toUpperCase() : v);
const upper = (v: unknown): unknown => (typeof v === 'string' ? v.toUpperCase() : v);

function irlAgent(agent: unknown): unknown {
  if (!isRecord(agent)) return agent;
  const models = Array.isArray(agent.models) ? (agent.models as Array<{ model_id?: unknown; model_hash_hex?: unknown }>) : [];
  // The model an IRL client registered (`default`), else the newest approval (models are listed oldest first).
  const model = models.find((m) => m.model_id === IRL_MODEL_ID) ?? models.at(-1);
  const regimes = Array.isArray(agent.allowed_regimes)
    ? agent.allowed_regimes.map((r) => (typeof r === 'string' && Object.hasOwn(REGIME_IDS, r) ? REGIME_IDS[r as Regime] : r))
    : agent.allowed_regimes;
  return { ...agent, id: agent.agent_id, model_hash_hex: model?.model_hash_hex ?? null, allowed_regimes: regimes };
}

function irlListing(body: Body): Body {
  if (!Array.isArray(body.traces)) return body;
  return {
    ...body,
    traces: body.traces.map((t: unknown) =>
      isRecord(t)
        ? { ...t, verification_status: irlVerificationStatus(t.verification_status), policy_result: t.status === 'SHADOW_HALTED' ? 'SHADOW_HALTED' : 'ALLOWED' }
        : t,
    ),
  };
}

function irlTrace(body: Body): Body {
  const integrity = isRecord(body.integrity) ? body.integrity : {};
  return { ...body, reasoning_hash: integrity.reasoning_hash ?? null, trace: body };
}

/** The answer of a successful request, by the engine route (pattern) and method that served it. */
export function irlSuccessBody(route: string, method: string, body: Body): Body {
  switch (route) {
    case '/engine/bind-execution':
      return { ...body, verification_status: irlVerificationStatus(body.verification_status), execution_status: upper(body.execution_status) };
    case '/engine/trace/:trace_id':
      return irlTrace(body);
    case '/engine/pending':
    case '/engine/orphans':
    case '/engine/shadow-violations':
    case '/engine/traces':
      return irlListing(body);
    case '/engine/admin/agents':
      return method === 'GET' && Array.isArray(body.agents) ? { ...body, agents: body.agents.map(irlAgent) } : (irlAgent(body) as Body);
    case '/engine/admin/agents/:agent_id':
    case '/engine/admin/agents/:agent_id/status':
      return irlAgent(body) as Body;
    case '/engine/admin/shadow-mode':
      return { ...body, shadow_mode: body.enabled, updated_at: body.changed_at, updated_by: body.changed_by };
    case '/engine/admin/audit-log':
      return { ...body, next_cursor: body.next_before_id ?? null };
    case '/engine/admin/gdpr-erase/:agent_id':
      return { ...body, traces_erased: body.traces_affected, status: 'erased' };
    case '/engine/admin/tokens/:token_id':
      return method === 'DELETE' ? { ...body, status: 'revoked' } : body;
    default:
      return body;
  }
}

/** An error answer with the IRL Engine's `error` and `message` beside `code` and `detail`. */
export function irlErrorBody(route: string | null, body: Body): Body {
  if (typeof body.code !== 'string' || typeof body.detail !== 'string') return body;
  const errors = Array.isArray(body.errors) ? (body.errors as Array<{ field: string; message: string }>) : undefined;
  return { ...body, error: irlErrorCode({ code: body.code, route, detail: body.detail, ...(errors ? { errors } : {}) }), message: body.detail };
}
