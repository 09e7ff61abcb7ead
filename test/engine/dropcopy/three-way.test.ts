/**
 * The drop copy as a control (src/engine/dropcopy/apply.ts, src/engine/reconcile/), batches applied against real
 * PostgreSQL next to the engine's routes: a fill that contradicts its bind and authorization, or names another
 * agent's Account, is `divergent` with the fields that differ, in the served trace, the audit log and the session's
 * status; partial fills of one order are cumulated; a bind after the drop copy resolves the ORPHAN its fill made
 * (one trace per execution, also when the two commit at the same instant, many times); a repeated ExecID with other
 * fields on the same trading day is a conflict, kept and audited, and on another trading day a new execution.
 */
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeSource } from '../../../src/cli/attention/source.js';
import { ATTENTION_TABS } from '../../../src/cli/attention/tabs.js';
import { applyBatch, type DropCopyBatch } from '../../../src/engine/dropcopy/apply.js';
import { readDropCopyStatus } from '../../../src/engine/dropcopy/status.js';
import { sweep } from '../../../src/engine/sweeper.js';
import { verifyAuditChain } from '../../../src/engine/audit/verify.js';
import { ACTOR, fillOf as fillAt, SESSION_KEY, sessionRow } from '../../helpers/dropcopy-inbound.js';
import { engineHarness, type EngineHarness } from '../../helpers/engine.js';

let h: EngineHarness;
let agent: { agent_id: string; token: string };
let other: { agent_id: string; token: string };
let conn: postgres.ReservedSql;
let seq = 1;
const EPOCH = 1;

/** A fill executed now by the engine's clock (within its authorization's validity), unless it says otherwise. */
const fillOf = (...[n, x, agentId, o]: Parameters<typeof fillAt>) => fillAt(n, x, agentId, { execution_time: new Date(h.clock.now).toISOString(), ...o });

const batch = (fills: DropCopyBatch['fills']): DropCopyBatch => ({
  sessionKey: SESSION_KEY,
  epoch: EPOCH,
  fills,
  rejects: [],
  watermark: ++seq,
  lastInboundAt: new Date(),
  policy: h.ctx.policy,
  now: new Date(),
  actor: ACTOR,
});

async function authorize(overrides: Record<string, unknown> = {}): Promise<{ trace_id: string; client_order_id: string }> {
  h.clock.now += 60; // under the agent's order rate (20 a second)
  const order = h.order(agent.agent_id, overrides);
  const res = await h.call('POST', '/engine/authorize', order, agent.token);
  expect(res.statusCode, res.body).toBe(200);
  return { trace_id: res.json().trace_id as string, client_order_id: order.client_order_id as string };
}

const bind = (traceId: string, exchangeTxId: string, extra: Record<string, unknown> = {}) =>
  h.call(
    'POST',
    '/engine/bind-execution',
    {
      trace_id: traceId,
      exchange_tx_id: exchangeTxId,
      execution_status: 'Filled',
      execution_time_ms: h.clock.now,
      ...extra,
    },
    agent.token,
  );

const trace = async (id: string) => (await h.call('GET', `/engine/trace/${id}`)).json();
const orphansListed = async () => ((await h.call('GET', '/engine/orphans?limit=5000')).json().traces as Array<{ trace_id: string }>).map((t) => t.trace_id);
const audits = async (action: string) =>
  (await h.call('GET', `/engine/admin/audit-log?action=${action}&limit=1000`)).json().entries as Array<{
    actor: string;
    target_id: string | null;
    details: Record<string, unknown>;
  }>;

/** Traces of the execution that stand for it: bound ones, and ORPHANs no bind resolved. */
const liveTraces = (exchangeTxId: string) => h.store.sql<Array<{ trace_id: string; status: string }>>`
  select trace_id::text as trace_id, status from traces t where t.exchange_tx_id = ${exchangeTxId}
    and (t.status <> 'ORPHAN' or not exists (select 1 from orphan_executions o where o.trace_id = t.trace_id and o.resolved_by is not null))`;

beforeAll(async () => {
  h = await engineHarness({ max: 12 });
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
  other = await h.registerAgent();
  await sessionRow(h.store.sql, EPOCH);
  conn = await h.store.sql.reserve();
});
afterAll(async () => {
  conn?.release();
  await h?.close();
});

