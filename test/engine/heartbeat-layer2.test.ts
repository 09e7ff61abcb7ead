/**
 * Layer 2 (LAYER2_ENABLED=true): authorize requires a signed heartbeat of the regime operator and refuses
 * (403, the failed check as `code`) a bad signature, a timestamp outside the replay window (±30 s), another
 * regime_id or mta_ref, and any sequence_id not greater than the last one accepted from the agent, exactly
 * once under concurrency (docs/decisions/0011-layer-2-heartbeat.md,
 * docs/decisions/0012-heartbeat-signature-schemes.md).
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../src/core/crypto/ed25519.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let regime: { hash: string; regime_id: number };
beforeAll(async () => {
  h = await engineHarness({ config: { layer2Enabled: true }, max: 20 });
  regime = await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

function expectDenied(res: LightMyRequestResponse, code: string, detail?: string): void {
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json().code).toBe(code);
  if (detail !== undefined) expect(res.json().detail).toBe(detail);
}

const send = (agentId: string, token: string, heartbeat: unknown, overrides: Record<string, unknown> = {}) =>
  h.call('POST', '/engine/authorize', h.order(agentId, { heartbeat, ...overrides }), token);

async function expectAccepted(res: LightMyRequestResponse): Promise<Record<string, any>> {
  expect(res.statusCode, res.body).toBe(200);
  return (await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json();
}

/** The signature's bytes with one bit flipped, in the same scheme. */
function tamper(signature: string): string {
  const [scheme, b64] = signature.split(':') as [string, string];
  const bytes = Buffer.from(b64, 'base64');
  bytes[10] = (bytes[10] as number) ^ 0x01;
  return `${scheme}:${bytes.toString('base64')}`;
}

describe('Layer 2: presence', () => {
  it('validation_failed: a missing heartbeat is a 422 listing heartbeat', async () => {
    const { agent_id, token } = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id), token);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors).toEqual([{ field: 'heartbeat', message: 'is required (LAYER2_ENABLED)' }]);
  });

  it('validation_failed: a null heartbeat is the same as a missing one', async () => {
    const { agent_id, token } = await h.registerAgent();
    const res = await send(agent_id, token, null);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['heartbeat']);
  });

  it('a valid heartbeat is accepted and sealed: sequence_id, signature_valid true, drift_ms', async () => {
    const { agent_id, token } = await h.registerAgent();
    const trace = await expectAccepted(await send(agent_id, token, h.heartbeat(7, { timestamp_ms: h.clock.now - 250 })));
    expect(trace.heartbeat).toEqual({ sequence_id: 7, signature_valid: true, drift_ms: 250 });
    expect(trace.mta.signature_valid).toBe(true);
    expect(trace.mta.hash).toBe(regime.hash);
  });
});

