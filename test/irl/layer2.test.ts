/**
 * The IRL authorize/bind flow with Layer 2 on (LAYER2_ENABLED=true), for each client SDK: the heartbeat is
 * fetched from the signal service (`GET /v1/engine/heartbeat`, the engine's regime operator) and passed to the
 * SDK as its caller would (the TS SDKs' `signature: number[]` as a JSON array of the 64 bytes; Python and Go
 * the base64 string), the order is authorized with the heartbeat verified and sealed, and the execution
 * binds. Also in IRL's words: a missing heartbeat is `HEARTBEAT_MISSING`, a replayed one
 * `HEARTBEAT_STALE_SEQUENCE`, and an `mta_ref` of "" means no reference, as on the IRL Engine.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeartbeatSigner } from '../../src/signals/heartbeat.js';
import { axGo } from './fixtures/ax-go.js';
import { axPython } from './fixtures/ax-python.js';
import { axTypescript } from './fixtures/ax-typescript.js';
import { irlTypescript130 } from './fixtures/irl-typescript-1.3.0.js';
import type { IssuedHeartbeat, OrderArgs, SdkFixture, Session } from './fixtures/sdk.js';
import { expectRead, MODEL_HASH } from './sdk-suite.js';
import { irlServer, type IrlServer } from './server.js';

let s: IrlServer;
beforeAll(async () => {
  s = await irlServer({ layer2: true });
});
afterAll(async () => s?.close());

async function session(): Promise<Session> {
  const { agentId, token } = await s.agent(MODEL_HASH);
  return { token, agentId, modelHashHex: MODEL_HASH };
}

const order = (heartbeat?: IssuedHeartbeat): OrderArgs => ({
  side: 'Long',
  quantity: 0.5,
  asset: 'BTC-PERP',
  notional: 30_000,
  venueId: 'BINANCE',
  clientOrderId: `irl-${randomUUID().replace(/-/g, '')}`,
  validTimeMs: Date.now(),
  ...(heartbeat ? { heartbeat } : {}),
});

describe.each([axTypescript, axPython, axGo, irlTypescript130] as SdkFixture[])('Layer 2: $name', (sdk) => {
  it("authorize with the operator's heartbeat as the SDK sends it, sealed as verified, then bind", async () => {
    const c = await session();
    const hb = await s.heartbeat();
    const call = sdk.authorize(c, order(hb));
    const sent = JSON.parse(call.request.body!).heartbeat;
    // What each SDK's caller puts on the wire for the signature.
    expect(sent.signature).toEqual(sdk === axPython || sdk === axGo ? hb.signature : [...Buffer.from(hb.signature, 'base64')]);
    const res = await s.send(call);
    expectRead(call, res, 200);
    const doc = (await s.engine('GET', `/engine/trace/${res.json.trace_id}`)).json;
    expect(doc.heartbeat).toMatchObject({ sequence_id: hb.sequence_id, signature_valid: true });

    const bind = sdk.bind(c, {
      traceId: res.json.trace_id,
      exchangeOrderId: `EX-${hb.sequence_id}`,
      executionPrice: 60_000,
      executedQuantity: 0.5,
      executionTimeMs: Date.now(),
      executedSide: 'Long',
      asset: 'BTC-PERP',
    });
    const bound = await s.send(bind);
    expectRead(bind, bound, 200);
    expect(bound.json).toMatchObject({ verification_status: 'MATCHED', execution_status: 'FILLED' });
  });
});

describe("Layer 2 refusals and mta_ref, in IRL's words", () => {
  it('no heartbeat: 422 HEARTBEAT_MISSING', async () => {
    const res = await s.send(axTypescript.authorize(await session(), order()));
    expect(res.status, res.text).toBe(422);
    expect(res.json).toMatchObject({ error: 'HEARTBEAT_MISSING', message: expect.any(String) });
  });

  it('the same heartbeat again: 403 HEARTBEAT_STALE_SEQUENCE', async () => {
    const c = await session();
    const hb = await s.heartbeat();
    expect((await s.send(irlTypescript130.authorize(c, order(hb)))).status).toBe(200);
    const again = await s.send(irlTypescript130.authorize(c, order(hb)));
    expect(again.status, again.text).toBe(403);
    expect(again.json).toMatchObject({ error: 'HEARTBEAT_STALE_SEQUENCE', message: expect.any(String) });
  });

  it('mta_ref "" is no reference: a heartbeat signed over no mta_ref bytes is accepted', async () => {
    const c = await session();
    const signed = new HeartbeatSigner(s.operatorSecretKey, 'ed25519').sign({
      sequence_id: 1,
      timestamp_ms: Date.now(),
      regime_id: s.regime.regime_id,
      mta_ref: '',
    });
    const hb: IssuedHeartbeat = { ...signed, signature: signed.signature.replace(/^ed25519:/, '') };
    const call = axPython.authorize(c, order(hb));
    expect(JSON.parse(call.request.body!).heartbeat.mta_ref).toBe('');
    const res = await s.send(call);
    expect(res.status, res.text).toBe(200);
    const doc = (await s.engine('GET', `/engine/trace/${res.json.trace_id}`)).json;
    expect(doc.heartbeat).toMatchObject({ sequence_id: 1, signature_valid: true });
  });
});
