/**
 * Layer 2 off (the default): a supplied heartbeat is verified and recorded in the trace, never rejected
 * (docs/decisions/0011-layer-2-heartbeat.md): `heartbeat.signature_valid` says whether it verified,
 * `heartbeat.drift_ms` is txn_time − timestamp_ms, and neither its age, regime nor sequence_id stops the order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../src/core/crypto/ed25519.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agentId: string;
let token: string;
beforeAll(async () => {
  h = await engineHarness();
  expect(h.config.layer2Enabled).toBe(false);
  await h.publishRegime('expansion');
  ({ agent_id: agentId, token } = await h.registerAgent());
});
afterAll(async () => h?.close());

async function traceOf(heartbeat?: unknown): Promise<Record<string, any>> {
  const res = await h.call('POST', '/engine/authorize', h.order(agentId, heartbeat === undefined ? {} : { heartbeat }), token);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ authorized: true, shadow_blocked: false });
  const trace = await h.call('GET', `/engine/trace/${res.json().trace_id}`);
  return trace.json();
}

describe('heartbeat recorded with Layer 2 off', () => {
  it('no heartbeat: accepted, with a null heartbeat record', async () => {
    const trace = await traceOf();
    expect(trace.heartbeat).toEqual({ sequence_id: null, signature_valid: false, drift_ms: null });
  });

  it('a good signature is recorded as signature_valid true, in heartbeat and mta', async () => {
    const trace = await traceOf(h.heartbeat(3));
    expect(trace.heartbeat).toEqual({ sequence_id: 3, signature_valid: true, drift_ms: 0 });
    expect(trace.mta.signature_valid).toBe(true);
  });

  it('a bad signature is accepted and recorded as signature_valid false', async () => {
    const trace = await traceOf(h.heartbeat(4, { key: generateKeyPair().secretKey }));
    expect(trace.heartbeat).toEqual({ sequence_id: 4, signature_valid: false, drift_ms: 0 });
    expect(trace.mta.signature_valid).toBe(false);
    expect(trace.policy.result).toBe('PASS');
  });

  it('a malformed signature string is accepted and recorded as signature_valid false', async () => {
    const trace = await traceOf({ ...h.heartbeat(5), signature: 'not-a-signature' });
    expect(trace.heartbeat.signature_valid).toBe(false);
  });

  it('drift_ms = txn_time − timestamp_ms, positive for an old heartbeat and negative for one from the future', async () => {
    const old = await traceOf(h.heartbeat(6, { timestamp_ms: h.clock.now - 1_234 }));
    expect(old.heartbeat.drift_ms).toBe(1_234);
    expect(Date.parse(old.bitemporal.txn_time) - old.heartbeat.drift_ms).toBe(h.clock.now - 1_234);
    const ahead = await traceOf(h.heartbeat(7, { timestamp_ms: h.clock.now + 567 }));
    expect(ahead.heartbeat.drift_ms).toBe(-567);
  });

  it('an expired heartbeat, another regime_id or mta_ref, and a replayed sequence_id are all accepted and recorded', async () => {
    const expired = await traceOf(h.heartbeat(8, { timestamp_ms: h.clock.now - 3_600_000 }));
    expect(expired.heartbeat).toEqual({ sequence_id: 8, signature_valid: true, drift_ms: 3_600_000 });
    expect((await traceOf(h.heartbeat(9, { regime_id: 3 }))).heartbeat.signature_valid).toBe(true);
    expect((await traceOf(h.heartbeat(10, { mta_ref: 'f'.repeat(64) }))).heartbeat.signature_valid).toBe(true);
    const hb = h.heartbeat(11);
    expect((await traceOf(hb)).heartbeat.sequence_id).toBe(11);
    expect((await traceOf(hb)).heartbeat.sequence_id).toBe(11);
    expect((await traceOf(h.heartbeat(1))).heartbeat.sequence_id).toBe(1);
  });

  it('a regime_id that does not fit the binary layout (300) is recorded as signature_valid false, not a fault', async () => {
    const trace = await traceOf({ sequence_id: 12, timestamp_ms: h.clock.now, regime_id: 300, signature: h.heartbeat(12).signature });
    expect(trace.heartbeat.signature_valid).toBe(false);
  });

  it('the jcs scheme and the bare base64 form are recorded as valid too', async () => {
    expect((await traceOf(h.heartbeat(13, { scheme: 'ed25519-jcs' }))).heartbeat.signature_valid).toBe(true);
    const bare = h.heartbeat(14);
    expect((await traceOf({ ...bare, signature: (bare.signature as string).replace(/^ed25519:/, '') })).heartbeat.signature_valid).toBe(true);
  });
});
