/**
 * Trace ids are time-ordered (UUID version 7, RFC 9562 §5.7): the first 48 bits are the trace's txn_time in
 * Unix milliseconds, exactly. So an id names its own month partition: a bind, a read or a proof looks a trace up
 * by (trace_id, txn_time), one index probe in one partition, whatever the number of months stored. Ids of
 * other versions (the random ids of traces sealed before this rule) carry no time and are looked up in every
 * partition, as before.
 */
import { v7, version, validate } from 'uuid';

/** A new trace id whose time is `txnTimeMs` (the trace's txn_time, whole milliseconds). */
export function newTraceId(txnTimeMs: number): string {
  return v7({ msecs: txnTimeMs });
}

/** The txn_time a time-ordered trace id names, or null for an id that names none (not version 7). */
export function traceTimeOf(traceId: string): Date | null {
  if (!validate(traceId) || version(traceId) !== 7) return null;
  return new Date(Number.parseInt(traceId.slice(0, 8) + traceId.slice(9, 13), 16));
}
