/**
 * A policy document: loaded from `POLICY_PATH` (default `data/policy/default.json`), validated against
 * its schema at start, frozen, and hashed (`policy.hash` = SHA-256 of its JCS form) so every trace names
 * exactly the rules it was judged by.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { hashJson } from '../../core/crypto/hash.js';
import { TradesealError } from '../../core/errors.js';
import { fieldErrors } from '../../core/validation.js';
import type { OrderType, Regime, TradeAction } from '../../core/vocabulary.js';
import { policySchema } from './schema.js';

export interface RegimeRule {
  allowed_sides: TradeAction[];
  max_notional_scale: number;
}

export interface PolicyDocument {
  id: string;
  version: string;
  description?: string;
  regimes: Record<Regime, RegimeRule>;
  currency_caps: Record<string, number>;
  asset_caps?: Record<string, number>;
  max_quantity?: number | null;
  allowed_venues?: string[] | null;
  allowed_order_types?: OrderType[] | null;
  max_orders_per_second?: number | null;
  notional_tolerance: number;
  regime_max_age_ms: number;
  agent_valid_time_max_lag_ms: number;
}

export interface Policy {
  document: Readonly<PolicyDocument>;
  hash: string;
}

const validate = new Ajv({ allErrors: true, strict: false }).compile(policySchema);

/** Validates a parsed policy document; throws `policy_invalid` listing every bad field. */
export function parsePolicy(doc: unknown, source = 'policy'): Policy {
  if (!validate(doc)) {
    const errors = fieldErrors(validate.errors ?? [], 'policy');
    throw new TradesealError('policy_invalid', `${source} is not a valid policy: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, {
      errors,
      hint: 'compare with data/policy/default.json; `tradeseal engine policy check FILE` validates a file',
    });
  }
  const document = deepFreeze(structuredClone(doc)) as PolicyDocument;
  return Object.freeze({ document, hash: hashJson(document) });
}

export function loadPolicy(path: string): Policy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new TradesealError('policy_invalid', `cannot read policy file ${path}: ${(err as Error).message}`, {
      hint: 'check the path (POLICY_PATH for the engine); data/policy/default.json is a policy to start from',
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new TradesealError('policy_invalid', `policy file ${path} is not JSON: ${(err as Error).message}`, {
      hint: 'fix the JSON syntax at the position named; compare with data/policy/default.json',
    });
  }
  return parsePolicy(doc, path);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
