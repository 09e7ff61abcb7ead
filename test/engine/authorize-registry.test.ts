/**
 * Authorize against the agent registry and token scope: `agent_not_active`, `model_not_registered` and
 * `agent_not_permitted` (docs/decisions/0005-agent-registry.md,
 * docs/decisions/0013-engine-tokens.md).
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, MODEL_HASH, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

function expectDenied(res: LightMyRequestResponse, code: string, detail: string | RegExp): void {
  expect(res.statusCode, res.body).toBe(403);
  const body = res.json();
  expect(body.code).toBe(code);
  if (typeof detail === 'string') expect(body.detail).toBe(detail);
  else expect(body.detail).toMatch(detail);
}

const setStatus = (agentId: string, status: string) => h.call('PATCH', `/engine/admin/agents/${agentId}/status`, { status, reason: 'test' });

describe('agent_not_active', () => {
  it('agent_not_active: an unknown agent is refused, and no trace is stored', async () => {
    const unknown = randomUUID();
    const res = await h.call('POST', '/engine/authorize', h.order(unknown));
    expectDenied(res, 'agent_not_active', `agent ${unknown} is not registered`);
    const listed = (await h.call('GET', `/engine/traces?agent_id=${unknown}`)).json();
    expect(listed.count).toBe(0);
  });

  it('agent_not_active: a Suspended agent (PATCH status) is refused; reactivating it lifts the kill switch', async () => {
    const { agent_id, token } = await h.registerAgent();
    expect((await h.call('POST', '/engine/authorize', h.order(agent_id), token)).statusCode).toBe(200);
    expect((await setStatus(agent_id, 'Suspended')).statusCode).toBe(200);
    expectDenied(await h.call('POST', '/engine/authorize', h.order(agent_id), token), 'agent_not_active', `agent ${agent_id} is Suspended`);
    expect((await setStatus(agent_id, 'Active')).statusCode).toBe(200);
    expect((await h.call('POST', '/engine/authorize', h.order(agent_id), token)).statusCode).toBe(200);
  });

  it('agent_not_active: a Deregistered agent is refused', async () => {
    const { agent_id, token } = await h.registerAgent();
    expect((await setStatus(agent_id, 'Deregistered')).statusCode).toBe(200);
    expectDenied(await h.call('POST', '/engine/authorize', h.order(agent_id), token), 'agent_not_active', `agent ${agent_id} is Deregistered`);
  });
});

describe('model_not_registered', () => {
  it('model_not_registered: a model_hash_hex that is not approved is refused, naming model and hash', async () => {
    const { agent_id, token } = await h.registerAgent();
    const other = 'b'.repeat(64);
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { model_hash_hex: other }), token);
    expectDenied(res, 'model_not_registered', `model alpha-7 with hash ${other} is not approved for agent ${agent_id}`);
  });

  it('model_not_registered: an approved hash under another model_id is refused', async () => {
    const { agent_id, token } = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { model_id: 'beta-1' }), token);
    expectDenied(res, 'model_not_registered', `model beta-1 with hash ${MODEL_HASH} is not approved for agent ${agent_id}`);
  });

  it('model_not_registered: approving the model version (POST models) admits it', async () => {
    const { agent_id, token } = await h.registerAgent();
    const other = 'c'.repeat(64);
    expect((await h.call('POST', '/engine/authorize', h.order(agent_id, { model_hash_hex: other }), token)).statusCode).toBe(403);
    const added = await h.call('POST', `/engine/admin/agents/${agent_id}/models`, { model_id: 'alpha-7', model_hash_hex: other });
    expect(added.statusCode, added.body).toBe(201);
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { model_hash_hex: other }), token);
    expect(res.statusCode, res.body).toBe(200);
  });

  it('model_not_registered: a suspended agent is reported as agent_not_active first', async () => {
    const { agent_id, token } = await h.registerAgent();
    await setStatus(agent_id, 'Suspended');
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { model_hash_hex: 'd'.repeat(64) }), token);
    expectDenied(res, 'agent_not_active', /is Suspended/);
  });
});

describe('agent_not_permitted', () => {
  it('agent_not_permitted: a client token bound to another agent is refused, and no trace is stored', async () => {
    const a = await h.registerAgent();
    const b = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(b.agent_id), a.token);
    expectDenied(res, 'agent_not_permitted', `this token may not act for agent ${b.agent_id}`);
    expect((await h.call('GET', `/engine/traces?agent_id=${b.agent_id}`)).json().count).toBe(0);
  });

  it('agent_not_permitted: a token bound to several agents acts for each of them, and an unbound client token for any', async () => {
    const a = await h.registerAgent();
    const b = await h.registerAgent();
    const both = (await h.call('POST', '/engine/admin/tokens', { client_name: 'desk', agent_ids: [a.agent_id, b.agent_id] })).json().token as string;
    const free = (await h.call('POST', '/engine/admin/tokens', { client_name: 'router' })).json().token as string;
    for (const token of [both, free]) {
      for (const agentId of [a.agent_id, b.agent_id]) {
        const res = await h.call('POST', '/engine/authorize', h.order(agentId), token);
        expect(res.statusCode, res.body).toBe(200);
      }
    }
  });
});
