/**
 * The acceptor's door: what a connection must show before it is handed to the drop-copy session. jspurefix's
 * session takes the first connection and holds it until its heartbeat fails, so a stranger that connected and
 * said nothing held the only place and the exchange was turned away. Here a connection is read by itself first,
 * with no session and no sequence number involved, until its first message is whole:
 *
 * - it must arrive within the Logon timeout (FIX_DROPCOPY_LOGON_TIMEOUT_S), in at most `MAX_LOGON_BYTES`;
 * - it must be a sound frame (BeginString FIX.4.4 first, BodyLength and CheckSum right) and a Logon (35=A);
 * - its CompIDs must be this session's (49 the exchange's, 56 ours). A stranger is answered with a Logout of its
 *   own: numbered 1, outside the session's numbering (nothing of the session is spent or stored), addressed back
 *   with the CompIDs it sent, and saying only "Logon refused": it learns nothing about the session.
 * Any number of connections may wait at the door at once; none of them holds the session's place. The first that
 * passes while no session runs is handed over, its bytes put back in front of the socket for jspurefix to read;
 * one that passes while a session runs is closed (the exchange whose connection died unnoticed gets in once the
 * open one fails its heartbeat). The session itself judges the Logon's MsgSeqNum (session.ts).
 *
 * `judgeFirstMessage` and `strangerLogout` are pure; `awaitLogon` does the reading.
 */
import { BlockList, isIP, type Socket } from 'node:net';
import { frameProblemOf } from './fix-fields.js';
import type { RefusalKind } from './refusal-tally.js';
import { wireTextOf } from './wire-text.js';

/** A first message longer than this is no Logon (a Logon is a few hundred bytes). */
export const MAX_LOGON_BYTES = 16 * 1024;
/** The longest head `8=<BeginString><SOH>9=<BodyLength><SOH>` (16 and 9 characters at most): more is a message or none. */
const MAX_HEAD_BYTES = 2 + 16 + 1 + 2 + 9 + 1;

const SOH = '\x01';

export interface LogonParties {
  /** Our SenderCompID. */
  senderCompId: string;
  /** The exchange's CompID, our TargetCompID. */
  targetCompId: string;
}

/** The first complete message at the start of `bytes` (latin1 text), 'more' when it is not whole yet, or why not. */
export function firstMessageOf(bytes: string): { kind: 'message'; text: string } | { kind: 'more'; expected?: number } | { kind: 'bad'; reason: string } {
  const head = /^8=[^\x01]{1,16}\x019=(\d{1,9})\x01/.exec(bytes);
  if (!head) {
    const prefix = '8=FIX.4.4\x019=';
    const couldStill = bytes.length < prefix.length ? prefix.startsWith(bytes) : bytes.startsWith(prefix) && /^8=FIX\.4\.4\x019=\d{0,9}$/.test(bytes);
    return couldStill ? { kind: 'more' } : { kind: 'bad', reason: `the first bytes are not a FIX 4.4 message: ${JSON.stringify(bytes.slice(0, 40))}` };
  }
  const end = head[0].length + Number(head[1]) + 7; // the body, then 10=NNN<SOH>
  if (end > MAX_LOGON_BYTES) return { kind: 'bad', reason: `a first message of ${end} bytes is no Logon` };
  if (bytes.length < end) return { kind: 'more', expected: end };
  return { kind: 'message', text: bytes.slice(0, end) };
}

/** The first value of each tag of a sound frame. */
function tagsOf(text: string): Map<number, string> {
  const tags = new Map<number, string>();
  for (const field of text.split(SOH)) {
    const eq = field.indexOf('=');
    const tag = Number(field.slice(0, eq));
    if (eq > 0 && !tags.has(tag)) tags.set(tag, field.slice(eq + 1));
  }
  return tags;
}

export type LogonVerdict =
  | { ok: true }
  /** `strangerLogout`: the bytes of the Logout to send before closing, or null to close without a word. */
  | { ok: false; kind: RefusalKind; reason: string; msgType: string | null; strangerLogout: string | null };

/** Whether the first message of a connection is a Logon of this session (its MsgSeqNum aside). */
export function judgeFirstMessage(text: string, parties: LogonParties, now: Date): LogonVerdict {
  const problem = frameProblemOf(text);
  if (problem) return { ok: false, kind: 'not_fix', reason: `the first message is not a sound FIX frame (${problem})`, msgType: null, strangerLogout: null };
  const tags = tagsOf(text);
  const msgType = tags.get(35) ?? null;
  if (tags.get(8) !== 'FIX.4.4')
    return { ok: false, kind: 'not_fix', reason: `BeginString is ${JSON.stringify(tags.get(8))}, not FIX.4.4`, msgType, strangerLogout: null };
  if (msgType !== 'A')
    return {
      ok: false,
      kind: 'not_a_logon',
      reason: `the first message is MsgType ${JSON.stringify(msgType)}, not a Logon (35=A)`,
      msgType,
      strangerLogout: null,
    };
  const sender = tags.get(49) ?? '';
  const target = tags.get(56) ?? '';
  if (sender !== parties.targetCompId || target !== parties.senderCompId) {
    return {
      ok: false,
      kind: 'other_compids',
      msgType,
      reason: `a Logon from CompIDs ${JSON.stringify(sender)}->${JSON.stringify(target)}, not this session's ${parties.targetCompId}->${parties.senderCompId}; answered with a Logout that names no CompID`,
      strangerLogout: strangerLogout(sender, target, now),
    };
  }
  return { ok: true };
}

