/**
 * Erasure by crypto-shredding, end to end against a real store: with `KMS_PROVIDER=local` the agent's name
 * and its traces' regulatory blocks are stored only encrypted; `POST /engine/admin/gdpr-erase/{agent_id}`
 * destroys the agent's data key, after which those fields read as null with `erased: true`, every hash and
 * proof still recomputes from the served JSON (canonicalize and node:crypto here, none of the engine's
 * code), verification passes through the sealed commitment, the audit chain holds, the agent cannot
 * authorize, and a dump of the whole database holds no plaintext of what was erased.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { createEngineContext } from '../../src/engine/context.js';
import { buildApp } from '../../src/http/app.js';
import { dumpDatabase, plaintextIn } from '../helpers/dump.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';
import { kmsConfig, masterKeyFile } from '../helpers/kms.js';

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const jcs = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('no canonical form');
  return text;
};

/** reasoning_hash from a served trace alone: without `integrity`, `regulatory` replaced by its commitment. */
function recomputeHash(doc: Record<string, unknown>): string {
  const { integrity, ...sealed } = doc as { integrity: { regulatory_commitment: string | null } };
  return sha256(jcs({ ...sealed, regulatory: integrity.regulatory_commitment === null ? null : { commitment: integrity.regulatory_commitment } }));
}

/** Personal values unique to one test run, so that finding one in a dump can only mean it leaked. */
function personalData(): { name: string; regulatory: Record<string, string> } {
  const tag = randomBytes(6).toString('hex');
  return {
    name: `Grace Hopper desk ${tag}`,
    regulatory: {
      mifid_algo_id: `ALGO-${tag}`,
      mifid_decision_maker: `Jane Erasable ${tag}`,
      cftc_cti_code: `CTI-${tag}`,
      cftc_account_type: `house-${tag}`,
      cat_order_id: `CAT-${tag}`,
      jurisdiction: `EU-${tag}`,
    },
  };
}
const plaintexts = (p: ReturnType<typeof personalData>): string[] => [p.name, ...Object.values(p.regulatory)];

let h: EngineHarness;

