/**
 * Property-based: no request body, however malformed, makes authorize fault. Invalid bodies are generated
 * from a valid order by 1 to 4 mutations, each on a distinct field and each invalid on its own (wrong types,
 * out-of-range numbers, huge strings, nested garbage, missing required fields, unknown fields, NaN-like
 * strings), so the whole body is invalid whatever the combination. Every answer must be a 4xx error body
 * `{code, detail}` (docs/decisions/0001-error-body.md: never a 5xx).
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agentId: string;
let token: string;
beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
  ({ agent_id: agentId, token } = await h.registerAgent());
});
afterAll(async () => h?.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX64 = /^[0-9a-f]{64}$/;
const ISO4217 = /^[A-Z]{3}$/;

const KNOWN_FIELDS = new Set([
  'agent_id',
  'model_hash_hex',
  'model_id',
  'prompt_version',
  'feature_schema_id',
  'hyperparameter_checksum',
  'action',
  'asset',
  'order_type',
  'venue_id',
  'quantity',
  'notional',
  'client_order_id',
  'agent_valid_time',
  'limit_price',
  'stop_price',
  'multiplier',
  'notional_currency',
  'reduce_only',
  'heartbeat',
  'regulatory',
]);
const REQUIRED = [
  'agent_id',
  'model_hash_hex',
  'model_id',
  'prompt_version',
  'feature_schema_id',
  'hyperparameter_checksum',
  'action',
  'asset',
  'order_type',
  'venue_id',
  'quantity',
  'notional',
  'client_order_id',
  'agent_valid_time',
] as const;

const NAN_LIKE = ['NaN', 'nan', 'Infinity', '-Infinity', '1e309', '-1e309', '0x10', '1_000', '1,000', ' 1', '', '-0', 'null', 'undefined', '100'];

/** Any JSON value that is not a string. */
const nonString = fc.jsonValue().filter((v) => typeof v !== 'string');
/** Any JSON value that is not a number. */
const nonNumber = fc.jsonValue().filter((v) => typeof v !== 'number');
/** Deeply nested garbage: objects and arrays of arbitrary JSON. */
const nested = fc.oneof(fc.array(fc.jsonValue(), { minLength: 0, maxLength: 5 }), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }));
const huge = fc.integer({ min: 257, max: 40_000 }).map((n) => 'Z'.repeat(n));
const hugeUnicode = fc.string({ unit: 'grapheme', minLength: 300, maxLength: 600 });

