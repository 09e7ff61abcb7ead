/**
 * The drop-copy pipeline (src/engine/dropcopy/pipeline.ts) against real PostgreSQL: the watermark it persists
 * stops at a gap; a failed batch stops it with nothing more applied and the watermark below every message not
 * applied; an instance whose epoch moved is fenced out while another holds the session, on two connections at
 * once; 10,000 fills are each applied once; and applying everything again from the persisted watermark after the
 * connection was killed inside a batch's transaction, mid-stream, applies each ExecID exactly once; a message
 * lingers for others to share its batch, but never when a batch is full, flushed or stopped, nor once a partial
 * batch holds `fullEnough` messages.
 */
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DropCopyFencedError } from '../../../src/engine/dropcopy/apply.js';
import type { DropCopyPipeline, DropCopyPipelineOptions, InboundFill } from '../../../src/engine/dropcopy/inbound.js';
import { startDropCopyPipeline } from '../../../src/engine/dropcopy/pipeline.js';
import { verifyAuditChain } from '../../../src/engine/audit/verify.js';
import { ServerMetrics } from '../../../src/http/metrics.js';
import { ACTOR, counts, fillOf, rejectOf, SESSION_KEY, sessionRow, sessionState } from '../../helpers/dropcopy-inbound.js';
import { engineHarness, type EngineHarness } from '../../helpers/engine.js';

let h: EngineHarness;
let sql: Sql;
const agentId = randomUUID();
const reserved: postgres.ReservedSql[] = [];

interface Started {
  pipeline: DropCopyPipeline;
  fatal: Promise<unknown>;
  warnings: unknown[];
}

async function start(epoch: number, over: Partial<DropCopyPipelineOptions> = {}): Promise<Started & { conn: postgres.ReservedSql }> {
  const conn = await sql.reserve();
  reserved.push(conn);
  const state = await sessionState(sql);
  let onFatal!: (err: unknown) => void;
  const fatal = new Promise<unknown>((resolve) => {
    onFatal = resolve;
  });
  const warnings: unknown[] = [];
  const pipeline = startDropCopyPipeline({
    conn,
    sessionKey: SESSION_KEY,
    epoch,
    nextTargetSeq: state.next_target_seq,
    policy: () => h.ctx.policy,
    now: () => new Date(),
    actor: ACTOR,
    log: { warn: (o) => warnings.push(o), error: (o) => warnings.push(o) },
    onFatal,
    ...over,
  });
  return { pipeline, fatal, warnings, conn };
}

/** Waits for `check` to hold, polling, up to `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Gives back a connection of `start` (the pool holds 16). */
const release = (conn: postgres.ReservedSql): void => {
  reserved.splice(reserved.indexOf(conn), 1);
  conn.release();
};

const backendPid = async (conn: postgres.ReservedSql): Promise<number> =>
  (await conn<Array<{ pid: number }>>`select pg_backend_pid() as pid`)[0]?.pid as number;

const fresh = async (): Promise<void> => {
  await sql`delete from dropcopy_sessions`;
  await sessionRow(sql, 1);
};

beforeAll(async () => {
  h = await engineHarness({ max: 16 });
  sql = h.store.sql;
});
afterAll(async () => {
  for (const c of reserved) c.release();
  await h?.close();
});