/** A CompID echoed back as sent when it is one (printable ASCII, no `=`), else a placeholder. */
const echo = (compId: string): string => (/^[\x21-\x3c\x3e-\x7e]{1,64}$/.test(compId) ? compId : 'UNKNOWN');

/**
 * The Logout a stranger gets: from the CompID it addressed, to the CompID it gave, MsgSeqNum 1 (it is not part
 * of the session's numbering), Text "Logon refused".
 */
export function strangerLogout(theirSender: string, theirTarget: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 21);
  const body = `35=5${SOH}49=${echo(theirTarget)}${SOH}56=${echo(theirSender)}${SOH}34=1${SOH}52=${stamp}${SOH}58=Logon refused${SOH}`;
  const head = `8=FIX.4.4${SOH}9=${body.length}${SOH}`;
  let sum = 0;
  for (let i = 0; i < head.length + body.length; i++) sum += (head + body).charCodeAt(i);
  return `${head}${body}10=${String(sum % 256).padStart(3, '0')}${SOH}`;
}

/** A connection turned away at the door. */
export interface RefusedConnection {
  peer: string;
  kind: RefusalKind;
  msgType: string | null;
  reason: string;
  /** What it sent, as wire-text.ts writes bytes. */
  raw: string;
}

export interface AwaitLogonOptions {
  parties: LogonParties;
  timeoutMs: number;
  now: () => Date;
  /** Told of a connection turned away (it is closed by then, or closing). */
  onRefused: (r: RefusedConnection) => void;
}

/**
 * Reads `socket` until its first message is whole and judged. Resolves true when it is this session's Logon: the
 * socket is then paused with every byte read put back, for the session to read from its first byte. Resolves
 * false when the connection was turned away (closed) or closed by the peer.
 */
export function awaitLogon(socket: Socket, options: AwaitLogonOptions): Promise<boolean> {
  const peer = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (passed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(passed);
    };
    const refuse = (kind: RefusalKind, reason: string, msgType: string | null, logout: string | null): void => {
      options.onRefused({ peer, kind, msgType, reason, raw: wireTextOf(Buffer.concat(chunks)) });
      if (logout !== null) socket.end(Buffer.from(logout, 'latin1'));
      // A peer that never reads its Logout does not keep the socket: it is destroyed soon after either way.
      setTimeout(() => socket.destroy(), logout === null ? 0 : 1000).unref();
      finish(false);
    };
    /** The first message's length once its head was read: until then, only the head's bytes are looked at. */
    let expected: number | null = null;
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      // The chunks are joined only when the first message may be whole (or to read its head, a few dozen bytes):
      // joining them at every read would copy a Logon sent a byte at a time once per byte.
      if (expected !== null && size < expected) return;
      const readUpTo = (n: number) => firstMessageOf(Buffer.concat(chunks, Math.min(size, n)).toString('latin1'));
      let read = readUpTo(expected ?? MAX_HEAD_BYTES);
      if (read.kind === 'more' && expected === null && read.expected !== undefined) {
        // The head is read: the rest may be here already.
        expected = read.expected;
        if (size >= expected) read = readUpTo(expected);
      }
      if (read.kind === 'more') return;
      if (read.kind === 'bad') return refuse('not_fix', read.reason, null, null);
      const verdict = judgeFirstMessage(read.text, options.parties, options.now());
      if (!verdict.ok) return refuse(verdict.kind, verdict.reason, verdict.msgType, verdict.strangerLogout);
      socket.pause();
      finish(true);
      socket.unshift(Buffer.concat(chunks, size));
    };
    const onClose = (): void => finish(false);
    const timer = setTimeout(() => {
      refuse('no_logon', `no Logon within ${options.timeoutMs / 1000} s (${size} bytes received)`, null, null);
    }, options.timeoutMs);
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.on('error', () => {});
  });
}

/** FIX_DROPCOPY_ALLOW as a BlockList (Node's matcher of addresses and ranges), or null for any address. */
export function allowListOf(entries: readonly string[] | null | undefined): BlockList | null {
  if (!entries || entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** Whether a peer's address is on the list (an IPv4 address a dual-stack socket reports as ::ffff:a.b.c.d is itself). */
export function isAllowed(list: BlockList, address: string | undefined): boolean {
  if (!address) return false;
  const v4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (v4 !== undefined) return list.check(v4, 'ipv4');
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}