/** Not a positive finite number ≤ 1e15. */
const badPositive = fc.oneof(
  fc.double({ max: 0, noNaN: true }),
  fc.double({ min: 1.0000001e15, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 1e16, Number.MAX_VALUE, -Number.MAX_VALUE),
  fc.constantFrom(...NAN_LIKE),
  nonNumber,
);
/** Not a non-negative safe integer. */
const badUnixMs = fc.oneof(
  fc.integer({ max: -1 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d) || d < 0 || d > Number.MAX_SAFE_INTEGER),
  fc.constantFrom(1.5, -1, 2 ** 53, 1e300),
  fc.constantFrom(...NAN_LIKE),
  nonNumber,
);
/** Not a 1-256 character string. */
const badShortText = fc.oneof(fc.constant(''), huge, hugeUnicode, nonString);

/** For each field, values that make a valid Limit order invalid on their own. */
const BAD_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  agent_id: fc.oneof(
    fc.string().filter((s) => !UUID.test(s)),
    fc.uuid().map((u) => `${u}x`),
    huge,
    nonString,
  ),
  model_hash_hex: fc.oneof(
    fc.string().filter((s) => !HEX64.test(s)),
    fc.constant('A'.repeat(64)),
    fc.constant('a'.repeat(65)),
    huge,
    nonString,
  ),
  model_id: badShortText,
  prompt_version: badShortText,
  feature_schema_id: badShortText,
  hyperparameter_checksum: badShortText,
  asset: badShortText,
  venue_id: badShortText,
  client_order_id: fc.oneof(fc.constant(''), fc.constant('c'.repeat(129)), huge, nonString),
  action: fc.oneof(
    fc.string().filter((s) => !['Long', 'Short', 'Neutral'].includes(s)),
    fc.constantFrom('long', 'LONG', 'Buy', 'Sell', ' Long'),
    fc.record({ Neutral: fc.double() }),
    fc.record({ Long: badPositive }),
    fc.record({ Short: badPositive }),
    fc.record({ Long: fc.double({ min: 1, max: 1e6, noNaN: true }).filter((q) => q !== 100), Short: fc.double() }),
    // Schema-valid tagged form whose q differs from quantity: refused by plainAction.
    fc
      .double({ min: 1e-6, max: 1e15, noNaN: true })
      .filter((q) => q !== 100)
      .map((q) => ({ Long: q })),
    nested,
    fc.constantFrom(null, 1, true),
  ),
  order_type: fc.oneof(
    fc.string().filter((s) => !['Market', 'Limit', 'Stop', 'StopLimit', 'Twap', 'Vwap'].includes(s)),
    fc.constantFrom('limit', 'LIMIT'),
    nonString,
  ),
  quantity: badPositive,
  notional: badPositive,
  agent_valid_time: badUnixMs,
  // A Limit order needs a positive limit_price: null, non-positive, or non-number are all invalid.
  limit_price: fc.oneof(badPositive, fc.constant(null)),
  // A Limit order carries no stop_price: any non-null value is invalid.
  stop_price: fc.jsonValue().filter((v) => v !== null),
  multiplier: fc.oneof(badPositive, fc.constant(null)),
  notional_currency: fc.oneof(
    fc.string().filter((s) => !ISO4217.test(s)),
    fc.constantFrom('usd', 'US', 'USDX', '$$$', 'ÜSD'),
    nonString,
  ),
  reduce_only: fc.jsonValue().filter((v) => typeof v !== 'boolean'),
  heartbeat: fc.oneof(
    fc.jsonValue().filter((v) => v !== null && (typeof v !== 'object' || Array.isArray(v))),
    fc.record({ sequence_id: badUnixMs, timestamp_ms: fc.nat(), regime_id: fc.nat(), signature: fc.string({ minLength: 1 }) }),
    fc.record({ sequence_id: fc.nat(), timestamp_ms: fc.nat(), regime_id: fc.integer({ max: -1 }), signature: fc.string({ minLength: 1 }) }),
    fc.record({ sequence_id: fc.nat(), timestamp_ms: fc.nat(), regime_id: fc.nat(), signature: fc.string({ minLength: 1 }), mta_ref: huge }),
    fc.record({ sequence_id: fc.nat(), timestamp_ms: fc.nat(), regime_id: fc.nat(), signature: fc.string({ minLength: 1 }), extra: fc.jsonValue() }),
    fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }), // missing required members
  ),
  regulatory: fc.oneof(
    fc.jsonValue().filter((v) => v !== null && (typeof v !== 'object' || Array.isArray(v))),
    fc.record({
      jurisdiction: fc.oneof(
        nonString.filter((v) => v !== null),
        huge,
      ),
    }),
    fc.record({ mifid_algo_id: fc.string(), unknown_member: fc.jsonValue() }),
  ),
};

type Mutation = { field: string; apply: (o: Record<string, unknown>) => void };

const replace: fc.Arbitrary<Mutation> = fc.constantFrom(...Object.keys(BAD_VALUES)).chain((field) =>
  (BAD_VALUES[field] as fc.Arbitrary<unknown>).map((value): Mutation => ({
    field,
    apply: (o) => {
      o[field] = value;
    },
  })),
);
const remove: fc.Arbitrary<Mutation> = fc.constantFrom(...REQUIRED, 'limit_price' as const).map((field): Mutation => ({
  field,
  apply: (o) => {
    delete o[field];
  },
}));
const addUnknown: fc.Arbitrary<Mutation> = fc
  .tuple(
    fc.string({ minLength: 1, maxLength: 40 }).filter((k) => !KNOWN_FIELDS.has(k) && k !== '__proto__'),
    fc.jsonValue(),
  )
  .map(([key, value]): Mutation => ({
    field: `+${key}`,
    apply: (o) => {
      o[key] = value;
    },
  }));

const mutations = fc.uniqueArray(fc.oneof({ arbitrary: replace, weight: 6 }, { arbitrary: remove, weight: 2 }, { arbitrary: addUnknown, weight: 1 }), {
  minLength: 1,
  maxLength: 4,
  selector: (m) => m.field,
});