describe('heartbeat_signature_invalid', () => {
  it('heartbeat_signature_invalid: a signature with one bit flipped', async () => {
    const { agent_id, token } = await h.registerAgent();
    const hb = h.heartbeat(1);
    expectDenied(
      await send(agent_id, token, { ...hb, signature: tamper(hb.signature as string) }),
      'heartbeat_signature_invalid',
      'heartbeat 1 does not carry a valid signature of the regime operator',
    );
  });

  it('heartbeat_signature_invalid: a heartbeat signed by another key', async () => {
    const { agent_id, token } = await h.registerAgent();
    expectDenied(await send(agent_id, token, h.heartbeat(1, { key: generateKeyPair().secretKey })), 'heartbeat_signature_invalid');
  });

  it('heartbeat_signature_invalid: a valid signature over other fields (sequence_id, timestamp, regime, mta_ref changed)', async () => {
    const { agent_id, token } = await h.registerAgent();
    const hb = h.heartbeat(5) as Record<string, unknown>;
    for (const change of [{ sequence_id: 6 }, { timestamp_ms: (hb.timestamp_ms as number) + 1 }, { mta_ref: 'c'.repeat(64) }]) {
      expectDenied(await send(agent_id, token, { ...hb, ...change }), 'heartbeat_signature_invalid');
    }
    // Dropping mta_ref changes the signed bytes too.
    const { mta_ref: _m, ...withoutMta } = hb;
    expectDenied(await send(agent_id, token, withoutMta), 'heartbeat_signature_invalid');
  });

  it('heartbeat_signature_invalid: malformed signature strings (unknown scheme, short, not base64, empty payload)', async () => {
    const { agent_id, token } = await h.registerAgent();
    const hb = h.heartbeat(1);
    const b64 = (hb.signature as string).slice('ed25519:'.length);
    for (const signature of [
      `rsa:${b64}`,
      `ED25519:${b64}`,
      'ed25519:AAAA',
      `ed25519:${b64.slice(0, -4)}`,
      'ed25519:!!!',
      'ed25519:',
      `ed25519:${b64.replace(/=+$/, '')}x`,
    ]) {
      expectDenied(await send(agent_id, token, { ...hb, signature }), 'heartbeat_signature_invalid');
    }
  });

  it('heartbeat_signature_invalid: a signature of one scheme presented under the other prefix', async () => {
    const { agent_id, token } = await h.registerAgent();
    const jcs = h.heartbeat(1, { scheme: 'ed25519-jcs' });
    expectDenied(
      await send(agent_id, token, { ...jcs, signature: (jcs.signature as string).replace('ed25519-jcs:', 'ed25519:') }),
      'heartbeat_signature_invalid',
    );
    const bin = h.heartbeat(2);
    expectDenied(
      await send(agent_id, token, { ...bin, signature: (bin.signature as string).replace('ed25519:', 'ed25519-jcs:') }),
      'heartbeat_signature_invalid',
    );
  });
});

describe('signature schemes', () => {
  it('accepts ed25519: (binary layout), bare base64 (the same) and ed25519-jcs:', async () => {
    const { agent_id, token } = await h.registerAgent();
    const prefixed = h.heartbeat(1);
    expect(prefixed.signature).toMatch(/^ed25519:/);
    expect((await expectAccepted(await send(agent_id, token, prefixed))).heartbeat.signature_valid).toBe(true);

    const bare = h.heartbeat(2);
    const bareSig = (bare.signature as string).slice('ed25519:'.length);
    expect(bareSig).not.toContain(':');
    expect((await expectAccepted(await send(agent_id, token, { ...bare, signature: bareSig }))).heartbeat.signature_valid).toBe(true);

    const jcs = h.heartbeat(3, { scheme: 'ed25519-jcs' });
    expect(jcs.signature).toMatch(/^ed25519-jcs:/);
    expect((await expectAccepted(await send(agent_id, token, jcs))).heartbeat.signature_valid).toBe(true);
  });

  it('accepts either scheme without mta_ref (mta_ref is optional by default)', async () => {
    const { agent_id, token } = await h.registerAgent();
    await expectAccepted(await send(agent_id, token, h.heartbeat(1, { mta_ref: null })));
    await expectAccepted(await send(agent_id, token, h.heartbeat(2, { mta_ref: null, scheme: 'ed25519-jcs' })));
  });
});

describe('heartbeat_expired', () => {
  it('heartbeat_expired: a timestamp 30001 ms old is refused; 30000 ms old is accepted', async () => {
    const { agent_id, token } = await h.registerAgent();
    const old = h.clock.now - 30_001;
    expectDenied(
      await send(agent_id, token, h.heartbeat(1, { timestamp_ms: old })),
      'heartbeat_expired',
      `heartbeat timestamp_ms ${old} is 30001 ms from the engine clock (window ±30000 ms)`,
    );
    const trace = await expectAccepted(await send(agent_id, token, h.heartbeat(2, { timestamp_ms: h.clock.now - 30_000 })));
    expect(trace.heartbeat.drift_ms).toBe(30_000);
  });

  it('heartbeat_expired: a timestamp 30001 ms in the future is refused; 30000 ms ahead is accepted', async () => {
    const { agent_id, token } = await h.registerAgent();
    const ahead = h.clock.now + 30_001;
    expectDenied(
      await send(agent_id, token, h.heartbeat(1, { timestamp_ms: ahead })),
      'heartbeat_expired',
      `heartbeat timestamp_ms ${ahead} is -30001 ms from the engine clock (window ±30000 ms)`,
    );
    const trace = await expectAccepted(await send(agent_id, token, h.heartbeat(2, { timestamp_ms: h.clock.now + 30_000 })));
    expect(trace.heartbeat.drift_ms).toBe(-30_000);
  });

  it('heartbeat_expired: a heartbeat becomes expired as the engine clock moves on', async () => {
    const { agent_id, token } = await h.registerAgent();
    const hb = h.heartbeat(1);
    h.clock.now += 30_001;
    expectDenied(await send(agent_id, token, hb), 'heartbeat_expired');
  });
});