beforeAll(async () => {
  h = await engineHarness({ config: kmsConfig(masterKeyFile()), policy: { max_orders_per_second: null } });
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

async function authorize(
  agent: { agent_id: string; token: string },
  overrides: Record<string, unknown> = {},
): Promise<{ trace_id: string; reasoning_hash: string; client_order_id: string }> {
  const order = h.order(agent.agent_id, overrides);
  const res = await h.call('POST', '/engine/authorize', order, agent.token);
  expect(res.statusCode, res.body).toBe(200);
  return { ...res.json(), client_order_id: order.client_order_id as string };
}

async function trace(traceId: string): Promise<Record<string, any>> {
  const res = await h.call('GET', `/engine/trace/${traceId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function verify(
  traceId: string,
): Promise<{ valid: boolean; checks: Array<{ check: string; ok: boolean; detail: string }>; final_proof: { ok: boolean | null } }> {
  const res = await h.call('GET', `/engine/trace/${traceId}/verify`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const erase = (agentId: string, token?: string | null) => h.call('POST', `/engine/admin/gdpr-erase/${agentId}`, undefined, token);

describe('personal data at rest, with KMS_PROVIDER=local', () => {
  it('stores the name and the regulatory block only encrypted, and serves them decrypted', async () => {
    const p = personalData();
    const agent = await h.registerAgent({ name: p.name });
    const a = await authorize(agent, { regulatory: p.regulatory });

    const [agentRow] = await h.store.sql`select name, name_enc from agents where agent_id = ${agent.agent_id}`;
    expect(agentRow!.name).toBeNull();
    expect(agentRow!.name_enc).toBeInstanceOf(Buffer);
    const [traceRow] = await h.store.sql`select regulatory, regulatory_salt, regulatory_enc from traces where trace_id = ${a.trace_id}`;
    expect(traceRow).toMatchObject({ regulatory: null, regulatory_salt: null });
    expect(traceRow!.regulatory_enc).toBeInstanceOf(Buffer);
    const [key] = await h.store.sql`select provider, key_id, wrapped_key, destroyed_at from agent_data_keys where agent_id = ${agent.agent_id}`;
    expect(key).toMatchObject({ provider: 'local', key_id: expect.stringMatching(/^local:[0-9a-f]{16}$/), destroyed_at: null });
    // version, nonce, 32 key bytes, tag: the key itself is never stored.
    expect((key!.wrapped_key as Buffer).length).toBe(1 + 12 + 32 + 16);

    const served = (await h.call('GET', `/engine/admin/agents/${agent.agent_id}`)).json();
    expect(served).toMatchObject({ agent_id: agent.agent_id, name: p.name, erased: false, erased_at: null });
    const doc = await trace(a.trace_id);
    expect(doc.regulatory).toEqual(p.regulatory);
    expect(doc.integrity).toMatchObject({ erased: false, erased_at: null });
    const salt = Buffer.from(doc.integrity.regulatory_salt, 'hex');
    expect(sha256(Buffer.concat([salt, Buffer.from(jcs(p.regulatory), 'utf8')]))).toBe(doc.integrity.regulatory_commitment);
    expect(recomputeHash(doc)).toBe(a.reasoning_hash);
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(true);
    expect(v.checks.find((c) => c.check === 'regulatory_commitment')).toMatchObject({ ok: true });

    // Nothing of it in the clear anywhere in the database, not even before an erasure.
    const dump = await dumpDatabase(h.store);
    expect(dump).toContain(a.trace_id);
    for (const text of plaintexts(p)) expect(plaintextIn(dump, text), text).toEqual([]);
  });

  it('a ciphertext copied onto another trace does not decrypt there: verify says so', async () => {
    const agent = await h.registerAgent();
    const a = await authorize(agent, { regulatory: personalData().regulatory });
    const b = await authorize(agent, { regulatory: personalData().regulatory });
    await h.store.sql`update traces set regulatory_enc = (select regulatory_enc from traces where trace_id = ${a.trace_id}) where trace_id = ${b.trace_id}`;
    const v = await verify(b.trace_id);
    expect(v.valid).toBe(false);
    expect(v.checks.find((c) => c.check === 'regulatory_commitment')).toMatchObject({ ok: false, detail: expect.stringContaining('does not decrypt') });
    expect((await trace(b.trace_id)).regulatory).toBeNull();
  });

  it('an encrypted block removed without an erasure is reported as tampering', async () => {
    const agent = await h.registerAgent();
    const a = await authorize(agent, { regulatory: personalData().regulatory });
    await h.store.sql`update traces set regulatory_enc = null where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(v.checks.find((c) => c.check === 'regulatory_commitment')).toMatchObject({ ok: false, detail: expect.stringContaining('missing') });
  });

  it("a trace marked erased by hand, its agent's key intact, is reported as tampering", async () => {
    const agent = await h.registerAgent();
    const a = await authorize(agent, { regulatory: personalData().regulatory });
    await h.store.sql`update traces set regulatory_enc = null, erased_at = now() where trace_id = ${a.trace_id}`;
    const v = await verify(a.trace_id);
    expect(v.valid).toBe(false);
    expect(v.checks.find((c) => c.check === 'regulatory_commitment')).toMatchObject({ ok: false, detail: expect.stringContaining('outside an erasure') });
  });
});