const post = (payload: string): Promise<LightMyRequestResponse> =>
  h.app.inject({ method: 'POST', url: '/engine/authorize', payload, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });

function expectClientError(res: LightMyRequestResponse, what: string): void {
  expect(res.statusCode, `${what} → ${res.statusCode} ${res.body.slice(0, 500)}`).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, `${what} → ${res.statusCode} ${res.body.slice(0, 500)}`).toBeLessThan(500);
  const body = res.json();
  expect(typeof body.code, what).toBe('string');
  expect(typeof body.detail, what).toBe('string');
  if (body.code === 'validation_failed') {
    expect(Array.isArray(body.errors) && body.errors.length > 0, what).toBe(true);
  }
}

/** Text within the schema's lengths, now and then carrying what Postgres or JCS cannot hold (NUL, a lone surrogate). */
const anyText = (maxLength: number) =>
  fc.oneof(
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength }), weight: 1 },
    { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(maxLength, 64) }), weight: 12 },
    { arbitrary: fc.constantFrom('a\u0000b', '\ud800', 'x\udfff', '\u{1F600}', ' ', '\u202e'), weight: 1 },
  );
const amount = fc.oneof(
  { arbitrary: fc.double({ min: Number.MIN_VALUE, max: 1e15, noNaN: true }), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 100 }), weight: 3 },
  { arbitrary: fc.constantFrom(Number.MIN_VALUE, 1e-300, 1e15, 0.1, 190), weight: 1 },
);

/** Orders the schema accepts (or nearly: text may carry NUL or a lone surrogate), with extreme values. */
const schemaValidOrder = fc.record({
  own: fc.boolean(),
  model: fc.oneof(
    { arbitrary: fc.constant({}), weight: 8 },
    { arbitrary: fc.record({ model_id: anyText(256) }), weight: 1 },
    { arbitrary: fc.record({ model_hash_hex: fc.stringMatching(/^[0-9a-f]{64}$/) }), weight: 1 },
  ),
  prompt_version: anyText(256),
  feature_schema_id: anyText(256),
  hyperparameter_checksum: anyText(256),
  asset: anyText(256),
  venue_id: anyText(256),
  client_order_id: fc.oneof(
    { arbitrary: fc.constantFrom('dup-1', 'dup-2'), weight: 1 },
    { arbitrary: fc.uuid(), weight: 6 },
    { arbitrary: anyText(128), weight: 3 },
  ),
  action: fc.constantFrom('Long', 'Short', 'Neutral', 'tagged'),
  order_type: fc.constantFrom('Market', 'Limit', 'Stop', 'StopLimit', 'Twap', 'Vwap'),
  quantity: amount,
  notional: amount,
  price: amount,
  stop: amount,
  consistent: fc.boolean(),
  multiplier: fc.option(amount, { nil: undefined }),
  notional_currency: fc.option(fc.oneof(fc.constantFrom('USD', 'EUR', 'JPY'), fc.stringMatching(/^[A-Z]{3}$/)), { nil: undefined }),
  reduce_only: fc.option(fc.boolean(), { nil: undefined }),
  // Any instant the schema admits (mostly far from the clock: refused as lagging or from the future), or one
  // near the engine's clock, resolved when the order is sent, so that orders reach the seal.
  agent_valid_time: fc.oneof(fc.integer({ min: 0, max: 253_402_300_799_999 }), fc.constantFrom(0, 253_402_300_799_999), {
    arbitrary: fc.integer({ min: -250_000, max: 30_000 }).map((offset) => ({ offset })),
    weight: 3,
  }),
  heartbeat: fc.option(
    fc.record({
      sequence_id: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      timestamp_ms: fc.integer({ min: 0, max: 253_402_300_799_999 }),
      regime_id: fc.integer({ min: 0, max: 2147483647 }),
      mta_ref: fc.option(anyText(128), { nil: undefined }),
      signature: anyText(256),
    }),
    { nil: undefined },
  ),
  regulatory: fc.option(
    fc.dictionary(
      fc.constantFrom('mifid_algo_id', 'mifid_decision_maker', 'cftc_cti_code', 'cftc_account_type', 'cat_order_id', 'jurisdiction'),
      fc.option(anyText(256), { nil: null }),
      { maxKeys: 6 },
    ),
    { nil: undefined },
  ),
});

