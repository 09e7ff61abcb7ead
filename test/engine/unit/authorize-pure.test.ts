/**
 * The pure helpers of authorize (src/engine/authorize.ts): `plainAction` (the externally tagged
 * `{"Long": q}` form, accepted when q equals quantity) and `orderHash`, the idempotency key's order fields.
 * Stored idempotency records carry `orderHash` values, so its definition is pinned here against an
 * independent recomputation (the `canonicalize` package and node:crypto): a change would make every retry
 * after an upgrade a 409.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { orderHash, plainAction, type AuthorizeRequest } from '../../../src/engine/authorize.js';
import { TradesealError } from '../../../src/core/errors.js';

describe('plainAction', () => {
  const ok: Array<[AuthorizeRequest['action'], number, string]> = [
    ['Long', 5, 'Long'],
    ['Short', 5, 'Short'],
    ['Neutral', 5, 'Neutral'],
    [{ Long: 5 }, 5, 'Long'],
    [{ Short: 0.25 }, 0.25, 'Short'],
    [{ Long: 1e15 }, 1e15, 'Long'],
  ];
  for (const [action, quantity, expected] of ok) {
    it(`${JSON.stringify(action)} with quantity ${quantity} → ${expected}`, () => expect(plainAction(action, quantity)).toBe(expected));
  }

  const mismatched: Array<[AuthorizeRequest['action'], number, string, string]> = [
    [{ Long: 4 }, 5, 'action.Long', 'must equal quantity (5), got 4'],
    [{ Short: 5.000001 }, 5, 'action.Short', 'must equal quantity (5), got 5.000001'],
    [{ Long: 0.30000000000000004 }, 0.3, 'action.Long', 'must equal quantity (0.3), got 0.30000000000000004'],
  ];
  for (const [action, quantity, field, message] of mismatched) {
    it(`validation_failed: ${JSON.stringify(action)} with quantity ${quantity} names ${field}`, () => {
      let error: unknown;
      try {
        plainAction(action, quantity);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TradesealError);
      const e = error as TradesealError;
      expect(e.code).toBe('validation_failed');
      expect(e.status).toBe(422);
      expect(e.errors).toEqual([{ field, message }]);
    });
  }
});

describe('orderHash', () => {
  const base: AuthorizeRequest = {
    agent_id: '7d0c1b9e-58a4-4b8e-9d07-1f1e0a6b2c3d',
    model_hash_hex: 'a'.repeat(64),
    model_id: 'alpha-7',
    prompt_version: 'p-3',
    feature_schema_id: 'fs-1',
    hyperparameter_checksum: 'h-9',
    action: 'Long',
    asset: 'AAPL',
    order_type: 'Limit',
    venue_id: 'XNAS',
    quantity: 100,
    limit_price: 190,
    notional: 19_000,
    client_order_id: 'c-1',
    agent_valid_time: 1_750_000_000_000,
  };
  const hash = (req: AuthorizeRequest): string => orderHash(req, plainAction(req.action, req.quantity));

  it('is SHA-256 of the JCS of the order fields with the defaults spelt out and without the heartbeat', () => {
    const expected = createHash('sha256')
      .update(
        canonicalize({
          ...base,
          stop_price: null,
          multiplier: 1,
          notional_currency: 'USD',
          reduce_only: false,
          regulatory: null,
        }) as string,
      )
      .digest('hex');
    expect(hash(base)).toBe(expected);
    expect(hash(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is stable: the same order gives the same hash, whatever the order of its keys', () => {
    const reversed = Object.fromEntries(Object.entries(base).reverse()) as unknown as AuthorizeRequest;
    expect(hash(reversed)).toBe(hash(base));
    expect(hash(structuredClone(base))).toBe(hash(base));
  });

  const same: Array<[string, Partial<AuthorizeRequest>]> = [
    ['a heartbeat (a retry carries a fresh one)', { heartbeat: { sequence_id: 9, timestamp_ms: 1, regime_id: 0, signature: 'x' } }],
    ['a null heartbeat', { heartbeat: null }],
    ['multiplier 1 spelt out', { multiplier: 1 }],
    ['notional_currency USD spelt out', { notional_currency: 'USD' }],
    ['reduce_only false spelt out', { reduce_only: false }],
    ['stop_price null spelt out', { stop_price: null }],
    ['regulatory null spelt out', { regulatory: null }],
    ['the tagged action form', { action: { Long: 100 } }],
    ['a number spelt differently (19000.0 is 19000)', { notional: 19000.0 }],
  ];
  for (const [name, change] of same) {
    it(`ignores ${name}`, () => expect(hash({ ...base, ...change })).toBe(hash(base)));
  }

  const different: Array<[string, Partial<AuthorizeRequest>]> = [
    ['agent_id', { agent_id: '00000000-0000-4000-8000-000000000000' }],
    ['model_hash_hex', { model_hash_hex: 'b'.repeat(64) }],
    ['model_id', { model_id: 'alpha-8' }],
    ['prompt_version', { prompt_version: 'p-4' }],
    ['feature_schema_id', { feature_schema_id: 'fs-2' }],
    ['hyperparameter_checksum', { hyperparameter_checksum: 'h-10' }],
    ['action', { action: 'Short' }],
    ['action, tagged', { action: { Short: 100 } }],
    ['asset', { asset: 'MSFT' }],
    ['order_type', { order_type: 'StopLimit', stop_price: 189 }],
    ['venue_id', { venue_id: 'XNYS' }],
    ['quantity', { quantity: 101 }],
    ['notional', { notional: 19_001 }],
    ['client_order_id', { client_order_id: 'c-2' }],
    ['agent_valid_time', { agent_valid_time: 1_750_000_000_001 }],
    ['limit_price', { limit_price: 190.5 }],
    ['stop_price', { stop_price: 189 }],
    ['multiplier', { multiplier: 2 }],
    ['notional_currency', { notional_currency: 'EUR' }],
    ['reduce_only', { reduce_only: true }],
    ['regulatory', { regulatory: { jurisdiction: 'EU' } }],
    ['an empty regulatory block', { regulatory: {} }],
  ];
  for (const [field, change] of different) {
    it(`changes with ${field}`, () => expect(hash({ ...base, ...change })).not.toBe(hash(base)));
  }

  it('is the same formula for orders with awkward strings, a regulatory block, or a member the schema does not name', () => {
    const reference = (req: AuthorizeRequest): string => {
      const { heartbeat: _hb, ...order } = req;
      return createHash('sha256')
        .update(
          canonicalize({
            ...order,
            action: plainAction(req.action, req.quantity),
            limit_price: req.limit_price ?? null,
            stop_price: req.stop_price ?? null,
            multiplier: req.multiplier ?? 1,
            notional_currency: req.notional_currency ?? 'USD',
            reduce_only: req.reduce_only ?? false,
            regulatory: req.regulatory ?? null,
          }) as string,
        )
        .digest('hex');
    };
    const cases: AuthorizeRequest[] = [
      { ...base, model_id: 'é\u20ac\ud83d\ude00"\\\n\u2028', asset: '\ufb33', client_order_id: '' },
      { ...base, regulatory: { mifid_algo_id: 'ALG-1', jurisdiction: 'EU', cat_order_id: null } },
      { ...base, quantity: 1e21, notional: 5e-7, limit_price: 0.1, agent_valid_time: 2 ** 53 - 1, multiplier: 333333333.3333333 },
      { ...base, action: { Short: 100 }, reduce_only: true, notional_currency: 'EUR', stop_price: 180 },
      { ...base, unexpected: { b: 1, a: [2] } } as unknown as AuthorizeRequest,
    ];
    for (const req of cases) expect(hash(req)).toBe(reference(req));
    // A member the schema does not name is part of the key.
    expect(hash(cases[4] as AuthorizeRequest)).not.toBe(hash(base));
  });

  it('does not modify the request', () => {
    const req = { ...base, heartbeat: { sequence_id: 1, timestamp_ms: 2, regime_id: 0, signature: 's' } };
    const copy = structuredClone(req);
    hash(req);
    expect(req).toEqual(copy);
  });
});
