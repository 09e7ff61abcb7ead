/**
 * The comparison run (bench/support/compare.ts): `--compare` names the settings of the second server and is
 * refused, naming the rule, when it cannot be one; each route is measured on both servers one after the other in
 * every round; a setting is judged by the targets' ratios on each server and by each route's req/s, pooled over
 * the rounds, each with its per-round figures.
 */
import { describe, expect, it } from 'vitest';
import { COMPARE_KEYS, compareLines, parseCompare, settingsText, type CompareKey } from '../../bench/support/compare.js';
import { percentiles, type LoadResult } from '../../bench/support/load.js';
import type { CpuSnapshot } from '../../bench/support/proc.js';
import { roundOrder, type Slice } from '../../bench/support/slices.js';

describe('--compare', () => {
  it('reads NAME=VALUE pairs in the order given, the value kept as written', () => {
    expect(parseCompare('ENGINE_BATCH_IN_FLIGHT=2')).toEqual([['ENGINE_BATCH_IN_FLIGHT', '2']]);
    expect(parseCompare('BENCH_WORKERS=2, UV_THREADPOOL_SIZE=1')).toEqual([
      ['BENCH_WORKERS', '2'],
      ['UV_THREADPOOL_SIZE', '1'],
    ]);
    expect(parseCompare('LOG_LEVEL=a=b')).toEqual([['LOG_LEVEL', 'a=b']]);
  });

  it('prints the settings as they are written on the command line, in their order', () => {
    expect(settingsText(parseCompare('NODE_OPTIONS=--max-semi-space-size=64, BENCH_WORKERS=2'))).toBe('NODE_OPTIONS=--max-semi-space-size=64 BENCH_WORKERS=2');
  });

  it('refuses what cannot be a setting of the second server, naming the rule', () => {
    expect(() => parseCompare('ENGINE_BATCH_IN_FLIGHT')).toThrow('"ENGINE_BATCH_IN_FLIGHT" is not NAME=VALUE');
    expect(() => parseCompare('engine_batch_in_flight=2')).toThrow("is not a setting's name");
    expect(() => parseCompare('1WORKERS=2')).toThrow("is not a setting's name");
    expect(() => parseCompare('BENCH_WORKERS=')).toThrow('BENCH_WORKERS has no value');
    expect(() => parseCompare('BENCH_WORKERS=2,BENCH_WORKERS=3')).toThrow('BENCH_WORKERS is given twice');
    // The harness points each server at its own store and keys: a comparison of those would compare nothing it reports.
    expect(() => parseCompare('DATABASE_URL=postgres://elsewhere/db')).toThrow('DATABASE_URL is set by the benchmark');
    expect(() => parseCompare('LAYER2_ENABLED=false')).toThrow('LAYER2_ENABLED is set by the benchmark');
    // The benchmark server reads its own counts without checking them: the harness does.
    expect(() => parseCompare('BENCH_WORKERS=two')).toThrow('BENCH_WORKERS must be a whole number >= 1, got two');
    expect(() => parseCompare('BENCH_POOL=0')).toThrow('BENCH_POOL must be a whole number >= 1, got 0');
    expect(parseCompare('BENCH_POOL=80')).toEqual([['BENCH_POOL', '80']]);
  });
});

describe("the comparison's rounds", () => {
  it('measure each route on both servers one after the other, the order mirrored every other round', () => {
    expect(COMPARE_KEYS).toEqual([
      'plain floor',
      'varied floor',
      'plain verifyFloor',
      'varied verifyFloor',
      'plain authorize',
      'varied authorize',
      'plain bind',
      'varied bind',
    ]);
    const odd = roundOrder(COMPARE_KEYS, 1);
    for (const route of ['floor', 'verifyFloor', 'authorize', 'bind']) {
      expect(Math.abs(odd.indexOf(`plain ${route}` as CompareKey) - odd.indexOf(`varied ${route}` as CompareKey))).toBe(1);
    }
    // Over a pair of rounds neither server is measured first more often.
    expect(roundOrder(COMPARE_KEYS, 0)[0]).toBe('plain floor');
    expect(odd[0]).toBe('varied bind');
  });
});