describe('POST /engine/admin/gdpr-erase/{agent_id}', () => {
  it('destroys the key: fields read null with erased: true, hashes and proofs verify, the agent cannot authorize, nothing is left in the dump', async () => {
    const p = personalData();
    const agent = await h.registerAgent({ name: p.name });
    const withBlock = await authorize(agent, { regulatory: p.regulatory });
    const bound = await authorize(agent, { regulatory: { ...p.regulatory, cat_order_id: `${p.regulatory.cat_order_id}-2` } });
    const bind = await h.call(
      'POST',
      '/engine/bind-execution',
      { trace_id: bound.trace_id, exchange_tx_id: 'XNAS-ERASE-1', execution_status: 'Filled' },
      agent.token,
    );
    expect(bind.statusCode, bind.body).toBe(200);
    const finalProof = bind.json().final_proof as string;
    const plain = await authorize(agent);
    const before = { withBlock: await trace(withBlock.trace_id), bound: await trace(bound.trace_id) };

    // Another agent's data are untouched.
    const other = personalData();
    const otherAgent = await h.registerAgent({ name: other.name });
    const otherTrace = await authorize(otherAgent, { regulatory: other.regulatory });

    const res = await erase(agent.agent_id);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['agent_id', 'erased_at', 'traces_affected']);
    expect(body).toMatchObject({ agent_id: agent.agent_id, traces_affected: 3 });
    expect(Date.parse(body.erased_at)).not.toBeNaN();

    for (const [t, doc] of [
      [withBlock, before.withBlock],
      [bound, before.bound],
    ] as const) {
      const after = await trace(t.trace_id);
      expect(after.regulatory).toBeNull();
      expect(after.integrity).toMatchObject({
        erased: true,
        erased_at: body.erased_at,
        regulatory_salt: null,
        regulatory_commitment: doc.integrity.regulatory_commitment,
      });
      // Everything sealed is as before; the hash recomputes from the served JSON alone.
      const { regulatory: _r1, integrity: _i1, ...sealedAfter } = after;
      const { regulatory: _r2, integrity: _i2, ...sealedBefore } = doc;
      expect(sealedAfter).toEqual(sealedBefore);
      expect(recomputeHash(after)).toBe(t.reasoning_hash);
      const v = await verify(t.trace_id);
      expect(v.valid, JSON.stringify(v.checks)).toBe(true);
      expect(v.checks.find((c) => c.check === 'regulatory_commitment')).toMatchObject({ ok: true, detail: expect.stringContaining('erased') });
    }
    const boundAfter = await trace(bound.trace_id);
    expect(boundAfter.integrity.final_proof).toBe(finalProof);
    expect(sha256(`${recomputeHash(boundAfter)}||XNAS-ERASE-1`)).toBe(finalProof);
    expect((await verify(bound.trace_id)).final_proof.ok).toBe(true);
    const plainAfter = await trace(plain.trace_id);
    expect(plainAfter.integrity).toMatchObject({ erased: true, regulatory_commitment: null });
    expect((await verify(plain.trace_id)).valid).toBe(true);

    const served = (await h.call('GET', `/engine/admin/agents/${agent.agent_id}`)).json();
    expect(served).toMatchObject({ name: null, erased: true, erased_at: body.erased_at });
    const listed = (await h.call('GET', '/engine/admin/agents')).json().agents.find((a: { agent_id: string }) => a.agent_id === agent.agent_id);
    expect(listed).toMatchObject({ name: null, erased: true });

    // An erased agent cannot authorize: neither a new order nor a retry of an old one.
    const denied = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'agent_not_active', detail: expect.stringContaining('erased') });
    const retry = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, { client_order_id: plain.client_order_id }), agent.token);
    expect(retry.statusCode).toBe(403);

    // The other agent reads as before.
    expect((await trace(otherTrace.trace_id)).regulatory).toEqual(other.regulatory);
    expect((await h.call('GET', `/engine/admin/agents/${otherAgent.agent_id}`)).json().name).toBe(other.name);

    // The audit chain records the erasure and still links, recomputed here from its entries.
    const log = (await h.call('GET', '/engine/admin/audit-log?limit=1000')).json();
    expect(log.has_more).toBe(false);
    const entry = log.entries.find((e: { action: string; target_id: string }) => e.action === 'gdpr.erase' && e.target_id === agent.agent_id);
    expect(entry).toMatchObject({ details: { traces_affected: 3, erased_at: body.erased_at } });
    const oldestFirst = [...log.entries].reverse();
    let prev = '0'.repeat(64);
    for (const e of oldestFirst) {
      const { entry_hash: entryHash, ...rest } = e;
      expect(e.prev_hash).toBe(prev);
      expect(sha256(jcs(rest))).toBe(entryHash);
      prev = entryHash;
    }

    // pg_dump of the whole database: no plaintext of the erased fields (nor of the other agent's, encrypted).
    const dump = await dumpDatabase(h.store);
    expect(dump).toContain(withBlock.reasoning_hash);
    for (const text of [...plaintexts(p), `${p.regulatory.cat_order_id}-2`, ...plaintexts(other)]) expect(plaintextIn(dump, text), text).toEqual([]);
    // Nor the ciphertexts or the wrapped key of the erased agent.
    const [rows] = await h.store.sql`
      select (select count(*) from traces where agent_id = ${agent.agent_id} and (regulatory_enc is not null or regulatory is not null or regulatory_salt is not null))::int as personal,
             (select wrapped_key from agent_data_keys where agent_id = ${agent.agent_id}) as wrapped,
             (select name_enc from agents where agent_id = ${agent.agent_id}) as name_enc`;
    expect(rows).toEqual({ personal: 0, wrapped: null, name_enc: null });
  });

  it('erasing again changes nothing: the first erased_at, traces_affected 0, no second audit entry', async () => {
    const agent = await h.registerAgent();
    await authorize(agent, { regulatory: personalData().regulatory });
    const first = (await erase(agent.agent_id)).json();
    expect(first.traces_affected).toBe(1);
    const again = await erase(agent.agent_id);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({ agent_id: agent.agent_id, traces_affected: 0, erased_at: first.erased_at });
    const entries = (await h.call('GET', `/engine/admin/audit-log?action=gdpr.erase&target_id=${agent.agent_id}`)).json().entries;
    expect(entries).toHaveLength(1);
  });

  it('404 for an unknown agent, 422 for a malformed id, 401 without a token, 403 for a client token', async () => {
    const unknown = await erase(randomUUID());
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');
    const malformed = await erase('not-an-agent');
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().errors[0].field).toBe('agent_id');
    const agent = await h.registerAgent();
    expect((await erase(agent.agent_id, null)).statusCode).toBe(401);
    const client = await erase(agent.agent_id, agent.token);
    expect(client.statusCode).toBe(403);
    expect((await h.call('GET', `/engine/admin/agents/${agent.agent_id}`)).json().erased).toBe(false);
  });
});

