/**
 * The three-way reconciliation's cases against a live FIX drop copy, the same for every exchange peer (the QuickFIX/C++
 * peer and the raw-bytes peer written from the FIX 4.4 specification): `tradeseal serve` runs the session; the
 * peer sends fills with the tags a case gives; the engine is read through its routes and its store.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Sql } from '../../src/store/driver.js';
import {
  authorizeRequest,
  bearer,
  bindRequest,
  publishRegime,
  registerAgent,
  type Agent,
  type EngineSettings,
  type Regime,
} from '../reliability/support/engine.js';
import { Client } from '../reliability/support/http.js';
import { waitUntil } from './dropcopy-server.js';

export interface ThreeWayWorld {
  sql: Sql;
  client: Client;
  settings: EngineSettings;
  regime: Regime;
  agent: Agent;
  other: Agent;
  /** Sends a fill (35=8, 150=F) of ExecID `execId` and Account `account`, executed now, its other tags overridden by `tags`. */
  send(execId: string, account: string, tags: Record<number, string | number>): Promise<void>;
}

/** A world on a server at `url`: the regime published, an agent and another registered; fills sent by `send`. */
export async function threeWayWorld(sql: Sql, url: string, settings: EngineSettings, send: ThreeWayWorld['send']): Promise<ThreeWayWorld> {
  const client = new Client(url, 8);
  const regime = await publishRegime(client, settings.ownerToken);
  const agent = await registerAgent(client, settings.ownerToken);
  const other = await registerAgent(client, settings.ownerToken);
  // A fill executes when it is sent unless a case says otherwise: within its authorization's validity.
  const sendNow: ThreeWayWorld['send'] = (execId, account, tags) => send(execId, account, { 60: transactTimeNow(), ...tags });
  return { sql, client, settings, regime, agent, other, send: sendNow };
}

/** The engine's clock as a FIX UTCTimestamp (TransactTime 60): YYYYMMDD-HH:MM:SS.sss. */
const transactTimeNow = (): string => new Date().toISOString().replace(/-/g, '').replace('T', '-').replace('Z', '');

interface FillRow {
  exec_id: string;
  trade_date: string;
  outcome: string;
  trace_id: string | null;
  orphan_trace_id: string | null;
  differences: Array<{ field: string; ours: unknown; theirs: unknown }> | null;
}

const rows = (sql: Sql, execId: string) => sql<FillRow[]>`
  select exec_id, trade_date::text as trade_date, outcome, trace_id::text as trace_id, orphan_trace_id::text as orphan_trace_id, differences
  from dropcopy_executions where exec_id = ${execId} order by trade_date`;
const applied = (sql: Sql, execId: string, n = 1) =>
  waitUntil(
    `${n} fill(s) ${execId} applied`,
    () => rows(sql, execId),
    (r) => r.length >= n,
    20_000,
  );

/** Traces that stand for the execution: bound ones, and ORPHANs no bind resolved. */
export const liveTraces = (sql: Sql, exchangeTxId: string) => sql<Array<{ trace_id: string; status: string }>>`
  select trace_id::text as trace_id, status from traces t where t.exchange_tx_id = ${exchangeTxId}
    and (t.status <> 'ORPHAN' or not exists (select 1 from orphan_executions o where o.trace_id = t.trace_id and o.resolved_by is not null))`;

