/**
 * What no peer can do to the live drop-copy session (src/engine/dropcopy/logon-gate.ts, session.ts, runner.ts),
 * as acceptor under `startServer` on a real PostgreSQL, the peers spoken by hand over raw TCP from the FIX 4.4
 * specification, sending what a FIX engine would refuse to: bytes above 0x7F, idle connections, Logons with other
 * CompIDs or a MsgSeqNum too low, connections from an address not allowed.
 *
 * FIX is bytes: the checksum is the bytes' and a refused message is kept as the bytes received; a byte outside
 * printable ASCII in a field read is refused with a Reject naming the tag, and the watermark passes it, resends
 * included. No stranger blocks, displaces or learns about the session, and every refused Logon is recorded and
 * audited, or counted in a record with the others of its address and kind. No stranger at one address takes the
 * exchange's place at another: a connection over the per-address cap is closed at once.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../../src/core/config.js';
import { bytesOfWireText } from '../../../src/engine/dropcopy/wire-text.js';
import { startServer, type RunningServer } from '../../../src/http/server.js';
import { testStore, type TestStore } from '../../helpers/db.js';
import { freePort, waitUntil } from '../../helpers/dropcopy-server.js';
import { connectWhenListening as connectRaw, fillBody, logOnWhenFree, rawPeerOn, type RawFixPeer, type Received } from '../../helpers/raw-fix-peer.js';

const US = 'DESK';
const EXCHANGE = 'XNAS';
const LOGON_TIMEOUT_S = 1;
const PER_ADDRESS = 2;

let store: TestStore;
let server: RunningServer;
let port: number;

const connectWhenListening = (sender = EXCHANGE, target = US): Promise<RawFixPeer> => connectRaw(port, sender, target);
const exchangeLogsOn = (seq: number, reset = false): Promise<{ p: RawFixPeer; answer: Received }> => logOnWhenFree(port, EXCHANGE, US, seq, reset);

const connectFrom = (localAddress: string): Promise<net.Socket> =>
  new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress }, () => resolve(s));
    s.once('error', reject);
  });

interface RejectRow {
  seq: number | null;
  msg_type: string | null;
  answer: string;
  reason_code: number | null;
  ref_tag: number | null;
  reason: string;
  raw: string;
  action: string | null;
}
const rejectRows = (where: string): Promise<RejectRow[]> => store.sql<RejectRow[]>`
  select r.seq, r.msg_type, r.answer, r.reason_code, r.ref_tag, r.reason, r.raw, a.action
  from dropcopy_rejects r left join audit_log a on a.id = r.audit_entry_id
  where r.reason like ${`%${where}%`} order by r.received_at`;
const orphans = (execId: string) => store.sql`select 1 from traces where status = 'ORPHAN' and exchange_tx_id = ${execId}`;
const watermark = async (): Promise<number> => (await store.sql<Array<{ n: number }>>`select next_target_seq as n from dropcopy_sessions`)[0]!.n;

beforeAll(async () => {
  store = await testStore();
  port = await freePort();
  const config = configWith({
    databaseUrl: store.url,
    logLevel: 'silent',
    port: 0,
    dropCopy: {
      role: 'acceptor',
      host: '127.0.0.1',
      port,
      senderCompId: US,
      targetCompId: EXCHANGE,
      heartbeatS: 30,
      reconnectS: 1,
      tls: null,
      logonTimeoutS: LOGON_TIMEOUT_S,
      allow: ['127.0.0.1', '127.0.0.3'],
      maxConnectionsPerAddress: PER_ADDRESS,
    },
  });
  server = await startServer(config, { services: ['engine'], leaderRetryMs: 100 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await store?.close();
});

describe('FIX is bytes', () => {
  let p: RawFixPeer;
  beforeAll(async () => {
    ({ p } = await exchangeLogsOn(1, true));
  }, 30_000);
  afterAll(() => p?.close());

  it('refuses a byte above 0x7F in Symbol with a Reject naming tag 55, keeps the bytes received exactly, and moves past it, resent or not', async () => {
    const seq = p.seq;
    const execId = `E-${randomUUID()}`;
    const body = fillBody(execId, randomUUID()).map(([t, v]): [number, string | number] => (t === 55 ? [55, 'AAPL\u00c9'] : [t, v]));
    const from = p.received.length;
    const sent = p.send('8', body);
    const reject = await p.waitFor('the Reject', (m) => m.tags.get(35) === '3', 5000, from);
    expect(Object.fromEntries([45, 371, 372, 373].map((t) => [t, reject.tags.get(t)]))).toEqual({ 45: String(seq), 371: '55', 372: '8', 373: '6' });
    expect(reject.tags.get(58)).toBe('Symbol (55) holds a byte outside printable ASCII (0xc9 at position 5): a FIX String field is ASCII');
    const [row] = await waitUntil(
      "the refused message's row",
      () => rejectRows('Symbol (55) holds a byte'),
      (rows) => rows.length === 1,
      5000,
    );
    expect(row).toMatchObject({ seq, msg_type: '8', answer: 'reject', reason_code: 6, ref_tag: 55, action: 'dropcopy.reject' });
    expect(bytesOfWireText(row!.raw).equals(Buffer.from(sent, 'latin1'))).toBe(true);
    expect(row!.raw).toContain('|55=AAPL\\xc9|');

    // The exchange resends it after a gap of its own (43=Y): refused again, kept once, and nothing waits on it.
    const again = p.received.length;
    p.send('8', [[43, 'Y'], [122, '20260203-10:05:00.000'], ...body], { seq });
    await p.waitFor('the Reject of the resend', (m) => m.tags.get(35) === '3' && m.tags.get(45) === String(seq), 5000, again);
    const next = `E-${randomUUID()}`;
    p.send('8', fillBody(next, randomUUID()));
    await waitUntil(
      'the fill after it applied',
      () => orphans(next),
      (rows) => rows.length === 1,
      5000,
    );
    expect(await watermark()).toBeGreaterThan(seq + 1);
    expect(await orphans(execId)).toEqual([]);
    expect(await rejectRows('Symbol (55) holds a byte')).toHaveLength(1);
    expect(p.received.slice(from).filter((m) => m.tags.get(35) === '2')).toEqual([]);
  });

  it('refuses two bytes above 0x7F whose lost high bits cancel out in the checksum, instead of sealing a control character into an ORPHAN', async () => {
    const seq = p.seq;
    const execId = `E-${randomUUID()}`;
    // 0x9B read without its high bit is ESC (0x1B); two of them are 256 off, nothing modulo 256.
    const body = fillBody(execId, randomUUID()).map(([t, v]): [number, string | number] => (t === 55 ? [55, 'A\u009bB\u009bC'] : [t, v]));
    const from = p.received.length;
    p.send('8', body);
    const reject = await p.waitFor('the Reject', (m) => m.tags.get(35) === '3', 5000, from);
    expect([reject.tags.get(45), reject.tags.get(371), reject.tags.get(373)]).toEqual([String(seq), '55', '6']);
    const next = `E-${randomUUID()}`;
    p.send('8', fillBody(next, randomUUID()));
    await waitUntil(
      'the fill after it applied',
      () => orphans(next),
      (rows) => rows.length === 1,
      5000,
    );
    expect(await orphans(execId)).toEqual([]);
    const assets = await store.sql`select 1 from traces where status = 'ORPHAN' and asset ~ '[[:cntrl:]]'`;
    expect(assets).toEqual([]);
  });

  it('applies a fill carrying an EncodedText (355) in the MessageEncoding (347) it names, SOH and bytes above 0x7F included', async () => {
    const execId = `E-${randomUUID()}`;
    const text = Buffer.from('pr\u00eat \u20ac\u0001', 'utf8').toString('latin1');
    p.send('8', [...fillBody(execId, randomUUID()), [347, 'UTF-8'], [354, text.length], [355, text]]);
    await waitUntil(
      'the fill applied',
      () => orphans(execId),
      (rows) => rows.length === 1,
      5000,
    );
  });
});

describe('no peer can wedge the session', () => {
  it("takes the exchange's Logon while a stranger holds a connection open without a word, and closes the stranger after the Logon timeout, recorded and audited", async () => {
    const stranger = await connectWhenListening('NOBODY', 'NOONE');
    const { p, answer } = await exchangeLogsOn(1, true);
    expect(answer.tags.get(35)).toBe('A');
    await stranger.closed;
    expect(stranger.received).toEqual([]);
    const [row] = await waitUntil(
      "the refused connection's row",
      () => rejectRows(`no Logon within ${LOGON_TIMEOUT_S} s`),
      (rows) => rows.length >= 1,
      5000,
    );
    expect(row).toMatchObject({ seq: null, answer: 'none', action: 'dropcopy.reject' });
    expect(row!.reason).toMatch(/^Logon refused \(127\.0\.0\.1:\d+\): no Logon within 1 s \(0 bytes received\)$/);
    // The stranger never took the session's place: the exchange's fills still go through.
    const execId = `E-${randomUUID()}`;
    p.send('8', fillBody(execId, randomUUID()));
    await waitUntil(
      "the exchange's fill applied",
      () => orphans(execId),
      (rows) => rows.length === 1,
      5000,
    );
    p.close();
  });

  it("answers a Logon with other CompIDs with a Logout of its own that names none of the session's, and spends none of its numbers", async () => {
    const { p: first, answer } = await exchangeLogsOn(1, true);
    const stranger = await connectWhenListening('SNOOP', 'GUESS');
    stranger.send('A', [
      [98, 0],
      [108, 30],
    ]);
    const logout = await stranger.waitFor('the Logout', (m) => m.tags.get(35) === '5');
    await stranger.closed;
    expect(Object.fromEntries([34, 49, 56, 58].map((t) => [t, logout.tags.get(t)]))).toEqual({ 34: '1', 49: 'GUESS', 56: 'SNOOP', 58: 'Logon refused' });
    expect(logout.raw).not.toContain(US);
    expect(logout.raw).not.toContain(EXCHANGE);
    const [row] = await waitUntil(
      "the refused Logon's row",
      () => rejectRows('"SNOOP"->"GUESS"'),
      (rows) => rows.length === 1,
      5000,
    );
    expect(row).toMatchObject({ seq: null, msg_type: 'A', answer: 'none', action: 'dropcopy.reject' });
    expect(bytesOfWireText(row!.raw).toString('latin1')).toContain('\u000149=SNOOP\u000156=GUESS\u0001');
    // The session's own numbering did not move: its next message is the one after its last.
    const from = first.received.length;
    first.send('1', [[112, 'after-the-stranger']]);
    const heartbeat = await first.waitFor('the answer to the TestRequest', (m) => m.tags.get(35) === '0', 5000, from);
    expect(Number(heartbeat.tags.get(34))).toBe(Number(answer.tags.get(34)) + 1);
    first.close();
  });

  it('answers a Logon numbered below the next MsgSeqNum expected with a Logout saying so, recorded and audited', async () => {
    const { p: first } = await exchangeLogsOn(1, true);
    first.send('0', []);
    first.send('0', []);
    const expected = first.seq;
    await waitUntil('the heartbeats handled', watermark, (n) => n === expected, 5000);
    first.close();
    await first.closed;
    const deadline = Date.now() + 10_000;
    let logout: Received | undefined;
    while (logout === undefined) {
      const late = await connectWhenListening();
      late.send(
        'A',
        [
          [98, 0],
          [108, 30],
        ],
        { seq: 2 },
      );
      logout = await late
        .waitFor('the Logout', (m) => m.tags.get(35) === '5', 2000)
        .catch((err: unknown) => {
          // Still closing the earlier connection: the door closes this one; try again.
          if (Date.now() > deadline) throw err;
          return undefined;
        });
      late.close();
    }
    expect(logout.tags.get(58)).toBe(`MsgSeqNum too low, expecting ${expected} but received 2`);
    const [row] = await waitUntil(
      "the refused Logon's row",
      () => rejectRows('MsgSeqNum too low'),
      (rows) => rows.length === 1,
      5000,
    );
    expect(row).toMatchObject({ seq: null, msg_type: 'A', answer: 'none', action: 'dropcopy.reject' });
    expect(row!.reason).toBe(`Logon refused with a Logout: MsgSeqNum too low, expecting ${expected} but received 2`);
    // The exchange, numbered right, is taken.
    const { p: right } = await exchangeLogsOn(expected);
    right.close();
  });

  it('closes a connection from an address outside FIX_DROPCOPY_ALLOW before reading a byte, recorded and audited', async () => {
    const socket = await connectFrom('127.0.0.2');
    const outsider = rawPeerOn(socket, EXCHANGE, US);
    outsider.send('A', [
      [98, 0],
      [108, 30],
      [141, 'Y'],
    ]);
    await outsider.closed;
    expect(outsider.received).toEqual([]);
    const [row] = await waitUntil(
      "the refused connection's row",
      () => rejectRows('FIX_DROPCOPY_ALLOW'),
      (rows) => rows.length === 1,
      5000,
    );
    expect(row).toMatchObject({ seq: null, answer: 'none', raw: '', action: 'dropcopy.reject' });
    expect(row!.reason).toMatch(/^Logon refused \(127\.0\.0\.2:\d+\): the address is not in FIX_DROPCOPY_ALLOW/);
  });
});

describe('no stranger exhausts the acceptor', () => {
  beforeAll(async () => {
    (await connectWhenListening()).close();
  }, 30_000);

  it('closes at once a connection over FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS, and takes the exchange from another address meanwhile', async () => {
    const holders = await Promise.all(Array.from({ length: PER_ADDRESS }, () => connectFrom('127.0.0.3').then((s) => rawPeerOn(s, 'NOBODY', 'NOONE'))));
    const over = rawPeerOn(await connectFrom('127.0.0.3'), EXCHANGE, US);
    over.send('A', [
      [98, 0],
      [108, 30],
      [141, 'Y'],
    ]);
    await over.closed;
    expect(over.received).toEqual([]);
    const { p, answer } = await exchangeLogsOn(1, true);
    expect(answer.tags.get(35)).toBe('A');
    const [row] = await waitUntil(
      "the refused connection's row",
      () => rejectRows('FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS'),
      (rows) => rows.length === 1,
      5000,
    );
    expect(row).toMatchObject({ seq: null, answer: 'none', raw: '', action: 'dropcopy.reject' });
    expect(row!.reason).toMatch(/^Logon refused \(127\.0\.0\.3:\?\): 2 connections from this address are open already/);
    p.close();
    await Promise.all(holders.map((h) => h.closed));
  });

  it('records a loop of connect-and-close from one address as its first refusal and one record counting the others, written at the latest when the session stops', async () => {
    const before = (await rejectRows('refused (not_allowed)')).length;
    const first = (await rejectRows('FIX_DROPCOPY_ALLOW')).length;
    const loops = 20;
    for (let i = 0; i < loops; i++) {
      const s = await connectFrom('127.0.0.2');
      await new Promise<void>((resolve) => s.once('close', () => resolve()));
    }
    await server.close();
    const all = await rejectRows('FIX_DROPCOPY_ALLOW');
    // At most one in full in the window (none more if an earlier refusal of the address opened it).
    expect(all.length - first).toBeLessThanOrEqual(1);
    const counted = (await rejectRows('refused (not_allowed)')).slice(before);
    expect(counted).toHaveLength(1);
    expect(counted[0]).toMatchObject({ seq: null, answer: 'none', action: 'dropcopy.reject' });
    const n = Number(/: (\d+) more connection\(s\) refused \(not_allowed\)/.exec(counted[0]!.reason)?.[1]);
    expect(n + (all.length - first)).toBe(loops);
    expect(counted[0]!.reason).toMatch(
      /^Logon refused \(127\.0\.0\.2\): \d+ more connection\(s\) refused \(not_allowed\) from \S+ to \S+, not recorded individually$/,
    );
  });
});
