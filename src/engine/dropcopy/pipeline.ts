/**
 * The FIX drop-copy session's pipeline: what the session hands over (inbound.ts) is queued in the order received
 * and applied by one batch at a time (apply.ts), each in one transaction on the session's locked connection.
 *
 * Natural batching: while one batch commits, the next accumulates (up to `maxBatch`, default 500), so a burst
 * costs one commit per few hundred fills (one commit per fill waits for an fsync each, a few hundred a second at
 * best). When nothing is being committed, a message waits at most `lingerMs` (default 250 ms) for others to share
 * its batch: an exchange's fills come in clusters split across socket reads, and a batch's fixed cost (its
 * transaction, its round trips, its commit) was measured at about 1.7 ms of the engine's CPU, as much as a
 * dozen fills. A full batch, a flush or a stop starts at once.
 *
 * A partial batch that holds `fullEnough` messages (default 100) starts at once too: its fixed cost is then spread
 * over enough fills that waiting for more would save little CPU, and at a fast stream the linger would only add to
 * every fill's delay (at 1,000 fills/s a linger of 250 ms delays a batch of 250 by up to a quarter of a second,
 * where 100 fills arrive in 100 ms). At 250 fills/s or less the linger ends first, as before. While a batch
 * commits none of this matters: the next one starts as soon as it is committed, with whatever arrived meanwhile.
 *
 * The watermark a batch persists is the one in force after its last message: every call (fill, reject, seen,
 * gapFilled, reset) moves the in-memory watermark, and each queued message keeps the value it left, so a batch
 * cut short by `maxBatch` never records as handled a message of a later batch. Messages that carry no fill or
 * reject (heartbeats, gap fills) are persisted by a batch of their own when nothing else is queued.
 *
 * A batch that fails (the store failed, or another instance took the session: `DropCopyFencedError`) ends the
 * pipeline: `onFatal` is called once, nothing more is applied, and what was queued is dropped, unacknowledged.
 * Nothing is lost by this: the persisted watermark is below every message not applied, so the next start of the
 * session asks the peer to resend them, and a fill applied before is then a duplicate, which changes nothing.
 * Refusals with no MsgSeqNum (a connection turned away at the door, a Logon refused) are the exception: no peer
 * resends them. They are kept, with those taken after the failure or a stop, and `unrecorded()` hands them over
 * (the runner gives them to the next pipeline of the session); a warning counts them meanwhile.
 */
import { applyBatch, DropCopyFencedError, type AppliedBatch } from './apply.js';
import type { DropCopyPipeline, DropCopyPipelineOptions, InboundFill, InboundReject } from './inbound.js';
import { InboundWatermark } from './watermark.js';

export const DEFAULT_MAX_BATCH = 500;
export const DEFAULT_LINGER_MS = 250;
export const DEFAULT_FULL_ENOUGH = 100;
/** Refusals with no MsgSeqNum kept by a stopped pipeline; the rest are counted in one more. */
export const MAX_KEPT_REFUSALS = 1000;

type Queued = ({ kind: 'fill'; fill: InboundFill } | { kind: 'reject'; reject: InboundReject }) & Mark;

/**
 * The state after a call: the watermark, the last inbound instant (null while no message of the session was
 * taken), and the call's number.
 */
interface Mark {
  watermark: number;
  lastInboundAt: Date | null;
  version: number;
}

