/**
 * What an operator types for the engine commands, checked the way the HTTP API checks a request.
 *
 * A command turns its flags into the request the API takes (the only CLI-only step: reading text, such as
 * `MODEL_ID:SHA256HEX` or a number) and validates it with the route's own schema (src/engine/inputs.ts)
 * through the HTTP validator (`validatePart`), so the CLI refuses exactly what the API refuses, with the same
 * messages; only the fields are named as the operator typed them (`client_name` → `--client-name`,
 * `agent_ids[1]` → `--agent-id`). Rules across fields or on the store's state are the engine operations'
 * (src/engine/ops/), which the commands call as the routes do; their refusals are renamed the same way.
 * Every bad field is reported at once (`validation_failed`, exit 2), as the API's 422 lists every one.
 */
import { approvedModelBody, registerAgentBody } from '../engine/inputs.js';
import type { ApprovedModel, RegisterAgentInput } from '../engine/store/agents.js';
import { isTradesealError, TradesealError, validationError, type FieldError } from '../core/errors.js';
import { validatePart, type RequestPart } from '../core/validation.js';

export const MODEL_FORM = 'MODEL_ID:SHA256HEX';

/** Throws `validation_failed` (exit 2) listing `errors`, when there are any. */
export function assertValid(errors: FieldError[], hint?: string): void {
  if (errors.length === 0) return;
  const fields = [...new Set(errors.map((e) => e.field))].join(', ');
  throw new TradesealError('validation_failed', `${errors.length} problem${errors.length === 1 ? '' : 's'} with ${fields}`, {
    errors,
    ...(hint ? { hint } : {}),
  });
}

/** How a command names the fields of its request: field → flag or argument (`agent_ids` → `--agent-id`, `agent_id` → `AGENT_ID`). */
export type FlagNames = Readonly<Record<string, string>>;

/** The flag or argument of a field path: its top-level field's name in `names`, else `--` and the field in kebab case. */
export function flagOf(field: string, names: FlagNames): string {
  const top = /^[^.[]*/.exec(field)?.[0] ?? field;
  return names[top] ?? `--${top.replace(/_/g, '-')}`;
}

/** `errors` with their fields named as flags; the same message for the same flag is listed once. */
export function asFlagErrors(errors: readonly FieldError[], names: FlagNames): FieldError[] {
  const out = new Map<string, FieldError>();
  for (const e of errors) {
    const field = flagOf(e.field, names);
    out.set(`${field}\u0000${e.message}`, { field, message: e.message });
  }
  return [...out.values()];
}

/**
 * The errors the API's validator finds in `value` as a request `part`, named as flags. Defaults are filled in
 * and, for `querystring` and `params`, text is coerced to the declared types, in `value` itself.
 */
export function requestErrors(schema: object, value: object, part: RequestPart, names: FlagNames = {}): FieldError[] {
  return asFlagErrors(validatePart(schema, value, part), names);
}

/** Throws `validation_failed` (exit 2) listing `errors` in the API's words, when there are any. */
export function refuse(errors: FieldError[], hint?: string): void {
  if (errors.length === 0) return;
  // A repeatable flag may carry several problems; the detail names it once.
  const fields = [...new Set(errors.map((e) => e.field))];
  const e = validationError(errors, `${errors.length} invalid field${errors.length === 1 ? '' : 's'}: ${fields.join(', ')}`);
  throw hint ? new TradesealError(e.code, e.message, { errors, hint }) : e;
}

/** `value` once it is a valid request `part` for `schema` (defaults filled in, text coerced); else `validation_failed`. */
export function checkRequest<T>(schema: object, value: object, part: RequestPart, names: FlagNames = {}, hint?: string): T {
  refuse(requestErrors(schema, value, part, names), hint);
  return value as T;
}

/** Runs an engine operation; a `validation_failed` it throws names the command's flags instead of the request's fields. */
export async function withFlagNames<T>(names: FlagNames, operation: () => T | Promise<T>, hint?: string): Promise<T> {
  try {
    return await operation();
  } catch (e) {
    if (isTradesealError(e) && e.code === 'validation_failed' && e.errors) refuse(asFlagErrors(e.errors, names), hint);
    throw e;
  }
}

/**
 * A number typed on the command line, as JSON would carry it: decimal, with an optional fraction and
 * exponent. Anything else stays text, so that the schema refuses it as the API refuses a string.
 */
export function numberOf(text: string): number | string {
  const t = text.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return text;
  const n = Number(t);
  return Number.isFinite(n) ? n : text;
}

/**
 * `MODEL_ID:SHA256HEX` as an approved model, or an error naming `field` when there is no colon. The id is
 * everything before the last colon (a SHA-256 in hex has none), so ids may themselves contain colons. The
 * hash is taken in lowercase, the form agents send; what the parts must be is the API's schema's to say.
 */
export function parseModelSpec(spec: string, errors: FieldError[], field = '--model'): ApprovedModel | null {
  const at = spec.lastIndexOf(':');
  if (at === -1) {
    errors.push({ field, message: `"${spec}" is not ${MODEL_FORM}` });
    return null;
  }
  return { model_id: spec.slice(0, at), model_hash_hex: spec.slice(at + 1).toLowerCase() };
}

/**
 * `--model MODEL_ID:SHA256HEX` as the body of `POST /engine/admin/agents/{id}/models`, checked with its
 * schema; null, with the problems added to `errors`, when it is not one.
 */
export function modelApproval(spec: string, errors: FieldError[]): ApprovedModel | null {
  const model = parseModelSpec(spec, errors);
  if (!model) return null;
  const bad = requestErrors(approvedModelBody, model, 'body', { model_id: '--model', model_hash_hex: '--model' });
  errors.push(...bad);
  return bad.length === 0 ? model : null;
}

export interface AgentRegistrationFlags {
  name: string;
  'max-notional': string;
  model?: string[] | undefined;
  'allowed-regime'?: string[] | undefined;
  'max-open-notional'?: string | undefined;
}

const AGENT_FLAGS: FlagNames = { models: '--model', allowed_regimes: '--allowed-regime', max_open_notional: '--max-open-notional' };

/** `--allowed-regime 2` names a regime by its wire id, as the API's `allowed_regimes: [2]` does. */
const regimeFlag = (value: string): string | number => (/^\d+$/.test(value) ? Number(value) : value);

/** The body of `POST /engine/admin/agents` the flags describe, checked with its schema; throws `validation_failed` listing every bad flag. */
export function agentRegistration(flags: AgentRegistrationFlags): RegisterAgentInput {
  const parseErrors: FieldError[] = [];
  const models = (flags.model ?? []).map((m) => parseModelSpec(m, parseErrors)).filter((m): m is ApprovedModel => m !== null);
  const body = {
    name: flags.name,
    max_notional: numberOf(flags['max-notional']),
    models,
    ...(flags['allowed-regime'] ? { allowed_regimes: flags['allowed-regime'].map(regimeFlag) } : {}),
    ...(flags['max-open-notional'] !== undefined ? { max_open_notional: numberOf(flags['max-open-notional']) } : {}),
  };
  refuse([...requestErrors(registerAgentBody, body, 'body', AGENT_FLAGS), ...parseErrors], `each --model is ${MODEL_FORM}, e.g. alpha-7:${'0'.repeat(64)}`);
  return body as RegisterAgentInput;
}
