/**
 * Guarantee: a fill is reconciled exactly once across the death of either end. `tradeseal serve` (a child
 * process on PostgreSQL) runs the FIX drop copy as acceptor; the exchange, QuickFIX/C++ (test/helpers/quickfix/)
 * with its sequence numbers and sent messages on file, connects through a proxy. The server is killed with
 * SIGKILL in the middle of a stream of fills and started again, and the exchange is killed and started again:
 * every ExecID sent is in dropcopy_executions once, each unknown one is one ORPHAN trace with one audit entry,
 * none twice, none missing.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStore, type TestStore } from '../../helpers/db.js';
import {
  appliedThrough,
  dropCopyEnv,
  ENGINE_COMP_ID,
  EXCHANGE_COMP_ID,
  executions,
  fillAudits,
  freePort,
  orphanTraces,
  SESSION_KEY,
  sessionRow,
  waitUntil,
} from '../../helpers/dropcopy-server.js';
import { DEFAULT_MAX_BATCH } from '../../../src/engine/dropcopy/pipeline.js';
import { startFixProxy, type FixProxy } from '../../helpers/fix-proxy.js';
import { exchangePeerBinary } from '../../helpers/quickfix/binary.js';
import { startExchangePeer, type ExchangePeer, type ExchangePeerOptions } from '../../helpers/quickfix/peer.js';
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
let serverEnv: Record<string, string>;
let proxy: FixProxy;
let peerOptions: ExchangePeerOptions;
let peer: ExchangePeer;
const servers: ServerProcess[] = [];
let agent: Agent;
let regime: Regime;

const server = (): ServerProcess => servers[servers.length - 1]!;

/** How many of the ascending `xs` are <= x. */
function upperBound(xs: number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

async function expectExactlyOnce(prefix: string, ids: string[]): Promise<void> {
  const rows = await executions(store.sql, prefix);
  expect(rows.map((r) => r.exec_id).sort()).toEqual([...ids].sort());
  expect(rows.filter((r) => r.outcome !== 'orphan')).toEqual([]);
  const orphans = await orphanTraces(store.sql, prefix);
  expect(orphans.size).toBe(ids.length);
  expect([...orphans].filter(([, n]) => n !== 1)).toEqual([]);
  const audits = await fillAudits(store.sql, prefix);
  expect(audits.size).toBe(ids.length);
  expect([...audits].filter(([, n]) => n !== 1)).toEqual([]);
}

beforeAll(async () => {
  store = await testStore();
  settings = await engineSettings(store.url);
  const enginePort = await freePort();
  serverEnv = { ...settings.env, ...dropCopyEnv('acceptor', enginePort) };
  servers.push(await startServerProcess(serverEnv, 'dropcopy-acceptor'));
  // The exchange connects to the proxy, the proxy to the engine.
  proxy = await startFixProxy({ port: enginePort }, 'upstream');
  peerOptions = {
    binary: exchangePeerBinary(),
    role: 'initiator',
    port: proxy.port,
    senderCompId: EXCHANGE_COMP_ID,
    targetCompId: ENGINE_COMP_ID,
    dir: path.join(await tempDir('exchange'), 'peer'),
    reconnectS: 1,
  };
  peer = await startExchangePeer(peerOptions);
  await peer.waitFor(/^logon$/, { timeoutMs: 60_000 });
  const client = new Client(server().url, 4);
  regime = await publishRegime(client, settings.ownerToken);
  agent = await registerAgent(client, settings.ownerToken);
  client.close();
}, 180_000);

/** What a QuickFIX peer with these CompIDs received and sent, from its message log. */
const messageLog = (dir: string, sender: string, target: string): string =>
  readFileSync(path.join(dir, 'log', `FIX.4.4-${sender}-${target}.messages.current.log`), 'latin1');

/** The refused Logons recorded whose reason contains `text`, with their audit entry's action. */
const refusedLogons = (text: string) => store.sql<Array<{ reason: string; action: string | null }>>`
  select r.reason, a.action from dropcopy_rejects r left join audit_log a on a.id = r.audit_entry_id
  where r.session_key = ${SESSION_KEY} and r.reason like ${`%${text}%`}`;

afterAll(async () => {
  for (const s of servers) await s.stop();
  await peer?.stop();
  await proxy?.close();
  await store?.close();
  await removeTempDirs();
});

describe('a FIX drop copy from QuickFIX/C++, tradeseal as acceptor', () => {
  it('matches a bound fill and makes an unknown one an ORPHAN trace', async () => {
    const client = new Client(server().url, 2);
    const order = authorizeRequest(settings, agent, regime);
    const { trace_id } = await client.json<{ trace_id: string }>(order, 200);
    const bind = bindRequest(agent, trace_id, `A-${randomUUID()}`);
    await client.json(bind, 200);
    client.close();
    await peer.fill(bind.exchangeTxId, agent.agentId, { 11: order.clientOrderId });
    const unknown = `A-${randomUUID()}`;
    const seq = await peer.fill(unknown, agent.agentId);
    await appliedThrough(store.sql, seq);
    const byId = new Map((await executions(store.sql, 'A-')).map((r) => [r.exec_id, r]));
    expect(byId.get(bind.exchangeTxId)).toMatchObject({ outcome: 'matched', trace_id });
    expect(byId.get(unknown)).toMatchObject({ outcome: 'orphan' });
  });

  it('reads a burst at most about two batches ahead of its commits: the rest waits at the exchange, not in the engine', async () => {
    const n = 8000;
    const since = peer.lines.length;
    peer.command(`bulk ${n} B- ${agent.agentId} 1`);
    const [, , last] = (await peer.waitFor(/^bulk \d+ (\d+) (\d+)$/, { since, timeoutMs: 60_000 })).map(Number);
    await appliedThrough(store.sql, last!, 120_000);
    const rows = await store.sql<Array<{ received_at: Date; applied_at: Date }>>`
      select received_at, applied_at from dropcopy_executions where exec_id like 'B-%'`;
    expect(rows.length).toBe(n);
    // At the instant a fill was read, every fill read by then whose batch began only after it (applied_at is when
    // its batch began) was read and not yet committed: a lower bound of the engine's backlog at that instant.
    const received = rows.map((r) => r.received_at.getTime()).sort((a, b) => a - b);
    const applied = rows.map((r) => r.applied_at.getTime()).sort((a, b) => a - b);
    let peak = 0;
    for (const at of received) {
      const readBy = upperBound(received, at);
      const committedBy = upperBound(applied, at);
      peak = Math.max(peak, readBy - committedBy);
    }
    // The session stops reading above two batches (runner.ts, HIGH_WATER); what one socket read had already brought
    // in is still handed over (a read is at most 64 KiB, and each of this exchange's fills is longer than 150 bytes).
    expect(peak).toBeLessThanOrEqual(2 * DEFAULT_MAX_BATCH + Math.ceil(65_536 / 150));
  }, 180_000);

  it('applies every fill exactly once when the server is killed (SIGKILL) mid-stream and started again', async () => {
    const n = 5000;
    const since = peer.lines.length;
    const epochBefore = (await sessionRow(store.sql))!.epoch;
    peer.command(`bulk ${n} K- ${agent.agentId} 1`);
    const atKill = await waitUntil(
      'the first fills applied',
      async () => (await executions(store.sql, 'K-')).length,
      (k) => k > 0,
    );
    await server().kill();
    expect(atKill).toBeLessThan(n);
    const [, , last] = (await peer.waitFor(/^bulk \d+ (\d+) (\d+)$/, { since })).map(Number);

    servers.push(await startServerProcess(serverEnv, 'dropcopy-acceptor-restarted'));
    await peer.waitFor(/^logon$/, { since, timeoutMs: 60_000 });
    // What the killed server had not committed is asked for again, and resent.
    const [, from] = (await peer.waitFor(/^resend-request (\d+) \d+$/, { since })).map(Number);
    expect(from).toBeLessThanOrEqual(last!);
    const row = await appliedThrough(store.sql, last!, 60_000);
    expect(row!.epoch).toBeGreaterThan(epochBefore);

    await expectExactlyOnce(
      'K-',
      Array.from({ length: n }, (_, i) => `K-${i + 1}`),
    );
    expect((await executions(store.sql, 'K-')).filter((r) => r.poss_dup).length).toBeGreaterThan(0);
  }, 180_000);

  it("resumes the exchange's sequence numbers when the exchange is killed and started again, and applies each fill once", async () => {
    const before = `E1-${randomUUID()}`;
    const lastBefore = await peer.fill(before, agent.agentId);
    await appliedThrough(store.sql, lastBefore);
    await peer.kill();

    peer = await startExchangePeer(peerOptions);
    await peer.waitFor(/^logon$/, { timeoutMs: 60_000 });
    const after = `E2-${randomUUID()}`;
    const seq = await peer.fill(after, agent.agentId);
    // No reset: the restarted exchange numbers on from where it was.
    expect(seq).toBeGreaterThan(lastBefore);
    await appliedThrough(store.sql, seq);
    await expectExactlyOnce('E', [before, after]);
  }, 120_000);
  it("answers a QuickFIX initiator with other CompIDs with a Logout that names none of the session's, and spends none of the exchange's numbers", async () => {
    let since = peer.lines.length;
    peer.command('seqnums');
    const expectedBefore = Number((await peer.waitFor(/^seqnums \d+ (\d+)$/, { since }))[1]);
    const dir = path.join(await tempDir('stranger'), 'peer');
    const stranger = await startExchangePeer({
      binary: exchangePeerBinary(),
      role: 'initiator',
      port: Number(serverEnv.FIX_DROPCOPY_PORT),
      senderCompId: 'SNOOP',
      targetCompId: 'GUESS',
      dir,
      reconnectS: 30,
    });
    const [row] = await waitUntil(
      'the refused Logon recorded',
      () => refusedLogons('"SNOOP"->"GUESS"'),
      (r) => r.length === 1,
    );
    expect(row!.action).toBe('dropcopy.reject');
    await stranger.waitFor(/^logout$/);
    await stranger.stop();
    const logout = messageLog(dir, 'SNOOP', 'GUESS')
      .split('\n')
      .find((line) => line.includes('\u000135=5\u0001'));
    expect(logout).toContain('\u000149=GUESS\u000156=SNOOP\u000134=1\u0001');
    expect(logout).toContain('\u000158=Logon refused\u0001');
    expect(logout).not.toContain(ENGINE_COMP_ID);
    expect(logout).not.toContain(EXCHANGE_COMP_ID);
    // The engine's next message to the exchange (a Reject) carries the number the exchange expects: none was spent.
    const seq = await peer.fill(`Q-${randomUUID()}`, agent.agentId, { 55: '' });
    await peer.waitFor(new RegExp(`^reject ${seq} 1 55 `));
    // QuickFIX counts a message once its callback has returned: asked until it has.
    const expectedAfter = await waitUntil(
      'the exchange counting the Reject',
      async () => {
        since = peer.lines.length;
        peer.command('seqnums');
        return Number((await peer.waitFor(/^seqnums \d+ (\d+)$/, { since }))[1]);
      },
      (n) => n > expectedBefore,
    );
    expect(expectedAfter).toBe(expectedBefore + 1);
  }, 60_000);

  it("answers a Logon numbered too low (the exchange's store lost) with a Logout saying so, recorded; the exchange with its store then logs on", async () => {
    await peer.stop();
    const expected = (await sessionRow(store.sql))!.next_target_seq;
    const dir = path.join(await tempDir('amnesiac'), 'peer');
    const amnesiac = await startExchangePeer({ ...peerOptions, dir, reconnectS: 30 });
    const [row] = await waitUntil(
      'the refused Logon recorded',
      () => refusedLogons('MsgSeqNum too low'),
      (r) => r.length === 1,
    );
    expect(row).toMatchObject({ reason: `Logon refused with a Logout: MsgSeqNum too low, expecting ${expected} but received 1`, action: 'dropcopy.reject' });
    await amnesiac.waitFor(/^logout$/);
    await amnesiac.stop();
    expect(messageLog(dir, EXCHANGE_COMP_ID, ENGINE_COMP_ID)).toContain(`\u000158=MsgSeqNum too low, expecting ${expected} but received 1\u0001`);

    peer = await startExchangePeer(peerOptions);
    await peer.waitFor(/^logon$/, { timeoutMs: 60_000 });
    const execId = `L-${randomUUID()}`;
    await appliedThrough(store.sql, await peer.fill(execId, agent.agentId));
    await expectExactlyOnce('L-', [execId]);
  }, 120_000);
});
