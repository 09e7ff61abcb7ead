/**
 * Reconciliation with an exchange drop copy (`POST /engine/admin/reconcile`): executions no trace was bound
 * to become ORPHAN traces that verify like any trace; bound traces of the window the drop copy does not list
 * are reported; the same drop copy again (even twice at once) creates nothing new; the audit log records the
 * counts; and a bad drop copy is a 422 naming each bad field.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

let h: EngineHarness;
let agent: { agent_id: string; token: string };
let other: { agent_id: string; token: string };
/** The harness clock when the file starts: executions are placed after it, within their authorizations' validity. */
let T0 = 0;
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

/** An authorized order of `who`, authorized a second before it executed, bound to `exchangeTxId` executed at `minutes` after T0. */
async function boundTrace(who: { agent_id: string; token: string }, exchangeTxId: string, minutes: number): Promise<string> {
  h.clock.now = Math.max(h.clock.now, T0 + minutes * 60_000 - 1000);
  const auth = await h.call('POST', '/engine/authorize', h.order(who.agent_id), who.token);
  expect(auth.statusCode, auth.body).toBe(200);
  const traceId = auth.json().trace_id as string;
  const bind = await h.call(
    'POST',
    '/engine/bind-execution',
    {
      trace_id: traceId,
      exchange_tx_id: exchangeTxId,
      execution_status: 'Filled',
      execution_time_ms: Date.parse(at(minutes)),
    },
    who.token,
  );
  expect(bind.statusCode, bind.body).toBe(200);
  return traceId;
}

const execution = (exchangeTxId: string, minutes: number, overrides: Record<string, unknown> = {}) => ({
  exchange_tx_id: exchangeTxId,
  asset: 'AAPL',
  side: 'Long',
  quantity: 100,
  price: 190,
  agent_id: agent.agent_id,
  execution_time: at(minutes),
  ...overrides,
});

const reconcile = (body: unknown, token?: string | null) => h.call('POST', '/engine/admin/reconcile', body, token);

beforeAll(async () => {
  h = await engineHarness({ max: 20 });
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
  other = await h.registerAgent();
  T0 = h.clock.now;
});
afterAll(async () => h?.close());

