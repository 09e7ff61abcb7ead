/**
 * Checks of what an operator types for the engine commands, at the edge, each error naming the flag or
 * argument and what was expected. Every bad field of a command is reported at once (`validation_failed`,
 * exit 2), the way the HTTP API's 422 lists every one.
 */
import { TradesealError, type FieldError } from '../errors.js';
import type { ApprovedModel, RegisterAgentInput } from '../engine/store/agents.js';
import type { PublishRegimeInput } from '../engine/store/regime.js';
import type { Regime } from '../engine/vocabulary.js';
import { isCalendarDateText } from './instant.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX64 = /^[0-9a-f]{64}$/i;
/** The HTTP API's limits (src/engine/routes/schemas.ts), so the CLI accepts exactly what the API accepts. */
const MAX_MODEL_ID = 256;
const MAX_NAME = 200;
const MAX_NOTIONAL = 1e15;

export const MODEL_FORM = 'MODEL_ID:SHA256HEX';

/** Throws `validation_failed` (exit 2) listing `errors`, when there are any. */
export function assertValid(errors: FieldError[], hint?: string): void {
  if (errors.length === 0) return;
  const fields = [...new Set(errors.map((e) => e.field))].join(', ');
  throw new TradesealError('validation_failed', `${errors.length} problem${errors.length === 1 ? '' : 's'} with ${fields}`, {
    errors, ...(hint ? { hint } : {}),
  });
}

/** `value` as a lowercase UUID, or an error naming `field`. */
export function checkUuid(value: string, field: string, errors: FieldError[]): string {
  if (!UUID.test(value)) errors.push({ field, message: `must be a UUID (8-4-4-4-12 hex digits), got "${value}"` });
  return value.toLowerCase();
}

/**
 * `MODEL_ID:SHA256HEX` as an approved model. The id is everything before the last colon (a SHA-256 in hex has
 * none), so ids may themselves contain colons. The hash is stored lowercase, the form agents send.
 */
export function parseModelSpec(spec: string, errors: FieldError[], field = '--model'): ApprovedModel | null {
  const at = spec.lastIndexOf(':');
  if (at === -1) {
    errors.push({ field, message: `"${spec}" is not ${MODEL_FORM}` });
    return null;
  }
  const modelId = spec.slice(0, at).trim();
  const hash = spec.slice(at + 1).trim();
  const before = errors.length;
  if (modelId.length === 0 || modelId.length > MAX_MODEL_ID) {
    errors.push({ field, message: `model_id of "${spec}" must be 1-${MAX_MODEL_ID} characters, got ${modelId.length}` });
  }
  if (!HEX64.test(hash)) {
    errors.push({ field, message: `model_hash_hex of "${spec}" must be 64 hex characters (a SHA-256 digest), got ${hash.length} character${hash.length === 1 ? '' : 's'}${hash.length === 64 ? ' that are not all hex' : ''}` });
  }
  return errors.length === before ? { model_id: modelId, model_hash_hex: hash.toLowerCase() } : null;
}

/** A positive, finite amount within the API's bound, or an error naming `field`. */
export function checkAmount(text: string, field: string, errors: FieldError[]): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0 || n > MAX_NOTIONAL) {
    errors.push({ field, message: `must be a number > 0 and ≤ ${MAX_NOTIONAL}, got "${text}"` });
  }
  return n;
}

export interface AgentRegistrationFlags {
  name: string;
  'max-notional': string;
  model: string[];
  'allowed-regime'?: Regime[] | undefined;
}

/** The registration the flags describe; throws `validation_failed` listing every bad flag. */
export function agentRegistration(flags: AgentRegistrationFlags): RegisterAgentInput {
  const errors: FieldError[] = [];
  const name = checkText(flags.name, '--name', MAX_NAME, errors);
  const maxNotional = checkAmount(flags['max-notional'], '--max-notional', errors);
  const models = flags.model.map((m) => parseModelSpec(m, errors)).filter((m): m is ApprovedModel => m !== null);
  assertValid(errors, `each --model is ${MODEL_FORM}, e.g. alpha-7:${'0'.repeat(64)}`);
  const regimes = flags['allowed-regime'];
  return {
    name,
    max_notional: maxNotional,
    models,
    allowed_regimes: regimes && regimes.length > 0 ? [...new Set(regimes)] : null,
  };
}

/** Trimmed text of 1-`max` characters, or an error naming `field`. */
export function checkText(text: string, field: string, max: number, errors: FieldError[]): string {
  const t = text.trim();
  if (t.length === 0 || t.length > max) errors.push({ field, message: `must be 1-${max} characters, got ${t.length}` });
  return t;
}

export interface ManualBroadcastFlags {
  regime: Regime;
  'risk-score': string;
  reason: string;
  date?: string | undefined;
  'model-version': string;
}

/** The manual broadcast the flags describe (`date` defaults to `today`); throws `validation_failed` listing every bad flag. */
export function manualBroadcast(flags: ManualBroadcastFlags, today: string, publishedBy: string): PublishRegimeInput {
  const errors: FieldError[] = [];
  const riskScore = Number(flags['risk-score']);
  if (flags['risk-score'].trim() === '' || !Number.isFinite(riskScore) || riskScore < 0 || riskScore > 1) {
    errors.push({ field: '--risk-score', message: `must be a number from 0 to 1, got "${flags['risk-score']}"` });
  }
  const reason = checkText(flags.reason, '--reason', 1000, errors);
  const date = flags.date ?? today;
  if (!isCalendarDateText(date)) errors.push({ field: '--date', message: `must be a calendar date YYYY-MM-DD, got "${date}"` });
  const modelVersion = checkText(flags['model-version'], '--model-version', 100, errors);
  assertValid(errors);
  return { date, regime: flags.regime, risk_score: riskScore, model_version: modelVersion, source: 'manual', reason, published_by: publishedBy };
}
