/**
 * A client generated from the API document drives the engine over real HTTP: the types openapi-typescript
 * generates from `/openapi.json` (test/helpers/openapi-types.ts, kept up to date by test/http/openapi.test.ts)
 * type an openapi-fetch client, and `npm run typecheck` checks this file against them, so a route whose
 * documented request or response differs from what a client sends and reads fails here. Every response the
 * client receives is also checked against the document (test/helpers/openapi-responses.ts).
 *
 * The round trip: an owner token (bootstrap), an agent, a client token bound to it, a regime broadcast, an
 * authorized order, its execution bound, the trace read back and verified, and its reasoning_hash recomputed
 * here from the document received (node:crypto and the `canonicalize` JCS package).
 */
import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { bootstrapOwnerToken } from '../../src/engine/store/tokens.js';
import type { paths } from '../helpers/openapi-types.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { testStore, type TestStore } from '../helpers/db.js';
import type { OpenApiDocument } from '../helpers/openapi.js';
import { ResponseChecker } from '../helpers/openapi-responses.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const MODEL_HASH = sha256('model weights');

let store: TestStore;
let server: RunningServer;
let checked = 0;

/** A typed client of the running server; every response it receives is checked against the served document. */
function client(checker: ResponseChecker | null, token?: string): Client<paths> {
  const c = createClient<paths>({ baseUrl: server.url, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });
  if (checker) {
    const check: Middleware = {
      async onResponse({ request, response }) {
        const url = new URL(request.url);
        checker.check({
          method: request.method,
          url: url.pathname + url.search,
          statusCode: response.status,
          headers: Object.fromEntries(response.headers),
          body: await response.clone().text(),
        });
        checked++;
      },
    };
    c.use(check);
  }
  return c;
}

beforeAll(async () => {
  store = await testStore({ migrated: false });
  server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0, host: '127.0.0.1' }));
});

afterAll(async () => {
  await server?.close();
  await store?.close();
});

describe('a client generated from the API document', () => {
  it('bootstraps an owner, registers an agent, authorizes, binds, reads and verifies the trace, all through the typed client', async () => {
    const { data: doc } = await client(null).GET('/openapi.json');
    if (!doc) throw new Error('no document');
    const checker = new ResponseChecker(doc as unknown as OpenApiDocument);

    // The first owner token, as `tradeseal engine tokens bootstrap` issues it.
    const issued = await bootstrapOwnerToken(server.store.sql);
    if (!issued) throw new Error('bootstrap issued no owner token');
    const owner = client(checker, issued.token);

    const registered = await owner.POST('/engine/admin/agents', {
      body: { name: 'round-trip agent', max_notional: 250_000, models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }] },
    });
    expect(registered.response.status).toBe(201);
    if (!registered.data) throw new Error(JSON.stringify(registered.error));
    const agentId = registered.data.agent_id;
    expect(registered.data.status).toBe('Active');

    const token = await owner.POST('/engine/admin/tokens', { body: { client_name: 'round-trip executor', agent_ids: [agentId] } });
    if (!token.data) throw new Error(JSON.stringify(token.error));
    expect(token.data.role).toBe('client');
    expect(token.data.agent_ids).toEqual([agentId]);
    const agent = client(checker, token.data.token);

    const regime = await owner.POST('/engine/admin/regime', { body: { regime: 'expansion', risk_score: 0.2, reason: 'round trip' } });
    expect(regime.response.status).toBe(201);
    if (!regime.data) throw new Error(JSON.stringify(regime.error));
    const current = await agent.GET('/engine/regime');
    expect(current.data?.hash).toBe(regime.data.hash);
    expect(current.data?.freshness.stale).toBe(false);

    const order = {
      agent_id: agentId,
      model_hash_hex: MODEL_HASH,
      model_id: 'alpha-7',
      prompt_version: 'p-3',
      feature_schema_id: 'fs-1',
      hyperparameter_checksum: 'h-9',
      action: 'Long' as const,
      asset: 'AAPL',
      order_type: 'Limit' as const,
      venue_id: 'XNAS',
      quantity: 100,
      limit_price: 190,
      notional: 19_000,
      client_order_id: randomUUID(),
      agent_valid_time: Date.now(),
    };
    const authorized = await agent.POST('/engine/authorize', { body: order });
    if (!authorized.data) throw new Error(JSON.stringify(authorized.error));
    expect(authorized.data).toMatchObject({ authorized: true, shadow_blocked: false });
    const traceId = authorized.data.trace_id;

    const bound = await agent.POST('/engine/bind-execution', {
      body: {
        trace_id: traceId,
        exchange_tx_id: 'XNAS-RT-1',
        execution_status: 'Filled',
        executed_quantity: 100,
        executed_side: 'Long',
        execution_price: 189.97,
      },
    });
    if (!bound.data) throw new Error(JSON.stringify(bound.error));
    expect(bound.data.verification_status).toBe('Matched');
    expect(bound.data.final_proof).toBe(sha256(`${authorized.data.reasoning_hash}||XNAS-RT-1`));

    // An error answer is typed too: the documented error body of a 409.
    const again = await agent.POST('/engine/bind-execution', { body: { trace_id: traceId, exchange_tx_id: 'XNAS-RT-2', execution_status: 'Filled' } });
    expect(again.response.status).toBe(409);
    expect(again.error?.code).toBe('trace_already_bound');

    const trace = await agent.GET('/engine/trace/{trace_id}', { params: { path: { trace_id: traceId } } });
    if (!trace.data) throw new Error(JSON.stringify(trace.error));
    expect(trace.data.integrity.status).toBe('MATCHED');
    expect(trace.data.integrity).toMatchObject({ verification_status: 'Matched', final_proof: bound.data.final_proof, exchange_tx_id: 'XNAS-RT-1' });
    // The document the client received is whole: its sealed form hashes to the reasoning_hash of authorize.
    const { status: _status, integrity: _integrity, regulatory: _regulatory, ...sealedBlocks } = trace.data;
    expect(sha256(canonicalize({ ...sealedBlocks, regulatory: null }) ?? '')).toBe(authorized.data.reasoning_hash);

    const verified = await agent.GET('/engine/trace/{trace_id}/verify', { params: { path: { trace_id: traceId } } });
    if (!verified.data) throw new Error(JSON.stringify(verified.error));
    expect(verified.data.valid).toBe(true);
    expect(verified.data.final_proof).toEqual({ stored: bound.data.final_proof, recomputed: bound.data.final_proof, ok: true });

    const listed = await agent.GET('/engine/traces', { params: { query: { agent_id: agentId } } });
    expect(listed.data?.traces.map((t) => t.trace_id)).toEqual([traceId]);
    expect(checked).toBe(10);
  });
});
