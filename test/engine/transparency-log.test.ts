/**
 * The transparency log over HTTP, on a real store with the server's sequencer running: authorize and bind
 * traces, then fetch heads, inclusion proofs and consistency proofs as a client does and check them with
 * the pure RFC 9162 verifiers (src/core/log/verify.ts, itself checked against transparency-dev/merkle's
 * vectors in test/engine/unit/merkle-vectors.test.ts) and the log's public key.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashFromHex, leafHash, toHex } from '../../src/core/log/hashing.js';
import { checkTraceInLog, type TraceLogProof } from '../../src/core/log/trace-check.js';
import { verifyTreeHeadSignature, type SignedTreeHead } from '../../src/core/log/tree-head.js';
import { verifyConsistency, verifyInclusion } from '../../src/core/log/verify.js';
import { startSequencer } from '../../src/engine/sequencer.js';
import { loadLogKey } from '../../src/engine/store/log-key.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agent: { agent_id: string; token: string };
let publicKey: Uint8Array;
let stopSequencer: (() => Promise<void>) | null = null;

const bytes = (hex: string): Uint8Array => hashFromHex(hex, 'hash');

async function authorize(): Promise<{ trace_id: string; reasoning_hash: string }> {
  const res = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
  if (res.statusCode !== 200) throw new Error(`authorize: ${res.body}`);
  return res.json();
}

async function bind(traceId: string): Promise<{ final_proof: string }> {
  const res = await h.call(
    'POST',
    '/engine/bind-execution',
    {
      trace_id: traceId,
      exchange_tx_id: `XNAS-${traceId.slice(0, 8)}`,
      execution_status: 'Filled',
      asset: 'AAPL',
      executed_quantity: 100,
      executed_side: 'Long',
    },
    agent.token,
  );
  if (res.statusCode !== 200) throw new Error(`bind: ${res.body}`);
  return res.json();
}

/** Asks for the trace's proof until `ready` holds; returns it and how long it took. */
async function proofWhen(traceId: string, ready: (p: TraceLogProof) => boolean, token = agent.token): Promise<{ proof: TraceLogProof; ms: number }> {
  const start = Date.now();
  for (;;) {
    const res = await h.call('GET', `/engine/log/proof/${traceId}`, undefined, token);
    if (res.statusCode === 200 && ready(res.json())) return { proof: res.json(), ms: Date.now() - start };
    if (res.statusCode !== 200 && res.json().code !== 'not_yet_logged') throw new Error(`proof: ${res.body}`);
    if (Date.now() - start > 10_000) throw new Error(`trace ${traceId} was not logged within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function head(query = ''): Promise<SignedTreeHead> {
  const res = await h.call('GET', `/engine/log/head${query}`, undefined, agent.token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

beforeAll(async () => {
  h = await engineHarness({ policy: { max_orders_per_second: null } });
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
  publicKey = (await loadLogKey(h.store.sql, h.config)).publicKey;
});
afterAll(async () => {
  await stopSequencer?.();
  await h?.close();
});

describe('before the sequencer has run', () => {
  it("answers the empty tree's signed head, and 404 not_yet_logged for a committed trace; 404 not_found for an unknown one", async () => {
    const empty = await head();
    expect(empty).toMatchObject({ tree_size: 0, root_hash: createHash('sha256').digest('hex') });
    expect(verifyTreeHeadSignature(empty, publicKey)).toEqual({ valid: true });

    const { trace_id } = await authorize();
    const pending = await h.call('GET', `/engine/log/proof/${trace_id}`, undefined, agent.token);
    expect(pending.statusCode).toBe(404);
    expect(pending.json()).toMatchObject({ code: 'not_yet_logged' });
    expect(pending.json().detail).toContain(trace_id);

    const unknown = await h.call('GET', '/engine/log/proof/0b1e6a36-7d0e-4c53-9b46-1f1a3f6b2c11', undefined, agent.token);
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, 'not_found']);
    const malformed = await h.call('GET', '/engine/log/proof/not-a-uuid', undefined, agent.token);
    expect([malformed.statusCode, malformed.json().code]).toEqual([422, 'validation_failed']);
  });
});

describe('with the sequencer running', () => {
  beforeAll(() => {
    stopSequencer = startSequencer(h.store.sql, h.config);
  });

  it("logs a committed trace's reasoning_hash within a second, provably included under a signed head", async () => {
    const { trace_id, reasoning_hash } = await authorize();
    const { proof, ms } = await proofWhen(trace_id, () => true);
    expect(ms).toBeLessThan(1000);
    expect(proof).toMatchObject({ trace_id, reasoning_hash, leaf_hash: toHex(leafHash(bytes(reasoning_hash))), final_proof: null, final_proof_leaf: null });

    const signed = await head(`?tree_size=${proof.tree_size}`);
    expect(verifyTreeHeadSignature(signed, publicKey)).toEqual({ valid: true });
    expect(verifyInclusion(proof.leaf_index, proof.tree_size, bytes(proof.leaf_hash), proof.audit_path.map(bytes), bytes(signed.root_hash))).toEqual({
      valid: true,
    });
    const check = checkTraceInLog({ head: signed, proof, trace: { reasoning_hash, final_proof: null }, publicKey });
    expect(check.valid).toBe(true);
  });

  it('logs the final_proof once the trace is bound, after its reasoning_hash', async () => {
    const { trace_id, reasoning_hash } = await authorize();
    const first = (await proofWhen(trace_id, () => true)).proof;
    const { final_proof } = await bind(trace_id);
    const { proof, ms } = await proofWhen(trace_id, (p) => p.final_proof_leaf !== null);
    expect(ms).toBeLessThan(1000);
    expect(proof.leaf_index).toBe(first.leaf_index);
    expect(proof.final_proof).toBe(final_proof);
    expect(proof.final_proof_leaf!.leaf_index).toBeGreaterThan(proof.leaf_index);
    const signed = await head(`?tree_size=${proof.tree_size}`);
    const fp = proof.final_proof_leaf!;
    expect(verifyInclusion(fp.leaf_index, proof.tree_size, leafHash(bytes(final_proof)), fp.audit_path.map(bytes), bytes(signed.root_hash))).toEqual({
      valid: true,
    });
    expect(checkTraceInLog({ head: signed, proof, trace: { reasoning_hash, final_proof }, publicKey }).checks.map((c) => [c.check, c.status])).toEqual([
      ['key_id', 'pass'],
      ['signature', 'pass'],
      ['tree_size', 'pass'],
      ['reasoning_hash', 'pass'],
      ['inclusion', 'pass'],
      ['final_proof', 'pass'],
      ['final_proof_inclusion', 'pass'],
    ]);
    // The proof in an older tree that holds only the reasoning_hash leaf leaves the final_proof out.
    const older = (await h.call('GET', `/engine/log/proof/${trace_id}?tree_size=${first.tree_size}`, undefined, agent.token)).json();
    expect(older).toMatchObject({ tree_size: first.tree_size, leaf_index: first.leaf_index, final_proof: null, final_proof_leaf: null });
  });

  it('signs a head for every size the log has reached, each the RFC 9162 root of the leaves stored before it', async () => {
    for (let i = 0; i < 3; i++) await proofWhen((await authorize()).trace_id, () => true);
    const newest = await head();
    const leaves = await h.store.sql<Array<{ data: Buffer }>>`select data from log_leaves order by leaf_index`;
    expect(leaves).toHaveLength(newest.tree_size);
    for (let size = 0; size <= newest.tree_size; size++) {
      const signed = await head(`?tree_size=${size}`);
      expect(signed.tree_size).toBe(size);
      expect(signed.root_hash, `size ${size}`).toBe(toHex(mth(leaves.slice(0, size).map((l) => new Uint8Array(l.data)))));
      expect(verifyTreeHeadSignature(signed, publicKey), `size ${size}`).toEqual({ valid: true });
      expect(signed.timestamp).toBeLessThanOrEqual(newest.timestamp);
    }
    // The same size always gets the same head.
    expect(await head(`?tree_size=${newest.tree_size - 1}`)).toEqual(await head(`?tree_size=${newest.tree_size - 1}`));
  });

  it('proves that the log only grew: a consistency proof between two heads, refused for any other pair of roots', async () => {
    const older = await head();
    for (let i = 0; i < 5; i++) await authorize();
    const last = await authorize();
    await proofWhen(last.trace_id, () => true);
    const newer = await head();
    expect(newer.tree_size).toBeGreaterThan(older.tree_size);

    const res = await h.call('GET', `/engine/log/consistency?from=${older.tree_size}&to=${newer.tree_size}`, undefined, agent.token);
    expect(res.statusCode, res.body).toBe(200);
    const { from, to, proof } = res.json() as { from: number; to: number; proof: string[] };
    expect([from, to]).toEqual([older.tree_size, newer.tree_size]);
    expect(verifyConsistency(from, to, proof.map(bytes), bytes(older.root_hash), bytes(newer.root_hash))).toEqual({ valid: true });
    const previous = await head(`?tree_size=${older.tree_size - 1}`);
    expect(verifyConsistency(from, to, proof.map(bytes), bytes(previous.root_hash), bytes(newer.root_hash)).valid).toBe(false);
    expect(verifyConsistency(from, to, proof.map(bytes), bytes(newer.root_hash), bytes(older.root_hash)).valid).toBe(false);
    // `to` defaults to the newest head.
    expect((await h.call('GET', `/engine/log/consistency?from=${older.tree_size}`, undefined, agent.token)).json().to).toBeGreaterThanOrEqual(newer.tree_size);
  });

  it('refuses sizes beyond the log, a from after to, and a from of 0 with 422 naming the parameter', async () => {
    const size = (await head()).tree_size;
    const cases: Array<[string, string]> = [
      [`/engine/log/head?tree_size=${size + 1000}`, 'tree_size'],
      [`/engine/log/consistency?from=${size}&to=${size + 1000}`, 'to'],
      [`/engine/log/consistency?from=3&to=2`, 'from'],
      ['/engine/log/consistency?from=0', 'from'],
      ['/engine/log/consistency', 'from'],
      ['/engine/log/head?tree_size=-1', 'tree_size'],
      ['/engine/log/head?tree_size=abc', 'tree_size'],
      ['/engine/log/head?size=3', 'size'],
    ];
    for (const [url, field] of cases) {
      const res = await h.call('GET', url, undefined, agent.token);
      expect([res.statusCode, res.json().code], url).toEqual([422, 'validation_failed']);
      expect(
        res
          .json()
          .errors.map((e: { field: string }) => e.field)
          .join(),
        url,
      ).toContain(field);
    }
    const { trace_id } = await authorize();
    const { proof } = await proofWhen(trace_id, () => true);
    const tooSmall = await h.call('GET', `/engine/log/proof/${trace_id}?tree_size=${proof.leaf_index}`, undefined, agent.token);
    expect([tooSmall.statusCode, tooSmall.json().errors[0].field]).toEqual([422, 'tree_size']);
  });

  it('answers any engine token, auditors included; 401 without one; 403 for a client token bound to another agent', async () => {
    const auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'auditor', role: 'auditor' })).json().token as string;
    const other = await h.registerAgent();
    const { trace_id } = await authorize();
    await proofWhen(trace_id, () => true);
    expect((await h.call('GET', `/engine/log/proof/${trace_id}`, undefined, auditor)).statusCode).toBe(200);
    expect((await h.call('GET', '/engine/log/head', undefined, auditor)).statusCode).toBe(200);
    expect((await h.call('GET', '/engine/log/consistency?from=1', undefined, auditor)).statusCode).toBe(200);
    for (const url of ['/engine/log/head', `/engine/log/proof/${trace_id}`, '/engine/log/consistency?from=1']) {
      expect((await h.call('GET', url, undefined, null)).statusCode, url).toBe(401);
    }
    const denied = await h.call('GET', `/engine/log/proof/${trace_id}`, undefined, other.token);
    expect([denied.statusCode, denied.json().code]).toEqual([403, 'agent_not_permitted']);
  });
});

/** RFC 9162 §2.1.1 MTH over leaf data, recursive as the RFC writes it. */
function mth(data: Uint8Array[]): Uint8Array {
  if (data.length === 0) return new Uint8Array(createHash('sha256').digest());
  if (data.length === 1) return leafHash(data[0] as Uint8Array);
  let k = 1;
  while (k * 2 < data.length) k *= 2;
  return new Uint8Array(
    createHash('sha256')
      .update(Uint8Array.of(1))
      .update(mth(data.slice(0, k)))
      .update(mth(data.slice(k)))
      .digest(),
  );
}
