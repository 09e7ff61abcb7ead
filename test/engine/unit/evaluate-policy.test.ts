/**
 * Table-driven tests of the pure policy core (src/engine/policy/evaluate.ts): `evaluatePolicy`,
 * `notionalCap`, `checkOrderRate` and `referencePrice`. Each row changes one fact of a passing case and
 * names the verdict it must produce, with the exact detail where the numbers matter.
 */
import { describe, expect, it } from 'vitest';
import { DENIALS, type Verdict } from '../../../src/engine/denials.js';
import { checkOrderRate, evaluatePolicy, notionalCap, referencePrice, type EvaluationInput, type OrderFacts } from '../../../src/engine/policy/evaluate.js';
import { parsePolicy, type PolicyDocument } from '../../../src/engine/policy/policy.js';
import type { Regime } from '../../../src/core/vocabulary.js';

const NOW = 1_750_000_000_000; // 2025-06-15T15:06:40Z
const PUBLISHED = NOW - 60_000;
/** A data day whose data are complete (its end, 2025-06-15T00:00Z) 54,400,000 ms before NOW. */
const YESTERDAY = '2025-06-14';
const YESTERDAY_AGE = 54_400_000;

const POLICY: PolicyDocument = parsePolicy({
  id: 'unit-policy',
  version: '9.9.9',
  regimes: {
    expansion: { allowed_sides: ['Long', 'Short', 'Neutral'], max_notional_scale: 1 },
    recovery: { allowed_sides: ['Long', 'Short', 'Neutral'], max_notional_scale: 0.75 },
    tightening: { allowed_sides: ['Long', 'Neutral'], max_notional_scale: 0.5 },
    risk_off: { allowed_sides: [], max_notional_scale: 0.25 },
  },
  currency_caps: { USD: 1_000_000, EUR: 150_000 },
  asset_caps: { TSLA: 10_000 },
  max_quantity: 5_000,
  allowed_venues: ['XNAS', 'XNYS'],
  allowed_order_types: ['Market', 'Limit', 'Stop', 'StopLimit'],
  max_orders_per_second: 5,
  notional_tolerance: 0.01,
  regime_max_age_ms: 3_600_000,
  agent_valid_time_max_lag_ms: 300_000,
}).document as PolicyDocument;

const ORDER: OrderFacts = {
  action: 'Long',
  asset: 'AAPL',
  order_type: 'Limit',
  venue_id: 'XNAS',
  quantity: 100,
  notional: 19_000,
  notional_currency: 'USD',
  limit_price: 190,
  stop_price: null,
  multiplier: 1,
  reduce_only: false,
  agent_valid_time: PUBLISHED,
};

interface Case {
  name: string;
  order?: Partial<OrderFacts>;
  agent?: Partial<EvaluationInput['agent']>;
  regime?: Regime | null;
  /** The broadcast's data day (default: today, fresh). */
  date?: string;
  policy?: Partial<PolicyDocument>;
  expected: 'PASS' | { code: keyof typeof DENIALS; detail?: string };
}

function run(c: Case): Verdict {
  return evaluatePolicy({
    order: { ...ORDER, ...c.order },
    agent: { max_notional: 200_000, allowed_regimes: null, ...c.agent },
    regime: c.regime === null ? null : { regime: c.regime ?? 'expansion', date: c.date ?? '2025-06-15', effective_since_ms: PUBLISHED },
    policy: { ...POLICY, ...c.policy },
    now: NOW,
  });
}

