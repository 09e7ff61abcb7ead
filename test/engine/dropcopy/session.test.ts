/**
 * The live drop-copy session in `startServer` (src/engine/dropcopy/session.ts, runner.ts), as acceptor on a real
 * socket, against a real PostgreSQL, the exchange spoken by hand over raw TCP: a fill becomes an ORPHAN trace as
 * it arrives; malformed and unmappable fills are answered at the FIX level and kept for the officer; garbage does
 * not cost the fill after it; the listener binds the configured address only.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../../src/core/config.js';
import { startServer, type RunningServer } from '../../../src/http/server.js';
import { testStore, type TestStore } from '../../helpers/db.js';
import { freePort, waitUntil } from '../../helpers/dropcopy-server.js';
import { connectWhenListening, fillBody, logOnWhenFree, type RawFixPeer, type Received } from '../../helpers/raw-fix-peer.js';

const US = 'DESK';
const EXCHANGE = 'XNAS';

let store: TestStore;
let server: RunningServer;
let port: number;

/** Connects once the session listens (the server takes the session's lock and loads the FIX engine first). */
const peer = (): Promise<RawFixPeer> => connectWhenListening(port, EXCHANGE, US);

async function logon(p: RawFixPeer): Promise<Received> {
  p.send('A', [
    [98, 0],
    [108, 30],
    [141, 'Y'],
  ]);
  return p.waitFor('the logon answer', (m) => m.tags.get(35) === 'A');
}

const orphans = (execId: string) =>
  store.sql<Array<{ id: string }>>`select trace_id::text as id from traces where status = 'ORPHAN' and exchange_tx_id = ${execId}`;
const rejects = (seq: number) => store.sql<
  Array<{ answer: string; reason_code: number | null; ref_tag: number | null; reason: string; msg_type: string | null }>
>`
  select answer, reason_code, ref_tag, reason, msg_type from dropcopy_rejects where seq = ${seq}`;

