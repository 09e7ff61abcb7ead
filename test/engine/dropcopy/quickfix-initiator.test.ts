/**
 * Guarantee: a live FIX drop copy is reconciled against an exchange that is not us. `tradeseal serve` (a child
 * process on PostgreSQL) runs the session as initiator; the exchange is QuickFIX/C++ (test/helpers/quickfix/),
 * reached through a proxy that can garble and cut the stream. Every fill the exchange sends is applied exactly
 * once: a bound one matched to its trace, an unknown one an ORPHAN trace, a repeated ExecID nothing; a gap is
 * resent, garbage is recorded and skipped, a cut connection is resumed; a malformed or unmappable report is
 * refused at the FIX level (35=3, 35=j), which the exchange receives, and recorded for the officer.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStore, type TestStore } from '../../helpers/db.js';
import {
  appliedThrough,
  dropCopyEnv,
  executions,
  EXCHANGE_COMP_ID,
  ENGINE_COMP_ID,
  fillAudits,
  freePort,
  orphanTraces,
  SESSION_KEY,
  waitUntil,
} from '../../helpers/dropcopy-server.js';
import { startFixProxy, type FixProxy } from '../../helpers/fix-proxy.js';
import { fixMessage } from '../../helpers/fix-message.js';
import { bytesOfWireText } from '../../../src/engine/dropcopy/wire-text.js';
import { exchangePeerBinary } from '../../helpers/quickfix/binary.js';
import { startExchangePeer, type ExchangePeer } from '../../helpers/quickfix/peer.js';
import {
  authorizeRequest,
  bindRequest,
  engineSettings,
  publishRegime,
  registerAgent,
  type Agent,
  type EngineSettings,
  type Regime,
} from '../../reliability/support/engine.js';
import { Client } from '../../reliability/support/http.js';
import { startServerProcess, type ServerProcess } from '../../reliability/support/server.js';
import { removeTempDirs, tempDir } from '../../reliability/support/temp.js';

let store: TestStore;
let settings: EngineSettings;
let proxy: FixProxy;
let peer: ExchangePeer;
let server: ServerProcess;
let client: Client;
let agent: Agent;
let regime: Regime;

beforeAll(async () => {
  store = await testStore();
  settings = await engineSettings(store.url);
  const exchangePort = await freePort();
  peer = await startExchangePeer({
    binary: exchangePeerBinary(),
    role: 'acceptor',
    port: exchangePort,
    senderCompId: EXCHANGE_COMP_ID,
    targetCompId: ENGINE_COMP_ID,
    dir: path.join(await tempDir('exchange'), 'peer'),
  });
  // The engine connects to the proxy, the proxy to the exchange.
  proxy = await startFixProxy({ port: exchangePort }, 'client');
  server = await startServerProcess({ ...settings.env, ...dropCopyEnv('initiator', proxy.port) }, 'dropcopy-initiator');
  await peer.waitFor(/^logon$/, { timeoutMs: 60_000 });
  client = new Client(server.url, 4);
  regime = await publishRegime(client, settings.ownerToken);
  agent = await registerAgent(client, settings.ownerToken);
}, 180_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  await peer?.stop();
  await proxy?.close();
  await store?.close();
  await removeTempDirs();
});

describe('a FIX drop copy from QuickFIX/C++, tradeseal as initiator', () => {
  it('matches the fill of an authorized, bound order to its trace, and makes the fill of no order one ORPHAN trace', async () => {
    const order = authorizeRequest(settings, agent, regime);
    const authorized = await client.json<{ trace_id: string }>(order, 200);
    const bind = bindRequest(agent, authorized.trace_id, `M-${randomUUID()}`);
    await client.json(bind, 200);

    await peer.fill(bind.exchangeTxId, agent.agentId, { 11: order.clientOrderId, 55: 'AAPL', 54: 1, 32: 100, 31: 190 });
    const unknown = `U-${randomUUID()}`;
    await peer.fill(unknown, agent.agentId);

    const matched = await waitUntil(
      'the matched fill applied',
      () => executions(store.sql, 'M-'),
      (r) => r.length === 1,
    );
    expect(matched[0]).toMatchObject({ exec_id: bind.exchangeTxId, outcome: 'matched', trace_id: authorized.trace_id, poss_dup: false });
    const orphan = await waitUntil(
      'the unknown fill applied',
      () => executions(store.sql, 'U-'),
      (r) => r.length === 1,
    );
    expect(orphan[0]).toMatchObject({ exec_id: unknown, outcome: 'orphan' });
    const traces = await store.sql<Array<{ trace_id: string; agent_id: string; status: string; executed_quantity: string }>>`
      select trace_id::text, agent_id::text, status, executed_quantity::text from traces where exchange_tx_id = ${unknown}`;
    expect(traces).toEqual([
      { trace_id: orphan[0]!.trace_id, agent_id: agent.agentId, status: 'ORPHAN', executed_quantity: expect.stringMatching(/^100(\.0+)?$/) },
    ]);
    expect(await fillAudits(store.sql, 'M-')).toEqual(new Map([[bind.exchangeTxId, 1]]));
    expect(await fillAudits(store.sql, 'U-')).toEqual(new Map([[unknown, 1]]));
  });

  it('applies nothing for a fill whose ExecID comes again in a new message', async () => {
    const execId = `D-${randomUUID()}`;
    await peer.fill(execId, agent.agentId);
    const since = peer.lines.length;
    peer.command(`again ${execId}`);
    const again = Number((await peer.waitFor(new RegExp(`^sent (\\d+) ${execId}$`), { since }))[1]);
    await appliedThrough(store.sql, again);

    expect((await executions(store.sql, 'D-')).map((r) => [r.exec_id, r.outcome])).toEqual([[execId, 'orphan']]);
    expect(await orphanTraces(store.sql, 'D-')).toEqual(new Map([[execId, 1]]));
    expect(await fillAudits(store.sql, 'D-')).toEqual(new Map([[execId, 1]]));
  });

  it('refuses a fill without Symbol with a Reject (35=3 373=1 371=55) and records it', async () => {
    const seq = await peer.fill(`R-${randomUUID()}`, agent.agentId, { 55: '' });
    await peer.waitFor(new RegExp(`^reject ${seq} 1 55 `));
    await appliedThrough(store.sql, seq);
    const [row] =
      await store.sql`select seq, msg_type, answer, reason_code, ref_tag, raw from dropcopy_rejects where session_key = ${SESSION_KEY} and seq = ${seq}`;
    expect(row).toMatchObject({ seq, msg_type: '8', answer: 'reject', reason_code: 1, ref_tag: 55 });
    expect(row!.raw).toContain('|35=8|');
    expect(await executions(store.sql, 'R-')).toEqual([]);
  });

  it('refuses a fill with a Side it cannot map with a Reject naming tag 54', async () => {
    const seq = await peer.fill(`S-${randomUUID()}`, agent.agentId, { 54: 9 });
    const m = await peer.waitFor(new RegExp(`^reject ${seq} (\\d+) 54 `));
    expect(['5', '6']).toContain(m[1]);
    await appliedThrough(store.sql, seq);
    expect(await executions(store.sql, 'S-')).toEqual([]);
  });

  it('refuses a fill whose Account names no agent with a BusinessMessageReject (35=j 380=0) and records it', async () => {
    const seq = await peer.fill(`B-${randomUUID()}`, 'desk-7');
    await peer.waitFor(new RegExp(`^bmr ${seq} 0 `));
    await appliedThrough(store.sql, seq);
    const [row] = await store.sql`select answer, reason_code from dropcopy_rejects where session_key = ${SESSION_KEY} and seq = ${seq}`;
    expect(row).toEqual({ answer: 'business_reject', reason_code: 0 });
    expect(await executions(store.sql, 'B-')).toEqual([]);
  });

  it('answers an application message it does not take with a BusinessMessageReject (35=j 380=3)', async () => {
    const since = peer.lines.length;
    peer.command('msg D 11=ORDER-1 55=AAPL 54=1 38=100 40=1 60=20260203-10:04:59.412');
    const seq = Number((await peer.waitFor(/^sent (\d+) -$/, { since }))[1]);
    await peer.waitFor(new RegExp(`^bmr ${seq} 3 `), { since });
    await appliedThrough(store.sql, seq);
  });

  it('asks for a resend when sequence numbers are skipped, and applies each fill once', async () => {
    let since = peer.lines.length;
    peer.command('skip 4');
    await peer.waitFor(/^skipped \d+$/, { since });
    since = peer.lines.length;
    const ids = [1, 2, 3].map((i) => `G${i}-${randomUUID()}`);
    let last = 0;
    for (const id of ids) last = await peer.fill(id, agent.agentId);
    await peer.waitFor(/^resend-request \d+ \d+$/, { since });
    await appliedThrough(store.sql, last);

    const rows = await executions(store.sql, 'G');
    expect(rows.map((r) => r.exec_id).sort()).toEqual([...ids].sort());
    expect(rows.every((r) => r.outcome === 'orphan')).toBe(true);
    expect([...(await orphanTraces(store.sql, 'G')).values()]).toEqual([1, 1, 1]);
  });

  it('records garbage and a message with a bad checksum, applies neither, and applies the next fill once', async () => {
    const asked = peer.lines.length;
    peer.command('seqnums');
    const next = Number((await peer.waitFor(/^seqnums (\d+) \d+$/, { since: asked }))[1]);
    const earlier = new Set((await store.sql<Array<{ id: string }>>`select id::text from dropcopy_rejects`).map((r) => r.id));
    proxy.inject('this is not FIX\x01');
    // A fill at the sequence number the exchange sends next, corrupted on the way: not a message, so the
    // exchange's own next message takes its number.
    const corrupt = fixMessage([
      [35, '8'],
      [49, EXCHANGE_COMP_ID],
      [56, ENGINE_COMP_ID],
      [34, next],
      [52, '20260203-10:05:00.000'],
      [37, 'O-1'],
      [17, 'X-CORRUPT'],
      [150, 'F'],
      [39, '2'],
      [1, agent.agentId],
      [55, 'AAPL'],
      [54, '1'],
      [32, 100],
      [31, 190],
      [60, '20260203-10:04:59.412'],
    ]);
    proxy.inject(corrupt.replace(/10=\d{3}\x01$/, (t) => `10=${String((Number(t.slice(3, 6)) + 1) % 256).padStart(3, '0')}\x01`));
    const good = `J-${randomUUID()}`;
    const seq = await peer.fill(good, agent.agentId);
    expect(seq).toBe(next);
    await appliedThrough(store.sql, seq);

    expect((await executions(store.sql, 'J-')).map((r) => r.exec_id)).toEqual([good]);
    expect(await executions(store.sql, 'X-CORRUPT')).toEqual([]);
    // Recorded, unanswered (the gap has the exchange resend): the garbage and the corrupted message, as one
    // record or two, however the bytes were split.
    const recorded = (
      await store.sql<Array<{ id: string; answer: string; raw: string }>>`
      select id::text, answer, raw from dropcopy_rejects where session_key = ${SESSION_KEY}`
    ).filter((r) => !earlier.has(r.id));
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.map((r) => r.answer).every((a) => a === 'none')).toBe(true);
    const raw = recorded.map((r) => r.raw).join('\n');
    expect(raw).toContain('this is not FIX');
    expect(raw).toContain('17=X-CORRUPT');
  });

  it('refuses a Symbol with bytes above 0x7F with a Reject naming tag 55 (373=6), keeps the bytes, and moves on', async () => {
    // The peer's command line is UTF-8: É goes out as 0xC3 0x89, two bytes whose lost high bits would cancel out.
    const seq = await peer.fill(`H-${randomUUID()}`, agent.agentId, { 55: 'AAPL\u00c9' });
    await peer.waitFor(new RegExp(`^reject ${seq} 6 55 Symbol \\(55\\) holds a byte outside printable ASCII`));
    await appliedThrough(store.sql, seq);
    const [row] = await store.sql<
      Array<{ raw: string; reason_code: number }>
    >`select raw, reason_code from dropcopy_rejects where session_key = ${SESSION_KEY} and seq = ${seq}`;
    expect(row!.reason_code).toBe(6);
    expect(bytesOfWireText(row!.raw).includes(Buffer.from('\u000155=AAPL\u00c9\u0001', 'utf8'))).toBe(true);
    expect(await executions(store.sql, 'H-')).toEqual([]);
  });

  it('applies a fill carrying an EncodedText (355) in its MessageEncoding (347=UTF-8)', async () => {
    const execId = `T-${randomUUID()}`;
    // \u20ac is three bytes in UTF-8, each above 0x7F.
    const seq = await peer.fill(execId, agent.agentId, { 347: 'UTF-8', 354: 3, 355: '\u20ac' });
    await appliedThrough(store.sql, seq);
    expect((await executions(store.sql, 'T-')).map((r) => [r.exec_id, r.outcome])).toEqual([[execId, 'orphan']]);
  });

  it('loses no fill and applies none twice when the connection is cut mid-stream', async () => {
    const n = 3000;
    const since = peer.lines.length;
    const connections = proxy.connections;
    // The connection drops inside the 1,001st fill: the rest never reach the engine on this connection.
    const cut = proxy.cutAfter(1000);
    peer.command(`bulk ${n} C- ${agent.agentId} 1`);
    const [, first, last] = (await peer.waitFor(/^bulk \d+ (\d+) (\d+)$/, { since })).map(Number);
    await cut;
    await proxy.waitForConnections(connections + 1);
    await peer.waitFor(/^logon$/, { since });
    // The engine, logged on again, asks for what it did not apply, and the exchange resends it.
    const [, from] = (await peer.waitFor(/^resend-request (\d+) \d+$/, { since })).map(Number);
    expect(from).toBeGreaterThanOrEqual(first!);
    expect(from).toBeLessThanOrEqual(first! + 1000);
    await appliedThrough(store.sql, last!, 60_000);

    const rows = await executions(store.sql, 'C-');
    expect(rows.length).toBe(n);
    expect(rows.filter((r) => r.poss_dup).length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.exec_id)).size).toBe(n);
    const orphans = await orphanTraces(store.sql, 'C-');
    expect(orphans.size).toBe(n);
    expect([...orphans.values()].filter((k) => k !== 1)).toEqual([]);
    const audits = await fillAudits(store.sql, 'C-');
    expect(audits.size).toBe(n);
    expect([...audits.values()].filter((k) => k !== 1)).toEqual([]);
  }, 120_000);
});
