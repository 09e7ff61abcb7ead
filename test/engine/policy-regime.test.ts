/**
 * The regime's own rules through authorize: `regime_not_allowed` (the agent's allowed_regimes),
 * `side_not_allowed` (the regime's allowed_sides; risk_off is the kill switch) and `notional_cap_exceeded`
 * (min(agent max_notional, currency cap) × the regime's max_notional_scale), with reduce_only bypassing the
 * first two but never the cap (docs/decisions/0007-policy.md).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Regime } from '../../src/core/vocabulary.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness();
});
afterAll(async () => h?.close());

function expectDenied(res: LightMyRequestResponse, code: string, detail: string): void {
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json()).toEqual({ code, detail });
}

const authorize = (agentId: string, token: string, overrides: Record<string, unknown> = {}) =>
  h.call('POST', '/engine/authorize', h.order(agentId, overrides), token);

/** An order of `notional` = 1000 × price, consistent with its limit price. */
const sized = (notional: number, extra: Record<string, unknown> = {}) => ({ quantity: 1000, limit_price: notional / 1000, notional, ...extra });

describe('notional_cap_exceeded', () => {
  it('notional_cap_exceeded: risk_off, reduce_only, 120000 against 200000 × 0.25 reads with every number', async () => {
    await h.publishRegime('risk_off');
    const { agent_id, token } = await h.registerAgent({ max_notional: 200_000 });
    const res = await authorize(agent_id, token, { quantity: 1000, limit_price: 120, notional: 120_000, reduce_only: true });
    expectDenied(res, 'notional_cap_exceeded', 'notional 120000 USD exceeds cap 50000 (base 200000 × risk_off scale 0.25)');
  });

  const scales: Array<[Regime, number, number]> = [
    ['expansion', 1, 200_000],
    ['recovery', 0.75, 150_000],
    ['tightening', 0.5, 100_000],
    ['risk_off', 0.25, 50_000],
  ];
  for (const [regime, scale, cap] of scales) {
    it(`notional_cap_exceeded: ${regime} scales the cap by ${scale}: ${cap} passes, ${cap + 10} is refused`, async () => {
      await h.publishRegime(regime);
      const { agent_id, token } = await h.registerAgent({ max_notional: 200_000 });
      // risk_off admits only reduce_only orders; the cap applies to them all the same.
      const reduce = regime === 'risk_off' ? { reduce_only: true } : {};
      const atCap = await authorize(agent_id, token, sized(cap, reduce));
      expect(atCap.statusCode, atCap.body).toBe(200);
      const over = await authorize(agent_id, token, sized(cap + 10, reduce));
      expectDenied(over, 'notional_cap_exceeded', `notional ${cap + 10} USD exceeds cap ${cap} (base 200000 × ${regime} scale ${scale})`);
    });
  }

  it('notional_cap_exceeded: the base is the currency cap when it is below the agent max_notional', async () => {
    await h.publishRegime('tightening');
    const { agent_id, token } = await h.registerAgent({ max_notional: 5_000_000 });
    // USD cap 1,000,000 (default policy) × tightening 0.5.
    const res = await authorize(agent_id, token, { quantity: 10_000, limit_price: 50.01, notional: 500_100 });
    expectDenied(res, 'notional_cap_exceeded', 'notional 500100 USD exceeds cap 500000 (base 1000000 × tightening scale 0.5)');
    // EUR cap 900,000: the cap follows notional_currency.
    const eur = await authorize(agent_id, token, { quantity: 10_000, limit_price: 45.01, notional: 450_100, notional_currency: 'EUR' });
    expectDenied(eur, 'notional_cap_exceeded', 'notional 450100 EUR exceeds cap 450000 (base 900000 × tightening scale 0.5)');
  });

  it('notional_cap_exceeded: a Market order (no price) is capped too', async () => {
    await h.publishRegime('recovery');
    const { agent_id, token } = await h.registerAgent({ max_notional: 200_000 });
    const res = await authorize(agent_id, token, { order_type: 'Market', limit_price: undefined, quantity: 10, notional: 150_001 });
    expectDenied(res, 'notional_cap_exceeded', 'notional 150001 USD exceeds cap 150000 (base 200000 × recovery scale 0.75)');
  });
});

