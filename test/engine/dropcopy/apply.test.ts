/**
 * One batch of the FIX drop copy applied in one transaction (src/engine/dropcopy/apply.ts), against real
 * PostgreSQL: a fill bound by bind-execution is matched, an unknown one becomes an ORPHAN trace that verifies,
 * an orphan of an earlier reconciliation is already known, a fill seen before (in the batch or in an earlier
 * one) changes nothing, a refused message is recorded and audited, the audit chain still verifies, and a batch
 * of an instance whose epoch is no longer the session's commits nothing.
 */
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBatch, DropCopyFencedError, type DropCopyBatch } from '../../../src/engine/dropcopy/apply.js';
import { verifyAuditChain } from '../../../src/engine/audit/verify.js';
import { ACTOR, counts, fillOf, rejectOf, SESSION_KEY, sessionRow, sessionState } from '../../helpers/dropcopy-inbound.js';
import { engineHarness, type EngineHarness } from '../../helpers/engine.js';

let h: EngineHarness;
let agent: { agent_id: string; token: string };
let conn: postgres.ReservedSql;
const EPOCH = 3;
/** When A1-BOUND executed: the instant it was bound. */
let boundAt = '';

const batch = (over: Partial<DropCopyBatch>): DropCopyBatch => ({
  sessionKey: SESSION_KEY,
  epoch: EPOCH,
  fills: [],
  rejects: [],
  watermark: 1,
  lastInboundAt: new Date(),
  policy: h.ctx.policy,
  now: new Date(),
  actor: ACTOR,
  ...over,
});

/** An order of `agent` authorized and bound to `exchangeTxId` through the routes. */
async function boundTrace(exchangeTxId: string): Promise<string> {
  const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
  expect(auth.statusCode, auth.body).toBe(200);
  const traceId = auth.json().trace_id as string;
  const bind = await h.call(
    'POST',
    '/engine/bind-execution',
    {
      trace_id: traceId,
      exchange_tx_id: exchangeTxId,
      execution_status: 'Filled',
      execution_time_ms: h.clock.now,
    },
    agent.token,
  );
  expect(bind.statusCode, bind.body).toBe(200);
  return traceId;
}

beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
  await sessionRow(h.store.sql, EPOCH);
  conn = await h.store.sql.reserve();
});
afterAll(async () => {
  conn?.release();
  await h?.close();
});