describe('heartbeat_regime_mismatch and heartbeat_mta_mismatch', () => {
  it('heartbeat_regime_mismatch: a regime_id other than the current regime', async () => {
    const { agent_id, token } = await h.registerAgent();
    expectDenied(
      await send(agent_id, token, h.heartbeat(1, { regime_id: 3 })),
      'heartbeat_regime_mismatch',
      'heartbeat regime_id 3 is not the current regime_id 0',
    );
  });

  it('heartbeat_mta_mismatch: an mta_ref that is not the current broadcast hash', async () => {
    const { agent_id, token } = await h.registerAgent();
    const wrong = 'b'.repeat(64);
    expectDenied(
      await send(agent_id, token, h.heartbeat(1, { mta_ref: wrong })),
      'heartbeat_mta_mismatch',
      `heartbeat mta_ref ${wrong} is not the current regime hash ${regime.hash}`,
    );
  });

  it('heartbeat_mta_mismatch: the hash of an older broadcast no longer matches after a new one is published', async () => {
    const { agent_id, token } = await h.registerAgent();
    const before = h.heartbeat(1);
    regime = await h.publishRegime('expansion', 0.25);
    expect(regime.hash).not.toBe(before.mta_ref);
    expectDenied(await send(agent_id, token, { ...h.heartbeat(2, { mta_ref: before.mta_ref as string }) }), 'heartbeat_mta_mismatch');
    await expectAccepted(await send(agent_id, token, h.heartbeat(3)));
  });
});

