/**
 * Trace ids name their trace's txn_time: UUID version 8 (RFC 9562 §5.8, the layout is ours) whose last group,
 * 48 bits, is the txn_time in Unix milliseconds, exactly; the rest is random (74 bits, as many as a UUIDv7
 * has). So an id names its own month partition: a bind, a read or a proof looks a trace up by (trace_id,
 * txn_time) in one partition, whatever the number of months stored. The time is at the end, not at the front
 * as in UUIDv7, so that the first characters stay random: an officer tells ids apart by them, and the CLI takes
 * a short prefix of an id (src/cli/id-prefix.ts), which for ids that begin with the time would name every trace
 * of the same minute. Ids of other versions (the random ids of traces sealed before this rule) carry no time
 * and are looked up in every partition, as before.
 *
 *   rrrrrrrr-rrrr-8rrr-Vrrr-tttttttttttt   r random, 8 the version, V the variant (8, 9, a or b), t the ms
 */
import { randomUUID } from 'node:crypto';

const TIMED = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-([0-9a-f]{12})$/i;
const MAX_MS = 2 ** 48 - 1;

/** A new trace id whose time is `txnTimeMs` (the trace's txn_time, whole milliseconds, 0 to 2^48 − 1). */
export function newTraceId(txnTimeMs: number): string {
  if (!Number.isInteger(txnTimeMs) || txnTimeMs < 0 || txnTimeMs > MAX_MS)
    throw new RangeError(`txnTimeMs must be a whole number of ms in 0..2^48-1, got ${txnTimeMs}`);
  // The random part from a version-4 UUID (xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V the variant, 8 to b): its
  // first 74 random bits, its version digit replaced by 8, its last group by the time. randomUUID draws from a
  // cache of random bytes, where a fill of 16 bytes per id cost a call into the system's generator each time.
  const u = randomUUID();
  return `${u.slice(0, 14)}8${u.slice(15, 24)}${txnTimeMs.toString(16).padStart(12, '0')}`;
}

/** The txn_time a trace id names, or null for an id that names none (not of this layout). */
export function traceTimeOf(traceId: string): Date | null {
  const m = TIMED.exec(traceId);
  return m ? new Date(Number.parseInt(m[1] as string, 16)) : null;
}