describe('three-way reconciliation of a fill', () => {
  it('records a fill that contradicts its bind and authorization as divergent, with the fields that differ, where the officer looks', async () => {
    const { trace_id: traceId } = await authorize();
    const x = `TW-${randomUUID()}`;
    expect((await bind(traceId, x, { asset: 'AAPL', executed_side: 'Long', executed_quantity: 100, execution_price: 189.97 })).statusCode).toBe(200);
    const applied = await applyBatch(conn, batch([fillOf(seq, x, agent.agent_id, { asset: 'TSLA', side: 'Short', quantity: 9999, price: 1.5 })]));
    expect(applied.fills).toMatchObject([{ exec_id: x, outcome: 'divergent', trace_id: traceId }]);
    const expected = [
      ['asset', 'AAPL', 'TSLA'],
      ['action', 'Long', 'Short'],
      ['quantity', 100, 9999],
      ['limit_price', 190, 1.5],
      ['executed_asset', 'AAPL', 'TSLA'],
      ['executed_side', 'Long', 'Short'],
      ['executed_quantity', 100, 9999],
      ['execution_price', 189.97, 1.5],
    ];
    const pick = (ds: Array<{ field: string; ours: unknown; theirs: unknown; rule: string }>) => ds.map((d) => [d.field, d.ours, d.theirs]);

    const doc = await trace(traceId);
    expect(doc.integrity.reconciliation.fills).toHaveLength(1);
    expect(doc.integrity.reconciliation.fills[0]).toMatchObject({ exec_id: x, outcome: 'divergent' });
    expect(pick(doc.integrity.reconciliation.fills[0].differences)).toEqual(expected);
    const entry = (await audits('dropcopy.fill')).find((e) => e.details.exec_id === x);
    expect(entry).toMatchObject({ target_id: traceId, details: { outcome: 'divergent' } });
    expect(pick(entry!.details.differences as never)).toEqual(expected);
    const status = await readDropCopyStatus(h.store.sql, null, new Date());
    expect(status.fills.divergent).toBeGreaterThanOrEqual(1);
    // The sealed part is untouched: the trace still verifies.
    expect((await h.call('GET', `/engine/trace/${traceId}/verify`)).json().valid).toBe(true);
  });

  it("records a fill naming another agent's Account as divergent on agent_id", async () => {
    const { trace_id: traceId } = await authorize();
    const x = `TW-${randomUUID()}`;
    expect((await bind(traceId, x)).statusCode).toBe(200);
    const applied = await applyBatch(conn, batch([fillOf(seq, x, other.agent_id)]));
    expect(applied.fills).toMatchObject([
      { outcome: 'divergent', trace_id: traceId, differences: [{ field: 'agent_id', ours: agent.agent_id, theirs: other.agent_id }] },
    ]);
  });

  it('cumulates the partial fills of one order (its ClOrdID) against the authorized quantity, across batches', async () => {
    const { trace_id: traceId, client_order_id: clOrdId } = await authorize();
    const applied = await applyBatch(
      conn,
      batch([
        fillOf(seq, `TW-P1-${clOrdId}`, agent.agent_id, { quantity: 60, client_order_id: clOrdId }),
        fillOf(seq, `TW-P2-${clOrdId}`, agent.agent_id, { quantity: 40, client_order_id: clOrdId }),
      ]),
    );
    expect(applied.fills.map((f) => [f.outcome, f.trace_id])).toEqual([
      ['matched', traceId],
      ['matched', traceId],
    ]);
    const over = await applyBatch(conn, batch([fillOf(seq, `TW-P3-${clOrdId}`, agent.agent_id, { quantity: 10, client_order_id: clOrdId })]));
    expect(over.fills).toMatchObject([{ outcome: 'divergent', trace_id: traceId, differences: [{ field: 'quantity', ours: 100, theirs: 110 }] }]);
  });
});