describe('heartbeat_replayed', () => {
  it('heartbeat_replayed: the same sequence_id twice (different orders) is accepted once', async () => {
    const { agent_id, token } = await h.registerAgent();
    const hb = h.heartbeat(10);
    await expectAccepted(await send(agent_id, token, hb));
    expectDenied(
      await send(agent_id, token, hb),
      'heartbeat_replayed',
      `heartbeat sequence_id 10 was already used or is not greater than the last one accepted from agent ${agent_id}`,
    );
  });

  it('heartbeat_replayed: a lower sequence_id than the last accepted is refused; a higher one is accepted', async () => {
    const { agent_id, token } = await h.registerAgent();
    await expectAccepted(await send(agent_id, token, h.heartbeat(10)));
    expectDenied(await send(agent_id, token, h.heartbeat(9)), 'heartbeat_replayed');
    expectDenied(await send(agent_id, token, h.heartbeat(0)), 'heartbeat_replayed');
    await expectAccepted(await send(agent_id, token, h.heartbeat(11)));
  });

  it('heartbeat_replayed: sequence marks are per agent (one broadcast heartbeat serves every agent once)', async () => {
    const a = await h.registerAgent();
    const b = await h.registerAgent();
    const hb = h.heartbeat(100);
    await expectAccepted(await send(a.agent_id, a.token, hb));
    await expectAccepted(await send(b.agent_id, b.token, hb));
    expectDenied(await send(a.agent_id, a.token, hb), 'heartbeat_replayed');
  });

  it('heartbeat_replayed: a heartbeat refused by an earlier check does not use up its sequence_id', async () => {
    const { agent_id, token } = await h.registerAgent();
    expectDenied(await send(agent_id, token, h.heartbeat(5, { timestamp_ms: h.clock.now - 60_000 })), 'heartbeat_expired');
    expectDenied(await send(agent_id, token, h.heartbeat(5, { regime_id: 2 })), 'heartbeat_regime_mismatch');
    await expectAccepted(await send(agent_id, token, h.heartbeat(5)));
  });

  it('heartbeat_replayed: an idempotent retry of an authorized order replays its response without re-checking the heartbeat', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id, { heartbeat: h.heartbeat(1) });
    const first = await h.call('POST', '/engine/authorize', order, token);
    expect(first.statusCode, first.body).toBe(200);
    const retry = await h.call('POST', '/engine/authorize', order, token);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toEqual(first.json());
  });

  it('concurrent retries of one order with one heartbeat all get the original answer, never heartbeat_replayed', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id, { heartbeat: h.heartbeat(5_000) });
    const results = await Promise.all(Array.from({ length: 12 }, () => h.call('POST', '/engine/authorize', order, token)));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const traceIds = new Set(results.map((r) => r.json().trace_id));
    expect(traceIds.size).toBe(1);
    const stored = (await h.call('GET', `/engine/traces?agent_id=${agent_id}`)).json();
    expect(stored.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([...traceIds]);
  });

  it('concurrent retries of one order, each with its own fresh heartbeat, all get the original answer', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => h.call('POST', '/engine/authorize', { ...order, heartbeat: h.heartbeat(6_000 + i) }, token)),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    expect(new Set(results.map((r) => r.json().trace_id)).size).toBe(1);
    expect((await h.call('GET', `/engine/traces?agent_id=${agent_id}`)).json().count).toBe(1);
  });

  it('a retry of an authorized order with a spent heartbeat still gets the original answer; a new order with it is refused', async () => {
    const { agent_id, token } = await h.registerAgent();
    const spent = h.heartbeat(7_000);
    const order = h.order(agent_id, { heartbeat: spent });
    const first = await h.call('POST', '/engine/authorize', order, token);
    expect(first.statusCode, first.body).toBe(200);
    expect((await send(agent_id, token, h.heartbeat(7_001))).statusCode).toBe(200);
    const retry = await h.call('POST', '/engine/authorize', order, token);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expectDenied(await send(agent_id, token, spent), 'heartbeat_replayed');
  });

  it('heartbeat_replayed: the same heartbeat in 20 concurrent authorizes is accepted exactly once', async () => {
    const { agent_id, token } = await h.registerAgent();
    const hb = h.heartbeat(1_000);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.call('POST', '/engine/authorize', h.order(agent_id, { heartbeat: hb, client_order_id: randomUUID() }), token)),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    const replayed = results.filter((r) => r.statusCode === 403 && r.json().code === 'heartbeat_replayed');
    expect(ok).toHaveLength(1);
    expect(replayed).toHaveLength(19);
    const stored = (await h.call('GET', `/engine/traces?agent_id=${agent_id}`)).json();
    expect(stored.count).toBe(1);
    expect(stored.traces[0].trace_id).toBe(ok[0]!.json().trace_id);
  });

  it('heartbeat_replayed: 20 concurrent authorizes with sequence_ids 1..20 never accept a lower one after a higher one', async () => {
    const { agent_id, token } = await h.registerAgent();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.call('POST', '/engine/authorize', h.order(agent_id, { heartbeat: h.heartbeat(i + 1) }), token)),
    );
    for (const r of results) expect([200, 403]).toContain(r.statusCode);
    for (const r of results.filter((x) => x.statusCode === 403)) expect(r.json().code).toBe('heartbeat_replayed');
    // Whatever interleaving happened, sequence 20 is the greatest, so it was accepted, and nothing after it.
    expect(results[19]!.statusCode, results[19]!.body).toBe(200);
    expectDenied(await send(agent_id, token, h.heartbeat(20)), 'heartbeat_replayed');
  });
});

describe('a heartbeat is spent only by an order that is sealed', () => {
  it('a refused order leaves its heartbeat usable; a sealed one spends it', async () => {
    const { agent_id, token } = await h.registerAgent();
    const hb = h.heartbeat(5_000_000);
    expectDenied(await send(agent_id, token, hb, { quantity: 10_000, limit_price: 190, notional: 1_900_000 }), 'notional_cap_exceeded');
    const ok = await send(agent_id, token, hb);
    expect(ok.statusCode, ok.body).toBe(200);
    expectDenied(await send(agent_id, token, hb), 'heartbeat_replayed');
  });
});
