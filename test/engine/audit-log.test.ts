/**
 * The audit log (`GET /engine/admin/audit-log`, src/engine/audit/): every admin action and every refused
 * authorization is an entry, in the same transaction as the action; the entries form a hash chain a third
 * party recomputes with nothing but SHA-256 and a JCS library; the table refuses UPDATE, DELETE and
 * TRUNCATE; concurrent appends never fork the chain; and the listing's filters, cursor and limits.
 */
import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit } from '../../src/engine/audit/append.js';
import { GENESIS_HASH } from '../../src/engine/audit/entry.js';
import { verifyAuditChain } from '../../src/engine/audit/verify.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

interface Entry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target_id: string | null;
  details: Record<string, unknown>;
  prev_hash: string;
  entry_hash: string;
}

/** A third party's recomputation: SHA-256 over the JCS of the entry without entry_hash (the `canonicalize` package directly). */
const recompute = ({ entry_hash: _h, ...rest }: Entry): string =>
  createHash('sha256')
    .update(canonicalize(rest) as string, 'utf8')
    .digest('hex');

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness({ max: 20 });
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

async function log(query = ''): Promise<{ count: number; has_more: boolean; next_before_id: string | null; entries: Entry[] }> {
  const res = await h.call('GET', `/engine/admin/audit-log${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** Every entry, oldest first, through the API's cursor. */
async function wholeLog(): Promise<Entry[]> {
  const all: Entry[] = [];
  let cursor: string | null = null;
  do {
    const page = await log(`?limit=1000${cursor ? `&before_id=${cursor}` : ''}`);
    all.push(...page.entries);
    cursor = page.next_before_id;
  } while (cursor);
  return all.reverse();
}

describe('entries of admin actions', () => {
  it('records each admin action with its actor and target, never a token secret', async () => {
    const { agent_id } = await h.registerAgent();
    const issued = (await h.call('POST', '/engine/admin/tokens', { client_name: 'risk desk', role: 'auditor' })).json();
    expect((await h.call('DELETE', `/engine/admin/tokens/${issued.token_id}`)).statusCode).toBe(200);
    expect((await h.call('POST', `/engine/admin/agents/${agent_id}/models`, { model_id: 'alpha-8', model_hash_hex: 'b'.repeat(64) })).statusCode).toBe(201);
    expect((await h.call('PATCH', `/engine/admin/agents/${agent_id}/status`, { status: 'Suspended', reason: 'drawdown review' })).statusCode).toBe(200);
    expect((await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'dry run of policy 1.2' })).statusCode).toBe(200);
    expect((await h.call('POST', '/engine/admin/shadow-mode', { enabled: false })).statusCode).toBe(200);

    const entries = (await log('?limit=8')).entries;
    const owner = (await h.call('GET', '/engine/admin/tokens')).json().tokens.find((t: { role: string; client_name: string }) => t.client_name === 'bootstrap');
    const actor = `token:${owner.token_id} (bootstrap)`;
    expect(entries.map((e) => [e.action, e.target_id])).toEqual([
      ['shadow.disable', null],
      ['shadow.enable', null],
      ['agent.status', agent_id],
      ['agent.model_add', agent_id],
      ['token.revoke', issued.token_id],
      ['token.issue', issued.token_id],
      ['token.issue', expect.any(String)],
      ['agent.register', agent_id],
    ]);
    expect(entries.every((e) => e.actor === actor)).toBe(true);
    expect(entries[1]!.details).toEqual({ reason: 'dry run of policy 1.2' });
    expect(entries[2]!.details).toEqual({ status: 'Suspended', reason: 'drawdown review' });
    expect(entries[3]!.details).toEqual({ model_id: 'alpha-8', model_hash_hex: 'b'.repeat(64) });
    expect(entries[5]!.details).toMatchObject({ client_name: 'risk desk', role: 'auditor', agent_ids: null });
    // The registration's name is personal data (erasable); the entry keeps the limits and models only.
    expect(entries[7]!.details).toMatchObject({ max_notional: 200_000, models: [{ model_id: 'alpha-7' }] });
    expect(entries[7]!.details).not.toHaveProperty('name');
    const text = JSON.stringify(await log('?limit=1000'));
    expect(text).not.toContain(issued.token);
    expect(text).not.toContain(h.ownerToken);
    expect(text).not.toMatch(/tse_/);
  });

  it("records an operator's regime broadcast", async () => {
    const published = (await h.call('POST', '/engine/admin/regime', { regime: 'tightening', risk_score: 0.6, reason: 'credit spreads blew out' })).json();
    const [entry] = (await log('?action=regime.publish&limit=1')).entries;
    expect(entry!.details).toMatchObject({
      broadcast_id: expect.any(Number),
      regime: 'tightening',
      hash: published.hash,
      reason: 'credit spreads blew out',
      source: 'manual',
    });
    await h.publishRegime('expansion');
  });

  it('writes nothing when the action fails', async () => {
    const before = (await log('?limit=1')).entries[0]!.id;
    expect((await h.call('DELETE', `/engine/admin/tokens/${randomUUID()}`)).statusCode).toBe(404);
    expect((await h.call('PATCH', `/engine/admin/agents/${randomUUID()}/status`, { status: 'Active' })).statusCode).toBe(404);
    expect((await h.call('POST', '/engine/admin/shadow-mode', { enabled: true })).statusCode).toBe(422);
    expect((await log('?limit=1')).entries[0]!.id).toBe(before);
  });
});

describe('entries of refused authorizations', () => {
  it('records the agent, the rule and the order of every 403, without the personal data', async () => {
    const { agent_id, token } = await h.registerAgent({ max_notional: 10_000 });
    const order = h.order(agent_id, { regulatory: { mifid_decision_maker: 'Jane Trader', jurisdiction: 'EU' } });
    const refused = await h.call('POST', '/engine/authorize', order, token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('notional_cap_exceeded');

    const [entry] = (await log(`?action=authorize.reject&target_id=${agent_id}`)).entries;
    expect(entry).toMatchObject({ action: 'authorize.reject', target_id: agent_id, actor: expect.stringMatching(/^token:.* \(agent\)$/) });
    expect(entry!.details).toMatchObject({
      code: 'notional_cap_exceeded',
      detail: refused.json().detail,
      order: { client_order_id: order.client_order_id, asset: 'AAPL', quantity: 100, notional: 19_000, action: 'Long' },
    });
    expect(JSON.stringify(entry)).not.toContain('Jane Trader');

    // A token bound to another agent is refused too (agent_not_permitted): also an entry.
    const other = await h.registerAgent();
    expect((await h.call('POST', '/engine/authorize', h.order(other.agent_id), token)).statusCode).toBe(403);
    const [second] = (await log(`?action=authorize.reject&target_id=${other.agent_id}`)).entries;
    expect(second!.details.code).toBe('agent_not_permitted');

    // An authorized order is no entry.
    const count = (await log('?action=authorize.reject&limit=1000')).count;
    expect((await h.call('POST', '/engine/authorize', h.order(other.agent_id), other.token)).statusCode).toBe(200);
    expect((await log('?action=authorize.reject&limit=1000')).count).toBe(count);
  });
});

describe('the chain', () => {
  it('links every entry to the one before, from 64 zeros, and a third party recomputes each hash', async () => {
    const all = await wholeLog();
    expect(all.length).toBeGreaterThan(10);
    expect(all[0]!.prev_hash).toBe(GENESIS_HASH);
    expect(GENESIS_HASH).toBe('0'.repeat(64));
    all.forEach((e, i) => {
      expect(e.entry_hash).toBe(recompute(e));
      if (i > 0) expect(e.prev_hash).toBe(all[i - 1]!.entry_hash);
      expect(e.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });
    const v = await verifyAuditChain(h.store.sql, { pageSize: 7 });
    expect(v).toEqual({ valid: true, entries: all.length, head: all.at(-1)!.entry_hash, broken: null });
  });

  it('never forks under concurrent appends', async () => {
    const before = (await wholeLog()).length;
    await Promise.all(Array.from({ length: 40 }, (_, i) => appendAudit(h.store.sql, { actor: 'test', action: 'reconcile', target_id: null, details: { i } })));
    const all = await wholeLog();
    expect(all.length).toBe(before + 40);
    expect(new Set(all.map((e) => e.prev_hash)).size).toBe(all.length);
    expect((await verifyAuditChain(h.store.sql)).valid).toBe(true);
  });

  it("rolls back with the caller's transaction", async () => {
    const before = (await log('?limit=1')).entries[0]!.id;
    await expect(
      h.store.sql.begin(async (tx) => {
        await appendAudit(tx, { actor: 'test', action: 'reconcile', target_id: null, details: {} });
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    expect((await log('?limit=1')).entries[0]!.id).toBe(before);
  });

  it('is append-only: UPDATE, DELETE and TRUNCATE are refused by the database', async () => {
    const sql = h.store.sql;
    await expect(sql`update audit_log set actor = 'someone else'`).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(sql`delete from audit_log`).rejects.toThrow(/append-only: DELETE refused/);
    await expect(sql`truncate audit_log`).rejects.toThrow(/append-only: TRUNCATE refused/);
    expect((await verifyAuditChain(sql)).valid).toBe(true);
  });
});

describe('GET /engine/admin/audit-log', () => {
  it('pages newest first with before_id, and filters by action, target and time', async () => {
    const all = (await wholeLog()).reverse();
    const first = await log('?limit=3');
    expect(first.entries.map((e) => e.id)).toEqual(all.slice(0, 3).map((e) => e.id));
    expect(first).toMatchObject({ count: 3, has_more: true, next_before_id: all[2]!.id });
    const second = await log(`?limit=3&before_id=${first.next_before_id}`);
    expect(second.entries.map((e) => e.id)).toEqual(all.slice(3, 6).map((e) => e.id));

    const issues = await log('?action=token.issue&limit=1000');
    expect(issues.entries.length).toBe(all.filter((e) => e.action === 'token.issue').length);
    expect(issues.has_more).toBe(false);
    expect(issues.next_before_id).toBeNull();

    const pivot = all[5]!.at;
    const window = await log(`?to=${encodeURIComponent(pivot)}&limit=1000`);
    expect(window.entries.every((e) => e.at <= pivot)).toBe(true);
    expect(window.entries.map((e) => e.id)).toContain(all[5]!.id);
    const after = await log(`?from=${encodeURIComponent(pivot)}&limit=1000`);
    expect(after.entries.every((e) => e.at >= pivot)).toBe(true);
    expect(after.count + window.count).toBeGreaterThanOrEqual(all.length);
  });

  it('defaults to 100 entries and refuses a limit over 1000, a reversed window and bad values with 422', async () => {
    await Promise.all(Array.from({ length: 110 }, (_, i) => appendAudit(h.store.sql, { actor: 'test', action: 'reconcile', target_id: null, details: { i } })));
    expect((await log()).count).toBe(100);
    for (const query of [
      'limit=1001',
      'limit=0',
      'action=token.steal',
      'target_id=42',
      'from=yesterday',
      'before_id=x',
      'colour=red',
      'from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z',
    ]) {
      const res = await h.call('GET', `/engine/admin/audit-log?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.json().code).toBe('validation_failed');
    }
    const unknown = await h.call('GET', `/engine/admin/audit-log?before_id=${randomUUID()}`);
    expect(unknown.statusCode).toBe(404);
  });

  it('answers owner and auditor tokens, 403 to a client token, 401 without one', async () => {
    const auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'compliance', role: 'auditor' })).json().token;
    const client = (await h.call('POST', '/engine/admin/tokens', { client_name: 'desk' })).json().token;
    expect((await h.call('GET', '/engine/admin/audit-log', undefined, auditor)).statusCode).toBe(200);
    expect((await h.call('GET', '/engine/admin/audit-log', undefined, client)).statusCode).toBe(403);
    expect((await h.call('GET', '/engine/admin/audit-log', undefined, null)).statusCode).toBe(401);
  });
});