describe('one execution, one trace', () => {
  it('resolves the ORPHAN of a fill when the bind of its execution arrives after it', async () => {
    const { trace_id: traceId } = await authorize();
    const x = `TW-${randomUUID()}`;
    const [fill] = (await applyBatch(conn, batch([fillOf(seq, x, agent.agent_id)]))).fills;
    expect(fill?.outcome).toBe('orphan');
    const orphanId = fill!.trace_id!;
    expect(await orphansListed()).toContain(orphanId);

    expect((await bind(traceId, x)).statusCode).toBe(200);
    expect(await liveTraces(x)).toEqual([{ trace_id: traceId, status: 'MATCHED' }]);
    expect(await orphansListed()).not.toContain(orphanId);
    // Nor in the ORPHAN tab of the officers' terminal view, read from the store or from the engine.
    const tab = ATTENTION_TABS.find((t) => t.id === 'orphan')!;
    expect((await storeSource(h.store.sql, null).page(tab, { search: null, after: null, limit: 5000 })).items.map((t) => t.trace_id)).not.toContain(orphanId);
    const remote = (await h.call('GET', '/engine/traces?status=ORPHAN&needs_attention=true&limit=5000'))
      .json()
      .traces.map((t: { trace_id: string }) => t.trace_id);
    expect(remote).not.toContain(orphanId);
    expect((await h.call('GET', '/engine/traces?status=ORPHAN&limit=5000')).json().traces.map((t: { trace_id: string }) => t.trace_id)).toContain(orphanId);
    const [row] = await h.store.sql`select outcome, trace_id::text, orphan_trace_id::text from dropcopy_executions where exec_id = ${x}`;
    expect({ ...row }).toEqual({ outcome: 'matched', trace_id: traceId, orphan_trace_id: orphanId });
    const orphanDoc = await trace(orphanId);
    expect(orphanDoc.integrity).toMatchObject({ status: 'ORPHAN', reconciliation: { resolved_by: traceId, resolved_at: expect.any(String) } });
    expect((await trace(traceId)).integrity.reconciliation).toMatchObject({
      fills: [{ exec_id: x, outcome: 'matched', orphan_trace_id: orphanId }],
      resolved: [{ orphan_trace_id: orphanId, exchange_tx_id: x }],
    });
    expect((await audits('orphan.resolved')).find((e) => e.details.exchange_tx_id === x)).toMatchObject({
      target_id: orphanId,
      details: { orphan_trace_id: orphanId, trace_id: traceId, outcome: 'matched', differences: [] },
    });
    // A resend of the fill is a duplicate naming the execution's trace.
    expect((await applyBatch(conn, batch([fillOf(seq, x, agent.agent_id, { possDup: true })]))).fills).toMatchObject([{ outcome: 'duplicate' }]);
  });

  it('has the sweeper record a resolution whose bind stopped before recording it', async () => {
    const { trace_id: traceId } = await authorize();
    const x = `TW-${randomUUID()}`;
    const orphanId = (await applyBatch(conn, batch([fillOf(seq, x, agent.agent_id)]))).fills[0]!.trace_id!;
    expect((await bind(traceId, x)).statusCode).toBe(200);
    // As the bind's statement leaves it when the process stops before the comparison and the audit entry.
    await h.store.sql`update orphan_executions set resolution_recorded_at = null, differences = null where exchange_tx_id = ${x}`;
    await h.store.sql`update dropcopy_executions set trace_id = ${orphanId}, orphan_trace_id = null, outcome = 'orphan' where exec_id = ${x}`;
    await sweep(h.store.sql, h.clock.now, 86_400_000);
    const [row] = await h.store.sql`select outcome, trace_id::text, orphan_trace_id::text from dropcopy_executions where exec_id = ${x}`;
    expect({ ...row }).toEqual({ outcome: 'matched', trace_id: traceId, orphan_trace_id: orphanId });
    const entries = (await audits('orphan.resolved')).filter((e) => e.details.exchange_tx_id === x);
    expect(entries.map((e) => e.actor)).toContain('sweeper');
    // Recorded once: another sweep records nothing more.
    await sweep(h.store.sql, h.clock.now, 86_400_000);
    expect((await audits('orphan.resolved')).filter((e) => e.details.exchange_tx_id === x)).toHaveLength(entries.length);
  });

  it('compares the fill when the resolving bind says something else', async () => {
    const { trace_id: traceId } = await authorize();
    const x = `TW-${randomUUID()}`;
    await applyBatch(conn, batch([fillOf(seq, x, agent.agent_id, { quantity: 100, price: 191 })]));
    expect((await bind(traceId, x, { execution_price: 190 })).statusCode).toBe(200);
    const entry = (await audits('orphan.resolved')).find((e) => e.details.exchange_tx_id === x);
    expect(entry?.details).toMatchObject({
      outcome: 'divergent',
      differences: [
        { field: 'limit_price', ours: 190, theirs: 191 },
        { field: 'execution_price', ours: 190, theirs: 191 },
      ],
    });
  });

  it('does not let an authorization sealed after the execution resolve its ORPHAN as matched: divergent, and still listed', async () => {
    const x = `TW-${randomUUID()}`;
    // 10:00: an order sent straight to the exchange; its fill becomes an ORPHAN.
    const orphanId = (await applyBatch(conn, batch([fillOf(seq, x, agent.agent_id)]))).fills[0]!.trace_id!;
    const executedAt = new Date(h.clock.now).toISOString();
    // 10:05: the agent authorizes an identical order and binds it with the same exchange_tx_id.
    h.clock.now += 5 * 60_000;
    const { trace_id: traceId } = await authorize();
    expect((await bind(traceId, x)).statusCode).toBe(200);
    const entry = (await audits('orphan.resolved')).find((e) => e.details.exchange_tx_id === x);
    expect(entry?.details).toMatchObject({ outcome: 'divergent', differences: [{ field: 'execution_time', theirs: executedAt }] });
    // The officer still sees the ORPHAN (the API's listing and the view's ORPHAN tab).
    expect(await orphansListed()).toContain(orphanId);
    const tab = ATTENTION_TABS.find((t) => t.id === 'orphan')!;
    expect((await storeSource(h.store.sql, null).page(tab, { search: null, after: null, limit: 5000 })).items.map((t) => t.trace_id)).toContain(orphanId);
  });

  it('keeps a resolved ORPHAN listed until its comparison is recorded', async () => {
    const { trace_id: traceId } = await authorize();
    const x = `TW-${randomUUID()}`;
    const orphanId = (await applyBatch(conn, batch([fillOf(seq, x, agent.agent_id)]))).fills[0]!.trace_id!;
    expect((await bind(traceId, x)).statusCode).toBe(200);
    expect(await orphansListed()).not.toContain(orphanId);
    // As the bind's statement leaves it when the process stops before the comparison is recorded.
    await h.store.sql`update orphan_executions set resolution_recorded_at = null, differences = null where exchange_tx_id = ${x}`;
    await h.store.sql`update dropcopy_executions set trace_id = ${orphanId}, orphan_trace_id = null, outcome = 'orphan' where exec_id = ${x}`;
    expect(await orphansListed()).toContain(orphanId);
    await sweep(h.store.sql, h.clock.now, 86_400_000);
    expect(await orphansListed()).not.toContain(orphanId);
  });

  it("does not let another agent's bind resolve an ORPHAN", async () => {
    const x = `TW-${randomUUID()}`;
    const orphanId = (await applyBatch(conn, batch([fillOf(seq, x, agent.agent_id)]))).fills[0]!.trace_id!;
    h.clock.now += 60;
    const order = h.order(other.agent_id);
    const auth = await h.call('POST', '/engine/authorize', order, other.token);
    expect(auth.statusCode, auth.body).toBe(200);
    const res = await h.call(
      'POST',
      '/engine/bind-execution',
      { trace_id: auth.json().trace_id, exchange_tx_id: x, execution_status: 'Filled', execution_time_ms: h.clock.now },
      other.token,
    );
    expect(res.statusCode).toBe(200);
    const [claim] = await h.store.sql`select resolved_by from orphan_executions where exchange_tx_id = ${x}`;
    expect(claim?.resolved_by).toBeNull();
    expect(await orphansListed()).toContain(orphanId);
    const [row] = await h.store.sql`select outcome, trace_id::text from dropcopy_executions where exec_id = ${x}`;
    expect({ ...row }).toEqual({ outcome: 'orphan', trace_id: orphanId });
  });

  it('leaves exactly one live trace per execution when the bind and the fill commit at the same instant, many times', async () => {
    const rounds = 25;
    const ids: Array<{ x: string; traceId: string }> = [];
    for (let i = 0; i < rounds; i++) ids.push({ x: `TW-RACE-${randomUUID()}`, traceId: (await authorize()).trace_id });
    const conns = await Promise.all([0, 1, 2].map(() => h.store.sql.reserve()));
    try {
      for (let i = 0; i < rounds; i += conns.length) {
        const round = ids.slice(i, i + conns.length);
        await Promise.all(
          round.flatMap(({ x, traceId }, j) => [
            bind(traceId, x).then((r) => expect(r.statusCode, r.body).toBe(200)),
            applyBatch(conns[j]!, batch([fillOf(seq, x, agent.agent_id)])),
          ]),
        );
      }
    } finally {
      for (const c of conns) c.release();
    }
    const outcomes = new Map<string, number>();
    for (const { x, traceId } of ids) {
      expect(await liveTraces(x)).toEqual([{ trace_id: traceId, status: 'MATCHED' }]);
      const [row] = await h.store.sql<
        Array<{ outcome: string; trace_id: string }>
      >`select outcome, trace_id::text from dropcopy_executions where exec_id = ${x}`;
      expect(row?.trace_id).toBe(traceId);
      outcomes.set(row!.outcome, (outcomes.get(row!.outcome) ?? 0) + 1);
    }
    expect([...outcomes.keys()]).toEqual(['matched']);
    const listed = new Set(await orphansListed());
    const orphans = await h.store.sql<
      Array<{ trace_id: string }>
    >`select trace_id::text from traces where status = 'ORPHAN' and exchange_tx_id like 'TW-RACE-%'`;
    for (const o of orphans) expect(listed.has(o.trace_id)).toBe(false);
  });
});

