/**
 * The one error module of tradeseal.
 *
 * Every failure that a user can cause or observe is a `TradesealError` carrying a machine-readable `code`.
 * `ERROR_CODES` is the one closed table of codes: each maps to its HTTP status, its CLI exit code and a
 * one-line description, and nothing else decides them (a throw site names a code, never a status). The
 * constructor takes only codes of the table, so a new code without a status and an exit code does not
 * compile. The Fastify error handler, the CLI and the README's tables all read this table.
 * The wire shape is the one of the interface decisions: `{code, detail}`, plus `errors[]` on a 422.
 *
 * The policy denial codes (403) are rows of this table too (`kind: 'denial'`); `src/engine/denials.ts`
 * turns them into verdicts (a rule breach is data, not an exception).
 */

export interface FieldError {
  field: string;
  message: string;
}

export type ErrorKind = 'error' | 'denial';

export interface ErrorSpec {
  status: number;
  exit: number;
  description: string;
  kind: ErrorKind;
}

/** CLI exit codes: 1 unexpected, 2 usage/validation, 3 not found, 4 conflict, 5 refused, 6 unavailable. */
export const EXIT = { internal: 1, usage: 2, notFound: 3, conflict: 4, refused: 5, unavailable: 6 } as const;

const spec = <S extends number, E extends number>(status: S, exit: E, description: string) => ({ status, exit, description, kind: 'error' as const });
/** A policy denial: 403, exit 5, rendered `CODE: detail` by the engine. */
const denial = (description: string) => ({ status: 403 as const, exit: EXIT.refused, description, kind: 'denial' as const });

