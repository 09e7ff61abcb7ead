/**
 * The drop-copy session's FIX behaviour: jspurefix's `AsciiSession` (logon, heartbeats, test requests, gap
 * detection, resend requests, sequence resets, logout), with what a drop copy that must lose nothing needs
 * changed. Each inbound message is handed, in the order read, to the pipeline (pipeline.ts) that applies it.
 *
 * What is overridden, and why (jspurefix 5.11.4, pinned):
 * - Frames are checked here, before the library reads the sequence number (`onMsg`): BeginString first,
 *   BodyLength and CheckSum right. The library checks the checksum only after it has taken the sequence number,
 *   and it prepends stray bytes to the next message, so a garbled message, or a good one after garbage, was
 *   rejected *and* its number consumed: the fill was lost. Here such bytes are recorded (answer `none`) and not
 *   processed; the next good message shows the gap and the library's ResendRequest has the peer send it again.
 *   Bytes that break the parser itself end the connection (`rxOnError`); they are recorded the same way.
 * - The library's dictionary checks are off (`checkMsgIntegrity`): they too run after the number is taken and
 *   answer without telling the application, which would leave a number the pipeline never sees as handled.
 *   The fields a fill needs are checked by fix-fields.ts, and the answer (35=3 or 35=j) is sent here.
 * - FIX is bytes: the parser keeps SOH in what it hands over (it would write `|` in its place, and a `|` received
 *   could no longer be told from it), and with jspurefix's decoding repaired (patches/jspurefix+5.11.4.patch:
 *   latin1, not 'ascii', which dropped the high bit of each byte) a message's text is the bytes received, one
 *   character each: the checksum is checked over them, the fields read are checked for bytes outside printable
 *   ASCII (fix-fields.ts), and a refused message is kept as those bytes exactly (wire-text.ts).
 * - CompIDs are checked on every message (the dictionary checks did it at logon): a message from another
 *   counterparty ends the session with a Logout, whose text does not name this session's CompIDs.
 * - A Logon whose MsgSeqNum is below the one expected (and that does not reset the numbering) is answered with a
 *   Logout saying so ("MsgSeqNum too low, expecting N but received M", as FIX words it), and recorded; jspurefix
 *   would drop the connection without a word.
 * - An application message during a test request or a resend no longer ends the session
 *   (`validStateApplicationMsg`): a drop copy streams fills at any moment.
 * - A message's fields are copied before the event returns: the library recycles the view afterwards.
 * - The socket is paused once the pipeline has `highWater` messages not yet committed, and read again once no more
 *   than half of that remain (the batch then committing), so reading the next batch overlaps that commit.
 */
import type { IJsFixConfig, MsgTransport, MsgView } from 'jspurefix';
import type { DropCopyPipeline, InboundReject } from './inbound.js';
import { FIX_TAG_MAP } from '../reconcile/fix-log.js';
import { frameProblemOf, readInbound } from './fix-fields.js';
import type { Jspurefix } from './load.js';
import { wireTextOf } from './wire-text.js';

/** SOH, FIX's delimiter, as a byte. */
const SOH = 1;

/** The tags an application message is read for (fix-fields.ts): those a fill maps (FIX_TAG_MAP), and ExecType. */
const READ_TAGS = [...FIX_TAG_MAP.map((m) => m.tag), 150];

export interface SessionHooks {
  pipeline: DropCopyPipeline;
  now: () => Date;
  /** Messages queued and not committed at which the socket is paused (read again at half of it). */
  highWater: number;
  senderCompId: string;
  targetCompId: string;
  onLoggedOn: () => void;
  /** A Logon refused by the session itself (its MsgSeqNum too low), with the text of the Logout sent. */
  onLogonRefused?: (text: string) => void;
  /** The session ended: by a logout (`error` undefined) or a failure. */
  onStopped: (error?: Error) => void;
  warn: (obj: unknown, msg: string) => void;
}