describe('POST /engine/admin/reconcile', () => {
  let matchedId: string;
  let missingId: string;
  const dropCopy = () => ({
    executions: [
      execution('R1-X1', 10),
      execution('R1-N1', 20, { client_order_id: 'desk-manual-7', side: 'Short', quantity: 3, price: 401.25 }),
      execution('R1-N2', 30, { asset: 'MSFT' }),
    ],
  });

  it('matches bound executions, records the others as ORPHAN traces and reports the bound ones it does not list', async () => {
    matchedId = await boundTrace(agent, 'R1-X1', 10);
    missingId = await boundTrace(agent, 'R1-X9', 25);
    await boundTrace(agent, 'R1-LATER', 45); // outside the window (10..30 minutes)
    await boundTrace(other, 'R1-OTHER', 15); // another agent: not this drop copy's

    const res = await reconcile(dropCopy());
    expect(res.statusCode, res.body).toBe(200);
    const r = res.json();
    expect(r).toMatchObject({
      executions: 3,
      window: { from: at(10), to: at(30) },
      agent_ids: [agent.agent_id],
      counts: { matched: 1, orphans_created: 2, already_known: 0, missing: 1 },
      matched: [{ exchange_tx_id: 'R1-X1', trace_id: matchedId, agent_id: agent.agent_id }],
      missing: [{ trace_id: missingId, exchange_tx_id: 'R1-X9', execution_time: at(25) }],
      already_known: [],
    });
    expect(r.orphans_created.map((o: { exchange_tx_id: string }) => o.exchange_tx_id).sort()).toEqual(['R1-N1', 'R1-N2']);

    const orphan = r.orphans_created.find((o: { exchange_tx_id: string }) => o.exchange_tx_id === 'R1-N1');
    const doc = (await h.call('GET', `/engine/trace/${orphan.trace_id}`)).json();
    expect(doc).toMatchObject({
      version: 'Reasoning_Trace_v1',
      trace_id: orphan.trace_id,
      bitemporal: { valid_time: at(20), time_source: 'exchange_drop_copy' },
      agent: { agent_id: agent.agent_id, feature_schema_id: null, latent_fingerprint: null },
      execution: {
        action: 'Short',
        asset: 'AAPL',
        quantity: 3,
        notional: 3 * 401.25,
        notional_currency: 'USD',
        client_order_id: 'desk-manual-7',
        order_type: null,
      },
      policy: { result: 'UNAUTHORIZED', hash: h.ctx.policy.hash },
      regulatory: null,
      reconciliation: { exchange_tx_id: 'R1-N1', price: 401.25, execution_time: at(20) },
      integrity: { status: 'ORPHAN', verification_status: 'Orphan', exchange_tx_id: 'R1-N1' },
    });
    // Anyone holding the document recomputes both hashes: the sealed form is the document without integrity.
    const { integrity, ...sealed } = doc;
    const { canonicalJson } = await import('../../src/core/crypto/jcs.js');
    expect(sha256(canonicalJson(sealed))).toBe(integrity.reasoning_hash);
    expect(integrity.final_proof).toBe(sha256(`${integrity.reasoning_hash}||R1-N1`));
    for (const o of r.orphans_created) {
      const verified = (await h.call('GET', `/engine/trace/${o.trace_id}/verify`)).json();
      expect(verified.valid, JSON.stringify(verified.checks)).toBe(true);
    }
    const withoutOrderId = r.orphans_created.find((o: { exchange_tx_id: string }) => o.exchange_tx_id === 'R1-N2');
    expect((await h.call('GET', `/engine/trace/${withoutOrderId.trace_id}`)).json().execution).toMatchObject({
      client_order_id: null,
      asset: 'MSFT',
      venue_id: null,
    });

    const orphans = (await h.call('GET', '/engine/orphans')).json().traces.filter((t: { status: string }) => t.status === 'ORPHAN');
    expect(orphans.map((t: { trace_id: string }) => t.trace_id).sort()).toEqual(r.orphans_created.map((o: { trace_id: string }) => o.trace_id).sort());

    const [entry] = (await h.call('GET', '/engine/admin/audit-log?action=reconcile&limit=1')).json().entries;
    expect(entry).toMatchObject({
      id: r.audit_entry_id,
      action: 'reconcile',
      details: { source: 'http', executions: 3, matched: 1, orphans_created: 2, already_known: 0, missing: 1, drop_copy_hash: r.drop_copy_hash },
    });
  });

  it('changes nothing when the same drop copy comes again', async () => {
    const tracesBefore = (await h.call('GET', '/engine/traces?limit=5000')).json().count;
    const again = (await reconcile(dropCopy())).json();
    expect(again.counts).toEqual({ matched: 1, divergent: 0, orphans_created: 0, already_known: 2, missing: 1 });
    expect(again.already_known.map((o: { exchange_tx_id: string }) => o.exchange_tx_id).sort()).toEqual(['R1-N1', 'R1-N2']);
    expect((await h.call('GET', '/engine/traces?limit=5000')).json().count).toBe(tracesBefore);
  });

  it('creates each orphan once when the same drop copy is reconciled twice at once', async () => {
    const body = { executions: Array.from({ length: 30 }, (_, i) => execution(`R2-${i}`, 100 + i)) };
    const [a, b] = await Promise.all([reconcile(body), reconcile(body)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    const created = [a, b].map((r) => r.json().counts.orphans_created as number);
    expect(created.reduce((x, y) => x + y)).toBe(30);
    expect(created.sort()).toEqual([0, 30]);
  });

  it('honours an explicit window and agent list for what is missing', async () => {
    const outside = await boundTrace(other, 'R3-OTHER', 200);
    const body = { executions: [execution('R3-N1', 205)], from: at(190), to: at(210), agent_ids: [agent.agent_id, other.agent_id] };
    const r = (await reconcile(body)).json();
    expect(r.window).toEqual({ from: at(190), to: at(210) });
    expect(r.missing.map((m: { trace_id: string }) => m.trace_id)).toEqual([outside]);
    const narrow = (await reconcile({ ...body, agent_ids: [agent.agent_id] })).json();
    expect(narrow.counts).toMatchObject({ missing: 0, already_known: 1 });
  });

  it('refuses a bad drop copy with 422 naming every bad field, and writes nothing', async () => {
    const before = (await h.call('GET', '/engine/admin/audit-log?action=reconcile&limit=1000')).json().count;
    const cases: Array<[unknown, string[]]> = [
      [{ executions: [execution('D-1', 1), execution('D-1', 2)] }, ['executions[1].exchange_tx_id']],
      [
        { executions: [execution('D-2', 1, { side: 'Buy', quantity: -1, colour: 'red' })] },
        ['executions[0].side', 'executions[0].quantity', 'executions[0].colour'],
      ],
      [
        { executions: [execution('D-3', 1, { execution_time: '2026-02-02T09:00:00', exchange_tx_id: 'has space' })] },
        ['executions[0].execution_time', 'executions[0].exchange_tx_id'],
      ],
      [{ executions: [] }, ['executions']],
      [{ executions: [execution('D-4', 1)], from: at(5), to: at(1) }, ['from']],
      [{ executions: [execution('D-5', 1, { agent_id: 'agent-7' })], agent_ids: ['x'] }, ['executions[0].agent_id', 'agent_ids[0]']],
      [{}, ['executions']],
    ];
    for (const [body, fields] of cases) {
      const res = await reconcile(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(
        res
          .json()
          .errors.map((e: { field: string }) => e.field)
          .sort(),
        JSON.stringify(body),
      ).toEqual([...fields].sort());
    }
    expect((await h.call('GET', '/engine/admin/audit-log?action=reconcile&limit=1000')).json().count).toBe(before);
    const [row] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from orphan_executions where exchange_tx_id like 'D-%'`;
    expect(row?.n).toBe(0);
  });

  it('compares each execution of an authorized trace with its authorization and bind, and reports the divergent ones field by field', async () => {
    const bound = await boundTrace(agent, 'V-BOUND', 300);
    const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, { client_order_id: 'V-ORDER' }), agent.token);
    const ordered = auth.json().trace_id as string;
    const res = await reconcile({
      executions: [
        execution('V-BOUND', 300, { asset: 'TSLA', side: 'Short', quantity: 9999, price: 1.5 }),
        execution('V-P1', 301, { client_order_id: 'V-ORDER', quantity: 60 }),
        execution('V-P2', 302, { client_order_id: 'V-ORDER', quantity: 50 }),
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const r = res.json();
    expect(r.counts).toMatchObject({ matched: 1, divergent: 2, orphans_created: 0 });
    expect(r.matched).toEqual([{ exchange_tx_id: 'V-P1', trace_id: ordered, agent_id: agent.agent_id }]);
    const fields = (id: string) =>
      r.divergent
        .find((d: { exchange_tx_id: string }) => d.exchange_tx_id === id)
        .differences.map((d: { field: string; ours: unknown; theirs: unknown }) => [d.field, d.ours, d.theirs]);
    expect(fields('V-BOUND')).toEqual([
      ['asset', 'AAPL', 'TSLA'],
      ['action', 'Long', 'Short'],
      ['quantity', 100, 9999],
      ['limit_price', 190, 1.5],
    ]);
    expect(r.divergent.find((d: { exchange_tx_id: string }) => d.exchange_tx_id === 'V-BOUND').trace_id).toBe(bound);
    expect(fields('V-P2')).toEqual([['quantity', 100, 110]]);
  });

  it('needs an owner token', async () => {
    expect((await reconcile({ executions: [execution('P-1', 1)] }, agent.token)).statusCode).toBe(403);
    const auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'compliance', role: 'auditor' })).json().token;
    expect((await reconcile({ executions: [execution('P-1', 1)] }, auditor)).statusCode).toBe(403);
    expect((await reconcile({ executions: [execution('P-1', 1)] }, null)).statusCode).toBe(401);
  });
});