describe('the drop-copy pipeline', () => {
  it('persists the watermark only up to the first seqnum not handled', async () => {
    await fresh();
    const { pipeline } = await start(1);
    pipeline.fill(fillOf(1, `W-${randomUUID()}`, agentId));
    pipeline.seen(2); // a heartbeat
    pipeline.fill(fillOf(4, `W-${randomUUID()}`, agentId)); // past a gap at 3
    pipeline.reject(rejectOf(5));
    await pipeline.flush();
    expect((await sessionState(sql)).next_target_seq).toBe(3);
    pipeline.fill(fillOf(3, `W-${randomUUID()}`, agentId, { possDup: true })); // the resend fills the gap
    await pipeline.flush();
    expect((await sessionState(sql)).next_target_seq).toBe(6);
    pipeline.gapFilled(6, 40); // with nothing else queued, a batch of its own
    await pipeline.flush();
    expect((await sessionState(sql)).next_target_seq).toBe(40);
    pipeline.reset(1);
    await pipeline.flush();
    expect((await sessionState(sql)).next_target_seq).toBe(1);
    expect(pipeline.backlog).toBe(0);
    await pipeline.stop();
  });

  it('does not move last_inbound_at for a refusal with no MsgSeqNum: a stranger turned away does not make a silent exchange look alive', async () => {
    await fresh();
    const { pipeline, conn } = await start(1);
    const door = (at: Date) =>
      rejectOf(null, {
        msgType: null,
        answer: 'none',
        reasonCode: null,
        refTag: null,
        reason: 'Logon refused (203.0.113.9:4000): no Logon within 10 s',
        raw: '',
        receivedAt: at,
      });
    pipeline.reject(door(new Date()));
    await pipeline.flush();
    expect((await sessionState(sql)).last_inbound_at).toBeNull();
    const heard = new Date(Date.now() - 60_000);
    pipeline.fill({ ...fillOf(1, `L-${randomUUID()}`, agentId), receivedAt: heard });
    pipeline.reject(door(new Date()));
    await pipeline.flush();
    pipeline.reject(door(new Date()));
    await pipeline.flush();
    expect((await sessionState(sql)).last_inbound_at?.getTime()).toBe(heard.getTime());
    // A refused message of the session (it has a MsgSeqNum) is one: it moves it.
    const later = new Date();
    pipeline.reject({ ...rejectOf(2), receivedAt: later });
    await pipeline.flush();
    expect((await sessionState(sql)).last_inbound_at?.getTime()).toBe(later.getTime());
    await pipeline.stop();
    release(conn);
  });

  it('tells when its backlog is down to a given size: once the batch ahead of it is committed, not the whole queue', async () => {
    await fresh();
    const { pipeline } = await start(1, { maxBatch: 3 });
    for (let seq = 1; seq <= 6; seq++) pipeline.fill(fillOf(seq, `D-${randomUUID()}`, agentId));
    expect(pipeline.backlog).toBe(6);
    await expect(pipeline.drained(6)).resolves.toBeUndefined();
    await pipeline.drained(3);
    // The first batch is committed; the second may be, but nothing waited for it.
    expect(pipeline.backlog).toBeLessThanOrEqual(3);
    expect((await sessionState(sql)).next_target_seq).toBeGreaterThanOrEqual(4);
    await pipeline.drained(0);
    expect(pipeline.backlog).toBe(0);
    expect((await sessionState(sql)).next_target_seq).toBe(7);
    await pipeline.stop();
  });

  it('fails the wait for a smaller backlog when a batch fails', async () => {
    await fresh();
    const { pipeline, fatal } = await start(1, { maxBatch: 1 });
    pipeline.fill(fillOf(1, `D-${randomUUID()}`, 'not-a-uuid'));
    pipeline.fill(fillOf(2, `D-${randomUUID()}`, agentId));
    const waiting = pipeline.drained(0);
    const err = await fatal;
    await expect(waiting).rejects.toBe(err);
    await expect(pipeline.drained(0)).rejects.toBe(err);
    await pipeline.stop();
  });

  it('stops at a failed batch: nothing after it applied, the watermark below every message not applied', async () => {
    await fresh();
    const before = await counts(sql);
    const { pipeline, fatal, warnings } = await start(1, { maxBatch: 2 });
    const ids = [1, 2, 3, 4, 5].map(() => `F-${randomUUID()}`);
    // The third fill names an agent the store cannot hold (not a UUID): its batch (3 and 4) fails.
    ids.forEach((id, i) => pipeline.fill(fillOf(i + 1, id, i === 2 ? 'not-a-uuid' : agentId)));
    const err = await fatal;
    expect(String(err)).toMatch(/uuid/i);
    await expect(pipeline.flush()).rejects.toBe(err);
    expect(await counts(sql)).toMatchObject({ executions: before.executions + 2, fillEntries: before.fillEntries + 2 });
    expect((await sql`select exec_id from dropcopy_executions where exec_id = any(${ids})`).map((r) => r.exec_id).sort()).toEqual(ids.slice(0, 2).sort());
    expect((await sessionState(sql)).next_target_seq).toBe(3);
    pipeline.fill(fillOf(6, `F-${randomUUID()}`, agentId));
    expect(pipeline.backlog).toBe(0);
    expect(warnings).toHaveLength(2); // the failure, then the message refused after it (once)
    await pipeline.stop();
  });

  it('keeps the refusals with no MsgSeqNum a failed batch dropped, and those taken after, for the next pipeline to record: no peer resends them', async () => {
    await fresh();
    const door = (n: number) =>
      rejectOf(null, {
        msgType: null,
        answer: 'none',
        reasonCode: null,
        refTag: null,
        reason: `Logon refused (203.0.113.9:${n}): no Logon within 10 s ${randomUUID()}`,
        raw: '',
      });
    const { pipeline, fatal, conn } = await start(1);
    const before = [door(1), door(2)];
    pipeline.fill(fillOf(1, `K-${randomUUID()}`, 'not-a-uuid')); // its batch fails
    pipeline.reject(before[0]!);
    pipeline.reject(rejectOf(2)); // numbered: the peer resends it
    pipeline.reject(before[1]!);
    await fatal;
    const after = door(3);
    pipeline.reject(after);
    const kept = pipeline.unrecorded();
    expect(kept.map((r) => r.reason)).toEqual([...before, after].map((r) => r.reason));
    await pipeline.stop();
    release(conn);
    const next = await start(1);
    for (const r of kept) next.pipeline.reject(r);
    await next.pipeline.flush();
    const rows = await sql`select reason from dropcopy_rejects where reason = any(${kept.map((r) => r.reason)})`;
    expect(rows).toHaveLength(3);
    expect(next.pipeline.unrecorded()).toEqual([]);
    await next.pipeline.stop();
    release(next.conn);
  });

  it('fences out an instance whose epoch moved, with nothing of its batch committed, while the new owner applies it', async () => {
    await fresh();
    const old = await start(1);
    old.pipeline.fill(fillOf(1, `E-${randomUUID()}`, agentId));
    await old.pipeline.flush();
    const pid = await backendPid(old.conn);

    // The new owner raises the epoch on its own connection and holds the row until it commits.
    const taker = await sql.reserve();
    reserved.push(taker);
    await taker.unsafe('begin');
    await taker`update dropcopy_sessions set epoch = 2 where session_key = ${SESSION_KEY}`;
    const late = [2, 3, 4].map((seq) => fillOf(seq, `E-${randomUUID()}`, agentId));
    for (const f of late) old.pipeline.fill(f);
    await until(
      "the old owner's batch to wait for the session row",
      async () => (await sql`select 1 from pg_stat_activity where pid = ${pid} and wait_event_type = 'Lock'`).length === 1,
    );
    await taker.unsafe('commit');

    expect(await old.fatal).toBeInstanceOf(DropCopyFencedError);
    const lateIds = late.map((f) => f.execution.exchange_tx_id);
    expect((await sql`select count(*)::int as n from dropcopy_executions where exec_id = any(${lateIds})`)[0]?.n).toBe(0);
    expect(await sessionState(sql)).toMatchObject({ epoch: 2, next_target_seq: 2 });

    const next = await start(2);
    for (const f of late) next.pipeline.fill({ ...f, possDup: true });
    await next.pipeline.flush();
    const rows = await sql`select outcome from dropcopy_executions where exec_id = any(${lateIds})`;
    expect(rows.map((r) => r.outcome)).toEqual(['orphan', 'orphan', 'orphan']);
    expect((await sessionState(sql)).next_target_seq).toBe(5);
    await next.pipeline.stop();
  });

  it('applies each of 10,000 fills once, in batches', async () => {
    await fresh();
    const before = await counts(sql);
    const metrics = new ServerMetrics(sql);
    const { pipeline, warnings } = await start(1, { metrics });
    const N = 10_000;
    const started = performance.now();
    let peak = 0;
    for (let seq = 1; seq <= N; seq++) {
      pipeline.fill(fillOf(seq, `B-${seq}-${randomUUID()}`, agentId));
      // As a session reads its socket: a chunk of messages per turn of the event loop.
      if (seq % 100 === 0) {
        peak = Math.max(peak, pipeline.backlog);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await pipeline.flush();
    const seconds = (performance.now() - started) / 1000;
    console.log(`[drop copy] ${N} fills applied in ${seconds.toFixed(2)} s: ${Math.round(N / seconds)} fills/s (backlog peak ${peak})`);
    expect(warnings).toEqual([]);
    expect(await counts(sql)).toEqual({
      ...before,
      executions: before.executions + N,
      orphans: before.orphans + N,
      orphanTraces: before.orphanTraces + N,
      fillEntries: before.fillEntries + N,
    });
    expect((await sql`select count(distinct exec_id)::int as n from dropcopy_executions where exec_id like 'B-%'`)[0]?.n).toBe(N);
    expect((await sessionState(sql)).next_target_seq).toBe(N + 1);
    expect((await metrics.dropCopyFills.get()).values).toEqual([expect.objectContaining({ labels: { outcome: 'orphan' }, value: N })]);
    const delay = (await metrics.dropCopyDelay.get()).values.find((v) => v.metricName === 'tradeseal_dropcopy_apply_delay_seconds_count');
    expect(delay?.value).toBe(N);
    await pipeline.stop();
  });

  it('applies each ExecID exactly once when everything from the watermark is applied again after the connection died mid-way', async () => {
    await fresh();
    const before = await counts(sql);
    const N = 3000;
    const COMMITTED = 1000;
    const fills: InboundFill[] = Array.from({ length: N }, (_, i) => fillOf(i + 1, `K-${i}-${randomUUID()}`, agentId));
    const first = await start(1, { maxBatch: 100 });
    const pid = await backendPid(first.conn);
    for (const f of fills.slice(0, COMMITTED)) first.pipeline.fill(f);
    await first.pipeline.flush();

    // The rest of the stream arrives while a batch is held inside its transaction (its fenced update waits for
    // the session row, locked here), and the connection is killed there: a death mid-transaction, mid-stream.
    const locker = await sql.reserve();
    reserved.push(locker);
    await locker.unsafe('begin');
    await locker`select 1 from dropcopy_sessions where session_key = ${SESSION_KEY} for update`;
    for (const f of fills.slice(COMMITTED)) first.pipeline.fill(f);
    await until(
      'a batch to wait for the session row',
      async () => (await sql`select 1 from pg_stat_activity where pid = ${pid} and wait_event_type = 'Lock'`).length === 1,
    );
    await sql`select pg_terminate_backend(${pid})`;
    await first.fatal;
    await locker.unsafe('rollback');
    const mid = (await counts(sql)).executions - before.executions;
    expect(mid).toBe(COMMITTED);

    // The next owner takes the session and the peer resends from the persisted watermark, and (as a peer may)
    // 500 messages before it as well: those are duplicates and change nothing.
    await sql`update dropcopy_sessions set epoch = 2 where session_key = ${SESSION_KEY}`;
    const { next_target_seq: watermark } = await sessionState(sql);
    expect(watermark).toBe(COMMITTED + 1);
    const second = await start(2);
    for (const f of fills.slice(watermark - 1 - 500)) second.pipeline.fill({ ...f, possDup: true });
    await second.pipeline.flush();

    const after = await counts(sql);
    expect(after.executions - before.executions).toBe(N);
    expect(after.orphans - before.orphans).toBe(N);
    expect(after.orphanTraces - before.orphanTraces).toBe(N);
    expect(after.fillEntries - before.fillEntries).toBe(N);
    const twice = await sql`select exchange_tx_id from traces where exchange_tx_id like 'K-%' group by exchange_tx_id having count(*) <> 1`;
    expect(twice).toHaveLength(0);
    expect((await sessionState(sql)).next_target_seq).toBe(N + 1);
    await second.pipeline.stop();
  });

  it('lets a message wait up to lingerMs for others to share its batch, but starts a full batch, a flush and a stop at once', async () => {
    await fresh();
    let batches = 0;
    const policy = () => {
      batches += 1;
      return h.ctx.policy;
    };
    // Two socket reads 50 ms apart within a linger of 2 s: one batch.
    const lingering = await start(1, { lingerMs: 2000, policy });
    lingering.pipeline.fill(fillOf(1, `L-${randomUUID()}`, agentId));
    await new Promise((resolve) => setTimeout(resolve, 50));
    lingering.pipeline.fill(fillOf(2, `L-${randomUUID()}`, agentId));
    await until('the two fills to be committed', async () => (await sessionState(sql)).next_target_seq === 3);
    expect(batches).toBe(1);
    // A full batch (maxBatch 2) does not wait for a linger of a minute, nor does a flush; stop commits what it took.
    await lingering.pipeline.stop();
    const full = await start(1, { lingerMs: 60_000, maxBatch: 2, policy });
    full.pipeline.fill(fillOf(3, `L-${randomUUID()}`, agentId));
    full.pipeline.fill(fillOf(4, `L-${randomUUID()}`, agentId));
    await until('the full batch to be committed', async () => (await sessionState(sql)).next_target_seq === 5);
    expect(batches).toBe(2);
    full.pipeline.fill(fillOf(5, `L-${randomUUID()}`, agentId));
    await full.pipeline.flush();
    expect((await sessionState(sql)).next_target_seq).toBe(6);
    full.pipeline.fill(fillOf(6, `L-${randomUUID()}`, agentId));
    await full.pipeline.stop();
    expect((await sessionState(sql)).next_target_seq).toBe(7);
    expect(batches).toBe(4);
  });

  it('starts a partial batch that holds fullEnough messages without waiting for the linger', async () => {
    await fresh();
    let batches = 0;
    const policy = () => {
      batches += 1;
      return h.ctx.policy;
    };
    // A linger of a minute, batches of up to 500: three fills (fullEnough) go at once, in one batch.
    const { pipeline } = await start(1, { lingerMs: 60_000, maxBatch: 500, fullEnough: 3, policy });
    for (const seq of [1, 2, 3]) pipeline.fill(fillOf(seq, `E-${randomUUID()}`, agentId));
    await until('the three fills to be committed', async () => (await sessionState(sql)).next_target_seq === 4);
    expect(batches).toBe(1);
    // Fewer than fullEnough wait for the linger (or a flush, or a stop).
    pipeline.fill(fillOf(4, `E-${randomUUID()}`, agentId));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await sessionState(sql)).next_target_seq).toBe(4);
    await pipeline.stop();
    expect((await sessionState(sql)).next_target_seq).toBe(5);
    expect(batches).toBe(2);
  });

  it('refuses a fullEnough that is not a whole number >= 1', async () => {
    await expect(start(1, { fullEnough: 0 })).rejects.toThrow(/fullEnough must be a whole number >= 1/);
  });

  it('leaves an audit chain that verifies', async () => {
    expect(await verifyAuditChain(sql)).toMatchObject({ valid: true, broken: null });
  });
});
