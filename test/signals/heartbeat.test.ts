/** Issued heartbeats: strictly increasing sequence ids, valid signatures, and accepted by the engine's Layer 2. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heartbeatSignatureValid } from '../../src/engine/heartbeat/check.js';
import { issueHeartbeat } from '../../src/signals/heartbeat.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness({ config: { layer2Enabled: true, heartbeatRequireMtaRef: true } });
});
afterAll(async () => h?.close());

describe('issueHeartbeat', () => {
  it('refuses when no regime is published', async () => {
    await expect(issueHeartbeat(h.store.sql, { secretKey: h.operator.secretKey, now: h.clock.now })).rejects.toMatchObject({ code: 'regime_not_published' });
  });

  it('issues strictly increasing, verifiable heartbeats of the regime in force, in both schemes', async () => {
    const regime = await h.publishRegime('tightening');
    const issued = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        issueHeartbeat(h.store.sql, { secretKey: h.operator.secretKey, now: h.clock.now, scheme: i % 2 ? 'ed25519-jcs' : 'ed25519' }),
      ),
    );
    const ids = issued.map((hb) => hb.sequence_id);
    expect(new Set(ids).size).toBe(10);
    for (const hb of issued) {
      expect(hb).toMatchObject({ regime_id: 2, mta_ref: regime.hash, timestamp_ms: h.clock.now });
      expect(await heartbeatSignatureValid(hb, h.operator.publicKey)).toBe(true);
      expect(await heartbeatSignatureValid({ ...hb, regime_id: 3 }, h.operator.publicKey)).toBe(false);
    }
    expect(issued.find((hb) => hb.signature.startsWith('ed25519-jcs:'))).toBeDefined();
  });

  it('is accepted by authorize with Layer 2 on, and only once', async () => {
    const { agent_id, token } = await h.registerAgent();
    const hb = await issueHeartbeat(h.store.sql, { secretKey: h.operator.secretKey, now: h.clock.now });
    const first = await h.call('POST', '/engine/authorize', { ...h.order(agent_id), heartbeat: hb }, token);
    expect(first.statusCode, first.body).toBe(200);
    const again = await h.call('POST', '/engine/authorize', { ...h.order(agent_id), heartbeat: hb }, token);
    expect(again.statusCode).toBe(403);
    expect(again.json().code).toBe('heartbeat_replayed');
    const next = await issueHeartbeat(h.store.sql, { secretKey: h.operator.secretKey, now: h.clock.now });
    expect((await h.call('POST', '/engine/authorize', { ...h.order(agent_id), heartbeat: next }, token)).statusCode).toBe(200);
  });
});
