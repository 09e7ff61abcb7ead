/**
 * Layer 2 settings: HEARTBEAT_REPLAY_WINDOW_MS (config.heartbeatReplayWindowMs), HEARTBEAT_REQUIRE_MTA_REF
 * (config.heartbeatRequireMtaRef, `heartbeat_mta_required`), no regime published (fail closed) and no
 * regime operator key configured (no heartbeat can verify).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

function expectDenied(res: LightMyRequestResponse, code: string, detail?: string): void {
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json().code).toBe(code);
  if (detail !== undefined) expect(res.json().detail).toBe(detail);
}

async function sendWith(h: EngineHarness, heartbeat: unknown): Promise<LightMyRequestResponse> {
  const { agent_id, token } = await h.registerAgent();
  return h.call('POST', '/engine/authorize', h.order(agent_id, { heartbeat }), token);
}

describe('HEARTBEAT_REPLAY_WINDOW_MS = 5000', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await engineHarness({ config: { layer2Enabled: true, heartbeatReplayWindowMs: 5_000 } });
    await h.publishRegime('recovery');
  });
  afterAll(async () => h?.close());

  it('heartbeat_expired: 5001 ms old is refused with the configured window in the detail', async () => {
    const ts = h.clock.now - 5_001;
    expectDenied(
      await sendWith(h, h.heartbeat(1, { timestamp_ms: ts })),
      'heartbeat_expired',
      `heartbeat timestamp_ms ${ts} is 5001 ms from the engine clock (window ±5000 ms)`,
    );
  });

  it('heartbeat_expired: 5001 ms in the future is refused', async () => {
    expectDenied(await sendWith(h, h.heartbeat(1, { timestamp_ms: h.clock.now + 5_001 })), 'heartbeat_expired');
  });

  it('heartbeat_expired: 5000 ms either way is accepted (a 20 s old heartbeat, fine by default, is not)', async () => {
    expect((await sendWith(h, h.heartbeat(1, { timestamp_ms: h.clock.now - 5_000 }))).statusCode).toBe(200);
    expect((await sendWith(h, h.heartbeat(1, { timestamp_ms: h.clock.now + 5_000 }))).statusCode).toBe(200);
    expectDenied(await sendWith(h, h.heartbeat(1, { timestamp_ms: h.clock.now - 20_000 })), 'heartbeat_expired');
  });
});

describe('HEARTBEAT_REQUIRE_MTA_REF = true', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await engineHarness({ config: { layer2Enabled: true, heartbeatRequireMtaRef: true } });
    await h.publishRegime('tightening');
  });
  afterAll(async () => h?.close());

  it('heartbeat_mta_required: a heartbeat without mta_ref is refused', async () => {
    expectDenied(
      await sendWith(h, h.heartbeat(1, { mta_ref: null })),
      'heartbeat_mta_required',
      'the heartbeat carries no mta_ref and HEARTBEAT_REQUIRE_MTA_REF is on',
    );
  });

  it('heartbeat_mta_required: an explicit null mta_ref is the same as none (both schemes)', async () => {
    for (const scheme of ['ed25519', 'ed25519-jcs'] as const) {
      const hb = h.heartbeat(1, { mta_ref: null, scheme });
      expectDenied(await sendWith(h, { ...hb, mta_ref: null }), 'heartbeat_mta_required');
    }
  });

  it('heartbeat_mta_required: a heartbeat with the current mta_ref is accepted; a wrong one is a mismatch', async () => {
    expect((await sendWith(h, h.heartbeat(1))).statusCode).toBe(200);
    expectDenied(await sendWith(h, h.heartbeat(1, { mta_ref: '0'.repeat(64) })), 'heartbeat_mta_mismatch');
  });
});

describe('Layer 2 with no regime published', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await engineHarness({ config: { layer2Enabled: true } });
  });
  afterAll(async () => h?.close());

  it('regime_stale: a validly signed heartbeat cannot be matched to any regime; the engine fails closed', async () => {
    expectDenied(await sendWith(h, h.heartbeat(1, { regime_id: 0, mta_ref: null })), 'regime_stale', 'no regime is published; the engine fails closed');
  });

  it('heartbeat_signature_invalid: is still checked first', async () => {
    const hb = h.heartbeat(1, { regime_id: 0, mta_ref: null });
    expectDenied(await sendWith(h, { ...hb, sequence_id: 2 }), 'heartbeat_signature_invalid');
  });
});

describe('Layer 2 with no regime operator key configured', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await engineHarness({ config: { layer2Enabled: true, regimeOperatorPubkey: null } });
    await h.publishRegime('expansion');
  });
  afterAll(async () => h?.close());

  it('heartbeat_signature_invalid: without REGIME_OPERATOR_PUBKEY no heartbeat verifies (fail closed)', async () => {
    expectDenied(await sendWith(h, h.heartbeat(1)), 'heartbeat_signature_invalid');
    expectDenied(await sendWith(h, h.heartbeat(2, { scheme: 'ed25519-jcs' })), 'heartbeat_signature_invalid');
  });
});