/** The closed table of every code the project can emit. Order is the README's order. */
export const ERROR_CODES = {
  // Requests and command lines
  validation_failed: spec(422, EXIT.usage, 'The request or command has invalid fields; `errors` lists every one.'),
  invalid_json: spec(422, EXIT.usage, 'The request body is not valid JSON.'),
  unsupported_media_type: spec(415, EXIT.usage, 'The request body must be application/json.'),
  payload_too_large: spec(413, EXIT.usage, 'The request body is larger than 1 MiB.'),
  bad_request: spec(400, EXIT.usage, 'The request cannot be read (a malformed URL or header).'),
  headers_too_large: spec(431, EXIT.usage, 'The request line and headers are larger than the server reads (16 KiB): an over-long URL or header.'),
  request_timeout: spec(408, EXIT.usage, "The request was not received in full within the server's request timeout."),
  usage_error: spec(400, EXIT.usage, 'The command line is not valid: an unknown command or flag, a missing or malformed value.'),
  confirmation_required: spec(428, EXIT.usage, 'The operation removes or rewrites published data: confirm it on a terminal, or pass --yes.'),
  not_found: spec(404, EXIT.notFound, 'No such route or resource.'),
  method_not_allowed: spec(405, EXIT.usage, 'The route exists but not for this method; `Allow` lists the methods it has.'),
  unauthorized: spec(401, EXIT.refused, 'Missing, invalid, revoked or expired token.'),
  forbidden: spec(403, EXIT.refused, 'The token is valid but its role or scope does not allow this.'),
  client_certificate_required: spec(
    401,
    EXIT.refused,
    'TLS_CLIENT_CA is set and the connection presented no client certificate: every /engine route but health needs one.',
  ),
  client_certificate_invalid: spec(
    401,
    EXIT.refused,
    'The client certificate does not verify against TLS_CLIENT_CA (another CA, expired, not yet valid); `detail` says why.',
  ),
  precondition_failed: spec(412, EXIT.refused, 'A required setting or precondition is missing.'),
  conflict: spec(409, EXIT.conflict, 'The request conflicts with the current state; retrying may succeed.'),
  // The engine
  client_order_id_conflict: spec(409, EXIT.conflict, 'The client_order_id was already used by this agent for a different order.'),
  trace_already_bound: spec(409, EXIT.conflict, 'The trace is already bound to an execution.'),
  owner_token_exists: spec(409, EXIT.conflict, 'A live owner token exists; bootstrap registers only the first one.'),
  regime_not_published: spec(404, EXIT.notFound, 'No regime broadcast is published (authorize fails closed until one is).'),
  regime_override_not_in_force: spec(409, EXIT.conflict, 'No manual regime broadcast is in force, so there is nothing to release.'),
  policy_invalid: spec(422, EXIT.usage, 'The policy document is not valid; `errors` lists every bad field.'),
  not_yet_logged: spec(404, EXIT.notFound, 'The trace is committed but not yet in the transparency log; the sequencer adds it within a second.'),
  drop_copy_invalid: spec(422, EXIT.usage, 'A drop copy file for reconciliation is not valid; each problem names the file, the line, the field and the rule.'),
  audit_chain_broken: spec(
    409,
    EXIT.refused,
    'The audit log does not verify: the detail names the first entry whose prev_hash or entry_hash is wrong (an entry was changed, removed or inserted), or the entry a signed checkpoint anchors that the chain no longer holds (entries were cut off its end or rewritten).',
  ),
  // The regime signal service
  key_revoked: spec(403, EXIT.refused, 'The API key was revoked (rotating a key revokes the one it replaces).'),
  tier_insufficient: spec(403, EXIT.refused, "The key's tier does not include this endpoint."),
  ip_locked: spec(
    403,
    EXIT.refused,
    'The key was used from another address less than 15 minutes ago; retry after 15 minutes without use (`error: "ip_locked"`).',
  ),
  history_limit: spec(403, EXIT.refused, "The date is older than the key's tier may read."),
  audit_requires_agents: spec(403, EXIT.refused, 'The audit decomposition needs an engine audit account with at least 3 agents.'),
  rate_limited: spec(
    429,
    EXIT.refused,
    "Too many requests: the key reached its tier's requests per rolling 24 hours (`X-RateLimit-Reset` says when one frees up), or a registration mail went to the address less than a minute ago, or the registration mails of the hour are used up for the client address (`REGISTER_PER_CLIENT_PER_HOUR`) or in all (`REGISTER_TOTAL_PER_HOUR`); a registration refusal carries `retry_at` and `Retry-After`.",
  ),
  pipeline_lag: spec(503, EXIT.unavailable, 'No data is published yet, or a pipeline run is publishing and the newest day is older than expected.'),
  verification_failed: spec(422, EXIT.usage, 'The e-mail verification code is wrong, expired or used up (five wrong tries).'),
  webhook_target_refused: spec(
    422,
    EXIT.usage,
    'The webhook URL points at a loopback, private, link-local or metadata address (WEBHOOK_ALLOW_PRIVATE allows it).',
  ),
  // The pipeline
  data_invalid: spec(422, EXIT.usage, 'An input data file breaks a rule of its series; each problem names the file, the line, the value and the rule.'),
  not_enough_history: spec(422, EXIT.usage, 'The as-of date is before the first day a run can publish; the detail names that day.'),
  pipeline_running: spec(409, EXIT.conflict, 'Another pipeline run holds the lock.'),
  history_not_extendable: spec(
    409,
    EXIT.conflict,
    'The published history cannot be extended by this run (another seed or model version, or a row of its inputs on or before the last published day changed: the detail names the series and the first changed date); `--full` recomputes it.',
  ),
  published_days_would_be_removed: spec(409, EXIT.conflict, 'The run would remove published days; it needs --force and a confirmation.'),
  fred_request_rejected: spec(502, EXIT.unavailable, 'The FRED API refused a request for a series.'),
  source_unavailable: spec(
    502,
    EXIT.unavailable,
    'A data source (FRED or the market-data vendor) did not answer usefully after its retries: down, a timeout, 429 or 5xx, a body cut short; the detail names the source, the series and the last answer. Nothing it sent was written.',
  ),
  source_answer_invalid: spec(
    502,
    EXIT.unavailable,
    "A data source answered with something that is not its data: an HTML page where JSON was due, a bar out of order or repeated, a value its series' rules refuse; the detail names the source, the series and the fault. Nothing it sent was written.",
  ),
  data_late: spec(
    503,
    EXIT.unavailable,
    "The night's due day was not published by its deadline: a series lacks a row its release rule says is out, or a source was down; the detail names each late series and the row it lacks. Nothing was published; `tradeseal pipeline status` shows the night.",
  ),
  hmm_invalid_argument: spec(500, EXIT.internal, 'The regime model got an argument of the wrong shape or out of range.'),
  hmm_not_positive_definite: spec(500, EXIT.internal, 'A covariance matrix of the regime model is not positive definite.'),
  hmm_singular_matrix: spec(500, EXIT.internal, 'A linear system of the regime model has no unique solution.'),
  hmm_zero_likelihood: spec(500, EXIT.internal, 'The observations have zero probability under the regime model.'),
  // Running the services
  port_in_use: spec(500, EXIT.conflict, 'The port `serve` should listen on is taken by another process.'),
  service_unavailable: spec(
    503,
    EXIT.unavailable,
    'A dependency (the store) is unavailable or did not answer in time; retry after the `Retry-After` seconds (see "Guarantees").',
  ),
  config_invalid: spec(500, EXIT.usage, 'One or more settings are invalid.'),
  store_error: spec(500, EXIT.unavailable, 'The store failed (a migration, or the embedded store could not be opened).'),
  store_driver_unrepaired: spec(
    500,
    EXIT.internal,
    'The store driver (postgres.js) is installed without its repairs (patches/, applied by `npm install`): it would end the process when the store restarts under load, so no store is opened; run `npx patch-package`.',
  ),
  dropcopy_fix_unpatched: spec(
    500,
    EXIT.internal,
    'The FIX engine of the drop-copy session (jspurefix) is installed without its repair (patches/, applied by `npm install`): it would read bytes above 0x7F altered, so the session does not start; run `npx patch-package`.',
  ),
  internal: spec(500, EXIT.internal, 'An unexpected fault; the detail (CLI) or the server log under the request id (HTTP) says what.'),
  // Policy denials (403): why the engine refuses an order or a heartbeat
  agent_not_active: denial('The agent is unknown, suspended, deregistered or erased.'),
  model_not_registered: denial('The model_hash_hex is not an approved version of model_id for this agent.'),
  regime_not_allowed: denial("The current regime is outside the agent's allowed_regimes (reduce_only orders pass)."),
  side_not_allowed: denial("The action is not in the current regime's allowed_sides (reduce_only orders pass)."),
  notional_cap_exceeded: denial("The notional exceeds min(agent max_notional, currency cap) × the regime's max_notional_scale."),
  currency_not_allowed: denial('The policy has no cap for notional_currency.'),
  asset_cap_exceeded: denial("The notional exceeds the policy's cap for this asset."),
  quantity_cap_exceeded: denial("The quantity exceeds the policy's max_quantity."),
  venue_not_allowed: denial("The venue_id is not in the policy's allowed venues."),
  order_type_not_allowed: denial("The order_type is not in the policy's allowed order types."),
  notional_inconsistent: denial('The notional disagrees with quantity × price × multiplier beyond the tolerance.'),
  order_rate_exceeded: denial('The agent sent more orders in the last second than the policy allows (MiFID II RTS 6 throttle).'),
  regime_stale: denial("No regime is published, or the data of the published one (its `date`) are older than the policy's maximum age."),
  agent_valid_time_lag: denial("The agent's agent_valid_time is further behind the current regime than the policy allows."),
  agent_valid_time_future: denial(
    "The agent's agent_valid_time is later than the engine's clock by more than the replay window: a decision cannot be valid before it is made.",
  ),
  open_notional_exceeded: denial("The notional of the agent's open (authorized, unbound) orders plus this one exceeds its max_open_notional."),
  heartbeat_signature_invalid: denial("The heartbeat's signature does not verify against the regime operator's public key."),
  heartbeat_expired: denial("The heartbeat's timestamp_ms is outside the replay window of the engine's clock."),
  heartbeat_regime_mismatch: denial("The heartbeat's regime_id is not the current regime's."),
  heartbeat_mta_mismatch: denial("The heartbeat's mta_ref is not the hash of the current regime broadcast."),
  heartbeat_mta_required: denial('HEARTBEAT_REQUIRE_MTA_REF is on and the heartbeat carries no mta_ref.'),
  heartbeat_replayed: denial("The heartbeat's sequence_id is not greater than the last one accepted from this agent."),
  agent_not_permitted: denial('The token is bound to other agents.'),
  mtls_cn_mismatch: denial(
    "The client certificate's common name (or the agents TLS_CN_MAP gives it) is not the order's agent_id, or the agent of the trace being bound.",
  ),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

type Table = typeof ERROR_CODES;
/** The codes of a given HTTP status, so helpers such as `conflict()` accept only codes of their status. */
export type CodeWithStatus<S extends number> = { [K in ErrorCode]: Table[K]['status'] extends S ? K : never }[ErrorCode];
export type DenialCode = { [K in ErrorCode]: Table[K]['kind'] extends 'denial' ? K : never }[ErrorCode];

export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);

