/**
 * Interleaved measurement (bench/support/slices.ts): the routes of a comparison take turns in rounds whose order
 * is mirrored every other round, and a route's slices pool into one run: requests over seconds, percentiles over
 * every response, CPU over every request.
 */
import { describe, expect, it } from 'vitest';
import { percentiles, type LoadResult } from '../../bench/support/load.js';
import type { CpuSnapshot } from '../../bench/support/proc.js';
import { pooled, roundOrder, roundRatios, type Slice, type StatementCounter } from '../../bench/support/slices.js';

const result = (ok: number, seconds: number, latencies: number[], extra: Partial<LoadResult> = {}): LoadResult => {
  const samples = Float64Array.from(latencies).sort();
  return {
    route: 'POST /bench/floor (1 INSERT)',
    seconds,
    responses: latencies.length,
    ok,
    non2xx: latencies.length - ok,
    socketErrors: 0,
    statusCounts: { 201: ok, ...(latencies.length > ok ? { 500: latencies.length - ok } : {}) },
    errorSamples: [],
    rps: ok / seconds,
    latency: percentiles(samples),
    samples,
    ...extra,
  };
};

const snap = (server: number | null, postgres: number, loadgen: number, busy: number, total: number): CpuSnapshot => ({
  server,
  postgres,
  loadgen,
  machine: { busy, total },
});

const slice = (
  r: LoadResult,
  cpu: [CpuSnapshot, CpuSnapshot],
  loop: [number, number],
  statements: Map<string, StatementCounter> | null = null,
  note: string | null = null,
): Slice => ({ result: r, handled: r.ok, cpuBefore: cpu[0], cpuAfter: cpu[1], loop: { activeMs: loop[0], idleMs: loop[1] }, statements, note });

describe('the order of a round', () => {
  it('is the routes as given in even rounds and reversed in odd ones, so each pair of rounds is mirrored', () => {
    const keys = ['floor', 'verifyFloor', 'authorize', 'bind'];
    expect([0, 1, 2, 3].map((r) => roundOrder(keys, r).join(' '))).toEqual([
      'floor verifyFloor authorize bind',
      'bind authorize verifyFloor floor',
      'floor verifyFloor authorize bind',
      'bind authorize verifyFloor floor',
    ]);
    // Over a pair of rounds each route's mean position is the same: a steady drift favours none.
    const meanPosition = (k: string): number => (roundOrder(keys, 0).indexOf(k) + roundOrder(keys, 1).indexOf(k)) / 2;
    expect(new Set(keys.map(meanPosition))).toEqual(new Set([1.5]));
    expect(keys).toEqual(['floor', 'verifyFloor', 'authorize', 'bind']);
  });
});

describe("a route's slices pooled", () => {
  it("gives its requests over its seconds, not the mean of the slices' rates", () => {
    // 1,000 requests in 1 s and 1,000 in 4 s: 2,000 in 5 s is 400 req/s (the mean of the rates would say 625).
    const p = pooled([
      slice(result(1000, 1, Array(1000).fill(1)), [snap(0, 0, 0, 0, 0), snap(0.2, 0.1, 0.05, 1.6, 2)], [900, 100]),
      slice(result(1000, 4, Array(1000).fill(2)), [snap(5, 5, 5, 10, 10), snap(5.2, 5.3, 5.05, 14, 18)], [1000, 3000]),
    ]);
    expect(p.result.rps).toBe(400);
    expect([p.result.seconds, p.result.ok, p.handled, p.result.responses]).toEqual([5, 2000, 2000, 2000]);
    expect(p.sliceRps).toEqual([1000, 250]);
    // CPU per request over both slices: server 0.4 s, PostgreSQL 0.4 s, load generator 0.1 s for 2,000 requests.
    expect(p.cpu.serverMsPerReq).toBeCloseTo(0.2, 12);
    expect(p.cpu.postgresMsPerReq).toBeCloseTo(0.2, 12);
    expect(p.cpu.loadgenMsPerReq).toBeCloseTo(0.05, 12);
    // The machine: 5.6 busy s of 10 (not the mean of 80 % and 50 %).
    expect(p.cpu.machineBusy).toBeCloseTo(0.56, 12);
    expect(p.cpu.otherMsPerReq).toBeCloseTo(2.8 - 0.45, 12);
    // The main thread: 1,900 ms active of 5,000.
    expect(p.loopBusy).toBeCloseTo(0.38, 12);
  });

  it('takes its percentiles over every response of every slice', () => {
    const a = Array.from({ length: 90 }, (_, i) => 1 + i / 100);
    const b = Array.from({ length: 10 }, (_, i) => 50 + i);
    const p = pooled([
      slice(result(90, 1, a), [snap(0, 0, 0, 0, 1), snap(0, 0, 0, 0, 1)], [1, 1]),
      slice(result(10, 1, b), [snap(0, 0, 0, 0, 1), snap(0, 0, 0, 0, 1)], [1, 1]),
    ]);
    const all = Float64Array.from([...a, ...b]).sort();
    expect(p.result.latency).toEqual(percentiles(all));
    // The p99 of the pool is a response of the slow slice, which the mean of the two p99s (about 30 ms) is not.
    expect(p.result.latency.p99).toBe(58);
    expect(p.result.latency.max).toBe(59);
    expect(p.result.samples).toEqual(all);
  });

  it('sums status counts and statements, keeps each note once, and leaves a figure unknown when one slice could not measure it', () => {
    const st = (calls: number, totalMs: number): Map<string, StatementCounter> => new Map([['q1', { query: 'update traces', calls, totalMs }]]);
    const p = pooled([
      slice(result(9, 1, Array(10).fill(1)), [snap(null, 0, 0, 0, 1), snap(null, 1, 1, 1, 2)], [1, 1], st(2, 4), 'ran out of pending traces'),
      slice(result(10, 1, Array(10).fill(1)), [snap(0, 0, 0, 0, 1), snap(1, 1, 1, 1, 2)], [1, 1], st(3, 5), 'ran out of pending traces'),
    ]);
    expect(p.result.statusCounts).toEqual({ 201: 19, 500: 1 });
    expect(p.result.non2xx).toBe(1);
    expect(p.statements?.get('q1')).toEqual({ query: 'update traces', calls: 5, totalMs: 9 });
    expect(p.note).toBe('ran out of pending traces');
    expect(p.cpu.serverMsPerReq).toBeNull();
    expect(p.cpu.postgresMsPerReq).not.toBeNull();
    expect(
      pooled([
        slice(result(1, 1, [1]), [snap(0, 0, 0, 0, 1), snap(0, 0, 0, 0, 1)], [0, 0], st(1, 1)),
        slice(result(1, 1, [1]), [snap(0, 0, 0, 0, 1), snap(0, 0, 0, 0, 1)], [0, 0], null),
      ]).statements,
    ).toBeNull();
  });

  it('refuses no slices at all', () => {
    expect(() => pooled([])).toThrow(RangeError);
  });
});

describe('per-round ratios', () => {
  it("divide the two routes' slices of the same round, and refuse routes measured in different rounds", () => {
    const one = (rps: number): Slice => slice(result(rps, 1, [1]), [snap(0, 0, 0, 0, 1), snap(0, 0, 0, 0, 1)], [0, 0]);
    expect(roundRatios([one(3000), one(2000)], [one(4000), one(5000)])).toEqual([0.75, 0.4]);
    expect(() => roundRatios([one(1)], [one(1), one(1)])).toThrow(/same rounds/);
  });
});
