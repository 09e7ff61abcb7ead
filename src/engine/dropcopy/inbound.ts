/**
 * The interface between the FIX drop-copy session and what it applies: the session (session.ts, fix-fields.ts)
 * turns each inbound message into an `InboundFill`, an `InboundReject`, or a bare "handled" sequence number, and
 * hands them in order to a `DropCopyPipeline` (pipeline.ts), which reconciles, records and audits them and
 * advances the persisted inbound watermark, one transaction per batch, on the connection holding the session's
 * advisory lock.
 */
import type { ComparisonSettings } from '../reconcile/compare.js';
import type postgres from 'postgres';
import type { DropCopyMetrics } from './metrics.js';
import type { Policy } from '../policy/policy.js';
import type { DropCopyExecution } from '../reconcile/schema.js';

/** A fill (ExecutionReport 35=8 with ExecType 150=F), mapped and validated. */
export interface InboundFill {
  /** MsgSeqNum (34). */
  seq: number;
  /** PossDupFlag 43=Y (or PossResend 97=Y). */
  possDup: boolean;
  /** When the session read it. */
  receivedAt: Date;
  /** Mapped and validated by fix-fields.ts (schema dropCopyExecution). */
  execution: DropCopyExecution;
}

/** An inbound message the session refused or could not read, kept and audited for the officer. */
export interface InboundReject {
  /** null for bytes that were not a message. */
  seq: number | null;
  msgType: string | null;
  receivedAt: Date;
  /** 35=3, 35=j, or not answered (garbled: the gap makes the peer resend). */
  answer: 'reject' | 'business_reject' | 'none';
  /** SessionRejectReason 373 or BusinessRejectReason 380. */
  reasonCode: number | null;
  /** RefTagID 371. */
  refTag: number | null;
  /** Text 58 as sent, or why it was not a message. */
  reason: string;
  /** What was received, with | for SOH. */
  raw: string;
  /** PossDupFlag 43=Y (or PossResend 97=Y): a resend, refused already if its first sending was read. */
  possDup?: boolean;
}

export interface DropCopyPipeline {
  /** In order received; also marks f.seq handled. */
  fill(f: InboundFill): void;
  /** Recorded and audited in the next batch; marks r.seq handled when not null. */
  reject(r: InboundReject): void;
  /** Any other inbound message handled (administrative, an ExecutionReport that is not a fill, ...). */
  seen(seq: number): void;
  /** SequenceReset-GapFill: [seq, newSeqNo) handled. */
  gapFilled(seq: number, newSeqNo: number): void;
  /** Logon 141=Y / SequenceReset-Reset: the next expected inbound is nextSeq. */
  reset(nextSeq: number): void;
  /** Queued, not committed (the session pauses its socket above a high-water mark). */
  readonly backlog: number;
  /** Resolves when all queued before the call is committed. */
  flush(): Promise<void>;
  /** Resolves once `backlog` is at most `atMost` (at once if it is); rejects when the pipeline fails. */
  drained(atMost: number): Promise<void>;
  /** Flush, then stop. */
  stop(): Promise<void>;
  /**
   * The refusals with no MsgSeqNum this pipeline took but did not record: dropped by a failed batch, or taken
   * after it failed or stopped. The peer never resends them (they are not numbered), so whoever runs the session
   * next hands them to its own pipeline. At most MAX_KEPT_REFUSALS, then one that counts the rest.
   */
  unrecorded(): InboundReject[];
}

export interface DropCopyPipelineOptions {
  /** The connection holding ADVISORY_LOCKS.dropCopySession: every write goes through it. */
  conn: postgres.ReservedSql;
  sessionKey: string;
  epoch: number;
  /** The persisted watermark at start. */
  nextTargetSeq: number;
  /** The policy in force (for sealOrphan). */
  policy: () => Policy;
  now: () => Date;
  /** Audit actor: `fix:<session_key>`. */
  actor: string;
  /** The three-way comparison's settings (BIND_QUANTITY_TOLERANCE, TRACE_EXPIRY_MS, HEARTBEAT_REPLAY_WINDOW_MS); default DEFAULT_COMPARISON_SETTINGS. */
  comparison?: ComparisonSettings;
  metrics?: DropCopyMetrics;
  log: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };
  /** Fenced out (epoch moved) or the store failed: the session must stop at once. */
  onFatal: (err: unknown) => void;
  /** Default 500. */
  maxBatch?: number;
  /**
   * How long a message may wait for others to share its batch when fewer than `maxBatch` are queued, in ms
   * (default DEFAULT_LINGER_MS, 250; 0: a batch starts at the next turn of the event loop).
   */
  lingerMs?: number;
  /**
   * Messages at which a partial batch starts without lingering (default DEFAULT_FULL_ENOUGH, 100): enough to spread
   * a batch's fixed cost; at a fast stream the linger would only delay them.
   */
  fullEnough?: number;
}