const CASES: Case[] = [
  { name: 'a plain Limit order', expected: 'PASS' },
  // regime_stale
  { name: 'no regime published', regime: null, expected: { code: 'regime_stale', detail: 'no regime is published; the engine fails closed' } },
  {
    name: 'regime data exactly at the maximum age (counted from the end of the data day)',
    date: YESTERDAY,
    policy: { regime_max_age_ms: YESTERDAY_AGE },
    expected: 'PASS',
  },
  {
    name: 'regime data 1 ms past the maximum age',
    date: YESTERDAY,
    policy: { regime_max_age_ms: YESTERDAY_AGE - 1 },
    expected: {
      code: 'regime_stale',
      detail: "the regime's data (2025-06-14, complete at 2025-06-15T00:00:00.000Z) are 54400000 ms old, beyond the maximum age 54399999 ms",
    },
  },
  { name: 'regime data a year old, however recently broadcast', date: '2024-06-14', expected: { code: 'regime_stale' } },
  {
    name: 'regime_stale is checked before everything else',
    date: YESTERDAY,
    policy: { regime_max_age_ms: 1 },
    order: { notional_currency: 'SEK', venue_id: 'XLON' },
    expected: { code: 'regime_stale' },
  },
  // agent_valid_time_lag
  { name: 'agent_valid_time exactly the maximum lag behind', order: { agent_valid_time: PUBLISHED - 300_000 }, expected: 'PASS' },
  {
    name: 'agent_valid_time 1 ms beyond the maximum lag',
    order: { agent_valid_time: PUBLISHED - 300_001 },
    expected: { code: 'agent_valid_time_lag', detail: 'agent_valid_time is 300001 ms behind the current regime (maximum 300000 ms)' },
  },
  { name: 'agent_valid_time after the regime publication', order: { agent_valid_time: NOW }, expected: 'PASS' },
  // regime_not_allowed
  {
    name: 'regime outside allowed_regimes',
    agent: { allowed_regimes: ['recovery'] },
    expected: { code: 'regime_not_allowed', detail: "regime expansion is not among the agent's allowed regimes [recovery]" },
  },
  {
    name: 'an empty allowed_regimes list allows no regime',
    agent: { allowed_regimes: [] },
    expected: { code: 'regime_not_allowed', detail: "regime expansion is not among the agent's allowed regimes []" },
  },
  { name: 'regime outside allowed_regimes, reduce_only', agent: { allowed_regimes: ['recovery'] }, order: { reduce_only: true }, expected: 'PASS' },
  // side_not_allowed
  {
    name: 'Short in tightening (policy allows Long and Neutral)',
    regime: 'tightening',
    order: { action: 'Short' },
    expected: { code: 'side_not_allowed', detail: 'Short is not allowed in regime tightening (allowed: [Long, Neutral]; reduce_only orders pass)' },
  },
  { name: 'Short in tightening, reduce_only', regime: 'tightening', order: { action: 'Short', reduce_only: true }, expected: 'PASS' },
  {
    name: 'Neutral in risk_off',
    regime: 'risk_off',
    order: { action: 'Neutral' },
    expected: { code: 'side_not_allowed', detail: 'Neutral is not allowed in regime risk_off (allowed: []; reduce_only orders pass)' },
  },
  { name: 'Long in risk_off, reduce_only, under the cap', regime: 'risk_off', order: { reduce_only: true }, expected: 'PASS' },
  // order_type_not_allowed / venue_not_allowed
  {
    name: 'Twap not in allowed_order_types',
    order: { order_type: 'Twap', limit_price: null },
    expected: { code: 'order_type_not_allowed', detail: 'order type Twap is not allowed (allowed: [Market, Limit, Stop, StopLimit])' },
  },
  {
    name: 'every order type when allowed_order_types is null',
    order: { order_type: 'Vwap', limit_price: null },
    policy: { allowed_order_types: null },
    expected: 'PASS',
  },
  {
    name: 'venue not in allowed_venues',
    order: { venue_id: 'XLON' },
    expected: { code: 'venue_not_allowed', detail: 'venue XLON is not allowed (allowed: [XNAS, XNYS])' },
  },
  { name: 'any venue when allowed_venues is null', order: { venue_id: 'XLON' }, policy: { allowed_venues: null }, expected: 'PASS' },
  {
    name: 'no venue when allowed_venues is empty',
    order: { venue_id: 'XNAS' },
    policy: { allowed_venues: [] },
    expected: { code: 'venue_not_allowed', detail: 'venue XNAS is not allowed (allowed: [])' },
  },
  // notional_inconsistent
  { name: 'notional +1% exactly', order: { notional: 19_190 }, expected: 'PASS' },
  { name: 'notional -1% exactly', order: { notional: 18_810 }, expected: 'PASS' },
  {
    name: 'notional just above +1%',
    order: { notional: 19_191 },
    expected: {
      code: 'notional_inconsistent',
      detail: 'notional 19191 differs from quantity 100 × price 190 × multiplier 1 = 19000 by 1.00526315789% (tolerance 1%)',
    },
  },
  { name: 'notional just below -1%', order: { notional: 18_809 }, expected: { code: 'notional_inconsistent' } },
  { name: 'multiplier in the implied notional', order: { quantity: 2, limit_price: 100, multiplier: 50, notional: 10_000 }, expected: 'PASS' },
  {
    name: 'multiplier forgotten by the agent',
    order: { quantity: 2, limit_price: 100, multiplier: 50, notional: 200 },
    expected: { code: 'notional_inconsistent', detail: 'notional 200 differs from quantity 2 × price 100 × multiplier 50 = 10000 by 98% (tolerance 1%)' },
  },
  { name: 'Stop: checked against the stop price', order: { order_type: 'Stop', limit_price: null, stop_price: 200, notional: 20_000 }, expected: 'PASS' },
  {
    name: 'StopLimit: the limit price wins over the stop price',
    order: { order_type: 'StopLimit', limit_price: 190, stop_price: 200, notional: 20_000 },
    expected: { code: 'notional_inconsistent' },
  },
  { name: 'Market: no price, no cross-check', order: { order_type: 'Market', limit_price: null, notional: 1 }, expected: 'PASS' },
  { name: 'tolerance 0: exact only', order: { notional: 19_000.01 }, policy: { notional_tolerance: 0 }, expected: { code: 'notional_inconsistent' } },
  // currency_not_allowed
  {
    name: 'currency without a cap',
    order: { notional_currency: 'SEK' },
    expected: { code: 'currency_not_allowed', detail: 'notional currency SEK has no cap in policy unit-policy (capped: [USD, EUR])' },
  },
  // notional_cap_exceeded
  { name: 'at the expansion cap', order: { quantity: 1000, limit_price: 200, notional: 200_000 }, expected: 'PASS' },
  {
    name: 'over the expansion cap',
    order: { quantity: 1000, limit_price: 200.001, notional: 200_001 },
    expected: { code: 'notional_cap_exceeded', detail: 'notional 200001 USD exceeds cap 200000 (base 200000 × expansion scale 1)' },
  },
  {
    name: 'the documented example: 120000 in risk_off against 200000 × 0.25',
    regime: 'risk_off',
    order: { quantity: 1000, limit_price: 120, notional: 120_000, reduce_only: true },
    expected: { code: 'notional_cap_exceeded', detail: 'notional 120000 USD exceeds cap 50000 (base 200000 × risk_off scale 0.25)' },
  },
  {
    name: 'the currency cap as base (EUR 150000 < agent 200000), recovery',
    regime: 'recovery',
    order: { quantity: 1000, limit_price: 112.6, notional: 112_600, notional_currency: 'EUR' },
    expected: { code: 'notional_cap_exceeded', detail: 'notional 112600 EUR exceeds cap 112500 (base 150000 × recovery scale 0.75)' },
  },
  {
    name: 'fractional numbers in the detail',
    regime: 'tightening',
    agent: { max_notional: 1234.5 },
    order: { quantity: 10, limit_price: 61.8, notional: 618 },
    expected: { code: 'notional_cap_exceeded', detail: 'notional 618 USD exceeds cap 617.25 (base 1234.5 × tightening scale 0.5)' },
  },
  // asset_cap_exceeded
  { name: 'at the asset cap', order: { asset: 'TSLA', quantity: 100, limit_price: 100, notional: 10_000 }, expected: 'PASS' },
  {
    name: 'over the asset cap',
    order: { asset: 'TSLA', quantity: 100, limit_price: 100.01, notional: 10_001 },
    expected: { code: 'asset_cap_exceeded', detail: 'notional 10001 USD exceeds the TSLA cap 10000' },
  },
  {
    name: 'the regime cap is checked before the asset cap',
    regime: 'risk_off',
    agent: { max_notional: 20_000 },
    order: { asset: 'TSLA', quantity: 100, limit_price: 110, notional: 11_000, reduce_only: true },
    expected: { code: 'notional_cap_exceeded' },
  },
  // quantity_cap_exceeded
  { name: 'at max_quantity', order: { quantity: 5_000, limit_price: 1, notional: 5_000 }, expected: 'PASS' },
  {
    name: 'over max_quantity',
    order: { quantity: 5_001, limit_price: 1, notional: 5_001 },
    expected: { code: 'quantity_cap_exceeded', detail: 'quantity 5001 exceeds the maximum 5000' },
  },
  {
    name: 'no quantity cap when max_quantity is null',
    order: { quantity: 50_000, limit_price: 1, notional: 50_000 },
    policy: { max_quantity: null },
    expected: 'PASS',
  },
];

