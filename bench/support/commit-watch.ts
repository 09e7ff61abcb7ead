/**
 * When each inbound message of the FIX drop-copy session became visible as committed, seen from outside the
 * engine as a reader of the store sees it: the session's persisted watermark (`dropcopy_sessions.next_target_seq`,
 * moved in the transaction that applies a batch) read every `intervalMs` on a connection of its own. A message of
 * MsgSeqNum s is committed at the first read that returned a watermark above s.
 *
 * The time of a read is when its answer arrived (Date.now(), the clock the exchange's log and the engine's rows
 * use), so a commit is seen at most one interval plus one round trip after it happened: the figures derived from
 * it are upper bounds by that much (5 ms by default), never flattering. `applied_at` of a fill's row is no such
 * measure: it is the engine's clock when its batch began, before the batch's statements and its commit.
 */
import { connect, type Sql } from '../../src/store/driver.js';

export interface CommitWatch {
  /** When the first read that showed `seq` committed arrived (ms since the epoch), or null if none did. */
  committedAt(seq: number): number | null;
  /** Reads made, and the longest gap between two (a starved watcher makes coarse figures). */
  readonly reads: number;
  readonly maxGapMs: number;
  stop(): Promise<void>;
}

export function watchCommits(url: string, sessionKey: string, intervalMs = 5): CommitWatch {
  const sql: Sql = connect(url, { max: 1 });
  /** Each change of the watermark: [when read, watermark], both increasing. */
  const seen: Array<[number, number]> = [];
  let reads = 0;
  let maxGapMs = 0;
  let last = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const [row] = await sql<Array<{ w: number }>>`select next_target_seq as w from dropcopy_sessions where session_key = ${sessionKey}`;
      const at = Date.now();
      reads += 1;
      if (last > 0) maxGapMs = Math.max(maxGapMs, at - last);
      last = at;
      const w = row?.w ?? 0;
      if (seen.length === 0 || w > seen[seen.length - 1]![1]) seen.push([at, w]);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    committedAt(seq) {
      // The first change whose watermark is above seq: binary search on the increasing watermarks.
      let lo = 0;
      let hi = seen.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (seen[mid]![1] > seq) hi = mid;
        else lo = mid + 1;
      }
      return lo < seen.length ? seen[lo]![0] : null;
    },
    get reads() {
      return reads;
    },
    get maxGapMs() {
      return maxGapMs;
    },
    async stop() {
      stopped = true;
      await loop;
      await sql.end({ timeout: 1 });
    },
  };
}
