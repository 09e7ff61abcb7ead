/**
 * A floor measured before and after the route compared with it counts as the mean of its two runs
 * (bench/support/bracket.ts): a steady drift of the machine during a scenario then moves the floor as much as
 * the route, and favours neither.
 */
import { describe, expect, it } from 'vitest';
import { bracketed, type MeasuredRun } from '../../bench/support/bracket.js';

const run = (rps: number, p99: number, serverMs: number | null, extra: Partial<MeasuredRun> = {}): MeasuredRun => ({
  route: 'POST /bench/floor (1 INSERT)',
  result: {
    route: 'POST /bench/floor (1 INSERT)', seconds: 8, responses: rps * 8, ok: rps * 8, non2xx: 1, socketErrors: 0, statusCounts: { 201: rps * 8, 500: 1 },
    errorSamples: ['500 boom'], rps, latency: { p50: p99 / 4, p90: p99 / 2, p99, p999: p99 * 2, max: p99 * 3, mean: p99 / 3 },
  },
  handled: rps * 8,
  cpu: { serverMsPerReq: serverMs, postgresMsPerReq: 0.1, loadgenMsPerReq: 0.08, otherMsPerReq: 0, machineBusy: 0.86, othersBusy: 0.01 },
  loopBusy: 0.98, note: null, ...extra,
});

describe('a floor bracketing the route measured against it', () => {
  it('is the mean of its two runs: req/s, latency, CPU per request, main-thread share; counts are summed', () => {
    const both = bracketed(run(4000, 30, 0.2), run(5000, 20, 0.1, { loopBusy: 0.9 }));
    expect(both.result.rps).toBe(4500);
    expect(both.result.latency).toEqual({ p50: 6.25, p90: 12.5, p99: 25, p999: 50, max: 75, mean: 25 / 3 });
    expect(both.cpu.serverMsPerReq).toBeCloseTo(0.15, 12);
    expect(both.cpu.machineBusy).toBeCloseTo(0.86, 12);
    expect(both.loopBusy).toBeCloseTo(0.94, 12);
    expect([both.result.seconds, both.result.ok, both.result.non2xx, both.handled]).toEqual([16, 72_000, 2, 72_000]);
    expect(both.result.statusCounts).toEqual({ 201: 72_000, 500: 2 });
    expect(both.route).toBe('POST /bench/floor (1 INSERT)');
  });

  it('keeps a figure one run could not measure unknown, and both runs\' notes', () => {
    const both = bracketed(run(4000, 30, null, { note: 'first' }), run(5000, 20, 0.1, { note: 'second' }));
    expect(both.cpu.serverMsPerReq).toBeNull();
    expect(both.note).toBe('first; second');
  });
});