describe('the identity of a fill', () => {
  it('keeps a repeated ExecID with other fields on the same trading day as a conflict, and takes it on another trading day as a new execution', async () => {
    const x = `TW-${randomUUID()}`;
    const day = { trade_date: '20261127' };
    const first = await applyBatch(conn, batch([fillOf(seq, x, agent.agent_id, day)]));
    expect(first.fills).toMatchObject([{ outcome: 'orphan', trade_date: '2026-11-27' }]);
    const again = await applyBatch(
      conn,
      batch([
        fillOf(seq, x, agent.agent_id, { ...day, quantity: 7 }),
        fillOf(seq, x, agent.agent_id, { ...day, possDup: true }),
        fillOf(seq, x, agent.agent_id, { trade_date: '20261128' }),
      ]),
    );
    expect(again.fills.map((f) => [f.outcome, f.trade_date])).toEqual([
      ['conflict', '2026-11-27'],
      ['duplicate', '2026-11-27'],
      ['already_known', '2026-11-28'],
    ]);
    const conflicts = await h.store
      .sql`select exec_id, trade_date::text, seq, trace_id::text, differences, audit_entry_id::text from dropcopy_conflicts where exec_id = ${x}`;
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({
      trade_date: '2026-11-27',
      trace_id: first.fills[0]!.trace_id,
      differences: [{ field: 'quantity', recorded: 100, received: 7 }],
    });
    const entry = (await audits('dropcopy.conflict')).find((e) => e.details.exec_id === x);
    expect(entry).toMatchObject({ details: { conflict_id: again.fills[0]!.conflict_id, differences: [{ field: 'quantity', recorded: 100, received: 7 }] } });
    const rows = await h.store.sql`select trade_date::text, outcome from dropcopy_executions where exec_id = ${x} order by trade_date`;
    expect(rows.map((r) => [r.trade_date, r.outcome])).toEqual([
      ['2026-11-27', 'orphan'],
      ['2026-11-28', 'already_known'],
    ]);
    expect((await readDropCopyStatus(h.store.sql, null, new Date())).conflicts).toBeGreaterThanOrEqual(1);
  });

  it('leaves an audit chain that verifies', async () => {
    expect((await verifyAuditChain(h.store.sql)).valid).toBe(true);
  });
});