describe('evaluatePolicy', () => {
  for (const c of CASES) {
    it(c.expected === 'PASS' ? `PASS: ${c.name}` : `${c.expected.code}: ${c.name}`, () => {
      const verdict = run(c);
      if (c.expected === 'PASS') {
        expect(verdict).toEqual({ ok: true });
      } else {
        expect(verdict.ok).toBe(false);
        if (verdict.ok) return;
        expect(verdict.code).toBe(c.expected.code);
        if (c.expected.detail !== undefined) expect(verdict.detail).toBe(c.expected.detail);
      }
    });
  }

  it('covers every policy denial code that evaluatePolicy can return', () => {
    const produced = new Set(CASES.flatMap((c) => (c.expected === 'PASS' ? [] : [c.expected.code])));
    expect([...produced].sort()).toEqual([
      'agent_valid_time_lag',
      'asset_cap_exceeded',
      'currency_not_allowed',
      'notional_cap_exceeded',
      'notional_inconsistent',
      'order_type_not_allowed',
      'quantity_cap_exceeded',
      'regime_not_allowed',
      'regime_stale',
      'side_not_allowed',
      'venue_not_allowed',
    ]);
  });

  it('DENIALS is the closed list of codes the authorize tests cover by name (a new code needs its tests)', () => {
    expect(Object.keys(DENIALS).sort()).toEqual([
      'agent_not_active',
      'agent_not_permitted',
      'agent_valid_time_future',
      'agent_valid_time_lag',
      'asset_cap_exceeded',
      'currency_not_allowed',
      'heartbeat_expired',
      'heartbeat_mta_mismatch',
      'heartbeat_mta_required',
      'heartbeat_regime_mismatch',
      'heartbeat_replayed',
      'heartbeat_signature_invalid',
      'model_not_registered',
      'mtls_cn_mismatch',
      'notional_cap_exceeded',
      'notional_inconsistent',
      'open_notional_exceeded',
      'order_rate_exceeded',
      'order_type_not_allowed',
      'quantity_cap_exceeded',
      'regime_not_allowed',
      'regime_stale',
      'side_not_allowed',
      'venue_not_allowed',
    ]);
  });

  it('is pure: the same input gives the same verdict and the input is not modified', () => {
    const input: EvaluationInput = {
      order: { ...ORDER, notional: 19_500 },
      agent: { max_notional: 200_000, allowed_regimes: ['expansion'] },
      regime: { regime: 'expansion', date: '2025-06-15', effective_since_ms: PUBLISHED },
      policy: POLICY,
      now: NOW,
    };
    const copy = structuredClone(input);
    const a = evaluatePolicy(input);
    const b = evaluatePolicy(input);
    expect(a).toEqual(b);
    expect(input).toEqual(copy);
    expect(a).toEqual({ ok: false, code: 'notional_inconsistent', detail: expect.stringContaining('19500') as unknown as string });
  });
});

