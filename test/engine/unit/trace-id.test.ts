/**
 * Trace ids (src/core/trace-id.ts): UUIDv8 whose last group is the trace's txn_time to the millisecond,
 * which is how a bind finds the one partition its trace is in, and whose first characters are random, so that
 * a short prefix still tells traces of the same minute apart.
 */
import { describe, expect, it } from 'vitest';
import { newTraceId, traceTimeOf } from '../../../src/core/trace-id.js';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('trace ids', () => {
  it('are version-8 UUIDs (RFC 9562 §5.8: version nibble 8, variant bits 10) that name the given millisecond', () => {
    const at = Date.UTC(2026, 10, 23, 22, 15, 8, 123);
    const ids = Array.from({ length: 1000 }, () => newTraceId(at));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) {
      expect(id).toMatch(UUID_V8);
      expect(id.slice(24)).toBe(at.toString(16).padStart(12, '0'));
      expect(traceTimeOf(id)?.getTime()).toBe(at);
    }
    // The variant digit carries two random bits, as in a version-4 UUID: all four values occur.
    expect(new Set(ids.map((id) => id[19])).size).toBe(4);
    // Upper case reads the same; the extremes of the 48-bit range round-trip.
    expect(traceTimeOf(ids[0]!.toUpperCase())?.getTime()).toBe(at);
    expect(traceTimeOf(newTraceId(0))?.getTime()).toBe(0);
    expect(traceTimeOf(newTraceId(2 ** 48 - 1))?.getTime()).toBe(2 ** 48 - 1);
  });

  it('begin with random characters: ids of one millisecond differ in their first group', () => {
    const at = Date.now();
    const heads = new Set(Array.from({ length: 200 }, () => newTraceId(at).slice(0, 8)));
    // 200 draws of 8 random hex digits collide with a probability of about 5 in a million.
    expect(heads.size).toBe(200);
    // Whereas every id of that millisecond ends alike.
    expect(new Set(Array.from({ length: 20 }, () => newTraceId(at).slice(24))).size).toBe(1);
  });

  it('refuses a time it cannot carry', () => {
    for (const bad of [-1, 2 ** 48, 1.5, Number.NaN]) expect(() => newTraceId(bad)).toThrow(RangeError);
  });

  it('finds no time in ids of other versions or in what is not a uuid', () => {
    expect(traceTimeOf('6f1c1d0e-3b7a-4c55-9a43-2f0a8e1d9b11')).toBeNull(); // version 4
    expect(traceTimeOf('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')).toBeNull(); // version 7 (RFC 9562 A.6)
    expect(traceTimeOf('6f1c1d0e-3b7a-8c55-7a43-2f0a8e1d9b11')).toBeNull(); // version 8, variant not 10
    expect(traceTimeOf('00000000-0000-0000-0000-000000000000')).toBeNull();
    expect(traceTimeOf('017f22e2-79b0-8cc3-98c4')).toBeNull();
    expect(traceTimeOf('not a uuid at all, 36 characters long')).toBeNull();
  });
});