describe('authorize never faults', () => {
  it('1,000 schema-valid orders with extreme values answer 200, 403, 409 or 422, never 5xx', async () => {
    const statuses = new Map<number, number>();
    const other = await h.registerAgent();
    await fc.assert(
      fc.asyncProperty(schemaValidOrder, async (g) => {
        h.clock.now += 100; // about ten orders a second: the default throttle (20/s) is reached only now and then
        if (g.consistent) {
          // Half the orders state the notional their price implies, so that they get past the cross-check to the seal.
          const price = ['Limit', 'StopLimit'].includes(g.order_type) ? g.price : g.order_type === 'Stop' ? g.stop : 1;
          g.notional = Math.min(1e15, Math.max(Number.MIN_VALUE, g.quantity * price * (g.multiplier ?? 1)));
        }
        const order: Record<string, unknown> = h.order(g.own ? agentId : other.agent_id, {
          ...g.model,
          prompt_version: g.prompt_version,
          feature_schema_id: g.feature_schema_id,
          hyperparameter_checksum: g.hyperparameter_checksum,
          asset: g.asset,
          venue_id: g.venue_id,
          client_order_id: g.client_order_id,
          order_type: g.order_type,
          quantity: g.quantity,
          notional: g.notional,
          action: g.action === 'tagged' ? { Long: g.quantity } : g.action,
          agent_valid_time: typeof g.agent_valid_time === 'number' ? g.agent_valid_time : h.clock.now + g.agent_valid_time.offset,
          limit_price: ['Limit', 'StopLimit'].includes(g.order_type) ? g.price : undefined,
          stop_price: ['Stop', 'StopLimit'].includes(g.order_type) ? g.stop : undefined,
          multiplier: g.multiplier,
          notional_currency: g.notional_currency,
          reduce_only: g.reduce_only,
          heartbeat: g.heartbeat,
          regulatory: g.regulatory,
        });
        const payload = JSON.stringify(order);
        const res = await h.app.inject({
          method: 'POST',
          url: '/engine/authorize',
          payload,
          headers: { authorization: `Bearer ${g.own ? token : other.token}`, 'content-type': 'application/json' },
        });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        expect([200, 403, 409, 422], `${payload.slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`).toContain(res.statusCode);
        if (res.statusCode === 200) {
          expect(res.json().trace_id).toMatch(UUID);
          expect(res.json().reasoning_hash).toMatch(HEX64);
        } else {
          expectClientError(res, payload.slice(0, 300));
        }
      }),
      { numRuns: 1000 },
    );
    // The generator reaches the seal, not only the schema.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(50);
  }, 180_000);

  it('the valid order the mutations start from is authorized (so each mutation is what breaks it)', async () => {
    const res = await post(JSON.stringify(h.order(agentId)));
    expect(res.statusCode, res.body).toBe(200);
  });

  it('1,000 generated invalid bodies all answer 4xx {code, detail}, never 5xx', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(mutations, async (ms) => {
        const order = h.order(agentId);
        for (const m of ms) m.apply(order);
        const payload = JSON.stringify(order);
        const res = await post(payload);
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        expectClientError(res, payload.slice(0, 300));
      }),
      { numRuns: 1000 },
    );
    // Nearly all are schema failures; the generator must not have drifted into producing valid orders.
    expect(statuses.get(200)).toBeUndefined();
    expect(statuses.get(422) ?? 0).toBeGreaterThan(900);
  }, 180_000);

  it('1,000 fully random JSON values as the body all answer 4xx {code, detail}', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const payload = JSON.stringify(value) ?? 'null';
        const res = await post(payload);
        expectClientError(res, payload.slice(0, 300));
      }),
      { numRuns: 1000 },
    );
  }, 180_000);

  it('random JSON objects with __proto__ and constructor keys, and random text, answer 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue().map((v) => `{"__proto__": ${JSON.stringify(v) ?? 'null'}, "agent_id": "x"}`),
          fc.jsonValue().map((v) => `{"constructor": {"prototype": ${JSON.stringify(v) ?? 'null'}}}`),
          fc.string({ unit: 'binary', maxLength: 200 }),
        ),
        async (payload) => {
          expectClientError(await post(payload), payload.slice(0, 300));
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);
});
