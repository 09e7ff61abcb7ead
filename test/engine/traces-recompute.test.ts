/**
 * A served trace proves itself: a third party holding only the JSON of `GET /engine/trace/{id}` (or of
 * `tradeseal engine traces show ID --json`) recomputes `reasoning_hash`, the regulatory commitment and
 * `final_proof` by the rule of the README ("Verifying a trace"), written here from scratch with the
 * `canonicalize` JCS package (RFC 8785) and node:crypto, none of the engine's own code:
 *
 *   sealed = the document without `integrity`, `regulatory` replaced by `{commitment}` (null when none)
 *   reasoning_hash = SHA-256(JCS(sealed)); commitment = SHA-256(salt ‖ JCS(regulatory));
 *   final_proof = SHA-256(reasoning_hash + "||" + exchange_tx_id)
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, describeRun, runCli, tempHome } from '../helpers/cli.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const jcs = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('no canonical form');
  return text;
};

interface Served {
  regulatory: Record<string, unknown> | null;
  integrity: {
    reasoning_hash: string;
    regulatory_commitment: string | null;
    regulatory_salt: string | null;
    exchange_tx_id: string | null;
    final_proof: string | null;
  };
  [field: string]: unknown;
}

/** The README's recipe, from the served text alone. */
function recompute(servedText: string): { reasoningHash: string; commitment: string | null; finalProof: string | null } {
  const { integrity, ...sealed } = JSON.parse(servedText) as Served;
  sealed.regulatory = integrity.regulatory_commitment === null ? null : { commitment: integrity.regulatory_commitment };
  const reasoningHash = sha256(jcs(sealed));
  const { regulatory } = JSON.parse(servedText) as Served;
  const commitment =
    regulatory && integrity.regulatory_salt
      ? sha256(Buffer.concat([Buffer.from(integrity.regulatory_salt, 'hex'), Buffer.from(jcs(regulatory), 'utf8')]))
      : null;
  const finalProof = integrity.exchange_tx_id === null ? null : sha256(`${reasoningHash}||${integrity.exchange_tx_id}`);
  return { reasoningHash, commitment, finalProof };
}

let h: EngineHarness;
let agent: { agent_id: string; token: string };
const home = tempHome();

beforeAll(async () => {
  h = await engineHarness({ policy: { max_orders_per_second: null } });
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
});
afterAll(async () => h?.close());

const regulatory = { mifid_algo_id: 'ALGO-R', mifid_decision_maker: 'Ada Byron', cftc_cti_code: null, cat_order_id: 'CAT-1', jurisdiction: 'EU' };

async function authorize(overrides: Record<string, unknown> = {}): Promise<{ trace_id: string; reasoning_hash: string }> {
  const res = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, overrides), agent.token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function served(traceId: string): Promise<string> {
  const res = await h.call('GET', `/engine/trace/${traceId}`, undefined, agent.token);
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

describe('recomputing a served trace with only `integrity` removed', () => {
  it('a pending trace without personal data: SHA-256 of the JCS of the rest is its reasoning_hash', async () => {
    const a = await authorize();
    const text = await served(a.trace_id);
    const doc = JSON.parse(text) as Served;
    // Nothing unsealed outside integrity: the listing status is inside it.
    expect(doc).not.toHaveProperty('status');
    expect(doc.integrity).toMatchObject({ status: 'PENDING', reasoning_hash: a.reasoning_hash, regulatory_commitment: null, regulatory_salt: null });
    expect(recompute(text)).toEqual({ reasoningHash: a.reasoning_hash, commitment: null, finalProof: null });
  });

  it('a bound trace with a regulatory block: reasoning_hash, the commitment from the served salt, and final_proof', async () => {
    const a = await authorize({ regulatory });
    const bound = await h.call('POST', '/engine/bind-execution', { trace_id: a.trace_id, exchange_tx_id: 'XNAS-R-1', execution_status: 'Filled' }, agent.token);
    expect(bound.statusCode, bound.body).toBe(200);
    const text = await served(a.trace_id);
    const doc = JSON.parse(text) as Served;
    expect(doc.regulatory).toEqual(regulatory);
    const again = recompute(text);
    expect(again.reasoningHash).toBe(a.reasoning_hash);
    expect(again.reasoningHash).toBe(doc.integrity.reasoning_hash);
    expect(again.commitment).toBe(doc.integrity.regulatory_commitment);
    expect(again.finalProof).toBe(bound.json().final_proof);
    expect(again.finalProof).toBe(doc.integrity.final_proof);
  });

  it('a shadow-halted trace: its listing status sits in integrity and the hash still recomputes', async () => {
    await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'dry run of a tighter policy' });
    try {
      const a = await authorize({ quantity: 1_000_000, notional: 190_000_000 });
      const text = await served(a.trace_id);
      expect(JSON.parse(text).integrity.status).toBe('SHADOW_HALTED');
      expect(recompute(text).reasoningHash).toBe(a.reasoning_hash);
    } finally {
      await h.call('POST', '/engine/admin/shadow-mode', { enabled: false, reason: null });
    }
  });

  it('a tampered served document no longer recomputes', async () => {
    const a = await authorize({ regulatory });
    const text = await served(a.trace_id);
    expect(recompute(text.replace('"asset":"AAPL"', '"asset":"MSFT"')).reasoningHash).not.toBe(a.reasoning_hash);
    expect(recompute(text.replace('Ada Byron', 'Mallory')).commitment).not.toBe(JSON.parse(text).integrity.regulatory_commitment);
  });

  it('`tradeseal engine traces show ID --json` prints the same document, which recomputes the same way', async () => {
    const a = await authorize({ regulatory });
    const text = await served(a.trace_id);
    const show = await runCli(['engine', 'traces', 'show', a.trace_id, '--json'], cliEnv(home, h.store.url));
    expect(show.code, describeRun(show)).toBe(0);
    expect(show.json()).toEqual(JSON.parse(text));
    const again = recompute(show.stdout);
    expect(again.reasoningHash).toBe(a.reasoning_hash);
    expect(again.commitment).toBe(JSON.parse(text).integrity.regulatory_commitment);
  }, 60_000);
});
