/**
 * Time-ordered trace ids (src/engine/trace/id.ts): the id names the trace's txn_time to the millisecond, which
 * is how a bind finds the one partition its trace is in.
 */
import { describe, expect, it } from 'vitest';
import { newTraceId, traceTimeOf } from '../../../src/engine/trace/id.js';

describe('trace ids', () => {
  it('reads the time of the UUIDv7 example of RFC 9562, Appendix A.6', () => {
    // RFC 9562 A.6: 017F22E2-79B0-7CC3-98C4-DC0C0C07398F, unix_ts_ms 0x017F22E279B0 = Tuesday, February 22,
    // 2022 2:22:22.00 PM GMT-05:00.
    expect(traceTimeOf('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')?.toISOString()).toBe('2022-02-22T19:22:22.000Z');
    expect(traceTimeOf('017F22E2-79B0-7CC3-98C4-DC0C0C07398F')?.getTime()).toBe(0x017f22e279b0);
  });

  it('makes version-7 ids that name the given millisecond, distinct within one millisecond', () => {
    const at = Date.UTC(2026, 10, 23, 22, 15, 8, 123);
    const ids = Array.from({ length: 1000 }, () => newTraceId(at));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(traceTimeOf(id)?.getTime()).toBe(at);
    }
  });

  it('finds no time in ids of other versions or in what is not a uuid', () => {
    expect(traceTimeOf('6f1c1d0e-3b7a-4c55-9a43-2f0a8e1d9b11')).toBeNull(); // version 4
    expect(traceTimeOf('00000000-0000-0000-0000-000000000000')).toBeNull();
    expect(traceTimeOf('017f22e2-79b0-7cc3-98c4')).toBeNull();
    expect(traceTimeOf('not a uuid at all, 36 characters long')).toBeNull();
  });
});
