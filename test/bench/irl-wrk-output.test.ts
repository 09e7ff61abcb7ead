/**
 * The reading of wrk's output and of the IRL Engine's script's warnings (bench/irl/wrk-output.ts), from text
 * that wrk 4.1.0 printed running bench/irl/authorize.lua. No timings are measured here.
 */
import { describe, expect, it } from 'vitest';
import { parseWrk, tallyWarnings } from '../../bench/irl/wrk-output.js';

/** wrk 4.1.0 (Debian 12) with bench/irl/authorize.lua, against a server answering every tenth request 409. */
const RUN = `Running 1s test @ http://127.0.0.1:18931/irl/authorize
  2 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   784.35us    1.69ms  23.92ms   91.66%
    Req/Sec    14.04k     8.05k   25.52k    50.00%
  30718 requests in 1.10s, 5.68MB read
  Non-2xx or 3xx responses: 3071
Requests/sec:  27902.12
Transfer/sec:      5.16MB

=== IRL Engine Benchmark Summary ===
Requests/sec : 27902.12
p50 latency  : 0.26 ms
p95 latency  : 3.42 ms
p99 latency  : 7.98 ms
p99.9 latency: 19.29 ms
Errors       : 3071
=====================================
`;

describe('parseWrk', () => {
  it("reads wrk's counts and req/s and the script's percentiles", () => {
    expect(parseWrk(RUN)).toEqual({
      rps: 27902.12,
      requests: 30718,
      durationS: 1.1,
      non2xx: 3071,
      socketErrors: 0,
      p50: 0.26,
      p95: 3.42,
      p99: 7.98,
      p999: 19.29,
    });
  });

  it('adds up every kind of socket error and reads durations in minutes', () => {
    const text = RUN.replace('  30718 requests in 1.10s,', '  30718 requests in 1.00m,').replace(
      '  Non-2xx or 3xx responses: 3071\n',
      '  Socket errors: connect 2, read 5, write 1, timeout 7\n',
    );
    const figures = parseWrk(text);
    expect(figures.durationS).toBe(60);
    expect(figures.socketErrors).toBe(15);
    expect(figures.non2xx).toBe(0);
  });

  it("answers nulls and zeros for output that is not wrk's, rather than inventing figures", () => {
    expect(parseWrk('unable to connect to 127.0.0.1:1 Connection refused\n')).toEqual({
      rps: null,
      requests: 0,
      durationS: null,
      non2xx: 0,
      socketErrors: 0,
      p50: null,
      p95: null,
      p99: null,
      p999: null,
    });
  });
});

describe('tallyWarnings', () => {
  it("counts the script's warnings by status and keeps the first bodies of each", () => {
    const conflict = '{"code":"client_order_id_conflict","detail":"x","error":"DUPLICATE_INTENT","message":"x"}';
    const stderr = [
      ...Array.from({ length: 5 }, () => `[WARN] HTTP 409: ${conflict}`),
      '[WARN] HTTP 422: {"code":"validation_failed","detail":"order_type"}',
      'PANIC: unprotected error in call to Lua API',
      '',
    ].join('\n');
    const tally = tallyWarnings(stderr, 2);
    expect(tally.byStatus).toEqual({ 409: 5, 422: 1 });
    expect(tally.samples['409']).toEqual([conflict, conflict]);
    expect(tally.samples['422']).toEqual(['{"code":"validation_failed","detail":"order_type"}']);
  });
});
