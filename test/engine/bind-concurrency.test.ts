/**
 * Concurrent binds of one trace, through the real app and a 50-connection pool: the row lock lets exactly
 * one bind win; every other answers 409 `trace_already_bound`, and the stored proof is the winner's.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agent: { agent_id: string; token: string };

beforeAll(async () => {
  h = await engineHarness({ max: 50 });
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
});
afterAll(async () => h?.close());

describe('concurrent binds', () => {
  it('50 concurrent binds of one trace: exactly one 200 and 49 × 409 trace_already_bound', async () => {
    const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    expect(auth.statusCode, auth.body).toBe(200);
    const { trace_id, reasoning_hash } = auth.json() as { trace_id: string; reasoning_hash: string };

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.call(
          'POST',
          '/engine/bind-execution',
          { trace_id, exchange_tx_id: `EX-${i}`, execution_status: 'Filled', asset: 'AAPL', executed_quantity: 100 },
          agent.token,
        ),
      ),
    );
    const codes = responses.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(49);
    for (const r of responses.filter((x) => x.statusCode === 409)) expect(r.json().code).toBe('trace_already_bound');

    const winner = responses.find((r) => r.statusCode === 200)!.json();
    const [row] = await h.store.sql`select exchange_tx_id, final_proof from traces where trace_id = ${trace_id}`;
    const txId = row!.exchange_tx_id as string;
    expect(txId).toMatch(/^EX-\d+$/);
    const proof = createHash('sha256').update(`${reasoning_hash}||${txId}`, 'ascii').digest('hex');
    expect(winner.final_proof).toBe(proof);
    expect(row!.final_proof).toBe(proof);

    const verify = (await h.call('GET', `/engine/trace/${trace_id}/verify`, undefined, agent.token)).json();
    expect(verify.valid).toBe(true);
  });

  it('concurrent binds of different traces all succeed', async () => {
    const traces: string[] = [];
    for (let i = 0; i < 10; i++) {
      const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
      expect(auth.statusCode, auth.body).toBe(200);
      traces.push(auth.json().trace_id);
    }
    const responses = await Promise.all(
      traces.map((trace_id, i) => h.call('POST', '/engine/bind-execution', { trace_id, exchange_tx_id: `PAR-${i}`, execution_status: 'Filled' }, agent.token)),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
  });
});
