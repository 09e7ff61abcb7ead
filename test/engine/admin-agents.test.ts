/**
 * The agent registry (owner): `POST /engine/admin/agents` (201), `POST .../{agent_id}/models` (201; the new
 * model then authorizes), `PATCH .../{agent_id}/status` (the per-agent kill switch), `GET` list and one,
 * and their 404 and 422 answers.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, MODEL_HASH, type EngineHarness } from '../helpers/engine.js';

const AGENT_FIELDS = [
  'agent_id',
  'allowed_regimes',
  'created_at',
  'erased',
  'erased_at',
  'max_notional',
  'max_open_notional',
  'models',
  'name',
  'status',
  'status_reason',
];
const OTHER_HASH = 'b'.repeat(64);

let h: EngineHarness;

beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

const register = (body: unknown) => h.call('POST', '/engine/admin/agents', body);

/** A client token for `agentId`. */
const tokenFor = async (agentId: string): Promise<string> =>
  (await h.call('POST', '/engine/admin/tokens', { client_name: 'bot', agent_ids: [agentId] })).json().token;

describe('POST /engine/admin/agents', () => {
  it('201 {agent_id, name, status, max_notional, allowed_regimes, models, created_at}', async () => {
    const before = Date.now();
    const res = await register({
      name: 'momentum-bot',
      max_notional: 250_000,
      allowed_regimes: ['expansion', 'recovery'],
      models: [
        { model_id: 'alpha-7', model_hash_hex: MODEL_HASH },
        { model_id: 'alpha-7', model_hash_hex: OTHER_HASH },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(AGENT_FIELDS);
    expect(body).toMatchObject({
      name: 'momentum-bot',
      status: 'Active',
      status_reason: null,
      max_notional: 250_000,
      allowed_regimes: ['expansion', 'recovery'],
      models: [
        { model_id: 'alpha-7', model_hash_hex: MODEL_HASH },
        { model_id: 'alpha-7', model_hash_hex: OTHER_HASH },
      ],
    });
    expect(body.agent_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 5000);
    const [row] = await h.store.sql`select name, status, max_notional from agents where agent_id = ${body.agent_id}`;
    expect(row).toEqual({ name: 'momentum-bot', status: 'Active', max_notional: 250_000 });
  });

  it('allowed_regimes defaults to null (every regime); duplicate models are stored once', async () => {
    const res = await register({
      name: 'plain',
      max_notional: 1000,
      models: [
        { model_id: 'm', model_hash_hex: MODEL_HASH },
        { model_id: 'm', model_hash_hex: MODEL_HASH },
      ],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().allowed_regimes).toBeNull();
    expect(res.json().models).toEqual([{ model_id: 'm', model_hash_hex: MODEL_HASH }]);
  });

  it('each registration gets a new agent_id', async () => {
    const body = { name: 'twin', max_notional: 1000, models: [] };
    const a = (await register(body)).json();
    const b = (await register(body)).json();
    expect(a.agent_id).not.toBe(b.agent_id);
  });

  it.each([
    ['a model_hash_hex that is too short', { models: [{ model_id: 'm', model_hash_hex: 'abc' }] }, 'models[0].model_hash_hex'],
    ['an upper-case model_hash_hex', { models: [{ model_id: 'm', model_hash_hex: 'A'.repeat(64) }] }, 'models[0].model_hash_hex'],
    ['a non-hex model_hash_hex', { models: [{ model_id: 'm', model_hash_hex: 'g'.repeat(64) }] }, 'models[0].model_hash_hex'],
    ['a model without model_id', { models: [{ model_hash_hex: MODEL_HASH }] }, 'models[0].model_id'],
    ['an unknown field in a model', { models: [{ model_id: 'm', model_hash_hex: MODEL_HASH, weights: 'x' }] }, 'models[0].weights'],
    ['a negative max_notional', { max_notional: -5 }, 'max_notional'],
    ['a zero max_notional', { max_notional: 0 }, 'max_notional'],
    ['a string max_notional', { max_notional: '1000' }, 'max_notional'],
    ['an empty name', { name: '' }, 'name'],
    ['an unknown regime', { allowed_regimes: ['boom'] }, 'allowed_regimes[0]'],
    ['an unknown field', { owner: 'desk-7' }, 'owner'],
    // Postgres text cannot hold NUL: without the check this was a 500.
    ['a NUL in the name', { name: 'bad\u0000' }, 'name'],
  ])('422 for %s', async (_name, patch, field) => {
    const res = await register({ name: 'bad', max_notional: 1000, models: [{ model_id: 'm', model_hash_hex: MODEL_HASH }], ...patch });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    const [n] = await h.store.sql`select count(*)::int as n from agents where name in ('bad', '')`;
    expect(n!.n).toBe(0);
  });

  it('422 lists every invalid field at once', async () => {
    const res = await register({ name: '', max_notional: -1, models: [{ model_id: 'm', model_hash_hex: 'x' }], extra: 1 });
    expect(res.statusCode).toBe(422);
    expect(
      res
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['extra', 'max_notional', 'models[0].model_hash_hex', 'name']);
  });
});

describe('POST /engine/admin/agents/{agent_id}/models', () => {
  it('201 with the agent, and the new model version then authorizes', async () => {
    const agent = await h.registerAgent();
    const order = { model_id: 'beta-2', model_hash_hex: OTHER_HASH };
    const before = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, order), agent.token);
    expect(before.statusCode).toBe(403);
    expect(before.json().code).toBe('model_not_registered');

    const res = await h.call('POST', `/engine/admin/agents/${agent.agent_id}/models`, { model_id: 'beta-2', model_hash_hex: OTHER_HASH });
    expect(res.statusCode, res.body).toBe(201);
    expect(Object.keys(res.json()).sort()).toEqual(AGENT_FIELDS);
    expect(res.json().agent_id).toBe(agent.agent_id);
    expect(res.json().models).toEqual([
      { model_id: 'alpha-7', model_hash_hex: MODEL_HASH },
      { model_id: 'beta-2', model_hash_hex: OTHER_HASH },
    ]);

    const after = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, order), agent.token);
    expect(after.statusCode, after.body).toBe(200);
    // The old version still authorizes too.
    expect((await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token)).statusCode).toBe(200);
  });

  it('adding a model already approved changes nothing', async () => {
    const agent = await h.registerAgent();
    const res = await h.call('POST', `/engine/admin/agents/${agent.agent_id}/models`, { model_id: 'alpha-7', model_hash_hex: MODEL_HASH });
    expect(res.statusCode).toBe(201);
    expect(res.json().models).toEqual([{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }]);
  });

  it('404 for an unknown agent, and nothing is stored', async () => {
    const id = randomUUID();
    const res = await h.call('POST', `/engine/admin/agents/${id}/models`, { model_id: 'm', model_hash_hex: MODEL_HASH });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
    const [n] = await h.store.sql`select count(*)::int as n from agent_models where agent_id = ${id}`;
    expect(n!.n).toBe(0);
  });

  it('422 for a malformed agent id or model', async () => {
    const agent = await h.registerAgent();
    const badId = await h.call('POST', '/engine/admin/agents/agent-7/models', { model_id: 'm', model_hash_hex: MODEL_HASH });
    expect(badId.statusCode).toBe(422);
    expect(badId.json().errors[0].field).toBe('agent_id');
    const badHash = await h.call('POST', `/engine/admin/agents/${agent.agent_id}/models`, { model_id: 'm', model_hash_hex: 'XYZ' });
    expect(badHash.statusCode).toBe(422);
    expect(badHash.json().errors.map((e: { field: string }) => e.field)).toContain('model_hash_hex');
  });
});

