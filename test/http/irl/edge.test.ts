/**
 * The IRL Engine compatibility edge (src/http/irl/) through the real app and a real store: IRL paths, the IRL
 * clients' vocabulary in, the shapes they read out, and the `{error, message}` error body.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latentFingerprint } from '../../../src/engine/trace/seal.js';
import { engineHarness, MODEL_HASH, type EngineHarness } from '../../helpers/engine.js';
import { kmsConfig, masterKeyFile } from '../../helpers/kms.js';

let h: EngineHarness;
let clientToken: string;

/** A request as an IRL client sends it: straight to the app, no API-document check (`/irl` is not in it). */
const irl = async (method: string, url: string, body?: unknown, token: string | null = h.ownerToken) => {
  const res = await h.app.inject({
    method: method as 'GET',
    url,
    ...(body === undefined ? {} : { payload: body as object }),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.statusCode, body: res.json() as Record<string, any>, raw: res.body };
};

/** An order as the IRL TypeScript client sends it with its defaults. */
const irlOrder = (agentId: string, overrides: Record<string, unknown> = {}) => ({
  agent_id: agentId,
  model_hash_hex: MODEL_HASH,
  model_id: 'default',
  prompt_version: 'v1.0',
  feature_schema_id: 'default',
  hyperparameter_checksum: '0'.repeat(64),
  action: { Long: 2 },
  quantity: 2,
  asset: 'AAPL',
  notional: 380,
  notional_currency: 'USD',
  multiplier: 1,
  order_type: 'MARKET',
  reduce_only: false,
  agent_valid_time: h.clock.now,
  venue_id: 'XNAS',
  client_order_id: `irl-${randomUUID()}`,
  ...overrides,
});

async function irlAgent(overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await irl('POST', '/irl/agents', { name: `bot-${randomUUID().slice(0, 8)}`, model_hash_hex: MODEL_HASH, max_notional: 500_000, ...overrides });
  expect(res.status, res.raw).toBe(201);
  return res.body.agent_id as string;
}

beforeAll(async () => {
  h = await engineHarness({ config: kmsConfig(masterKeyFile()), recordQueries: true });
  await h.publishRegime('expansion');
  const tok = await irl('POST', '/irl/admin/tokens', { client_name: 'desk-a' });
  expect(tok.status, tok.raw).toBe(200);
  clientToken = tok.body.token;
});
afterAll(async () => h?.close());

describe('IRL agents', () => {
  it('registers an IRL body with the one model "default", and answers with id, model_hash_hex and regime ids', async () => {
    const res = await irl('POST', '/irl/agents', {
      name: 'my-btc-bot',
      model_hash_hex: MODEL_HASH.toUpperCase(),
      max_notional: 500_000,
      allowed_regimes: [0, 3],
    });
    expect(res.status, res.raw).toBe(201);
    expect(res.body).toMatchObject({
      agent_id: expect.any(String),
      id: res.body.agent_id,
      name: 'my-btc-bot',
      model_hash_hex: MODEL_HASH,
      status: 'Active',
      max_notional: 500_000,
      allowed_regimes: [0, 3],
      models: [{ model_id: 'default', model_hash_hex: MODEL_HASH }],
    });
    const engine = await h.call('GET', `/engine/admin/agents/${res.body.agent_id}`);
    expect(engine.json().allowed_regimes).toEqual(['expansion', 'risk_off']);

    const one = await irl('GET', `/irl/agents/${res.body.agent_id}`);
    expect(one.body).toMatchObject({ id: res.body.agent_id, model_hash_hex: MODEL_HASH, allowed_regimes: [0, 3] });
    const all = await irl('GET', '/irl/agents');
    expect(all.body.agents.find((a: { id: string }) => a.id === res.body.agent_id)).toMatchObject({ model_hash_hex: MODEL_HASH, allowed_regimes: [0, 3] });
    const suspended = await irl('PATCH', `/irl/agents/${res.body.agent_id}/status`, { status: 'Suspended' });
    expect(suspended.status, suspended.raw).toBe(200);
    expect(suspended.body).toMatchObject({ agent_id: res.body.agent_id, status: 'Suspended' });
  });

  it('takes the IRL defaults: no max_notional is 1 000 000, allowed_regimes null is every regime', async () => {
    const res = await irl('POST', '/irl/agents', { name: 'sandbox-agent', model_hash_hex: '0'.repeat(64), allowed_regimes: null, allowed_venues: null });
    expect(res.status, res.raw).toBe(201);
    expect(res.body).toMatchObject({ max_notional: 1_000_000, allowed_regimes: null });
  });

  it('refuses IRL restrictions it has no per-agent equivalent for, rather than dropping them', async () => {
    const res = await irl('POST', '/irl/agents', { name: 'x', model_hash_hex: MODEL_HASH, allowed_venues: ['BINANCE'] });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      error: 'VALIDATION_FAILED',
      errors: [{ field: 'allowed_venues', message: 'is not a known field' }],
    });
    expect(res.body.message).toBe(res.body.detail);
  });

  it("keeps tradeseal's access rule: a client token may not register agents", async () => {
    const res = await irl('POST', '/irl/agents', { name: 'x', model_hash_hex: MODEL_HASH }, clientToken);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'forbidden', error: 'FORBIDDEN' });
  });
});

