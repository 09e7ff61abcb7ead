/**
 * Every method of one IRL client SDK against a running tradeseal (Layer 2 off), each request sent exactly as
 * the SDK's fixture puts it on the wire: the status must be 2xx (the SDKs treat anything else as an error)
 * and every field the SDK reads must be there with the type it needs; where the IRL-compatible API promises
 * a value (IRL's spelling of a status, a default reason, a cursor), the value is checked too, and where a
 * request is translated, the sealed trace is read back through `/engine` to show what was recorded.
 *
 * One server per test file; the tests of a file share it, each setting up through `/engine` what it needs,
 * so one method's failure does not hide another's.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latentFingerprint } from '../../src/engine/trace/seal.js';
import type { SdkFixture, Session } from './fixtures/sdk.js';
import { missingReads, type Call } from './fixtures/wire.js';
import { irlServer, type Answer, type IrlServer } from './server.js';

export const MODEL_HASH = '9f2c'.repeat(16);

/** One refused request and what the SDK must read from it: IRL's `error` code and a `message`. */
export interface Refusal {
  title: string;
  make(t: SuiteContext): Promise<{ call: Call; status: number; error: string; message?: RegExp }>;
}

export interface SuiteContext {
  server: IrlServer;
  sdk: SdkFixture;
  owner: Session;
  client: Session;
}

/** The answer has the status the SDK accepts and every field it reads; the failure message names what is not. */
export function expectRead(call: Call, answer: Answer, status?: number): void {
  const where = `${call.request.method} ${call.request.path} → ${answer.status} ${answer.text.slice(0, 400)}`;
  if (status === undefined) expect(answer.status >= 200 && answer.status < 300, where).toBe(true);
  else expect(answer.status, where).toBe(status);
  if (call.body === 'json') {
    expect(answer.json, `${where}: not JSON`).toBeTypeOf('object');
    expect(missingReads(answer.json, call.reads), where).toEqual([]);
  }
}

