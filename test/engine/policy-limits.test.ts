/**
 * The order's shape and size limits of the policy through authorize: `currency_not_allowed`,
 * `asset_cap_exceeded`, `quantity_cap_exceeded`, `venue_not_allowed`, `order_type_not_allowed` and
 * `notional_inconsistent` (quantity × price × multiplier within the policy's tolerance, default 1%).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness({
    policy: {
      asset_caps: { TSLA: 10_000 },
      max_quantity: 5_000,
      allowed_venues: ['XNAS', 'XNYS'],
      allowed_order_types: ['Market', 'Limit', 'Stop', 'StopLimit'],
    },
  });
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

function expectDenied(res: LightMyRequestResponse, code: string, detail: string): void {
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json()).toEqual({ code, detail });
}

/** Each order from a fresh agent, so that no rule but the one under test (nor the throttle) is in play. */
async function authorize(overrides: Record<string, unknown>): Promise<LightMyRequestResponse> {
  const { agent_id, token } = await h.registerAgent();
  return h.call('POST', '/engine/authorize', h.order(agent_id, overrides), token);
}

async function expectPass(overrides: Record<string, unknown>): Promise<void> {
  const res = await authorize(overrides);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ authorized: true, shadow_blocked: false });
}

describe('currency_not_allowed', () => {
  it('currency_not_allowed: a well-formed ISO 4217 code without a policy cap is refused, listing the capped ones', async () => {
    expectDenied(
      await authorize({ notional_currency: 'SEK' }),
      'currency_not_allowed',
      'notional currency SEK has no cap in policy tradeseal-default (capped: [USD, EUR, GBP, JPY, CHF])',
    );
  });

  it('currency_not_allowed: each capped currency passes; USD is the default when omitted', async () => {
    for (const c of ['USD', 'EUR', 'GBP', 'JPY', 'CHF']) await expectPass({ notional_currency: c });
    const res = await authorize({});
    expect((await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json().execution.notional_currency).toBe('USD');
  });
});

describe('asset_cap_exceeded', () => {
  it('asset_cap_exceeded: a notional over the per-asset cap is refused, naming asset and cap', async () => {
    expectDenied(
      await authorize({ asset: 'TSLA', quantity: 100, limit_price: 100.01, notional: 10_001 }),
      'asset_cap_exceeded',
      'notional 10001 USD exceeds the TSLA cap 10000',
    );
  });

  it('asset_cap_exceeded: at the asset cap passes; an asset without a cap is held to the notional cap only', async () => {
    await expectPass({ asset: 'TSLA', quantity: 100, limit_price: 100, notional: 10_000 });
    await expectPass({ asset: 'AAPL', quantity: 100, limit_price: 190, notional: 19_000 });
  });
});

describe('quantity_cap_exceeded', () => {
  it('quantity_cap_exceeded: a quantity over max_quantity is refused', async () => {
    expectDenied(await authorize({ quantity: 5_001, limit_price: 1, notional: 5_001 }), 'quantity_cap_exceeded', 'quantity 5001 exceeds the maximum 5000');
  });

  it('quantity_cap_exceeded: a quantity of exactly max_quantity passes', async () => {
    await expectPass({ quantity: 5_000, limit_price: 1, notional: 5_000 });
  });
});

describe('venue_not_allowed', () => {
  it('venue_not_allowed: a venue outside allowed_venues is refused, listing the allowed ones', async () => {
    expectDenied(await authorize({ venue_id: 'XLON' }), 'venue_not_allowed', 'venue XLON is not allowed (allowed: [XNAS, XNYS])');
  });

  it('venue_not_allowed: venue ids are compared exactly (case matters)', async () => {
    expectDenied(await authorize({ venue_id: 'xnas' }), 'venue_not_allowed', 'venue xnas is not allowed (allowed: [XNAS, XNYS])');
    await expectPass({ venue_id: 'XNYS' });
  });
});

describe('order_type_not_allowed', () => {
  it('order_type_not_allowed: an order type outside allowed_order_types is refused, listing the allowed ones', async () => {
    expectDenied(
      await authorize({ order_type: 'Twap', limit_price: undefined }),
      'order_type_not_allowed',
      'order type Twap is not allowed (allowed: [Market, Limit, Stop, StopLimit])',
    );
    expectDenied(
      await authorize({ order_type: 'Vwap', limit_price: undefined }),
      'order_type_not_allowed',
      'order type Vwap is not allowed (allowed: [Market, Limit, Stop, StopLimit])',
    );
  });

  it('order_type_not_allowed: each allowed order type passes', async () => {
    await expectPass({ order_type: 'Market', limit_price: undefined });
    await expectPass({ order_type: 'Limit' });
    await expectPass({ order_type: 'Stop', limit_price: undefined, stop_price: 190 });
    await expectPass({ order_type: 'StopLimit', stop_price: 189 });
  });
});

describe('notional_inconsistent', () => {
  // 100 × 190 × 1 = 19000; the default tolerance is 1%, i.e. 190.
  it('notional_inconsistent: within 1% on both sides of the implied notional passes (19189, 18811, and exactly ±1%)', async () => {
    for (const notional of [19_189, 18_811, 19_190, 18_810]) await expectPass({ notional });
  });

  it('notional_inconsistent: just over 1% above the implied notional is refused, with every number', async () => {
    expectDenied(
      await authorize({ notional: 19_191 }),
      'notional_inconsistent',
      'notional 19191 differs from quantity 100 × price 190 × multiplier 1 = 19000 by 1.00526315789% (tolerance 1%)',
    );
  });

  it('notional_inconsistent: just over 1% below the implied notional is refused', async () => {
    expectDenied(
      await authorize({ notional: 18_809 }),
      'notional_inconsistent',
      'notional 18809 differs from quantity 100 × price 190 × multiplier 1 = 19000 by 1.00526315789% (tolerance 1%)',
    );
  });

  it('notional_inconsistent: the contract multiplier is part of the implied notional', async () => {
    await expectPass({ quantity: 2, limit_price: 100, multiplier: 50, notional: 10_000 });
    expectDenied(
      await authorize({ quantity: 2, limit_price: 100, multiplier: 50, notional: 12_000 }),
      'notional_inconsistent',
      'notional 12000 differs from quantity 2 × price 100 × multiplier 50 = 10000 by 20% (tolerance 1%)',
    );
  });

  it('notional_inconsistent: a Stop order is checked against its stop price, a StopLimit against its limit price', async () => {
    await expectPass({ order_type: 'Stop', limit_price: undefined, stop_price: 200, notional: 20_000 });
    expectDenied(
      await authorize({ order_type: 'Stop', limit_price: undefined, stop_price: 200, notional: 19_000 }),
      'notional_inconsistent',
      'notional 19000 differs from quantity 100 × price 200 × multiplier 1 = 20000 by 5% (tolerance 1%)',
    );
    await expectPass({ order_type: 'StopLimit', limit_price: 190, stop_price: 200, notional: 19_000 });
    expectDenied(
      await authorize({ order_type: 'StopLimit', limit_price: 190, stop_price: 200, notional: 20_000 }),
      'notional_inconsistent',
      'notional 20000 differs from quantity 100 × price 190 × multiplier 1 = 19000 by 5.26315789474% (tolerance 1%)',
    );
  });

  it('notional_inconsistent: a Market order carries no price, so its notional is not cross-checked', async () => {
    await expectPass({ order_type: 'Market', limit_price: undefined, quantity: 100, notional: 1 });
  });
});

describe('notional_inconsistent with a policy tolerance of 5%', () => {
  let wide: EngineHarness;
  beforeAll(async () => {
    wide = await engineHarness({ policy: { notional_tolerance: 0.05 } });
    await wide.publishRegime('expansion');
  });
  afterAll(async () => wide?.close());

  it('notional_inconsistent: the tolerance comes from the policy (5%: 19950 passes, 19951 is refused)', async () => {
    const { agent_id, token } = await wide.registerAgent();
    const ok = await wide.call('POST', '/engine/authorize', wide.order(agent_id, { notional: 19_950 }), token);
    expect(ok.statusCode, ok.body).toBe(200);
    const bad = await wide.call('POST', '/engine/authorize', wide.order(agent_id, { notional: 19_951 }), token);
    expect(bad.statusCode, bad.body).toBe(403);
    expect(bad.json().code).toBe('notional_inconsistent');
    expect(bad.json().detail).toMatch(/\(tolerance 5%\)$/);
  });
});