describe('without a key-management provider', () => {
  let plain: EngineHarness;
  beforeAll(async () => {
    plain = await engineHarness();
    await plain.publishRegime('expansion');
  });
  afterAll(async () => plain?.close());

  it('stores personal data as given, and erasure answers 412 precondition_failed, changing nothing', async () => {
    const p = personalData();
    const agent = await plain.registerAgent({ name: p.name });
    const res = await plain.call('POST', `/engine/admin/gdpr-erase/${agent.agent_id}`);
    expect(res.statusCode).toBe(412);
    expect(res.json()).toMatchObject({ code: 'precondition_failed', detail: expect.stringContaining('KMS_PROVIDER') });
    const [row] = await plain.store.sql`select name, name_enc, erased_at from agents where agent_id = ${agent.agent_id}`;
    expect(row).toEqual({ name: p.name, name_enc: null, erased_at: null });
    const ok = await plain.call('POST', '/engine/authorize', plain.order(agent.agent_id), agent.token);
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('plaintext stored before a provider was configured reads as before, and an erasure nulls it', async () => {
    const p = personalData();
    const agent = await plain.registerAgent({ name: p.name });
    const auth = await plain.call('POST', '/engine/authorize', plain.order(agent.agent_id, { regulatory: p.regulatory }), agent.token);
    expect(auth.statusCode, auth.body).toBe(200);
    const traceId = auth.json().trace_id as string;
    // The dump search finds plaintext where there is some.
    expect(plaintextIn(await dumpDatabase(plain.store), p.name)).toContain('as text');

    // The same store under an engine that now has a provider.
    const config = configWith({ ...plain.config, ...kmsConfig(masterKeyFile()) });
    const ctx = await createEngineContext(config, plain.store.sql, { policy: plain.ctx.policy, now: () => plain.clock.now });
    const app = await buildApp(config, { sql: plain.store.sql, logger: false, engine: ctx });
    try {
      const owner = { authorization: `Bearer ${plain.ownerToken}` };
      const read = await app.inject({ method: 'GET', url: `/engine/trace/${traceId}`, headers: owner });
      expect(read.json()).toMatchObject({ regulatory: p.regulatory, integrity: { erased: false } });
      expect((await app.inject({ method: 'GET', url: `/engine/admin/agents/${agent.agent_id}`, headers: owner })).json().name).toBe(p.name);

      const res = await app.inject({ method: 'POST', url: `/engine/admin/gdpr-erase/${agent.agent_id}`, headers: owner });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().traces_affected).toBe(1);
      const after = (await app.inject({ method: 'GET', url: `/engine/trace/${traceId}/verify`, headers: owner })).json();
      expect(after.valid).toBe(true);
      const dump = await dumpDatabase(plain.store);
      for (const text of plaintexts(p)) expect(plaintextIn(dump, text), text).toEqual([]);
    } finally {
      await app.close();
      ctx.state.stop();
    }
  });
});