export function describeSdk(sdk: SdkFixture, refusal: Refusal): void {
  const t = {} as SuiteContext;
  let s: IrlServer;

  beforeAll(async () => {
    s = await irlServer();
    const { agentId, token } = await s.agent(MODEL_HASH);
    Object.assign(t, {
      server: s,
      sdk,
      owner: { token: s.ownerToken, agentId, modelHashHex: MODEL_HASH },
      client: { token, agentId, modelHashHex: MODEL_HASH },
    });
  });
  afterAll(async () => s?.close());

  /** An order through `/engine` (canonical form), for the tests that need a trace to exist. */
  async function engineOrder(agentId: string, token: string, quantity = 0.5): Promise<string> {
    const res = await s.engine(
      'POST',
      '/engine/authorize',
      {
        agent_id: agentId,
        model_hash_hex: MODEL_HASH,
        model_id: 'default',
        prompt_version: 'v1.0',
        feature_schema_id: 'default',
        hyperparameter_checksum: '0'.repeat(64),
        action: 'Long',
        asset: 'BTC-PERP',
        order_type: 'Market',
        venue_id: 'BINANCE',
        quantity,
        notional: quantity * 60_000,
        client_order_id: randomUUID(),
        agent_valid_time: Date.now(),
      },
      token,
    );
    if (res.status !== 200) throw new Error(`engine authorize failed: ${res.text}`);
    return res.json.trace_id as string;
  }

  const order = (o: Partial<Parameters<SdkFixture['authorize']>[1]> = {}) => ({
    side: 'Long' as const,
    quantity: 0.5,
    asset: 'BTC-PERP',
    notional: 30_000,
    venueId: 'BINANCE',
    clientOrderId: `irl-${randomUUID().replace(/-/g, '')}`,
    validTimeMs: Date.now(),
    ...o,
  });

  describe(`${sdk.name}: ${sdk.source}`, () => {
    it('health: answered, with the fields the SDK reads', async () => {
      const call = sdk.health(t.client);
      const res = await s.send(call);
      expectRead(call, res, 200);
      // The /irl health answer is the engine's, unchanged (the same fields; `regime.age_ms` moves with the clock).
      const engine = (await s.engine('GET', '/engine/health')).json;
      expect(Object.keys(res.json).sort()).toEqual(Object.keys(engine).sort());
      expect({ ...res.json, regime: null }).toEqual({ ...engine, regime: null });
    });

    it('authorize: a MARKET order with {"Long": q} is authorized, and the trace seals the canonical values', async () => {
      const o = order();
      const call = sdk.authorize(t.client, o);
      const res = await s.send(call);
      expectRead(call, res, 200);
      expect(res.json).toMatchObject({ authorized: true, shadow_blocked: false });
      const doc = (await s.engine('GET', `/engine/trace/${res.json.trace_id}`)).json;
      expect(doc.execution).toMatchObject({
        action: 'Long',
        order_type: 'Market',
        quantity: o.quantity,
        asset: o.asset,
        venue_id: o.venueId,
        client_order_id: o.clientOrderId,
      });
      expect(doc.integrity.reasoning_hash).toBe(res.json.reasoning_hash);
      // The agent's one model is `default`: an SDK sending another model_id with the approved hash is sealed under `default`.
      const sent = JSON.parse(call.request.body!);
      expect(sent.model_id).toBe(sdk.modelId);
      expect(doc.agent.latent_fingerprint).toBe(latentFingerprint('default', sent.prompt_version, sent.feature_schema_id, sent.hyperparameter_checksum));
    });

    it(`bind: the fill time sent as ${sdk.bindTimeKey} is sealed, and the statuses are in IRL's spelling`, async () => {
      const traceId = await engineOrder(t.client.agentId, t.client.token);
      const executionTimeMs = Date.now();
      const call = sdk.bind(t.client, {
        traceId,
        exchangeOrderId: `EX-${randomUUID().slice(0, 8)}`,
        executionPrice: 60_000,
        executedQuantity: 0.5,
        executionTimeMs,
        executedSide: 'Long',
        asset: 'BTC-PERP',
      });
      expect(JSON.parse(call.request.body!)[sdk.bindTimeKey]).toBe(executionTimeMs);
      const res = await s.send(call);
      expectRead(call, res, 200);
      expect(res.json, res.text).toMatchObject({ trace_id: traceId, verification_status: 'MATCHED', execution_status: 'FILLED' });
      const doc = (await s.engine('GET', `/engine/trace/${traceId}`)).json;
      expect(doc.integrity.execution_time).toBe(new Date(executionTimeMs).toISOString());
      expect(doc.integrity.final_proof).toBe(res.json.final_proof);
    });

    it('authorize → bind → getTrace through the SDK alone', async () => {
      const auth = await s.send(sdk.authorize(t.client, order({ side: 'Short', quantity: 0.25, notional: 15_000 })));
      expect(auth.status, auth.text).toBe(200);
      const bind = sdk.bind(t.client, {
        traceId: auth.json.trace_id,
        exchangeOrderId: 'EX-12345',
        executionPrice: 60_000,
        executedQuantity: 0.25,
        executionTimeMs: Date.now(),
        executedSide: 'Short',
        asset: 'BTC-PERP',
      });
      const bound = await s.send(bind);
      expectRead(bind, bound, 200);
      expect(bound.json.verification_status).toBe('MATCHED');
      const get = sdk.getTrace(t.client, auth.json.trace_id);
      const trace = await s.send(get);
      expectRead(get, trace, 200);
      expect(trace.json.trace_id).toBe(auth.json.trace_id);
    });

    it('getTrace: the document, plus top-level reasoning_hash and trace; without those two keys it is the /engine document', async () => {
      const traceId = await engineOrder(t.client.agentId, t.client.token);
      const call = sdk.getTrace(t.client, traceId);
      const res = await s.send(call);
      expectRead(call, res, 200);
      const doc = (await s.engine('GET', `/engine/trace/${traceId}`)).json;
      const { reasoning_hash: reasoningHash, trace, ...rest } = res.json;
      expect(rest).toEqual(doc);
      expect(reasoningHash).toBe(doc.integrity.reasoning_hash);
      expect(trace).toEqual(doc);
    });

    it('getPending, getOrphans, getShadowViolations: count and traces', async () => {
      const traceId = await engineOrder(t.client.agentId, t.client.token);
      for (const call of [sdk.getPending(t.client, 0), sdk.getOrphans(t.client), sdk.getShadowViolations(t.client)]) {
        const res = await s.send(call);
        expectRead(call, res, 200);
        expect(res.json.count).toBe(res.json.traces.length);
      }
      // age_seconds=0 is IRL's "every pending trace": the order just made is among them.
      const pending = await s.send(sdk.getPending(t.client, 0));
      expect(JSON.stringify(pending.json.traces)).toContain(traceId);
    });

    it('listTraces: filtered by agent, status MATCHED and limit', async () => {
      const traceId = await engineOrder(t.client.agentId, t.client.token);
      expect(
        (
          await s.engine(
            'POST',
            '/engine/bind-execution',
            { trace_id: traceId, exchange_tx_id: `EX-${traceId.slice(0, 8)}`, execution_status: 'Filled' },
            t.client.token,
          )
        ).status,
      ).toBe(200);
      const call = sdk.listTraces(t.client, {
        agentId: t.client.agentId,
        from: Date.now() - 3_600_000,
        to: Date.now() + 3_600_000,
        status: 'MATCHED',
        limit: 100,
      });
      const res = await s.send(call);
      expectRead(call, res, 200);
      expect(res.json.count).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(res.json.traces)).toContain(traceId);
    });

    it('registerAgent: an IRL-shaped body registers an agent whose model is `default`, regimes as integers', async () => {
      const call = sdk.registerAgent(t.owner, {
        name: `irl-${randomUUID().slice(0, 8)}`,
        modelHashHex: MODEL_HASH,
        maxNotional: 500_000,
        allowedRegimes: [0, 1, 2, 3],
      });
      const res = await s.send(call);
      expectRead(call, res, 201);
      const id = res.json.agent_id ?? res.json.id;
      expect(res.json).toMatchObject({ model_hash_hex: MODEL_HASH, status: 'Active' });
      const agent = (await s.engine('GET', `/engine/admin/agents/${id}`)).json;
      expect(agent.models).toMatchObject([{ model_id: 'default', model_hash_hex: MODEL_HASH }]);
      expect(agent.max_notional).toBe(500_000);
    });

    it('listAgents and getAgent: the fields the SDK parses', async () => {
      const list = sdk.listAgents(t.owner);
      const all = await s.send(list);
      expectRead(list, all, 200);
      expect(all.json.agents.map((a: { agent_id: string }) => a.agent_id)).toContain(t.owner.agentId);
      const get = sdk.getAgent(t.owner, t.owner.agentId);
      const one = await s.send(get);
      expectRead(get, one, 200);
      expect(one.json).toMatchObject({ agent_id: t.owner.agentId, model_hash_hex: MODEL_HASH, status: 'Active' });
    });

    it('suspendAgent and activateAgent: the status changes', async () => {
      const { agentId } = await s.agent(MODEL_HASH);
      const suspend = await s.send(sdk.suspendAgent(t.owner, agentId));
      expect(suspend.status, suspend.text).toBe(200);
      expect((await s.engine('GET', `/engine/admin/agents/${agentId}`)).json.status).toBe('Suspended');
      const activate = await s.send(sdk.activateAgent(t.owner, agentId));
      expect(activate.status, activate.text).toBe(200);
      expect((await s.engine('GET', `/engine/admin/agents/${agentId}`)).json.status).toBe('Active');
    });

    it('getShadowMode and setShadowMode: enabling without a reason records the default reason', async () => {
      const get = sdk.getShadowMode(t.owner);
      const before = await s.send(get);
      expectRead(get, before, 200);
      expect(before.json.shadow_mode).toBe(false);

      const enable = sdk.setShadowMode(t.owner, true);
      expect(JSON.parse(enable.request.body!)).toEqual({ enabled: true });
      const on = await s.send(enable);
      expectRead(enable, on, 200);
      expect(on.json.shadow_mode).toBe(true);
      const state = (await s.engine('GET', '/engine/admin/shadow-mode')).json;
      expect(state).toMatchObject({ enabled: true, reason: 'enabled through the IRL-compatible API' });
      const after = await s.send(get);
      expectRead(get, after, 200);
      expect(after.json).toMatchObject({ shadow_mode: true, updated_at: state.changed_at, updated_by: state.changed_by });

      const disable = sdk.setShadowMode(t.owner, false);
      const off = await s.send(disable);
      expectRead(disable, off, 200);
      expect(off.json.shadow_mode).toBe(false);
    });

    it('getAuditLog: IRL action names filter, and next_cursor pages', async () => {
      // ISO 8601 bounds as the TS and Python SDKs pass them (the Go SDK has no from/to and drops them).
      const byAction = sdk.getAuditLog(t.owner, {
        action: 'AGENT_REGISTER',
        targetId: t.owner.agentId,
        from: '2020-01-01T00:00:00Z',
        to: '2100-01-01T00:00:00Z',
      });
      const filtered = await s.send(byAction);
      expectRead(byAction, filtered, 200);
      expect(filtered.json.count).toBe(1);
      expect(filtered.json.entries[0].target_id).toBe(t.owner.agentId);

      const first = sdk.getAuditLog(t.owner, { limit: 1 });
      const page1 = await s.send(first);
      expectRead(first, page1, 200);
      const engine = (await s.engine('GET', '/engine/admin/audit-log?limit=1')).json;
      expect(page1.json.next_cursor).toBeTypeOf('string');
      expect(page1.json.next_cursor).toBe(engine.next_before_id);
      const second = sdk.getAuditLog(t.owner, { limit: 1, beforeId: page1.json.next_cursor });
      const page2 = await s.send(second);
      expectRead(second, page2, 200);
      expect(page2.json.entries).toHaveLength(1);
      expect(page2.json.entries[0].id).not.toBe(page1.json.entries[0].id);
    });

    it('gdprErase: traces_erased, status "erased" and the audit entry id as gdpr_request_id', async () => {
      const { agentId, token } = await s.agent(MODEL_HASH);
      await engineOrder(agentId, token);
      const call = sdk.gdprErase(t.owner, agentId);
      const res = await s.send(call);
      expectRead(call, res, 200);
      expect(res.json).toMatchObject({ agent_id: agentId, traces_erased: 1, status: 'erased' });
      const audit = (await s.engine('GET', `/engine/admin/audit-log?action=gdpr.erase&target_id=${agentId}`)).json;
      expect(audit.entries.map((e: { id: string }) => e.id)).toEqual([res.json.gdpr_request_id]);
    });

    it('issueToken and revokeToken: the token works, then is revoked with status "revoked"', async () => {
      const issue = sdk.issueToken(t.owner, `desk-${randomUUID().slice(0, 8)}`);
      const issued = await s.send(issue);
      expectRead(issue, issued, 200);
      const holder: Session = { ...t.client, token: issued.json.token };
      expect((await s.send(sdk.getPending(holder, 0))).status).toBe(200);
      const revoke = sdk.revokeToken(t.owner, issued.json.token_id);
      const revoked = await s.send(revoke);
      expectRead(revoke, revoked, 200);
      expect(revoked.json).toMatchObject({ token_id: issued.json.token_id, status: 'revoked' });
      expect((await s.send(sdk.getPending(holder, 0))).status).toBe(401);
    });

    it(`a refusal reads as the SDK reads it: ${refusal.title}`, async () => {
      const { call, status, error, message } = await refusal.make(t);
      const res = await s.send(call);
      expect(res.status, res.text).toBe(status);
      // TS: `IRLError(body.error ?? "UNKNOWN", body.message ?? statusText)`; Python: `err.get("error")`,
      // `err.get("message")`; Go: `APIError{ErrorCode ← error, Message ← message}`.
      expect(res.json, res.text).toMatchObject({ error, message: expect.any(String) });
      expect(res.json.message).toBe(res.json.detail);
      expect(res.json.code).toBeTypeOf('string');
      if (message) expect(res.json.message).toMatch(message);
    });
  });
}