describe('notionalCap', () => {
  const table: Array<[string, number, string, Regime, { base: number; scale: number; cap: number } | null]> = [
    ['agent cap below the currency cap, expansion', 200_000, 'USD', 'expansion', { base: 200_000, scale: 1, cap: 200_000 }],
    ['recovery scale', 200_000, 'USD', 'recovery', { base: 200_000, scale: 0.75, cap: 150_000 }],
    ['tightening scale', 200_000, 'USD', 'tightening', { base: 200_000, scale: 0.5, cap: 100_000 }],
    ['risk_off scale', 200_000, 'USD', 'risk_off', { base: 200_000, scale: 0.25, cap: 50_000 }],
    ['currency cap below the agent cap', 2_000_000, 'USD', 'expansion', { base: 1_000_000, scale: 1, cap: 1_000_000 }],
    ['EUR cap', 2_000_000, 'EUR', 'tightening', { base: 150_000, scale: 0.5, cap: 75_000 }],
    ['unlisted currency', 200_000, 'SEK', 'expansion', null],
    ['currency codes are case-sensitive', 200_000, 'usd', 'expansion', null],
  ];
  for (const [name, agentMax, currency, regime, expected] of table) {
    it(name, () => expect(notionalCap(agentMax, POLICY, currency, regime)).toEqual(expected));
  }

  it('does not read inherited properties as currency caps (fail closed, not a NaN cap that passes everything)', () => {
    expect(notionalCap(200_000, POLICY, 'constructor', 'expansion')).toBeNull();
    expect(notionalCap(200_000, POLICY, 'toString', 'expansion')).toBeNull();
    expect(notionalCap(200_000, POLICY, '__proto__', 'expansion')).toBeNull();
    const verdict = run({ name: 'inherited currency', order: { notional_currency: 'constructor' }, expected: 'PASS' });
    expect(verdict).toMatchObject({ ok: false, code: 'currency_not_allowed' });
  });

  it('does not read inherited properties as asset caps; an own cap for such a name still applies', () => {
    expect(run({ name: '', order: { asset: 'constructor' }, expected: 'PASS' })).toEqual({ ok: true });
    const capped = run({
      name: '',
      order: { asset: 'constructor' },
      policy: { asset_caps: JSON.parse('{"constructor": 100}') as Record<string, number> },
      expected: 'PASS',
    });
    expect(capped).toEqual({ ok: false, code: 'asset_cap_exceeded', detail: 'notional 19000 USD exceeds the constructor cap 100' });
  });
});