beforeAll(async () => {
  store = await testStore();
  port = await freePort();
  const config = configWith({
    databaseUrl: store.url,
    logLevel: 'silent',
    port: 0,
    dropCopy: { role: 'acceptor', host: '127.0.0.1', port, senderCompId: US, targetCompId: EXCHANGE, heartbeatS: 30, reconnectS: 1, tls: null },
  });
  server = await startServer(config, { services: ['engine'], leaderRetryMs: 100 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await store?.close();
});

describe('the FIX drop-copy session under startServer', () => {
  let p: RawFixPeer;
  let answer: Received;
  beforeAll(async () => {
    p = await peer();
    answer = await logon(p);
  }, 30_000);
  afterAll(() => p?.close());

  it('answers a Logon that resets the sequence numbers (141=Y) with a Logon that says so, numbered 1', () => {
    expect(answer.tags.get(141)).toBe('Y');
    expect(answer.tags.get(34)).toBe('1');
  });

  it('turns a fill for an order it never authorized into an ORPHAN trace as it arrives', async () => {
    const execId = `E-${randomUUID()}`;
    p.send('8', fillBody(execId, randomUUID()));
    const [trace] = await waitUntil(
      'the ORPHAN trace',
      () => orphans(execId),
      (rows) => rows.length === 1,
      10_000,
    );
    const [row] = await store.sql`select outcome, trace_id::text from dropcopy_executions where exec_id = ${execId}`;
    expect(row).toMatchObject({ outcome: 'orphan', trace_id: trace!.id });
  });

  it('answers a fill without its Symbol (55) with a Reject naming the tag, and keeps it for the officer', async () => {
    const seq = p.seq;
    const from = p.received.length;
    p.send('8', fillBody(`E-${randomUUID()}`, randomUUID(), [55]));
    const reject = await p.waitFor('the Reject', (m) => m.tags.get(35) === '3', 10_000, from);
    expect(Object.fromEntries([45, 371, 372, 373].map((t) => [t, reject.tags.get(t)]))).toEqual({ 45: String(seq), 371: '55', 372: '8', 373: '1' });
    const [row] = await waitUntil(
      "the refused message's row",
      () => rejects(seq),
      (rows) => rows.length === 1,
      10_000,
    );
    expect(row).toMatchObject({ answer: 'reject', reason_code: 1, ref_tag: 55, msg_type: '8' });
  });

  it('answers a fill whose Account is not an agent id with a BusinessMessageReject', async () => {
    const seq = p.seq;
    const from = p.received.length;
    p.send('8', fillBody(`E-${randomUUID()}`, 'ACCT-7'));
    const reject = await p.waitFor('the BusinessMessageReject', (m) => m.tags.get(35) === 'j', 10_000, from);
    expect(reject.tags.get(45)).toBe(String(seq));
    expect(reject.tags.get(380)).toBe('0');
    expect(reject.tags.get(58)).toContain('ACCT-7');
    const [row] = await waitUntil(
      "the refused message's row",
      () => rejects(seq),
      (rows) => rows.length === 1,
      10_000,
    );
    expect(row).toMatchObject({ answer: 'business_reject', reason_code: 0, ref_tag: 1 });
  });

  it('refuses a SequenceReset that would move the numbering back with a Reject naming NewSeqNo, keeps it, and goes on from where it was', async () => {
    const expected = p.seq;
    const from = p.received.length;
    // Reset mode (no 123=Y): NewSeqNo 2 is far below the number the session expects next.
    p.send('4', [[36, 2]]);
    const reject = await p.waitFor('the Reject', (m) => m.tags.get(35) === '3', 10_000, from);
    expect(Object.fromEntries([45, 371, 372, 373].map((t) => [t, reject.tags.get(t)]))).toEqual({ 45: String(expected), 371: '36', 372: '4', 373: '5' });
    const [row] = await waitUntil(
      "the refused reset's row",
      () => store.sql<Array<{ answer: string; reason_code: number; ref_tag: number; reason: string; seq: number | null }>>`
      select answer, reason_code, ref_tag, reason, seq from dropcopy_rejects where msg_type = '4'`,
      (rows) => rows.length === 1,
      10_000,
    );
    expect(row).toMatchObject({ answer: 'reject', reason_code: 5, ref_tag: 36, seq: null });
    expect(row!.reason).toContain(`below the next expected MsgSeqNum ${expected}`);
    // The numbering did not move: the next fill, numbered as the session expects, is applied (a number moved
    // back would have made it a duplicate of an earlier message; one moved forward, a gap).
    const execId = `E-${randomUUID()}`;
    p.send('8', fillBody(execId, randomUUID()), { seq: expected });
    p.seq = expected + 1;
    await waitUntil(
      'the fill after the refused reset applied',
      () => orphans(execId),
      (rows) => rows.length === 1,
      10_000,
    );
    expect(p.received.slice(from).filter((m) => m.tags.get(35) === '2')).toEqual([]);
  });

  it('answers a refused message that is resent (43=Y) again, but records and audits it once', async () => {
    const seq = p.seq;
    const body = fillBody(`E-${randomUUID()}`, randomUUID(), [55]);
    const from = p.received.length;
    p.send('8', body);
    await p.waitFor('the Reject', (m) => m.tags.get(35) === '3' && m.tags.get(45) === String(seq), 10_000, from);
    await waitUntil(
      "the refused message's row",
      () => rejects(seq),
      (rows) => rows.length === 1,
      10_000,
    );
    // The exchange resends it (as after a ResendRequest: its own number, 43=Y, the original sending time in 122).
    const again = p.received.length;
    p.send('8', [[43, 'Y'], [122, '20260203-10:05:00.000'], ...body], { seq });
    await p.waitFor('the Reject of the resend', (m) => m.tags.get(35) === '3' && m.tags.get(45) === String(seq), 10_000, again);
    // A fill after it is committed after it: by then the resend's batch is committed too.
    const next = `E-${randomUUID()}`;
    p.send('8', fillBody(next, randomUUID()));
    await waitUntil(
      'the fill after the resend applied',
      () => orphans(next),
      (rows) => rows.length === 1,
      10_000,
    );
    expect(await rejects(seq)).toHaveLength(1);
    const audited = await store.sql`select 1 from audit_log where action = 'dropcopy.reject' and details like ${`%"seq":${seq},%`}`;
    expect(audited).toHaveLength(1);
  });

  it('does not lose the fill that follows garbage: it is recorded unprocessed, asked for again and applied once', async () => {
    const lost = `E-${randomUUID()}`;
    const next = `E-${randomUUID()}`;
    const seq = p.seq;
    const from = p.received.length;
    // The stray bytes run into the next message, which no longer checks out.
    p.write('this is not FIX at all\n');
    p.send('8', fillBody(lost, randomUUID()));
    p.send('8', fillBody(next, randomUUID()));
    const resend = await p.waitFor('the ResendRequest', (m) => m.tags.get(35) === '2', 10_000, from);
    expect(resend.tags.get(7)).toBe(String(seq));
    // The exchange resends everything from there (EndSeqNo 0), marked as possible duplicates.
    p.send('8', [[43, 'Y'], [122, '20260203-10:05:00.000'], ...fillBody(lost, randomUUID())], { seq });
    p.send('8', [[43, 'Y'], [122, '20260203-10:05:00.000'], ...fillBody(next, randomUUID())], { seq: seq + 1 });
    await waitUntil(
      'both fills applied',
      () => store.sql`select exec_id from dropcopy_executions where exec_id in (${lost}, ${next})`,
      (rows) => rows.length === 2,
      10_000,
    );
    await waitUntil(
      'the watermark past both',
      () => store.sql<Array<{ n: number }>>`select next_target_seq as n from dropcopy_sessions`,
      (rows) => rows[0]!.n > seq + 1,
      10_000,
    );
    expect((await orphans(lost)).length).toBe(1);
    expect((await orphans(next)).length).toBe(1);
    const garbled = await store.sql`select answer, seq, reason from dropcopy_rejects where answer = 'none'`;
    expect(garbled).toHaveLength(1);
    expect(garbled[0]).toMatchObject({ answer: 'none', seq: null });
    expect(garbled[0]!.reason).toContain('before BeginString');
  });
});

describe("the acceptor's listener", () => {
  it('listens on FIX_DROPCOPY_HOST only, not on every interface', async () => {
    const reach = (host: string) =>
      new Promise<boolean>((resolve) => {
        const s = net.connect({ host, port }, () => {
          s.destroy();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      });
    // Every 127.0.0.0/8 address is this machine's loopback; a listener on all interfaces answers on each.
    expect(await reach('127.0.0.1')).toBe(true);
    expect(await reach('127.0.0.2')).toBe(false);
  });
});

describe('a connection that dies', () => {
  /** Connects and logs on, again while the session still holds the previous connection (it refuses another). */
  const logOnAgain = (seq: number, reset: boolean): Promise<{ q: RawFixPeer; answer: Received }> =>
    logOnWhenFree(port, EXCHANGE, US, seq, reset).then(({ p, answer }) => ({ q: p, answer }));

  it('logs on to the next connection above every number it sent, also after gap-filling a resend', async () => {
    const { q: first } = await logOnAgain(1, true);
    // Two refused messages: this side sends a Reject (2) and a BusinessMessageReject (3).
    first.send('8', fillBody(`E-${randomUUID()}`, randomUUID(), [55]));
    first.send('8', fillBody(`E-${randomUUID()}`, 'ACCT-7'));
    await first.waitFor('both answers', (m) => m.tags.get(35) === 'j');
    // The exchange asks for everything again; administrative messages and answers are gap-filled from 1.
    const from = first.received.length;
    first.send('2', [
      [7, 1],
      [16, 0],
    ]);
    const fill = await first.waitFor('the gap fill', (m) => m.tags.get(35) === '4', 10_000, from);
    expect(Object.fromEntries([34, 36, 43, 123].map((t) => [t, fill.tags.get(t)]))).toEqual({ 34: '1', 36: '4', 43: 'Y', 123: 'Y' });
    first.close();
    const { q: second, answer } = await logOnAgain(first.seq, false);
    expect(answer.tags.get(34)).toBe('4');
    second.close();
  });

  it("frees the session for the exchange's next connection, which carries on its sequence numbers", async () => {
    const { q: first } = await logOnAgain(1, true);
    const execId = `E-${randomUUID()}`;
    first.send('8', fillBody(execId, randomUUID()));
    await waitUntil(
      'the fill applied',
      () => orphans(execId),
      (rows) => rows.length === 1,
      10_000,
    );
    // The exchange's process dies: its connection goes without a logout.
    first.close();
    const { q: second } = await logOnAgain(first.seq, false);
    const next = `E-${randomUUID()}`;
    second.send('8', fillBody(next, randomUUID()));
    await waitUntil(
      'the fill after the reconnection applied',
      () => orphans(next),
      (rows) => rows.length === 1,
      10_000,
    );
    second.close();
  });

  it('drops the connection on bytes that break the parser, records them, and has the fill after them resent', async () => {
    const { q: first } = await logOnAgain(1, true);
    const lost = `E-${randomUUID()}`;
    const seq = first.seq;
    first.write('12345 garbage\n');
    first.send('8', fillBody(lost, randomUUID()));
    await first.closed;
    const [row] = await waitUntil(
      'the recorded bytes',
      () => store.sql<Array<{ reason: string }>>`select reason from dropcopy_rejects where reason like '%broke the FIX parser%'`,
      (rows) => rows.length === 1,
      10_000,
    );
    expect(row!.reason).toContain('the connection was dropped');
    const { q: second } = await logOnAgain(seq + 1, false);
    const resend = await second.waitFor('the ResendRequest', (m) => m.tags.get(35) === '2');
    expect(resend.tags.get(7)).toBe(String(seq));
    second.send('8', [[43, 'Y'], [122, '20260203-10:05:00.000'], ...fillBody(lost, randomUUID())], { seq });
    second.send(
      '4',
      [
        [43, 'Y'],
        [123, 'Y'],
        [36, seq + 2],
      ],
      { seq: seq + 1 },
    );
    await waitUntil(
      'the lost fill applied',
      () => orphans(lost),
      (rows) => rows.length === 1,
      10_000,
    );
    second.close();
  });
});
