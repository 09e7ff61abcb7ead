/**
 * `GET /engine/policy`: the policy the engine enforces, for any token, with the hash its traces carry (checked
 * against a sealed trace's policy block), and 401 without a token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness({ policy: { max_orders_per_second: 7 } });
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

describe('GET /engine/policy', () => {
  it('answers the policy in force to any token; its hash is the one sealed traces carry', async () => {
    const agent = await h.registerAgent();
    const res = await h.call('GET', '/engine/policy', undefined, agent.token);
    expect(res.statusCode, res.body).toBe(200);
    const policy = res.json();
    expect(policy.document.max_orders_per_second).toBe(7);
    expect(policy).toMatchObject({ id: policy.document.id, version: policy.document.version, hash: h.ctx.policy.hash });
    const sealed = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    expect(sealed.statusCode, sealed.body).toBe(200);
    const trace = (await h.call('GET', `/engine/trace/${sealed.json().trace_id}`)).json();
    expect(trace.policy).toMatchObject({ id: policy.id, version: policy.version, hash: policy.hash });
  });

  it('401 without a token', async () => {
    const res = await h.call('GET', '/engine/policy', undefined, null);
    expect(res.statusCode).toBe(401);
  });
});
