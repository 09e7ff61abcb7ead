/**
 * The IRL edge leaves `/engine` alone: the same requests to the app with the edge and to the app without it
 * (same store, same engine context) are answered with the same status, content type and bytes.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { engineHarness, type EngineHarness } from '../../helpers/engine.js';
import { kmsConfig, masterKeyFile } from '../../helpers/kms.js';

let h: EngineHarness;
let plain: FastifyInstance;

beforeAll(async () => {
  h = await engineHarness({ config: kmsConfig(masterKeyFile()) });
  plain = await buildApp(h.config, { sql: h.store.sql, logger: false, engine: h.ctx, irl: false });
  await plain.ready();
});
afterAll(async () => {
  await plain?.close();
  await h?.close();
});

type Req = { method: string; url: string; body?: unknown; token?: string | null };

async function answer(app: FastifyInstance, r: Req) {
  const token = r.token === undefined ? h.ownerToken : r.token;
  const res = await app.inject({
    method: r.method as 'GET',
    url: r.url,
    ...(r.body === undefined ? {} : { payload: r.body as object }),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.statusCode, type: res.headers['content-type'], length: res.headers['content-length'], body: res.body };
}

/** Each request to the app with the edge, then the same to the app without: the answers are the same bytes. */
async function expectSameAnswers(requests: Req[]) {
  for (const r of requests) {
    const withEdge = await answer(h.app, r);
    const without = await answer(plain, r);
    expect(withEdge, `${r.method} ${r.url}`).toEqual(without);
  }
}

describe('/engine with and without the IRL edge', () => {
  it('answers reads, refusals and replays with the same bytes', async () => {
    await h.publishRegime('expansion');
    const { agent_id: agentId, token } = await h.registerAgent({ allowed_regimes: ['expansion'] });
    const order = h.order(agentId);
    const auth = await h.call('POST', '/engine/authorize', order, token);
    expect(auth.statusCode, auth.body).toBe(200);
    const traceId = auth.json().trace_id as string;
    h.clock.now += 1;
    await h.call('POST', '/engine/admin/shadow-mode', { enabled: false });

    await expectSameAnswers([
      // The replay of an authorized order, and the IRL spellings, which /engine refuses as before.
      { method: 'POST', url: '/engine/authorize', body: order, token },
      { method: 'POST', url: '/engine/authorize', body: { ...order, client_order_id: randomUUID(), order_type: 'MARKET', action: { Long: 1 } }, token },
      { method: 'POST', url: '/engine/authorize', body: { ...order, client_order_id: randomUUID(), model_id: 'other' }, token },
      { method: 'POST', url: '/engine/authorize', body: { ...order, client_order_id: randomUUID(), agent_id: randomUUID() }, token },
      { method: 'POST', url: '/engine/bind-execution', body: { trace_id: traceId, exchange_tx_id: 'X', execution_status: 'Filled', execution_time: 1 }, token },
      { method: 'POST', url: '/engine/bind-execution', body: { trace_id: randomUUID(), exchange_tx_id: 'X', execution_status: 'Filled' }, token },
      { method: 'GET', url: `/engine/trace/${traceId}`, token },
      { method: 'GET', url: `/engine/trace/${randomUUID()}`, token },
      { method: 'GET', url: '/engine/pending', token },
      { method: 'GET', url: '/engine/pending?age_seconds=0', token },
      { method: 'GET', url: `/engine/traces?agent_id=${agentId}`, token },
      { method: 'GET', url: '/engine/orphans', token },
      { method: 'GET', url: '/engine/shadow-violations', token },
      { method: 'GET', url: '/engine/health', token: null },
      { method: 'GET', url: '/engine/admin/agents' },
      { method: 'GET', url: `/engine/admin/agents/${agentId}` },
      { method: 'POST', url: '/engine/admin/agents', body: { name: 'x', model_hash_hex: 'a'.repeat(64) } },
      { method: 'GET', url: '/engine/admin/shadow-mode' },
      { method: 'POST', url: '/engine/admin/shadow-mode', body: { enabled: true } },
      { method: 'GET', url: '/engine/admin/audit-log' },
      { method: 'GET', url: '/engine/admin/audit-log?action=AGENT_REGISTER' },
      { method: 'GET', url: '/engine/admin/audit-log?limit=0' },
      { method: 'GET', url: '/engine/admin/tokens' },
      { method: 'DELETE', url: `/engine/admin/tokens/${randomUUID()}` },
      { method: 'POST', url: `/engine/admin/gdpr-erase/${randomUUID()}`, body: {} },
      { method: 'GET', url: '/engine/pending', token: null },
      { method: 'GET', url: '/engine/nowhere' },
    ]);
  });

  it('answers the same bytes for the same writes', async () => {
    const { agent_id: agentId } = await h.registerAgent();
    // Idempotent writes: the second answer is the state the first left.
    await expectSameAnswers([
      { method: 'PATCH', url: `/engine/admin/agents/${agentId}/status`, body: { status: 'Suspended', reason: 'review' } },
      { method: 'POST', url: `/engine/admin/gdpr-erase/${agentId}`, body: {} },
    ]);
  });
});
