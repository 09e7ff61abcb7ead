/**
 * The FIX session store of the drop-copy session (jspurefix's `IFixSessionStore`), kept in PostgreSQL on the
 * connection that holds the session's advisory lock, every write fenced on the runner's epoch.
 *
 * Sequence numbers:
 * - Inbound (target): read once from `dropcopy_sessions.next_target_seq` and otherwise kept in memory. jspurefix
 *   sets it *before* the application sees the message; persisting that would lose the message on a kill between
 *   the two. The pipeline persists the durable value (the applied watermark) in the transaction that applies.
 * - Outbound (sender): must never be reused, or the peer ends the session ("MsgSeqNum too low"). jspurefix records
 *   it after each send, without waiting. Writing every send's number would still leave a window in which a
 *   message is on the wire and its number not yet stored. So the store reserves ahead: `next_sender_seq` in the
 *   table is a ceiling, always above every number sent. At start the session begins at the stored value and the
 *   store at once (awaited, before anything is sent) raises it by `RESERVE`; each time the session gets within
 *   half of that of the ceiling, it is raised again. A clean stop writes the exact next number. After a kill the
 *   session begins at the ceiling: a forward jump, which the peer answers with a ResendRequest and this side with
 *   a SequenceReset-GapFill over the unused numbers, as FIX provides. Reusing a number has no such remedy.
 *
 * Outbound messages are kept in `dropcopy_outbound` (what this side sent and when). Statements on the lock
 * connection may run inside a pipeline transaction that is open at that moment; they are written so that they
 * cannot fail on their own (upserts, fenced updates that may touch nothing), so they never abort one.
 */
import type postgres from 'postgres';
import type { IFixMsgStoreRecord, IFixSessionStore, SessionId } from 'jspurefix';

/** Outbound sequence numbers reserved ahead of the one in use (see above). */
export const RESERVE = 1000;

export interface PgSessionStoreOptions {
  conn: postgres.ReservedSql;
  sessionKey: string;
  epoch: number;
  warn: (obj: unknown, msg: string) => void;
}

type StoredRecord = IFixMsgStoreRecord;

const record = (msgType: string, timestamp: Date, seqNum: number, encoded: string): StoredRecord => ({
  msgType,
  timestamp,
  seqNum,
  encoded,
  obj: null,
  clone: () => record(msgType, timestamp, seqNum, encoded),
});

export class PgSessionStore implements IFixSessionStore {
  senderSeqNum = 1;
  targetSeqNum = 1;
  private ceiling = 1;
  private loaded = false;
  private created = new Date();
  private raising: Promise<void> | null = null;

  constructor(
    readonly sessionId: SessionId,
    private readonly o: PgSessionStoreOptions,
  ) {}

  get creationTime(): Date {
    return this.created;
  }

  /**
   * Reads the sequence numbers. Called at the start of each connection: the first time both come from the table
   * (the sender's is the ceiling); later the sender's in memory is the true one, and the inbound one is the
   * pipeline's watermark (the runner flushes the pipeline before each connection).
   */
  async initialize(): Promise<void> {
    const [row] = await this.o.conn<Array<{ next_sender_seq: number; next_target_seq: number }>>`
      select next_sender_seq, next_target_seq from dropcopy_sessions where session_key = ${this.o.sessionKey}`;
    if (!row) throw new Error(`the drop-copy session ${this.o.sessionKey} has no row`);
    this.targetSeqNum = row.next_target_seq;
    if (!this.loaded) {
      this.senderSeqNum = row.next_sender_seq;
      this.loaded = true;
    }
    await this.raiseCeiling(this.senderSeqNum + RESERVE);
  }

  async setSenderSeqNum(value: number): Promise<void> {
    // Never backwards (only `reset` goes back): jspurefix calls this after every send, resent gap fills too, which
    // carry the old numbers they fill; taken as is, the next connection's Logon would go out with a number the
    // peer has seen, and the peer would end the session.
    if (value <= this.senderSeqNum) return;
    this.senderSeqNum = value;
    if (value > this.ceiling - RESERVE / 2) await this.raiseCeiling(value + RESERVE);
  }

  async setTargetSeqNum(value: number): Promise<void> {
    this.targetSeqNum = value;
  }

  async nextSenderSeqNum(): Promise<number> {
    await this.setSenderSeqNum(this.senderSeqNum + 1);
    return this.senderSeqNum;
  }

  async nextTargetSeqNum(): Promise<number> {
    return ++this.targetSeqNum;
  }

  /** A sequence reset (ResetSeqNumFlag on logon): both sides start again at 1; what was sent is forgotten. */
  async reset(): Promise<void> {
    this.senderSeqNum = 1;
    this.targetSeqNum = 1;
    this.created = new Date();
    await this.o.conn`delete from dropcopy_outbound where session_key = ${this.o.sessionKey}
      and exists (select 1 from dropcopy_sessions where session_key = ${this.o.sessionKey} and epoch = ${this.o.epoch})`;
    this.ceiling = 0;
    await this.raiseCeiling(1 + RESERVE, true);
  }

  async put(r: IFixMsgStoreRecord): Promise<void> {
    await this.o.conn`
      insert into dropcopy_outbound (session_key, seq, msg_type, raw, sent_at)
      select ${this.o.sessionKey}, ${r.seqNum}, ${r.msgType}, ${r.encoded ?? ''}, ${r.timestamp}
      where exists (select 1 from dropcopy_sessions where session_key = ${this.o.sessionKey} and epoch = ${this.o.epoch})
      on conflict (session_key, seq) do update set msg_type = excluded.msg_type, raw = excluded.raw, sent_at = excluded.sent_at`;
    await this.o.conn`update dropcopy_sessions set last_outbound_at = ${r.timestamp} where session_key = ${this.o.sessionKey} and epoch = ${this.o.epoch}`;
  }

  async get(seqNum: number): Promise<IFixMsgStoreRecord | null> {
    return (await this.getRange(seqNum, seqNum))[0] ?? null;
  }

  async getRange(fromSeqNum: number, toSeqNum: number): Promise<IFixMsgStoreRecord[]> {
    const rows = await this.o.conn<Array<{ seq: number; msg_type: string; raw: string; sent_at: Date }>>`
      select seq, msg_type, raw, sent_at from dropcopy_outbound
      where session_key = ${this.o.sessionKey} and seq between ${fromSeqNum} and ${toSeqNum} order by seq`;
    return rows.map((r) => record(r.msg_type, r.sent_at, r.seq, r.raw));
  }

  /** Writes the exact next outbound number (a clean stop): the next start continues without a jump. */
  async flush(): Promise<void> {
    await this.raising;
    await this.o.conn`update dropcopy_sessions set next_sender_seq = ${this.senderSeqNum}, updated_at = now()
      where session_key = ${this.o.sessionKey} and epoch = ${this.o.epoch}`;
    this.ceiling = this.senderSeqNum;
  }

  async dispose(): Promise<void> {}

  /** Raises the stored ceiling to `to` (never lowers it, unless after a reset). */
  private async raiseCeiling(to: number, force = false): Promise<void> {
    if (!force && to <= this.ceiling) return;
    this.ceiling = to;
    const write = (async () => {
      await this.raising;
      await this.o.conn`update dropcopy_sessions set next_sender_seq = ${force ? to : this.o.conn`greatest(next_sender_seq, ${to})`}, updated_at = now()
        where session_key = ${this.o.sessionKey} and epoch = ${this.o.epoch}`;
    })();
    this.raising = write.catch((err: unknown) => this.o.warn({ err }, 'the drop-copy session could not reserve outbound sequence numbers'));
    await write;
  }
}