/** Registers the cases (vitest `it`s) of the file that calls it; `world` is set up by its beforeAll. */
export function threeWayCases(world: () => ThreeWayWorld): void {
  const authorize = async (w: ThreeWayWorld): Promise<string> =>
    (await w.client.json<{ trace_id: string }>(authorizeRequest(w.settings, w.agent, w.regime), 200)).trace_id;
  const bind = async (w: ThreeWayWorld, traceId: string, execId: string): Promise<void> => {
    const spec = bindRequest(w.agent, traceId, execId);
    await w.client.json({ ...spec, body: { ...(spec.body as object), execution_price: 189.97 } }, 200);
  };
  const get = async <T>(w: ThreeWayWorld, path: string): Promise<T> => w.client.json<T>({ method: 'GET', path, headers: bearer(w.settings.ownerToken) }, 200);
  const fieldsOf = (r: FillRow | undefined) => (r?.differences ?? []).map((d) => [d.field, d.ours, d.theirs]);

  it('records a fill contradicting its bind (AAPL Long 100 @ 189.97 read as TSLA Sell 9,999 @ 1.5) as divergent: in the trace, the audit log and the metrics; no refusal', async () => {
    const w = world();
    const traceId = await authorize(w);
    const x = `D-${randomUUID()}`;
    await bind(w, traceId, x);
    await w.send(x, w.agent.agentId, { 55: 'TSLA', 54: 2, 32: 9999, 31: 1.5 });
    const [row] = await applied(w.sql, x);
    expect(row).toMatchObject({ outcome: 'divergent', trace_id: traceId });
    expect(fieldsOf(row)).toEqual([
      ['asset', 'AAPL', 'TSLA'],
      ['action', 'Long', 'Short'],
      ['quantity', 100, 9999],
      ['limit_price', 190, 1.5],
      ['executed_asset', 'AAPL', 'TSLA'],
      ['executed_side', 'Long', 'Short'],
      ['executed_quantity', 100, 9999],
      ['execution_price', 189.97, 1.5],
    ]);
    const doc = await get<{ integrity: { reconciliation: { fills: FillRow[] } } }>(w, `/engine/trace/${traceId}`);
    expect(doc.integrity.reconciliation.fills).toMatchObject([{ exec_id: x, outcome: 'divergent' }]);
    expect(fieldsOf(doc.integrity.reconciliation.fills[0])).toEqual(fieldsOf(row));
    const log = await get<{ entries: Array<{ target_id: string; details: { exec_id: string; outcome: string; differences: unknown[] } }> }>(
      w,
      '/engine/admin/audit-log?action=dropcopy.fill&limit=1000',
    );
    expect(log.entries.find((e) => e.details.exec_id === x)).toMatchObject({
      target_id: traceId,
      details: { outcome: 'divergent', differences: expect.any(Array) },
    });
    const metrics = (await w.client.send({ method: 'GET', path: '/metrics' })).body;
    expect(metrics).toMatch(/tradeseal_dropcopy_fills_total\{outcome="divergent"\} [1-9]/);
    const [refused] = await w.sql<Array<{ n: number }>>`select count(*)::int as n from dropcopy_rejects where raw like ${`%17=${x}|%`}`;
    expect(refused?.n).toBe(0);
  });

  it("holds a fill to its authorization's validity: executed ten minutes before the order was authorized, it is divergent on execution_time", async () => {
    const w = world();
    const traceId = await authorize(w);
    const x = `V-${randomUUID()}`;
    await bind(w, traceId, x);
    const before = new Date(Date.now() - 10 * 60_000).toISOString().replace(/-/g, '').replace('T', '-').replace('Z', '');
    await w.send(x, w.agent.agentId, { 31: 189.97, 60: before });
    const [row] = await applied(w.sql, x);
    expect(row).toMatchObject({ outcome: 'divergent', trace_id: traceId });
    expect(fieldsOf(row).map(([field]) => field)).toEqual(['execution_time']);
  });

  it("records a fill naming another agent's Account as divergent on agent_id", async () => {
    const w = world();
    const traceId = await authorize(w);
    const x = `D-${randomUUID()}`;
    await bind(w, traceId, x);
    await w.send(x, w.other.agentId, { 31: 189.97 });
    const [row] = await applied(w.sql, x);
    expect(row).toMatchObject({ outcome: 'divergent', trace_id: traceId });
    expect(fieldsOf(row)).toEqual([['agent_id', w.agent.agentId, w.other.agentId]]);
  });

  it('resolves the ORPHAN of a fill whose bind arrives after it: one trace, no longer listed among the orphans', async () => {
    const w = world();
    const traceId = await authorize(w);
    const x = `R-${randomUUID()}`;
    await w.send(x, w.agent.agentId, { 31: 189.97 });
    const [orphan] = await applied(w.sql, x);
    expect(orphan?.outcome).toBe('orphan');
    const listed = async () => (await get<{ traces: Array<{ trace_id: string }> }>(w, '/engine/orphans?limit=5000')).traces.map((t) => t.trace_id);
    expect(await listed()).toContain(orphan!.trace_id);
    await bind(w, traceId, x);
    expect(await liveTraces(w.sql, x)).toEqual([{ trace_id: traceId, status: 'MATCHED' }]);
    expect(await listed()).not.toContain(orphan!.trace_id);
    expect((await rows(w.sql, x))[0]).toMatchObject({ outcome: 'matched', trace_id: traceId, orphan_trace_id: orphan!.trace_id });
    const log = await get<{ entries: Array<{ target_id: string; details: { exchange_tx_id: string } }> }>(
      w,
      '/engine/admin/audit-log?action=orphan.resolved&limit=1000',
    );
    expect(log.entries.find((e) => e.details.exchange_tx_id === x)).toMatchObject({
      target_id: orphan!.trace_id,
      details: { trace_id: traceId, outcome: 'matched' },
    });
  });

  it('leaves one live trace per execution when the bind and the fill arrive at the same instant', async () => {
    const w = world();
    // Authorized one after the other (an agent's heartbeats are accepted in order), then bound and filled all at once.
    const ids: Array<{ x: string; traceId: string }> = [];
    for (let i = 0; i < 6; i++) ids.push({ x: `C-${randomUUID()}`, traceId: await authorize(w) });
    await Promise.all(ids.flatMap(({ x, traceId }) => [bind(w, traceId, x), w.send(x, w.agent.agentId, { 31: 189.97 })]));
    for (const { x, traceId } of ids) {
      await applied(w.sql, x);
      expect(await liveTraces(w.sql, x)).toEqual([{ trace_id: traceId, status: 'MATCHED' }]);
      expect((await rows(w.sql, x))[0]).toMatchObject({ outcome: 'matched', trace_id: traceId });
    }
  });

  it("takes a fill's trading day from TradeDate (75) when sent, and links an order's partial fills by OrderID (37)", async () => {
    const w = world();
    const traceId = await authorize(w);
    const order = `O-${randomUUID()}`;
    const x = `T-${randomUUID()}`;
    await bind(w, traceId, x);
    // One second before midnight UTC on the 27th, a fill of the exchange's trading day of the 28th.
    await w.send(x, w.agent.agentId, { 31: 189.97, 32: 60, 37: order, 60: '20261127-23:59:59.000', 75: '20261128' });
    const [first] = await applied(w.sql, x);
    expect(first).toMatchObject({ trade_date: '2026-11-28', trace_id: traceId });
    // The order's second fill: another ExecID, no ClOrdID, the same OrderID; 60 + 60 is over the 100 authorized.
    const y = `T-${randomUUID()}`;
    await w.send(y, w.agent.agentId, { 31: 189.97, 32: 60, 37: order });
    const [second] = await applied(w.sql, y);
    expect(second).toMatchObject({ outcome: 'divergent', trace_id: traceId });
    expect(fieldsOf(second)).toContainEqual(['quantity', 100, 120]);
  });

  it('refuses a TradeDate no calendar holds (year 0000) naming tag 75, and goes on: the next fill is applied', async () => {
    const w = world();
    const bad = `Z-${randomUUID()}`;
    const next = `Z-${randomUUID()}`;
    await w.send(bad, w.agent.agentId, { 75: '00000101' });
    await w.send(next, w.agent.agentId, {});
    expect((await applied(w.sql, next))[0]?.outcome).toBe('orphan');
    const refused = await waitUntil(
      'the refusal recorded',
      () => w.sql<Array<{ answer: string; ref_tag: number }>>`
      select answer, ref_tag from dropcopy_rejects where raw like ${`%17=${bad}|%`}`,
      (r) => r.length === 1,
    );
    expect(refused).toEqual([{ answer: 'reject', ref_tag: 75 }]);
    expect(await rows(w.sql, bad)).toEqual([]);
  });

  it('keeps a repeated ExecID with other fields on the same trading day as a conflict, and takes it on another trading day as a new execution', async () => {
    const w = world();
    const x = `K-${randomUUID()}`;
    // The trading day of a fill without TradeDate (75): the UTC date of its TransactTime (60).
    const day = { 60: '20261127-23:59:59.000' };
    await w.send(x, w.agent.agentId, day);
    await applied(w.sql, x);
    await w.send(x, w.agent.agentId, { ...day, 32: 7 });
    await w.send(x, w.agent.agentId, { 60: '20261128-00:00:00.000' });
    const both = await applied(w.sql, x, 2);
    expect(both.map((r) => [r.trade_date, r.outcome])).toEqual([
      ['2026-11-27', 'orphan'],
      ['2026-11-28', 'already_known'],
    ]);
    const conflicts = await waitUntil(
      'the conflict recorded',
      () => w.sql<Array<{ differences: unknown; audit_entry_id: string | null }>>`
      select differences, audit_entry_id::text as audit_entry_id from dropcopy_conflicts where exec_id = ${x}`,
      (r) => r.length === 1,
    );
    expect(conflicts[0]).toMatchObject({ differences: [{ field: 'quantity', recorded: 100, received: 7 }], audit_entry_id: expect.any(String) });
    const status = await get<{ conflicts: number }>(w, '/engine/admin/dropcopy');
    expect(status.conflicts).toBeGreaterThanOrEqual(1);
    const metrics = (await w.client.send({ method: 'GET', path: '/metrics' })).body;
    expect(metrics).toMatch(/tradeseal_dropcopy_fills_total\{outcome="conflict"\} [1-9]/);
  });
}