describe('PATCH /engine/admin/agents/{agent_id}/status', () => {
  it('Suspended → authorize 403 agent_not_active; back to Active → authorize 200', async () => {
    const agent = await h.registerAgent();
    expect((await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token)).statusCode).toBe(200);

    const suspended = await h.call('PATCH', `/engine/admin/agents/${agent.agent_id}/status`, { status: 'Suspended', reason: 'drawdown limit hit' });
    expect(suspended.statusCode, suspended.body).toBe(200);
    expect(suspended.json()).toMatchObject({ agent_id: agent.agent_id, status: 'Suspended', status_reason: 'drawdown limit hit' });

    const denied = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('agent_not_active');
    expect(denied.json().detail).toContain('Suspended');

    const active = await h.call('PATCH', `/engine/admin/agents/${agent.agent_id}/status`, { status: 'Active', reason: null });
    expect(active.statusCode).toBe(200);
    expect(active.json()).toMatchObject({ status: 'Active', status_reason: null });
    expect((await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token)).statusCode).toBe(200);
  });

  it('Deregistered → authorize 403 agent_not_active', async () => {
    const agent = await h.registerAgent();
    expect((await h.call('PATCH', `/engine/admin/agents/${agent.agent_id}/status`, { status: 'Deregistered' })).statusCode).toBe(200);
    const denied = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('agent_not_active');
  });

  it("a suspended agent's pending trace can still be bound (the order may already be on the exchange)", async () => {
    const agent = await h.registerAgent();
    const auth = (await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token)).json();
    await h.call('PATCH', `/engine/admin/agents/${agent.agent_id}/status`, { status: 'Suspended', reason: 'kill switch' });
    const bind = await h.call('POST', '/engine/bind-execution', { trace_id: auth.trace_id, exchange_tx_id: 'X-susp', execution_status: 'Filled' }, agent.token);
    expect(bind.statusCode).toBe(200);
  });

  it('404 for an unknown agent; 422 for an unknown status, a malformed id or an unknown field', async () => {
    const missing = await h.call('PATCH', `/engine/admin/agents/${randomUUID()}/status`, { status: 'Suspended' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('not_found');
    const agent = await h.registerAgent();
    const paused = await h.call('PATCH', `/engine/admin/agents/${agent.agent_id}/status`, { status: 'Paused' });
    expect(paused.statusCode).toBe(422);
    expect(paused.json().errors[0].field).toBe('status');
    expect((await h.call('PATCH', '/engine/admin/agents/x/status', { status: 'Active' })).statusCode).toBe(422);
    expect((await h.call('PATCH', `/engine/admin/agents/${agent.agent_id}/status`, { status: 'Active', until: 'x' })).statusCode).toBe(422);
    expect((await h.call('PATCH', `/engine/admin/agents/${agent.agent_id}/status`, {})).statusCode).toBe(422);
    const nul = await h.call('PATCH', `/engine/admin/agents/${agent.agent_id}/status`, { status: 'Suspended', reason: 'a\u0000b' });
    expect(nul.statusCode).toBe(422);
    expect(nul.json().errors[0].field).toBe('reason');
    expect((await h.call('GET', `/engine/admin/agents/${agent.agent_id}`)).json().status).toBe('Active');
  });
});