export function startDropCopyPipeline(options: DropCopyPipelineOptions): DropCopyPipeline {
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError(`maxBatch must be a whole number >= 1, got ${maxBatch}`);
  const lingerMs = options.lingerMs ?? DEFAULT_LINGER_MS;
  if (!Number.isFinite(lingerMs) || lingerMs < 0) throw new RangeError(`lingerMs must be a number >= 0, got ${lingerMs}`);
  const fullEnough = options.fullEnough ?? DEFAULT_FULL_ENOUGH;
  if (!Number.isInteger(fullEnough) || fullEnough < 1) throw new RangeError(`fullEnough must be a whole number >= 1, got ${fullEnough}`);
  /** When the oldest message not yet in a batch was taken (performance.now()), or null when there is none. */
  let waitingSince: number | null = null;
  let lingerTimer: NodeJS.Timeout | null = null;
  const watermark = new InboundWatermark(options.nextTargetSeq);
  const queue: Queued[] = [];
  let mark: Mark | null = null;
  let version = 0;
  let persisted = options.nextTargetSeq;
  let committedVersion = 0;
  let inFlight = 0;
  let draining = false;
  let scheduled = false;
  let failed: { error: unknown } | null = null;
  let stopped = false;
  let warnedStopped = false;
  const waiters: Array<{ version: number; resolve: () => void; reject: (err: unknown) => void }> = [];
  const backlogWaiters: Array<{ atMost: number; resolve: () => void; reject: (err: unknown) => void }> = [];
  const backlog = (): number => queue.length + inFlight;
  /** Refusals with no MsgSeqNum not recorded (see unrecorded()), and how many more were only counted. */
  const kept: InboundReject[] = [];
  let keptOver = 0;
  const keep = (r: InboundReject): void => {
    if (r.seq !== null) return;
    if (kept.length < MAX_KEPT_REFUSALS) kept.push(r);
    else keptOver += 1;
  };

  /** Whether the pipeline still takes messages (not failed, not stopped); warns once when it no longer does. */
  const accept = (what: string): boolean => {
    if (failed === null && !stopped) return true;
    if (!warnedStopped) {
      warnedStopped = true;
      options.log.warn(
        { session: options.sessionKey, what },
        'drop-copy pipeline stopped: inbound message not applied (the peer resends it at the next start)',
      );
    }
    return false;
  };

  /** `at` null: the call was no message of the session, and the last inbound instant stays where it was. */
  const noteMark = (at: Date | null): Mark => {
    version += 1;
    mark = { watermark: watermark.next, lastInboundAt: at ?? mark?.lastInboundAt ?? null, version };
    return mark;
  };

  const schedule = (now = false): void => {
    if (waitingSince === null) waitingSince = performance.now();
    if (draining || failed !== null) return;
    const wait = now || queue.length >= Math.min(maxBatch, fullEnough) || waiters.length > 0 || stopped ? 0 : lingerMs - (performance.now() - waitingSince);
    if (wait > 0) {
      if (!scheduled && lingerTimer === null) lingerTimer = setTimeout(run, wait);
      return;
    }
    if (lingerTimer !== null) {
      clearTimeout(lingerTimer);
      lingerTimer = null;
    }
    if (scheduled) return;
    scheduled = true;
    // One turn of the event loop, so the messages of one socket read go in one batch.
    setImmediate(run);
  };
  function run(): void {
    scheduled = false;
    lingerTimer = null;
    void drain();
  }

  const settle = (): void => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i] as (typeof waiters)[number];
      if (failed !== null) w.reject(failed.error);
      else if (w.version <= committedVersion) w.resolve();
      else continue;
      waiters.splice(i, 1);
    }
    for (let i = backlogWaiters.length - 1; i >= 0; i--) {
      const w = backlogWaiters[i] as (typeof backlogWaiters)[number];
      if (failed !== null) w.reject(failed.error);
      else if (backlog() <= w.atMost) w.resolve();
      else continue;
      backlogWaiters.splice(i, 1);
    }
  };

  const recordMetrics = (applied: AppliedBatch, committedAt: Date): void => {
    const metrics = options.metrics;
    if (metrics === undefined) return;
    for (const f of applied.fills) {
      metrics.dropCopyFills.inc({ outcome: f.outcome });
      if (f.outcome !== 'duplicate') metrics.dropCopyDelay.observe(Math.max(0, committedAt.getTime() - f.receivedAt.getTime()) / 1000);
    }
    for (const r of applied.rejects) metrics.dropCopyRejects.inc({ answer: r.answer });
  };

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (failed === null && mark !== null && committedVersion < mark.version) {
        const batch = queue.splice(0, maxBatch);
        waitingSince = null;
        const last: Mark = queue.length === 0 ? mark : (batch[batch.length - 1] as Queued);
        if (batch.length === 0 && last.watermark === persisted) {
          committedVersion = last.version;
          settle();
          continue;
        }
        inFlight = batch.length;
        let applied: AppliedBatch;
        try {
          applied = await applyBatch(options.conn, {
            sessionKey: options.sessionKey,
            epoch: options.epoch,
            fills: batch.flatMap((q) => (q.kind === 'fill' ? [q.fill] : [])),
            rejects: batch.flatMap((q) => (q.kind === 'reject' ? [q.reject] : [])),
            watermark: last.watermark,
            lastInboundAt: last.lastInboundAt,
            policy: options.policy(),
            now: options.now(),
            actor: options.actor,
            ...(options.comparison
              ? {
                  quantityTolerance: options.comparison.tolerance,
                  traceExpiryMs: options.comparison.expiry_ms,
                  clockToleranceMs: options.comparison.clock_tolerance_ms,
                }
              : {}),
          });
        } catch (error) {
          inFlight = 0;
          fail(error, batch);
          return;
        }
        inFlight = 0;
        persisted = last.watermark;
        committedVersion = last.version;
        try {
          recordMetrics(applied, options.now());
        } catch (error) {
          options.log.warn({ err: error }, 'drop-copy metrics not recorded');
        }
        settle();
      }
    } finally {
      draining = false;
    }
  }

  function fail(error: unknown, batch: Queued[]): void {
    const dropped = batch.length + queue.length;
    for (const q of [...batch, ...queue]) if (q.kind === 'reject') keep(q.reject);
    queue.length = 0;
    failed = { error };
    const context = {
      err: error,
      session: options.sessionKey,
      epoch: options.epoch,
      not_applied: dropped,
      refusals_kept: kept.length + keptOver,
      next_target_seq: persisted,
    };
    if (error instanceof DropCopyFencedError) options.log.warn(context, 'drop-copy session taken by another instance: this one stops');
    else options.log.error(context, 'drop-copy batch failed: the session stops (the peer resends from the persisted watermark at the next start)');
    settle();
    options.onFatal(error);
  }

  function flush(): Promise<void> {
    if (failed !== null) return Promise.reject(failed.error);
    if (committedVersion >= version) return Promise.resolve();
    return new Promise((resolve, reject) => {
      waiters.push({ version, resolve, reject });
      schedule(true);
    });
  }

  return {
    fill(f: InboundFill): void {
      if (!accept('fill')) return;
      watermark.seen(f.seq);
      queue.push({ kind: 'fill', fill: f, ...noteMark(f.receivedAt) });
      schedule();
    },
    reject(r: InboundReject): void {
      if (failed !== null || stopped) {
        keep(r);
        if (r.seq === null)
          options.log.warn(
            { session: options.sessionKey, reason: r.reason, refusals_kept: kept.length + keptOver },
            'drop-copy pipeline stopped: a refusal is kept for the next start of the session',
          );
      }
      if (!accept('reject')) return;
      if (r.seq !== null) watermark.seen(r.seq);
      // A refusal with no MsgSeqNum (a connection turned away at the door, a Logon refused, bytes that were no
      // message) is no message of the session: a stranger's attempts do not make a silent exchange look alive.
      queue.push({ kind: 'reject', reject: r, ...noteMark(r.seq === null ? null : r.receivedAt) });
      schedule();
    },
    seen(seq: number): void {
      if (!accept('seen')) return;
      watermark.seen(seq);
      noteMark(options.now());
      schedule();
    },
    gapFilled(seq: number, newSeqNo: number): void {
      if (!accept('gapFilled')) return;
      watermark.gapFilled(seq, newSeqNo);
      noteMark(options.now());
      schedule();
    },
    reset(nextSeq: number): void {
      if (!accept('reset')) return;
      watermark.reset(nextSeq);
      noteMark(options.now());
      schedule();
    },
    get backlog(): number {
      return backlog();
    },
    flush,
    drained(atMost: number): Promise<void> {
      if (failed !== null) return Promise.reject(failed.error);
      if (backlog() <= atMost) return Promise.resolve();
      return new Promise((resolve, reject) => backlogWaiters.push({ atMost, resolve, reject }));
    },
    unrecorded(): InboundReject[] {
      if (keptOver === 0) return [...kept];
      const last = kept[kept.length - 1] as InboundReject;
      return [
        ...kept,
        {
          seq: null,
          msgType: null,
          receivedAt: last.receivedAt,
          answer: 'none',
          reasonCode: null,
          refTag: null,
          raw: '',
          reason: `${keptOver} more refusals with no MsgSeqNum were taken while the session's pipeline was stopped, not recorded individually`,
        },
      ];
    },
    async stop(): Promise<void> {
      // Nothing is taken from here on; what was taken is committed before this resolves, so the caller may then
      // release the connection. A failure was reported to onFatal already: stopping after it is no error of its own.
      stopped = true;
      await flush().catch(() => {});
    },
  };
}