describe('IRL authorize, bind and trace', () => {
  it("authorizes an IRL order, approving the model by its hash and sealing tradeseal's canonical values", async () => {
    const agentId = await irlAgent();
    // The wrk script's model id: only the hash is approved for it, under "default".
    const hb = h.heartbeat(1, { mta_ref: null });
    const order = irlOrder(agentId, {
      model_id: 'gpt-4o-bench',
      action: { Long: 0.37 },
      order_type: 'market',
      // The IRL TypeScript client's form: the 64 signature bytes as a JSON array (here those of `ed25519:<base64>`).
      heartbeat: { ...hb, mta_ref: '', signature: [...Buffer.from((hb.signature as string).replace(/^ed25519:/, ''), 'base64')] },
    });
    const auth = await irl('POST', '/irl/authorize', order, clientToken);
    expect(auth.status, auth.raw).toBe(200);
    expect(auth.body).toMatchObject({ authorized: true, shadow_blocked: false, reasoning_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const trace = await irl('GET', `/irl/trace/${auth.body.trace_id}`, undefined, clientToken);
    expect(trace.status, trace.raw).toBe(200);
    const engine = (await h.call('GET', `/engine/trace/${auth.body.trace_id}`, undefined, clientToken)).json();
    const { reasoning_hash: hash, trace: inner, ...document } = trace.body;
    expect(document).toEqual(engine);
    expect(inner).toEqual(engine);
    expect(hash).toBe(engine.integrity.reasoning_hash);
    expect(engine.agent.latent_fingerprint).toBe(latentFingerprint('default', 'v1.0', 'default', '0'.repeat(64)));
    expect(engine.execution).toMatchObject({ action: 'Long', order_type: 'Market', quantity: 2 });

    const bind = await irl(
      'POST',
      '/irl/bind-execution',
      {
        trace_id: auth.body.trace_id,
        exchange_tx_id: 'EX-12345',
        execution_status: 'Filled',
        execution_price: 190,
        executed_quantity: 2,
        execution_time: h.clock.now + 420,
        executed_side: 'long',
        asset: 'AAPL',
      },
      clientToken,
    );
    expect(bind.status, bind.raw).toBe(200);
    expect(bind.body, bind.raw).toMatchObject({
      verification_status: 'MATCHED',
      execution_status: 'FILLED',
      execution_time: new Date(h.clock.now + 420).toISOString(),
    });
    expect((await h.call('GET', `/engine/trace/${auth.body.trace_id}`)).json().integrity).toMatchObject({
      verification_status: 'Matched',
      execution_status: 'Filled',
    });
  });

  it("approves a busy agent's model by its hash from what it read before: an /irl order costs the statements an /engine order does", async () => {
    const agentId = await irlAgent();
    const tok = await h.call('POST', '/engine/admin/tokens', { client_name: 'busy', agent_ids: [agentId] });
    const token = tok.json().token as string;
    // The first order of the agent reads the registry and the hash's approval.
    const first = await irl('POST', '/irl/authorize', irlOrder(agentId, { model_id: 'gpt-4o-bench' }), token);
    expect(first.status, first.raw).toBe(200);
    // The engine's periodic reads (its state's shadow mode, the tokens' revocation mark: every
    // ENGINE_STATE_REFRESH_MS) may fall within either order's window on a busy machine: they are not the order's.
    const PERIODIC = [/from engine_shadow_mode where singleton/, /count\(revoked_at\)/];
    const statementsOf = async (send: () => Promise<number>): Promise<string[]> => {
      h.queries.length = 0;
      expect(await send()).toBe(200);
      return h.queries.filter((q) => !PERIODIC.some((p) => p.test(q)));
    };
    const viaIrl = await statementsOf(async () => (await irl('POST', '/irl/authorize', irlOrder(agentId, { model_id: 'gpt-4o-bench' }), token)).status);
    const viaEngine = await statementsOf(async () => (await h.call('POST', '/engine/authorize', h.order(agentId, { model_id: 'default' }), token)).statusCode);
    expect(
      viaIrl.filter((q) => /select model_id from agent_models/.test(q)),
      'reads of the approval by hash',
    ).toEqual([]);
    expect(viaIrl).toEqual(viaEngine);
    expect(viaIrl.length).toBeGreaterThan(0);
  });

  it('says DIVERGENT for the opposite side, as the IRL Engine does', async () => {
    const agentId = await irlAgent();
    const auth = await irl('POST', '/irl/authorize', irlOrder(agentId), clientToken);
    const bind = await irl(
      'POST',
      '/irl/bind-execution',
      { trace_id: auth.body.trace_id, exchange_tx_id: 'EX-2', execution_status: 'Filled', executed_side: 'SHORT' },
      clientToken,
    );
    expect(bind.body).toMatchObject({ verification_status: 'DIVERGENT', divergence_reason: expect.any(String) });
  });

  it('refuses order types and actions without an equivalent, naming what is supported', async () => {
    const agentId = await irlAgent();
    const ioc = await irl('POST', '/irl/authorize', irlOrder(agentId, { order_type: 'IOC' }), clientToken);
    expect(ioc.status).toBe(422);
    expect(ioc.body).toMatchObject({
      error: 'VALIDATION_FAILED',
      message: 'order_type "IOC" has no equivalent in tradeseal; supported: MARKET, LIMIT, STOP, STOP_LIMIT, TWAP, VWAP',
      errors: [{ field: 'order_type', message: '"IOC" has no equivalent in tradeseal; supported: MARKET, LIMIT, STOP, STOP_LIMIT, TWAP, VWAP' }],
    });
    const custom = await irl('POST', '/irl/authorize', irlOrder(agentId, { order_type: { CUSTOM: 'peg' } }), clientToken);
    expect(custom.body.errors).toEqual([{ field: 'order_type', message: expect.stringContaining('a custom order type has no equivalent') }]);
    const action = await irl('POST', '/irl/authorize', irlOrder(agentId, { action: { Custom: 'Buy' } }), clientToken);
    expect(action.status).toBe(422);
    expect(action.body.errors).toEqual([{ field: 'action', message: expect.stringContaining('custom actions are not supported') }]);
  });

  it('answers refusals with the IRL code: unknown agent, unapproved model, unknown trace', async () => {
    const unknown = await irl('POST', '/irl/authorize', irlOrder(randomUUID()), clientToken);
    expect(unknown.status).toBe(403);
    expect(unknown.body).toMatchObject({ code: 'agent_not_active', error: 'AGENT_NOT_FOUND' });
    const agentId = await irlAgent();
    const model = await irl('POST', '/irl/authorize', irlOrder(agentId, { model_hash_hex: 'b'.repeat(64) }), clientToken);
    expect(model.body).toMatchObject({ code: 'model_not_registered', error: 'MODEL_HASH_MISMATCH', message: model.body.detail });
    const trace = await irl('GET', `/irl/trace/${randomUUID()}`, undefined, clientToken);
    expect(trace.status).toBe(404);
    expect(trace.body).toMatchObject({ code: 'not_found', error: 'TRACE_NOT_FOUND' });
    const agent = await irl('GET', `/irl/agents/${randomUUID()}`);
    expect(agent.body).toMatchObject({ code: 'not_found', error: 'AGENT_NOT_FOUND' });
    const noToken = await irl('GET', '/irl/pending?age_seconds=0', undefined, null);
    expect(noToken.status).toBe(401);
    expect(noToken.body).toMatchObject({ code: 'unauthorized', error: 'UNAUTHORIZED' });
    const nowhere = await irl('GET', '/irl/nowhere');
    expect(nowhere.status).toBe(404);
    expect(nowhere.body).toMatchObject({ code: 'not_found', error: 'NOT_FOUND', message: 'no route GET /irl/nowhere' });
  });
});

describe('IRL listings and health', () => {
  it('lists pending traces of any age without age_seconds, with policy_result and IRL statuses', async () => {
    const agentId = await irlAgent();
    const auth = await irl('POST', '/irl/authorize', irlOrder(agentId), clientToken);
    h.clock.now += 1;
    const pending = await irl('GET', '/irl/pending', undefined, clientToken);
    expect(pending.status, pending.raw).toBe(200);
    expect(pending.body.traces.find((t: { trace_id: string }) => t.trace_id === auth.body.trace_id)).toMatchObject({
      verification_status: 'PENDING',
      policy_result: 'ALLOWED',
      status: 'PENDING',
    });
    const listed = await irl('GET', `/irl/traces?agent_id=${agentId}&status=PENDING&limit=100`, undefined, clientToken);
    expect(listed.body).toMatchObject({ count: 1, traces: [{ trace_id: auth.body.trace_id, policy_result: 'ALLOWED' }] });
  });

  it('serves health as /engine/health does', async () => {
    const res = await irl('GET', '/irl/health', undefined, null);
    expect(res.status).toBe(200);
    expect(res.raw).toBe((await h.app.inject({ url: '/engine/health' })).body);
  });
});

describe('IRL admin', () => {
  it('turns shadow mode on without a reason, recording the fixed one and the actor, in IRL fields', async () => {
    const on = await irl('POST', '/irl/admin/shadow-mode', { enabled: true });
    expect(on.status, on.raw).toBe(200);
    expect(on.body).toMatchObject({
      enabled: true,
      shadow_mode: true,
      reason: 'enabled through the IRL-compatible API',
      changed_by: expect.stringMatching(/^token:/),
    });
    const state = await irl('GET', '/irl/admin/shadow-mode');
    expect(state.body).toMatchObject({ shadow_mode: true, updated_at: state.body.changed_at, updated_by: on.body.changed_by });
    const off = await irl('POST', '/irl/admin/shadow-mode', { enabled: false });
    expect(off.body).toMatchObject({ shadow_mode: false });
  });

  it('pages the audit log with IRL action names, a clamped limit, next_cursor and cursor', async () => {
    await irlAgent();
    await irlAgent();
    const first = await irl('GET', '/irl/admin/audit-log?action=AGENT_REGISTER&limit=0');
    expect(first.status, first.raw).toBe(200);
    expect(first.body).toMatchObject({ count: 1, has_more: true, entries: [{ action: 'agent.register' }] });
    expect(first.body.next_cursor).toBe(first.body.next_before_id);
    const second = await irl('GET', `/irl/admin/audit-log?action=AGENT_REGISTER&limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.entries[0].id).not.toBe(first.body.entries[0].id);
    const huge = await irl('GET', '/irl/admin/audit-log?limit=100000');
    expect(huge.status, huge.raw).toBe(200);
    const both = await irl('GET', '/irl/admin/audit-log?action=SHADOW_MODE_CHANGE');
    expect(both.status).toBe(422);
    expect(both.body.errors).toEqual([{ field: 'action', message: expect.stringContaining('shadow.enable or shadow.disable') }]);
  });

  it('erases with traces_erased, status and the audit entry as gdpr_request_id; revokes with status', async () => {
    const agentId = await irlAgent();
    await irl('POST', '/irl/authorize', irlOrder(agentId), clientToken);
    const erased = await irl('POST', `/irl/admin/gdpr-erase/${agentId}`, {});
    expect(erased.status, erased.raw).toBe(200);
    const entry = (await h.call('GET', `/engine/admin/audit-log?action=gdpr.erase&target_id=${agentId}`)).json().entries[0];
    expect(erased.body).toMatchObject({ agent_id: agentId, traces_affected: 1, traces_erased: 1, status: 'erased', gdpr_request_id: entry.id });

    const tok = await irl('POST', '/irl/admin/tokens', { client_name: 'desk-b' });
    const revoked = await irl('DELETE', `/irl/admin/tokens/${tok.body.token_id}`);
    expect(revoked.status, revoked.raw).toBe(200);
    expect(revoked.body).toMatchObject({ token_id: tok.body.token_id, status: 'revoked', revoked_at: expect.any(String) });
  });
});