describe('GET /engine/admin/agents[/{agent_id}]', () => {
  it('lists every agent with its models, and reads one', async () => {
    const one = await h.registerAgent({ name: 'lister-1', max_notional: 5000 });
    const two = await h.registerAgent({ name: 'lister-2', allowed_regimes: ['risk_off'] });
    await h.call('PATCH', `/engine/admin/agents/${two.agent_id}/status`, { status: 'Suspended', reason: 'r' });

    const list = await h.call('GET', '/engine/admin/agents');
    expect(list.statusCode).toBe(200);
    const body = list.json();
    expect(body.count).toBe(body.agents.length);
    const [n] = await h.store.sql`select count(*)::int as n from agents`;
    expect(body.count).toBe(n!.n);
    const byId = new Map<string, Record<string, unknown>>(body.agents.map((a: { agent_id: string }) => [a.agent_id, a]));
    expect(byId.get(one.agent_id)).toMatchObject({
      name: 'lister-1',
      max_notional: 5000,
      status: 'Active',
      models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }],
    });
    expect(byId.get(two.agent_id)).toMatchObject({ name: 'lister-2', status: 'Suspended', allowed_regimes: ['risk_off'] });
    for (const a of body.agents) expect(Object.keys(a).sort()).toEqual(AGENT_FIELDS);

    const single = await h.call('GET', `/engine/admin/agents/${two.agent_id}`);
    expect(single.statusCode).toBe(200);
    expect(single.json()).toEqual(byId.get(two.agent_id));
  });

  it('404 for an unknown agent, 422 for a malformed id', async () => {
    const res = await h.call('GET', `/engine/admin/agents/${randomUUID()}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
    expect((await h.call('GET', '/engine/admin/agents/not-a-uuid')).statusCode).toBe(422);
  });

  it("403 for an agent's own client token", async () => {
    const agent = await h.registerAgent();
    const token = await tokenFor(agent.agent_id);
    expect((await h.call('GET', `/engine/admin/agents/${agent.agent_id}`, undefined, token)).statusCode).toBe(403);
  });
});
