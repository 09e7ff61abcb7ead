/**
 * An IRL client's order (`POST /irl/authorize`) in tradeseal's vocabulary, before the engine's schema sees it.
 *
 * Only spellings are translated; nothing the agent did not say is made up. The IRL order types that have a
 * tradeseal equivalent (`MARKET`, `LIMIT`, `STOP`, `STOP_LIMIT`, `TWAP`, `VWAP`, in any case, and tradeseal's
 * own spellings) are mapped; the others (`IOC`, `FOK`, `POST_ONLY`, `PEGGED`, `TRAILING_STOP`, `ICEBERG`,
 * `{"CUSTOM": …}`) and `{"Custom": …}` actions are a 422 naming what is supported, because sealing a Market
 * order for an IOC the agent sent would seal a decision the agent did not make. `{"Long": n}` is `Long`: the
 * IRL Engine itself discards `n` and seals `quantity`. A heartbeat signature sent as a JSON array of 64
 * bytes (the IRL TypeScript client's type) is the same bytes in base64; an empty `mta_ref` means "none", as
 * on the IRL Engine. Pure: the value in, the value out.
 */
import { validationError } from '../../core/errors.js';
import { ORDER_TYPES, type OrderType } from '../../core/vocabulary.js';

const IRL_ORDER_TYPES = ['MARKET', 'LIMIT', 'STOP', 'STOP_LIMIT', 'TWAP', 'VWAP'] as const;

/** Case and underscores aside, the IRL spelling and tradeseal's are the same word. */
const ORDER_TYPE_BY_KEY = new Map<string, OrderType>(ORDER_TYPES.map((t) => [t.toLowerCase(), t]));
const keyOf = (s: string) => s.replace(/_/g, '').toLowerCase();

const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * A 422 whose `detail` (the IRL clients' `message`) names the field and what is supported, not only the
 * field: an IRL client shows `message` and nothing else of the answer.
 */
export const refusal = (field: string, message: string) => validationError([{ field, message }], `${field} ${message}`);

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Upper-case hex (the IRL Engine decodes either case) in tradeseal's lower case. */
export const lowerHex = (v: unknown): unknown => (typeof v === 'string' && HEX64.test(v) ? v.toLowerCase() : v);

function orderTypeOf(v: unknown): unknown {
  if (v === undefined) return v;
  const mapped = typeof v === 'string' ? ORDER_TYPE_BY_KEY.get(keyOf(v)) : undefined;
  if (mapped) return mapped;
  const shown = typeof v === 'string' ? JSON.stringify(v) : 'a custom order type';
  throw refusal('order_type', `${shown} has no equivalent in tradeseal; supported: ${IRL_ORDER_TYPES.join(', ')}`);
}

function actionOf(v: unknown): unknown {
  if (!isRecord(v)) return v;
  const keys = Object.keys(v);
  if (keys.length === 1 && (keys[0] === 'Long' || keys[0] === 'Short')) return keys[0];
  if (keys.includes('Custom')) {
    throw refusal('action', 'custom actions are not supported; send {"Long": quantity}, {"Short": quantity} or "Neutral"');
  }
  return v;
}

const isByte = (b: unknown) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255;

function heartbeatOf(v: unknown): unknown {
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = { ...v };
  const sig = out.signature;
  // 64 bytes: an Ed25519 signature (RFC 8032 §5.1.6). Anything else is left for the schema to refuse.
  if (Array.isArray(sig) && sig.length === 64 && sig.every(isByte)) out.signature = Buffer.from(sig as number[]).toString('base64');
  if (out.mta_ref === '') delete out.mta_ref;
  return out;
}

/** The order in tradeseal's spelling; a 422 (`validation_failed`) for what has no equivalent. */
export function authorizeBodyFromIrl(body: unknown): unknown {
  if (!isRecord(body)) return body;
  const out: Record<string, unknown> = { ...body };
  if ('order_type' in out) out.order_type = orderTypeOf(out.order_type);
  if ('action' in out) out.action = actionOf(out.action);
  if ('heartbeat' in out) out.heartbeat = heartbeatOf(out.heartbeat);
  if ('model_hash_hex' in out) out.model_hash_hex = lowerHex(out.model_hash_hex);
  return out;
}
