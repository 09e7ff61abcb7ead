/**
 * The IRL Engine's wrk benchmark request (./fixtures/wrk.ts) against tradeseal's IRL-compatible API: an
 * agent registered the IRL way (`POST /irl/agents`, so its model is `default`), a client token, and the
 * script's request as wrk sends it is answered 200 (wrk counts anything but 200/201 as a failure), sealed
 * under the agent's `default` model although the script names the model "gpt-4o-bench".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latentFingerprint } from '../../src/engine/trace/seal.js';
import { wrkAuthorize } from './fixtures/wrk.js';
import { irlServer, type IrlServer } from './server.js';

const MODEL_HASH = '0123456789abcdef'.repeat(4);
let s: IrlServer;
beforeAll(async () => {
  s = await irlServer();
});
afterAll(async () => s?.close());

describe('bench/authorize.lua', () => {
  it('one request() of the script is a 200 with trace_id and reasoning_hash', async () => {
    const reg = await s.send({
      method: 'POST',
      path: '/irl/agents',
      headers: { authorization: `Bearer ${s.ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench-agent', model_hash_hex: MODEL_HASH, max_notional: 1_000_000 }),
    });
    expect(reg.status, reg.text).toBe(201);
    const agentId = reg.json.agent_id as string;
    const token = await s.engine('POST', '/engine/admin/tokens', { client_name: 'wrk' });
    expect(token.status, token.text).toBe(200);

    const call = wrkAuthorize(
      { IRL_API_TOKEN: token.json.token, AGENT_ID: agentId, MODEL_HASH },
      {
        side: 'Short',
        asset: 'ETH-USD',
        venue: 'KRKN',
        quantity: 0.37,
        price: 45_000,
        nowSeconds: Math.floor(Date.now() / 1000),
      },
    );
    const res = await s.send(call);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ trace_id: expect.any(String), reasoning_hash: expect.stringMatching(/^[0-9a-f]{64}$/), authorized: true });

    const doc = (await s.engine('GET', `/engine/trace/${res.json.trace_id}`)).json;
    expect(doc.execution).toMatchObject({ action: 'Short', order_type: 'Market', asset: 'ETH-USD', venue_id: 'KRKN', quantity: 0.37 });
    expect(doc.agent.latent_fingerprint).toBe(
      latentFingerprint('default', 'v1.0.0', 'schema-bench-v1', 'aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899'),
    );
  });
});
