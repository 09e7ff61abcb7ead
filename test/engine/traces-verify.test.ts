/**
 * `GET /engine/trace/{trace_id}/verify`: valid before and after bind, and `valid: false` naming the failing
 * check after each kind of tampering with the stored row (done here directly in SQL, as an insider with
 * database access would).
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

interface Verification {
  trace_id: string;
  valid: boolean;
  reasoning_hash: { stored: string; recomputed: string; ok: boolean };
  final_proof: { stored: string | null; recomputed: string | null; ok: boolean | null };
  checks: Array<{ check: string; ok: boolean; detail: string }>;
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

let h: EngineHarness;
let agent: { agent_id: string; token: string };

beforeAll(async () => {
  h = await engineHarness({ policy: { max_orders_per_second: null } });
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
});
afterAll(async () => h?.close());

const regulatory = { mifid_algo_id: 'ALGO-1', mifid_decision_maker: 'Jane Trader', jurisdiction: 'EU' };

async function authorize(overrides: Record<string, unknown> = {}): Promise<{ trace_id: string; reasoning_hash: string }> {
  const res = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, overrides), agent.token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function bound(overrides: Record<string, unknown> = {}): Promise<{ trace_id: string; reasoning_hash: string }> {
  const a = await authorize(overrides);
  const res = await h.call('POST', '/engine/bind-execution', { trace_id: a.trace_id, exchange_tx_id: 'TX-V', execution_status: 'Filled' }, agent.token);
  expect(res.statusCode, res.body).toBe(200);
  return a;
}

async function verify(traceId: string): Promise<Verification> {
  const res = await h.call('GET', `/engine/trace/${traceId}/verify`, undefined, agent.token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Verification;
}

const failing = (v: Verification): string[] =>
  v.checks
    .filter((c) => !c.ok)
    .map((c) => c.check)
    .sort();

describe('verify an untouched trace', () => {
  it('is valid before bind, with no final_proof to check', async () => {
    const a = await authorize();
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(true);
    expect(v.trace_id).toBe(a.trace_id);
    expect(v.reasoning_hash).toEqual({ stored: a.reasoning_hash, recomputed: a.reasoning_hash, ok: true });
    expect(v.final_proof).toEqual({ stored: null, recomputed: null, ok: null });
    expect(v.checks.map((c) => c.check)).toEqual(expect.arrayContaining(['reasoning_hash', 'canonical_form', 'listing_columns']));
    expect(failing(v)).toEqual([]);
  });

  it('is valid after bind, with final_proof recomputed', async () => {
    const a = await bound();
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(true);
    const proof = sha256(`${a.reasoning_hash}||TX-V`);
    expect(v.final_proof).toEqual({ stored: proof, recomputed: proof, ok: true });
    expect(v.checks.find((c) => c.check === 'final_proof')?.ok).toBe(true);
  });

  it('a trace with a regulatory block: its commitment verifies', async () => {
    const a = await bound({ regulatory });
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(true);
    expect(v.checks.find((c) => c.check === 'regulatory_commitment')).toMatchObject({ ok: true });
  });

  it("404 for an unknown trace, 422 for a malformed id, 403 for another agent's token", async () => {
    expect((await h.call('GET', `/engine/trace/${randomUUID()}/verify`, undefined, agent.token)).statusCode).toBe(404);
    const bad = await h.call('GET', '/engine/trace/nope/verify', undefined, agent.token);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('trace_id');
    const a = await authorize();
    const other = await h.registerAgent();
    const res = await h.call('GET', `/engine/trace/${a.trace_id}/verify`, undefined, other.token);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('agent_not_permitted');
  });
});

describe('verify a tampered trace', () => {
  it('an edited sealed text fails reasoning_hash', async () => {
    const a = await bound();
    await h.store.sql`update traces set sealed = replace(sealed, '"venue_id":"XNAS"', '"venue_id":"XLON"') where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(v.reasoning_hash.ok).toBe(false);
    expect(v.reasoning_hash.stored).toBe(a.reasoning_hash);
    expect(failing(v)).toEqual(['reasoning_hash']);
    // The proof over the stored reasoning_hash still recomputes: only the sealed text was touched.
    expect(v.final_proof.ok).toBe(true);
  });

  it('an edited sealed asset fails reasoning_hash and listing_columns', async () => {
    const a = await authorize();
    await h.store.sql`update traces set sealed = replace(sealed, '"asset":"AAPL"', '"asset":"MSFT"') where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(failing(v)).toEqual(['listing_columns', 'reasoning_hash']);
    expect(v.checks.find((c) => c.check === 'listing_columns')!.detail).toContain('asset');
  });

  it('a sealed text re-hashed but reformatted fails canonical_form', async () => {
    const a = await authorize();
    const [row] = await h.store.sql`select sealed from traces where trace_id = ${a.trace_id}`;
    const pretty = JSON.stringify(JSON.parse(row!.sealed as string), null, 2);
    await h.store.sql`update traces set sealed = ${pretty}, reasoning_hash = ${sha256(pretty)} where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(failing(v)).toEqual(['canonical_form']);
  });

  it('a changed notional column fails listing_columns, naming notional', async () => {
    const a = await bound();
    await h.store.sql`update traces set notional = 1900 where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(v.reasoning_hash.ok).toBe(true);
    expect(failing(v)).toEqual(['listing_columns']);
    const detail = v.checks.find((c) => c.check === 'listing_columns')!.detail;
    expect(detail).toContain('notional');
    expect(detail).toContain('19000');
    expect(detail).toContain('1900');
  });

  it.each([
    ['quantity', 'quantity = 99'],
    ['action', `action = 'Short'`],
    ['agent_id', `agent_id = '${randomUUID()}'`],
    ['client_order_id', `client_order_id = 'forged'`],
    ['notional_currency', `notional_currency = 'EUR'`],
  ])('a changed %s column fails listing_columns', async (field, assignment) => {
    const a = await authorize();
    await h.store.sql.unsafe(`update traces set ${assignment} where trace_id = $1`, [a.trace_id]);
    const res = await h.call('GET', `/engine/trace/${a.trace_id}/verify`);
    expect(res.statusCode, res.body).toBe(200);
    const v = res.json() as Verification;
    expect(v.valid).toBe(false);
    expect(failing(v)).toEqual(['listing_columns']);
    expect(v.checks.find((c) => c.check === 'listing_columns')!.detail).toContain(field);
  });

  it('a changed final_proof fails final_proof', async () => {
    const a = await bound();
    await h.store.sql`update traces set final_proof = ${'0'.repeat(64)} where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(v.final_proof).toEqual({ stored: '0'.repeat(64), recomputed: sha256(`${a.reasoning_hash}||TX-V`), ok: false });
    expect(failing(v)).toEqual(['final_proof']);
  });

  it('a changed exchange_tx_id fails final_proof', async () => {
    const a = await bound();
    await h.store.sql`update traces set exchange_tx_id = 'TX-FORGED' where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(failing(v)).toEqual(['final_proof']);
  });

  it('a final_proof planted on an unbound trace fails final_proof', async () => {
    const a = await authorize();
    await h.store.sql`update traces set final_proof = ${sha256(`${a.reasoning_hash}||TX-V`)} where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(failing(v)).toEqual(['final_proof']);
  });

  it('a changed reasoning_hash fails reasoning_hash and final_proof', async () => {
    const a = await bound();
    await h.store.sql`update traces set reasoning_hash = ${'f'.repeat(64)} where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(failing(v)).toEqual(['final_proof', 'reasoning_hash']);
  });

  it('a changed regulatory block fails regulatory_commitment', async () => {
    const a = await bound({ regulatory });
    await h.store.sql`update traces set regulatory = jsonb_set(regulatory, '{mifid_decision_maker}', '"Mallory"') where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(failing(v)).toEqual(['regulatory_commitment']);
    // The reasoning_hash covers only the commitment, so it still holds.
    expect(v.reasoning_hash.ok).toBe(true);
  });

  it('a changed regulatory salt fails regulatory_commitment', async () => {
    const a = await authorize({ regulatory });
    await h.store.sql`update traces set regulatory_salt = ${Buffer.alloc(32, 7)} where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(failing(v)).toEqual(['regulatory_commitment']);
  });

  it('a sealed text that is not JSON fails, naming sealed_text, and verify still answers 200', async () => {
    const a = await authorize();
    await h.store.sql`update traces set sealed = 'not json' where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(failing(v)).toEqual(['reasoning_hash', 'sealed_text']);
  });
});

describe("verify: personal data removed behind the engine's back", () => {
  it('is not valid when the regulatory block of a sealed commitment is nulled in the store', async () => {
    const e = await engineHarness();
    try {
      await e.publishRegime('expansion');
      const { agent_id, token } = await e.registerAgent();
      const a = (await e.call('POST', '/engine/authorize', { ...e.order(agent_id), regulatory: { mifid_decision_maker: 'J. Smith' } }, token)).json();
      expect((await e.call('GET', `/engine/trace/${a.trace_id}/verify`)).json().valid).toBe(true);
      await e.store.sql`update traces set regulatory = null, regulatory_salt = null where trace_id = ${a.trace_id}`;
      const v = (await e.call('GET', `/engine/trace/${a.trace_id}/verify`)).json();
      expect(v.valid).toBe(false);
      expect(v.checks.find((c: { check: string }) => c.check === 'regulatory_commitment')).toMatchObject({ ok: false });
    } finally {
      await e.close();
    }
  });
});