describe('side_not_allowed', () => {
  it('side_not_allowed: risk_off allows no side, so Long, Short and Neutral are all refused', async () => {
    await h.publishRegime('risk_off');
    const { agent_id, token } = await h.registerAgent();
    for (const action of ['Long', 'Short', 'Neutral']) {
      const res = await authorize(agent_id, token, { action });
      expectDenied(res, 'side_not_allowed', `${action} is not allowed in regime risk_off (allowed: []; reduce_only orders pass)`);
    }
  });

  it('side_not_allowed: a reduce_only order passes in risk_off, and the trace seals the claim', async () => {
    await h.publishRegime('risk_off');
    const { agent_id, token } = await h.registerAgent();
    const res = await authorize(agent_id, token, { action: 'Short', reduce_only: true });
    expect(res.statusCode, res.body).toBe(200);
    const trace = (await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json();
    expect(trace.execution.reduce_only).toBe(true);
    expect(trace.mta).toMatchObject({ regime_label: 'Risk-off', allowed_sides: [], max_notional_scale: 0.25, regime_id: 3 });
    expect(trace.policy.result).toBe('PASS');
  });

  it('side_not_allowed: reduce_only false is the same as absent (refused)', async () => {
    await h.publishRegime('risk_off');
    const { agent_id, token } = await h.registerAgent();
    expectDenied(
      await authorize(agent_id, token, { reduce_only: false }),
      'side_not_allowed',
      'Long is not allowed in regime risk_off (allowed: []; reduce_only orders pass)',
    );
  });

  it('side_not_allowed: reduce_only bypasses the side but the cap still applies', async () => {
    await h.publishRegime('risk_off');
    const { agent_id, token } = await h.registerAgent({ max_notional: 200_000 });
    const res = await authorize(agent_id, token, { ...sized(50_001), reduce_only: true });
    expectDenied(res, 'notional_cap_exceeded', 'notional 50001 USD exceeds cap 50000 (base 200000 × risk_off scale 0.25)');
  });

  it('side_not_allowed: in expansion every side passes', async () => {
    await h.publishRegime('expansion');
    const { agent_id, token } = await h.registerAgent();
    for (const action of ['Long', 'Short', 'Neutral']) {
      const res = await authorize(agent_id, token, { action });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
});

describe('regime_not_allowed', () => {
  it('regime_not_allowed: a regime outside the agent allowed_regimes is refused, naming both', async () => {
    await h.publishRegime('tightening');
    const { agent_id, token } = await h.registerAgent({ allowed_regimes: ['expansion', 'recovery'] });
    const res = await authorize(agent_id, token);
    expectDenied(res, 'regime_not_allowed', "regime tightening is not among the agent's allowed regimes [expansion, recovery]");
  });

  it('regime_not_allowed: reduce_only bypasses it (the position can still be exited)', async () => {
    await h.publishRegime('tightening');
    const { agent_id, token } = await h.registerAgent({ allowed_regimes: ['expansion'] });
    const res = await authorize(agent_id, token, { reduce_only: true });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('regime_not_allowed: an order in an allowed regime passes; an agent without allowed_regimes may trade in any', async () => {
    await h.publishRegime('recovery');
    const limited = await h.registerAgent({ allowed_regimes: ['recovery'] });
    const open = await h.registerAgent();
    expect((await authorize(limited.agent_id, limited.token)).statusCode).toBe(200);
    expect((await authorize(open.agent_id, open.token)).statusCode).toBe(200);
  });

  it('regime_not_allowed: is checked before the regime side rule (risk_off, not allowed, not reduce_only)', async () => {
    await h.publishRegime('risk_off');
    const { agent_id, token } = await h.registerAgent({ allowed_regimes: ['expansion'] });
    expectDenied(await authorize(agent_id, token), 'regime_not_allowed', "regime risk_off is not among the agent's allowed regimes [expansion]");
  });
});