describe('checkOrderRate', () => {
  const table: Array<[number | null, number, Verdict]> = [
    [5, 1, { ok: true }],
    [5, 5, { ok: true }],
    [5, 6, { ok: false, code: 'order_rate_exceeded', detail: '6 orders in the current second exceed the limit of 5 per second' }],
    [1, 2, { ok: false, code: 'order_rate_exceeded', detail: '2 orders in the current second exceed the limit of 1 per second' }],
    [null, 1_000_000, { ok: true }],
  ];
  for (const [max, count, expected] of table) {
    it(`max ${String(max)}, ${count} orders this second → ${expected.ok ? 'PASS' : expected.code}`, () => {
      expect(checkOrderRate({ ...POLICY, max_orders_per_second: max }, count)).toEqual(expected);
    });
  }

  it('an absent max_orders_per_second means no throttle', () => {
    const { max_orders_per_second: _m, ...withoutRate } = POLICY;
    expect(checkOrderRate(withoutRate as PolicyDocument, 99)).toEqual({ ok: true });
  });
});

describe('referencePrice', () => {
  it.each([
    [{ limit_price: 10, stop_price: null }, 10],
    [{ limit_price: null, stop_price: 12 }, 12],
    [{ limit_price: 10, stop_price: 12 }, 10],
    [{ limit_price: null, stop_price: null }, null],
  ])('%j → %s', (o, expected) => expect(referencePrice(o)).toBe(expected));
});

describe('notional consistency with a product that underflows', () => {
  it('refuses a quantity × price that rounds to zero with a readable detail, not "Infinity%"', async () => {
    const { evaluatePolicy } = await import('../../../src/engine/policy/evaluate.js');
    const { loadPolicy } = await import('../../../src/engine/policy/policy.js');
    const policy = loadPolicy('data/policy/default.json').document;
    const v = evaluatePolicy({
      order: {
        action: 'Long',
        asset: 'X',
        order_type: 'Limit',
        venue_id: 'XNAS',
        quantity: 1e-300,
        notional: 1,
        notional_currency: 'USD',
        limit_price: 1e-300,
        stop_price: null,
        multiplier: 1,
        reduce_only: false,
        agent_valid_time: 1_000,
      },
      agent: { max_notional: 1e6, allowed_regimes: null },
      policy,
      now: 1_000,
      regime: { regime: 'expansion', date: '1970-01-01', effective_since_ms: 1_000 },
    });
    expect(v).toMatchObject({ ok: false, code: 'notional_inconsistent' });
    expect((v as { detail: string }).detail).not.toMatch(/Infinity|NaN/);
  });
});
