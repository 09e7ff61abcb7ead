/** The orphans listing shows everything an officer must look at, shadow-halted failures included. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyExecution } from '../../src/engine/bind.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness();
});
afterAll(async () => h?.close());

describe('orphans listing', () => {
  it('lists a SHADOW_HALTED trace whose bind came out Divergent, and not one that Matched', async () => {
    await h.publishRegime('risk_off', 0.95);
    const { agent_id, token } = await h.registerAgent();
    expect((await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'policy rollout' })).statusCode).toBe(200);
    const halted = (await h.call('POST', '/engine/authorize', h.order(agent_id), token)).json();
    const matched = (await h.call('POST', '/engine/authorize', h.order(agent_id), token)).json();
    expect(halted.shadow_blocked).toBe(true);
    await h.call('POST', '/engine/bind-execution', { trace_id: halted.trace_id, exchange_tx_id: 'S-1', execution_status: 'Filled', asset: 'MSFT' }, token);
    await h.call('POST', '/engine/bind-execution', { trace_id: matched.trace_id, exchange_tx_id: 'S-2', execution_status: 'Filled', asset: 'AAPL' }, token);

    const orphans = (await h.call('GET', '/engine/orphans')).json();
    const ids = orphans.traces.map((t: { trace_id: string }) => t.trace_id);
    expect(ids).toContain(halted.trace_id);
    expect(ids).not.toContain(matched.trace_id);
    const row = orphans.traces.find((t: { trace_id: string }) => t.trace_id === halted.trace_id);
    expect(row).toMatchObject({ status: 'SHADOW_HALTED', verification_status: 'Divergent' });
  });
});

describe('verifyExecution', () => {
  const authorizedAt = Date.parse('2026-03-02T14:30:00Z');
  const intent = { action: 'Long', asset: 'AAPL', quantity: 100, expired: false, authorized_at: authorizedAt };
  const clock = { now: authorizedAt + 2_000, toleranceMs: 30_000 };

  it('is Divergent "bound after expiry" for an expired trace, with a side mismatch appended', () => {
    expect(
      verifyExecution({ ...intent, expired: true }, { trace_id: 'x', exchange_tx_id: 'e', execution_status: 'Filled', executed_side: 'Short' }, 1e-4, clock),
    ).toEqual({ status: 'Divergent', reason: 'bound after expiry; executed_side: authorized Long, executed Short' });
  });

  it('is Mismatch for the opposite side on a live trace', () => {
    expect(verifyExecution(intent, { trace_id: 'x', exchange_tx_id: 'e', execution_status: 'Filled', executed_side: 'Short' }, 1e-4, clock).status).toBe(
      'Mismatch',
    );
  });

  it('does not compare the quantity of a Rejected execution', () => {
    expect(verifyExecution(intent, { trace_id: 'x', exchange_tx_id: 'e', execution_status: 'Rejected', executed_quantity: 0 }, 1e-4, clock)).toEqual({
      status: 'Matched',
      reason: null,
    });
  });

  it("is Divergent for a fill timed before its authorization, a zero (1970) time, or one far ahead of the engine's clock", () => {
    const fill = (execution_time_ms: number | null) =>
      verifyExecution(
        intent,
        { trace_id: 'x', exchange_tx_id: 'e', execution_status: 'Filled', executed_quantity: 100, executed_side: 'Long', execution_time_ms },
        1e-4,
        clock,
      );
    expect(fill(authorizedAt - 1)).toEqual({
      status: 'Divergent',
      reason: 'execution_time: 2026-03-02T14:29:59.999Z is before the authorization at 2026-03-02T14:30:00.000Z',
    });
    expect(fill(0)).toEqual({
      status: 'Divergent',
      reason: 'execution_time: 1970-01-01T00:00:00.000Z is before the authorization at 2026-03-02T14:30:00.000Z',
    });
    expect(fill(clock.now + 30_001)).toEqual({
      status: 'Divergent',
      reason: "execution_time: 2026-03-02T14:30:32.001Z is later than the engine's clock 2026-03-02T14:30:02.000Z by more than 30000 ms",
    });
    // At the authorization itself, within the clock tolerance, and when the exchange gives no time (the engine's clock): Matched.
    for (const t of [authorizedAt, clock.now + 30_000, null]) expect(fill(t)).toEqual({ status: 'Matched', reason: null });
  });
});