export interface DropCopySessionInstance {
  run(transport: unknown): Promise<number>;
  /** Logs out (when logged on) and resolves once the session has stopped, within `timeoutMs`. */
  logout(text: string, timeoutMs: number): Promise<void>;
  /** Ends the session at once, without a logout. */
  kill(reason: string): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

export type DropCopySessionClass = new (config: IJsFixConfig, hooks: SessionHooks) => DropCopySessionInstance;

/** The session class, built on the loaded library (load.ts). */
export function defineDropCopySession(fix: Jspurefix): DropCopySessionClass {
  const S = fix.SessionState;
  class DropCopySession extends fix.AsciiSession implements DropCopySessionInstance {
    private decoded = '';
    private current = '';
    private paused = false;
    /** Whether the peer's last Logon reset the sequence numbers (141=Y). */
    private peerReset = false;
    private stopped = false;
    private readonly stoppedWaiters: Array<() => void> = [];

    constructor(
      config: IJsFixConfig,
      private readonly hooks: SessionHooks,
    ) {
      super(config);
      this.checkMsgIntegrity = false;
    }

    override async run(transport: unknown): Promise<number> {
      // Before any byte is parsed (the socket's data comes on a later turn): the parser keeps SOH as received.
      ((transport as MsgTransport).receiver as unknown as { writeDelimiter: number }).writeDelimiter = SOH;
      return super.run(transport as MsgTransport);
    }

    async logout(text: string, timeoutMs: number): Promise<void> {
      if (this.stopped) return;
      const stopped = new Promise<void>((resolve) => this.stoppedWaiters.push(resolve));
      const state = this.getState();
      if (state === S.ActiveNormalSession || state === S.InitiationLogonResponse || state === S.InitiationLogonReceived) {
        this.sessionState.logoutSentAt = null;
        this.setState(S.ActiveNormalSession);
        this.sessionLogout();
        this.hooks.warn({ text }, 'the drop-copy session logs out');
      } else {
        this.stop();
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      if (!this.stopped) this.stop();
    }

    kill(reason: string): void {
      this.stop(new Error(reason));
    }

    protected override onDecoded(_msgType: string, txt: string): void {
      this.decoded = txt;
    }

    protected override onEncoded(): void {}

    protected override onMsg(msgType: string, view: MsgView): void {
      const raw = this.decoded;
      this.decoded = '';
      this.current = raw;
      const receivedAt = this.hooks.now();
      const problem = frameProblemOf(raw);
      if (problem) {
        this.refuse({
          seq: null,
          msgType: null,
          receivedAt,
          answer: 'none',
          reasonCode: null,
          refTag: null,
          reason: `not processed: ${problem}`,
          raw: wireTextOf(raw),
        });
        return;
      }
      const sender = view.getString(49);
      const target = view.getString(56);
      if (sender !== this.hooks.targetCompId || target !== this.hooks.senderCompId) {
        const reason = `CompIDs ${JSON.stringify(sender ?? '(none)')}->${JSON.stringify(target ?? '(none)')} are not this session's ${this.hooks.targetCompId}->${this.hooks.senderCompId}`;
        this.refuse({
          seq: null,
          msgType,
          receivedAt,
          answer: 'none',
          reasonCode: null,
          refTag: null,
          reason: `not processed: ${reason}`,
          raw: wireTextOf(raw),
        });
        if (this.getState() !== S.Stopped) {
          // What the other end is told names no CompID: it may be a stranger.
          this.sendLogout("CompIDs are not this session's");
          this.terminate(new Error(reason));
        }
        return;
      }
      if (msgType === 'A' && view.getString(141) !== 'Y' && this.logonTooLow(view, receivedAt)) return;
      super.onMsg(msgType, view);
    }

    /**
     * A Logon numbered below the next MsgSeqNum expected (without 141=Y): FIX's answer is a Logout saying so, and
     * the connection ends. Recorded for the officer (no seq: the number is not this session's next). True when
     * refused.
     */
    private logonTooLow(view: MsgView, receivedAt: Date): boolean {
      const seq = Number(view.getString(34));
      const expected = this.sessionState.lastPeerMsgSeqNum + 1;
      if (!Number.isSafeInteger(seq) || seq >= expected) return false;
      const text = `MsgSeqNum too low, expecting ${expected} but received ${seq}`;
      this.refuse({
        seq: null,
        msgType: 'A',
        receivedAt,
        answer: 'none',
        reasonCode: null,
        refTag: null,
        reason: `Logon refused with a Logout: ${text}`,
        raw: wireTextOf(this.current),
      });
      this.hooks.onLogonRefused?.(text);
      this.sendLogout(text);
      this.terminate(new Error(`Logon refused: ${text}`));
      return true;
    }

    /**
     * Bytes that break the parser itself (a line of garbage that starts with a digit reads as a tag where BeginString
     * must be) end the connection: the parser cannot find the next message. They are recorded; the exchange's next
     * Logon shows the gap and what was lost is resent.
     */
    protected override rxOnError(e: Error): void {
      if ((e as NodeJS.ErrnoException).code === undefined) {
        this.refuse({
          seq: null,
          msgType: null,
          receivedAt: this.hooks.now(),
          answer: 'none',
          reasonCode: null,
          refTag: null,
          reason: `not processed: the bytes received broke the FIX parser (${e.message}); the connection was dropped`,
          raw: '',
        });
      }
      super.rxOnError(e);
    }

    protected override onSessionMsg(msgType: string, view: MsgView): void {
      const seq = Number(view.getString(34));
      const newSeqNo = Number(view.getString(36));
      const gapFill = view.getString(123) === 'Y';
      const reset = msgType === 'A' && view.getString(141) === 'Y';
      if (msgType === 'A') this.peerReset = reset;
      if (msgType === '4' && !gapFill && this.backwardsReset(seq, newSeqNo, view)) return;
      super.onSessionMsg(msgType, view);
      const pipeline = this.hooks.pipeline;
      if (msgType === '4') {
        if (gapFill) pipeline.gapFilled(seq, newSeqNo);
        else pipeline.reset(newSeqNo);
      } else if (reset) {
        pipeline.reset(seq + 1);
      } else {
        pipeline.seen(seq);
      }
    }

    /**
     * A SequenceReset-Reset (35=4 without 123=Y) whose NewSeqNo (36) is below the next MsgSeqNum expected would move
     * the numbering back, which FIX forbids: jspurefix would take it, and messages handled before would be taken
     * again under numbers already used. It is refused with a Reject naming tag 36 (SessionRejectReason 5, value
     * out of range), recorded for the officer, and the expected number is left as it was. True when refused.
     * The row carries no seq: a reset's own MsgSeqNum is not part of the numbering (it is named in the reason).
     */
    private backwardsReset(seq: number, newSeqNo: number, view: MsgView): boolean {
      const expected = this.sessionState.lastPeerMsgSeqNum + 1;
      if (Number.isSafeInteger(newSeqNo) && newSeqNo >= expected) return false;
      const text = `SequenceReset asks for NewSeqNo (36) ${view.getString(36) ?? '(missing)'}, below the next expected MsgSeqNum ${expected}: the numbering never moves back`;
      this.send('3', { RefSeqNum: seq, RefMsgType: '4', RefTagID: 36, SessionRejectReason: 5, Text: text });
      this.refuse({
        seq: null,
        msgType: '4',
        receivedAt: this.hooks.now(),
        answer: 'reject',
        reasonCode: 5,
        refTag: 36,
        reason: `${text} (received as MsgSeqNum ${seq})`,
        raw: wireTextOf(this.current),
      });
      return true;
    }

    /**
     * The Logon this side sends. An acceptor answering a Logon that reset the sequence numbers (141=Y) says so in
     * its answer, as FIX asks of the responding side; jspurefix's answer would carry 141=N while it resets.
     */
    override sendLogon(): void {
      const logon = this.config.factory?.logon() as Record<string, unknown> | undefined;
      if (!logon) return;
      if (!this.initiator && this.peerReset) logon.ResetSeqNumFlag = true;
      this.send(this.requestLogonType, logon);
    }

    protected override validStateApplicationMsg(): boolean {
      switch (this.sessionState.state) {
        case S.Idle:
        case S.InitiateConnection:
        case S.InitiationLogonSent:
        case S.WaitingForALogon:
          return false;
        default:
          return true;
      }
    }

    protected override onApplicationMsg(msgType: string, view: MsgView): void {
      const seq = Number(view.getString(34));
      const possDup = view.getString(43) === 'Y' || view.getString(97) === 'Y';
      const tags = new Map<number, string>();
      for (const tag of READ_TAGS) {
        const value = view.getString(tag);
        if (value !== null) tags.set(tag, value);
      }
      const receivedAt = this.hooks.now();
      const verdict = readInbound({ msgType, seq, possDup, receivedAt, tags });
      if (verdict.kind === 'fill') this.hooks.pipeline.fill(verdict.fill);
      else if (verdict.kind === 'handled') this.hooks.pipeline.seen(seq);
      else {
        if (verdict.answer === 'reject') {
          this.send('3', {
            RefSeqNum: seq,
            RefMsgType: msgType,
            SessionRejectReason: verdict.reasonCode,
            Text: verdict.text,
            ...(verdict.refTag !== null ? { RefTagID: verdict.refTag } : {}),
          });
        } else {
          const ref = tags.get(17);
          this.send('j', {
            RefSeqNum: seq,
            RefMsgType: msgType,
            BusinessRejectReason: verdict.reasonCode,
            Text: verdict.text,
            ...(ref ? { BusinessRejectRefID: ref } : {}),
          });
        }
        this.refuse({
          seq,
          msgType,
          receivedAt,
          answer: verdict.answer,
          reasonCode: verdict.reasonCode,
          refTag: verdict.refTag,
          reason: verdict.text,
          raw: wireTextOf(this.current),
          possDup,
        });
      }
      this.throttle();
    }

    protected override onReady(): void {
      this.hooks.onLoggedOn();
    }

    protected override onLogon(): boolean {
      return true;
    }

    protected override onStopped(error?: Error): void {
      this.stopped = true;
      for (const wake of this.stoppedWaiters.splice(0)) wake();
      this.hooks.onStopped(error);
    }

    private refuse(r: InboundReject): void {
      this.hooks.pipeline.reject(r);
    }

    /** Pauses reading while the pipeline is behind; resumes once no more than half the high-water mark is left. */
    private throttle(): void {
      const pipeline = this.hooks.pipeline;
      const readable = this.transport?.duplex.readable;
      if (this.paused || !readable || pipeline.backlog < this.hooks.highWater) return;
      this.paused = true;
      readable.pause();
      void pipeline
        .drained(Math.floor(this.hooks.highWater / 2))
        .catch(() => {})
        .finally(() => {
          this.paused = false;
          if (!this.stopped) readable.resume();
        });
    }
  }
  return DropCopySession as unknown as DropCopySessionClass;
}
