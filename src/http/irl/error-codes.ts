/**
 * The IRL Engine's error code for each tradeseal code: what `error` says on an `/irl/...` answer, beside
 * tradeseal's own `code` and `detail` (the IRL clients read `error` and `message`, and nothing else).
 *
 * One table, typed over every code of `ERROR_CODES` (src/core/errors.ts), so a new code without an IRL spelling
 * does not compile; the README's table is generated from it. Codes the IRL Engine has no equivalent for
 * are tradeseal's code upper-cased: a client then still sees which rule refused it, in the IRL clients'
 * spelling, rather than a guess at a neighbouring IRL rule. Where the IRL Engine is more specific than one
 * tradeseal code (a missing trace or a missing agent, both `not_found` here), `REFINEMENTS` says when.
 */
import { ERROR_CODES, type ErrorCode } from '../../core/errors.js';

const upper = <C extends ErrorCode>(code: C) => code.toUpperCase() as Uppercase<C>;

/** Every tradeseal code → the IRL Engine's `error`. */
export const IRL_ERROR_CODES: Record<ErrorCode, string> = {
  validation_failed: 'VALIDATION_FAILED',
  invalid_json: 'INVALID_JSON',
  unsupported_media_type: upper('unsupported_media_type'),
  payload_too_large: upper('payload_too_large'),
  bad_request: 'BAD_REQUEST',
  headers_too_large: upper('headers_too_large'),
  request_timeout: upper('request_timeout'),
  usage_error: upper('usage_error'),
  confirmation_required: upper('confirmation_required'),
  not_found: 'NOT_FOUND',
  method_not_allowed: upper('method_not_allowed'),
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  client_certificate_required: upper('client_certificate_required'),
  client_certificate_invalid: upper('client_certificate_invalid'),
  precondition_failed: 'ENCRYPTION_ERROR',
  conflict: upper('conflict'),
  client_order_id_conflict: 'DUPLICATE_INTENT',
  trace_already_bound: 'TRACE_ALREADY_BOUND',
  owner_token_exists: upper('owner_token_exists'),
  regime_not_published: upper('regime_not_published'),
  regime_override_not_in_force: upper('regime_override_not_in_force'),
  policy_invalid: upper('policy_invalid'),
  not_yet_logged: upper('not_yet_logged'),
  drop_copy_invalid: upper('drop_copy_invalid'),
  audit_chain_broken: upper('audit_chain_broken'),
  key_revoked: upper('key_revoked'),
  tier_insufficient: upper('tier_insufficient'),
  ip_locked: upper('ip_locked'),
  history_limit: upper('history_limit'),
  audit_requires_agents: upper('audit_requires_agents'),
  rate_limited: 'RATE_LIMIT_EXCEEDED',
  pipeline_lag: upper('pipeline_lag'),
  verification_failed: upper('verification_failed'),
  webhook_target_refused: upper('webhook_target_refused'),
  data_invalid: upper('data_invalid'),
  not_enough_history: upper('not_enough_history'),
  pipeline_running: upper('pipeline_running'),
  history_not_extendable: upper('history_not_extendable'),
  published_days_would_be_removed: upper('published_days_would_be_removed'),
  fred_request_rejected: upper('fred_request_rejected'),
  source_unavailable: upper('source_unavailable'),
  source_answer_invalid: upper('source_answer_invalid'),
  data_late: upper('data_late'),
  hmm_invalid_argument: upper('hmm_invalid_argument'),
  hmm_not_positive_definite: upper('hmm_not_positive_definite'),
  hmm_singular_matrix: upper('hmm_singular_matrix'),
  hmm_zero_likelihood: upper('hmm_zero_likelihood'),
  port_in_use: upper('port_in_use'),
  service_unavailable: 'DATABASE_ERROR',
  config_invalid: upper('config_invalid'),
  store_error: 'DATABASE_ERROR',
  store_driver_unrepaired: upper('store_driver_unrepaired'),
  dropcopy_fix_unpatched: upper('dropcopy_fix_unpatched'),
  internal: 'DATABASE_ERROR',
  agent_not_active: 'AGENT_NOT_ACTIVE',
  model_not_registered: 'MODEL_HASH_MISMATCH',
  regime_not_allowed: 'REGIME_UNAUTHORIZED',
  side_not_allowed: 'REGIME_VIOLATION',
  notional_cap_exceeded: 'NOTIONAL_EXCEEDS_LIMIT',
  currency_not_allowed: upper('currency_not_allowed'),
  asset_cap_exceeded: 'NOTIONAL_EXCEEDS_LIMIT',
  quantity_cap_exceeded: upper('quantity_cap_exceeded'),
  venue_not_allowed: 'VENUE_UNAUTHORIZED',
  order_type_not_allowed: upper('order_type_not_allowed'),
  notional_inconsistent: upper('notional_inconsistent'),
  order_rate_exceeded: upper('order_rate_exceeded'),
  regime_stale: 'MTA_FETCH_FAILED',
  agent_valid_time_lag: 'BITEMPORAL_VIOLATION',
  agent_valid_time_future: 'BITEMPORAL_VIOLATION',
  open_notional_exceeded: 'NOTIONAL_EXCEEDS_LIMIT',
  heartbeat_signature_invalid: 'HEARTBEAT_SIGNATURE_INVALID',
  heartbeat_expired: 'HEARTBEAT_DRIFT_EXCEEDED',
  heartbeat_regime_mismatch: 'HEARTBEAT_MTA_REF_MISMATCH',
  heartbeat_mta_mismatch: 'HEARTBEAT_MTA_REF_MISMATCH',
  heartbeat_mta_required: 'HEARTBEAT_MTA_REF_MISMATCH',
  heartbeat_replayed: 'HEARTBEAT_STALE_SEQUENCE',
  agent_not_permitted: 'FORBIDDEN',
  mtls_cn_mismatch: 'FORBIDDEN',
};