const snap: CpuSnapshot = { server: 0, postgres: 0, loadgen: 0, machine: { busy: 0, total: 1 } };
/** A slice of `ok` 2xx responses in `seconds`. */
const slice = (ok: number, seconds: number): Slice => {
  const samples = Float64Array.from(Array(ok).fill(1));
  const result: LoadResult = {
    route: 'r',
    seconds,
    responses: ok,
    ok,
    non2xx: 0,
    socketErrors: 0,
    statusCounts: { 200: ok },
    errorSamples: [],
    rps: ok / seconds,
    latency: percentiles(samples),
    samples,
  };
  return { result, handled: ok, cpuBefore: snap, cpuAfter: snap, loop: { activeMs: 0, idleMs: 1 }, statements: null, note: null };
};

describe("the comparison's lines", () => {
  // Two rounds of 1 s slices. Plain: floor 4,000 and 6,000 req/s, floor-verify 2,000 and 3,000, authorize 1,500
  // and 2,100, bind 2,400 and 3,600. Varied: floor 4,400 and 6,600, floor-verify 2,200 and 3,000, authorize 1,980
  // and 2,100, bind 2,400 and 3,300.
  const rounds: Record<CompareKey, Slice[]> = {
    'plain floor': [slice(4000, 1), slice(6000, 1)],
    'varied floor': [slice(4400, 1), slice(6600, 1)],
    'plain verifyFloor': [slice(2000, 1), slice(3000, 1)],
    'varied verifyFloor': [slice(2200, 1), slice(3000, 1)],
    'plain authorize': [slice(1500, 1), slice(2100, 1)],
    'varied authorize': [slice(1980, 1), slice(2100, 1)],
    'plain bind': [slice(2400, 1), slice(3600, 1)],
    'varied bind': [slice(2400, 1), slice(3300, 1)],
  };
  const lines = compareLines(rounds);
  const line = (what: string) => lines.find((l) => l.what === what) as (typeof lines)[number];

  it("give the targets' ratios on each server, each over the pooled rounds, with their change", () => {
    expect(lines.map((l) => l.what)).toEqual(['authorize ÷ floor-verify', 'bind ÷ floor', 'floor req/s', 'verifyFloor req/s', 'authorize req/s', 'bind req/s']);
    // Plain: 3,600 authorizes against 5,000 floor-verifies in the same 2 s (not the mean of 0.75 and 0.70).
    expect(line('authorize ÷ floor-verify').plain).toBeCloseTo(0.72, 12);
    expect(line('authorize ÷ floor-verify').varied).toBeCloseTo(4080 / 5200, 12);
    expect(line('authorize ÷ floor-verify').changePct).toBeCloseTo((4080 / 5200 / 0.72 - 1) * 100, 9);
    expect(line('bind ÷ floor').plain).toBeCloseTo(0.6, 12);
    expect(line('bind ÷ floor').varied).toBeCloseTo(5700 / 11000, 12);
  });

  it("give each round's ratio on each server, so the spread of the machine is read beside the change", () => {
    expect(line('authorize ÷ floor-verify').roundsPlain).toEqual([0.75, 0.7]);
    expect(line('authorize ÷ floor-verify').roundsVaried).toEqual([0.9, 0.7]);
    expect(line('bind ÷ floor').roundsPlain).toEqual([0.6, 0.6]);
  });

  it("give each route's req/s on both servers, and per round the varied server's over the plain one's", () => {
    expect(line('authorize req/s')).toMatchObject({ plain: 1800, varied: 2040, roundsPlain: null, roundsVaried: [1.32, 1] });
    expect(line('authorize req/s').changePct).toBeCloseTo((2040 / 1800) * 100 - 100, 9);
    expect(line('floor req/s').roundsVaried.map((x) => Math.round(x * 100) / 100)).toEqual([1.1, 1.1]);
  });

  it('refuse slices of a route not measured in the same rounds on both servers', () => {
    expect(() => compareLines({ ...rounds, 'varied bind': [slice(2400, 1)] })).toThrow('not measured in the same rounds');
  });
});