describe('applyBatch', () => {
  it('matches a bound fill, records an unknown one as an ORPHAN trace that verifies, and audits each', async () => {
    const boundId = await boundTrace('A1-BOUND');
    // The bound fill executed as it was bound, within its authorization's validity.
    boundAt = new Date(h.clock.now).toISOString();
    const before = await counts(h.store.sql);
    const lastInboundAt = new Date('2026-11-27T15:00:00.000Z');
    const applied = await applyBatch(
      conn,
      batch({
        fills: [
          fillOf(1, 'A1-BOUND', agent.agent_id, { execution_time: boundAt }),
          fillOf(2, 'A1-NEW', agent.agent_id.toUpperCase(), { side: 'Short', quantity: 3, price: 401.25, possDup: true }),
        ],
        watermark: 3,
        lastInboundAt,
      }),
    );
    expect(applied.fills.map((f) => [f.exec_id, f.outcome])).toEqual([
      ['A1-BOUND', 'matched'],
      ['A1-NEW', 'orphan'],
    ]);
    expect(applied.fills[0]?.trace_id).toBe(boundId);
    const orphanId = applied.fills[1]?.trace_id as string;

    const doc = (await h.call('GET', `/engine/trace/${orphanId}`)).json();
    expect(doc).toMatchObject({
      agent: { agent_id: agent.agent_id },
      execution: { action: 'Short', asset: 'AAPL', quantity: 3, notional: 3 * 401.25 },
      bitemporal: { valid_time: '2026-11-27T14:30:00.123Z', time_source: 'exchange_drop_copy' },
      integrity: { status: 'ORPHAN', exchange_tx_id: 'A1-NEW' },
    });
    const verified = (await h.call('GET', `/engine/trace/${orphanId}/verify`)).json();
    expect(verified.valid, JSON.stringify(verified.checks)).toBe(true);

    const rows = await h.store.sql`select exec_id, session_key, seq, poss_dup, outcome, trace_id from dropcopy_executions order by seq`;
    expect(rows.map((r) => ({ ...r }))).toEqual([
      { exec_id: 'A1-BOUND', session_key: SESSION_KEY, seq: 1, poss_dup: false, outcome: 'matched', trace_id: boundId },
      { exec_id: 'A1-NEW', session_key: SESSION_KEY, seq: 2, poss_dup: true, outcome: 'orphan', trace_id: orphanId },
    ]);
    const entries = (await h.call('GET', '/engine/admin/audit-log?action=dropcopy.fill&limit=10')).json().entries;
    expect(entries).toHaveLength(2);
    expect(entries.find((e: { target_id: string }) => e.target_id === orphanId)).toMatchObject({
      actor: ACTOR,
      action: 'dropcopy.fill',
      details: {
        session: SESSION_KEY,
        exec_id: 'A1-NEW',
        seq: 2,
        poss_dup: true,
        outcome: 'orphan',
        trace_id: orphanId,
        asset: 'AAPL',
        side: 'Short',
        quantity: 3,
        price: 401.25,
      },
    });
    expect(entries.find((e: { target_id: string }) => e.target_id === boundId)).toMatchObject({ details: { exec_id: 'A1-BOUND', outcome: 'matched' } });
    expect(await counts(h.store.sql)).toEqual({
      ...before,
      executions: before.executions + 2,
      orphans: before.orphans + 1,
      orphanTraces: before.orphanTraces + 1,
      fillEntries: before.fillEntries + 2,
    });
    expect(await sessionState(h.store.sql)).toEqual({ next_target_seq: 3, epoch: EPOCH, last_inbound_at: lastInboundAt });
  });

  it('names the trace of an orphan an earlier reconciliation created as already known', async () => {
    const res = await h.call('POST', '/engine/admin/reconcile', {
      executions: [
        {
          exchange_tx_id: 'A2-RECONCILED',
          asset: 'AAPL',
          side: 'Long',
          quantity: 1,
          price: 2,
          agent_id: agent.agent_id,
          execution_time: '2026-11-27T14:00:00Z',
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const traceId = res.json().orphans_created[0].trace_id as string;
    const before = await counts(h.store.sql);
    const applied = await applyBatch(conn, batch({ fills: [fillOf(3, 'A2-RECONCILED', agent.agent_id)], watermark: 4 }));
    expect(applied.fills).toMatchObject([{ exec_id: 'A2-RECONCILED', outcome: 'already_known', trace_id: traceId }]);
    expect(await counts(h.store.sql)).toEqual({ ...before, executions: before.executions + 1, fillEntries: before.fillEntries + 1 });
  });

  it('changes nothing for a fill repeated with the same fields in the batch or applied in an earlier one, but the watermark', async () => {
    const before = await counts(h.store.sql);
    const applied = await applyBatch(
      conn,
      batch({
        fills: [
          fillOf(4, 'A3-ONE', agent.agent_id),
          fillOf(5, 'A3-ONE', agent.agent_id),
          fillOf(6, 'A1-NEW', agent.agent_id, { side: 'Short', quantity: 3, price: 401.25, possDup: true }),
          fillOf(7, 'A1-BOUND', agent.agent_id, { execution_time: boundAt, possDup: true }),
        ],
        watermark: 8,
      }),
    );
    expect(applied.fills.map((f) => [f.exec_id, f.outcome])).toEqual([
      ['A3-ONE', 'orphan'],
      ['A3-ONE', 'duplicate'],
      ['A1-NEW', 'duplicate'],
      ['A1-BOUND', 'duplicate'],
    ]);
    // A duplicate names the trace its first fill was reconciled with.
    expect(applied.fills[1]?.trace_id).toBe(applied.fills[0]?.trace_id);
    expect(await counts(h.store.sql)).toEqual({
      ...before,
      executions: before.executions + 1,
      orphans: before.orphans + 1,
      orphanTraces: before.orphanTraces + 1,
      fillEntries: before.fillEntries + 1,
    });
    const [kept] = await h.store.sql`select seq, t.quantity from dropcopy_executions e join traces t using (trace_id) where exec_id = 'A3-ONE'`;
    expect({ ...kept }).toEqual({ seq: 4, quantity: 100 });

    const again = await applyBatch(conn, batch({ fills: [fillOf(8, 'A3-ONE', agent.agent_id, { possDup: true })], watermark: 9 }));
    expect(again.fills.map((f) => f.outcome)).toEqual(['duplicate']);
    expect((await counts(h.store.sql)).executions).toBe(before.executions + 1);
    expect((await sessionState(h.store.sql)).next_target_seq).toBe(9);
  });

  it('records a refused message with its audit entry, and one that was not a message', async () => {
    const before = await counts(h.store.sql);
    const refused = rejectOf(9);
    const garbled = rejectOf(null, {
      msgType: null,
      answer: 'none',
      reasonCode: null,
      refTag: null,
      reason: 'bad checksum',
      raw: '8=FIX.4.4|9=5|35=8|10=999|',
    });
    const applied = await applyBatch(conn, batch({ rejects: [refused, garbled], watermark: 10 }));
    expect(applied.rejects.map((r) => r.answer)).toEqual(['reject', 'none']);
    const rows = await h.store.sql`
      select r.id, r.seq, r.msg_type, r.answer, r.reason_code, r.ref_tag, r.reason, r.raw, a.action, a.details, a.actor
      from dropcopy_rejects r join audit_log a on a.id = r.audit_entry_id order by r.seq nulls last`;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      id: applied.rejects[0]?.id,
      seq: 9,
      msg_type: '8',
      answer: 'reject',
      reason_code: 1,
      ref_tag: 55,
      reason: 'Required tag missing',
      raw: refused.raw,
      action: 'dropcopy.reject',
      actor: ACTOR,
    });
    expect(JSON.parse(rows[0]?.details as string)).toMatchObject({
      session: SESSION_KEY,
      reject_id: applied.rejects[0]?.id,
      seq: 9,
      answer: 'reject',
      reason_code: 1,
      ref_tag: 55,
    });
    expect(rows[1]).toMatchObject({ seq: null, msg_type: null, answer: 'none', reason: 'bad checksum', raw: garbled.raw });
    expect(await counts(h.store.sql)).toEqual({ ...before, rejects: before.rejects + 2, rejectEntries: before.rejectEntries + 2 });
  });

  it("commits nothing of a batch whose epoch is no longer the session's", async () => {
    await h.store.sql`update dropcopy_sessions set epoch = ${EPOCH + 1} where session_key = ${SESSION_KEY}`;
    const before = await counts(h.store.sql);
    const state = await sessionState(h.store.sql);
    const stale = applyBatch(conn, batch({ fills: [fillOf(10, 'A5-LATE', agent.agent_id)], rejects: [rejectOf(11)], watermark: 12 }));
    await expect(stale).rejects.toBeInstanceOf(DropCopyFencedError);
    await expect(stale).rejects.toThrow(/no longer held at epoch 3/);
    expect(await counts(h.store.sql)).toEqual(before);
    expect(await sessionState(h.store.sql)).toEqual({ ...state, epoch: EPOCH + 1 });
    // The connection is usable again: the failed batch was rolled back.
    expect((await conn`select 1 as one`)[0]?.one).toBe(1);
  });

  it('leaves an audit chain that verifies', async () => {
    const chain = await verifyAuditChain(h.store.sql);
    expect(chain.broken).toBeNull();
    expect(chain.valid).toBe(true);
  });
});