/** What an error answer tells the refinement: its code, the engine route it came from, its field errors. */
export interface ErrorFacts {
  code: string;
  /** The engine route pattern (`/engine/trace/:trace_id`), or null when no route matched. */
  route: string | null;
  detail: string;
  errors?: ReadonlyArray<{ field: string; message: string }>;
}

interface Refinement {
  code: ErrorCode;
  irl: string;
  /** When it applies, in the README's words. */
  when: string;
  applies: (f: ErrorFacts) => boolean;
}

const onTrace = (route: string | null) => route === '/engine/trace/:trace_id' || route === '/engine/bind-execution';
const onAgent = (route: string | null) => route?.startsWith('/engine/admin/agents') === true || route === '/engine/admin/gdpr-erase/:agent_id';

/** Where the IRL Engine has a more specific code than the table; the first that applies wins. */
export const REFINEMENTS: readonly Refinement[] = [
  { code: 'not_found', irl: 'TRACE_NOT_FOUND', when: 'on `/irl/trace/{id}` and `/irl/bind-execution`', applies: (f) => onTrace(f.route) },
  { code: 'not_found', irl: 'AGENT_NOT_FOUND', when: 'on `/irl/agents/...` and `/irl/admin/gdpr-erase/{id}`', applies: (f) => onAgent(f.route) },
  { code: 'agent_not_active', irl: 'AGENT_NOT_FOUND', when: 'when the agent is not registered', applies: (f) => f.detail.endsWith('is not registered') },
  {
    code: 'validation_failed',
    irl: 'HEARTBEAT_MISSING',
    when: 'when the only invalid field is a missing `heartbeat` (`LAYER2_ENABLED`)',
    applies: (f) => f.errors?.length === 1 && f.errors[0]?.field === 'heartbeat' && f.errors[0].message.startsWith('is required'),
  },
];

/** The IRL Engine's `error` for an answer with tradeseal's `code` (an unknown code is upper-cased). */
export function irlErrorCode(f: ErrorFacts): string {
  const refined = REFINEMENTS.find((r) => r.code === f.code && r.applies(f));
  if (refined) return refined.irl;
  return Object.hasOwn(IRL_ERROR_CODES, f.code) ? IRL_ERROR_CODES[f.code as ErrorCode] : f.code.toUpperCase();
}

/** The README's table: every code with its HTTP status, the IRL `error`, and the refinements. */
export function irlErrorCodesTable(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const more = REFINEMENTS.filter((r) => r.code === code)
      .map((r) => `; \`${r.irl}\` ${r.when}`)
      .join('');
    return `| \`${code}\` | ${ERROR_CODES[code].status} | \`${IRL_ERROR_CODES[code]}\`${more} |`;
  });
  return ['| tradeseal `code` | HTTP | IRL `error` |', '|---|---|---|', ...rows].join('\n');
}