export interface TradesealErrorOptions {
  errors?: FieldError[];
  /** Extra fields merged into the response body (e.g. `error: "ip_locked"`). */
  extra?: Record<string, unknown>;
  hint?: string;
  cause?: unknown;
}

export class TradesealError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly exit: number;
  readonly errors?: FieldError[];
  readonly extra?: Record<string, unknown>;
  readonly hint?: string;

  constructor(code: ErrorCode, detail: string, options: TradesealErrorOptions = {}) {
    const s: ErrorSpec = ERROR_CODES[code];
    // A refusal (4xx) is an answer, not a fault: a request's refusal is not logged and the CLI prints no stack, so
    // none is captured for it (a flood of bad requests costs no stack walks). A 5xx keeps its stack for the log.
    const stackTraceLimit = Error.stackTraceLimit;
    if (s.status < 500) Error.stackTraceLimit = 0;
    try {
      super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'TradesealError';
    this.code = code;
    this.status = s.status;
    this.exit = s.exit;
    if (options.errors) this.errors = options.errors;
    if (options.extra) this.extra = options.extra;
    if (options.hint) this.hint = options.hint;
  }

  get detail(): string {
    return this.message;
  }

  /** The response body of the interface decisions. A 500 never carries internals; a 503 says what is unavailable. */
  toBody(): Record<string, unknown> {
    if (this.status === 500 || this.status === 502) {
      return { code: 'internal', detail: ERROR_CODES.internal.description };
    }
    const body: Record<string, unknown> = { code: this.code, detail: this.message, ...this.extra };
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

export const validationError = (errors: FieldError[], detail?: string): TradesealError =>
  new TradesealError(
    'validation_failed',
    detail ?? `${errors.length} invalid field${errors.length === 1 ? '' : 's'}: ${errors.map((e) => e.field).join(', ')}`,
    { errors },
  );

export const notFound = (what: string, hint?: string): TradesealError => new TradesealError('not_found', what, hint ? { hint } : {});

export const conflict = (code: CodeWithStatus<409>, detail: string, hint?: string): TradesealError => new TradesealError(code, detail, hint ? { hint } : {});

export const forbidden = (code: CodeWithStatus<403>, detail: string, extra?: Record<string, unknown>): TradesealError =>
  new TradesealError(code, detail, extra ? { extra } : {});

export const unauthorized = (detail: string): TradesealError => new TradesealError('unauthorized', detail);

export const isTradesealError = (e: unknown): e is TradesealError => e instanceof TradesealError;

/** The rows of one kind of the table, for the README. */
export function codesTable(kind: ErrorKind): string {
  const rows = (Object.entries(ERROR_CODES) as Array<[ErrorCode, ErrorSpec]>).filter(([, s]) => s.kind === kind);
  if (kind === 'denial') return ['| Code (403) | Meaning |', '|---|---|', ...rows.map(([c, s]) => `| \`${c}\` | ${s.description} |`)].join('\n');
  return [
    '| Code | HTTP | CLI exit | Meaning |',
    '|---|---|---|---|',
    ...rows.map(([c, s]) => `| \`${c}\` | ${s.status} | ${s.exit} | ${s.description} |`),
  ].join('\n');
}
