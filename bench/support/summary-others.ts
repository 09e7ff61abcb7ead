/**
 * The rows of the pipeline, signal service and quant benchmarks in the bench/all.ts table, from the JSON each
 * writes with `--out` (bench/pipeline.ts, bench/signals.ts, bench/quant.ts):
 *
 * - pipeline: `runs[]` of `{name, wall_ms, target_s}`; it measures no floor (a pipeline run has no cheaper
 *   twin worth timing), so only its absolute targets;
 * - signals: `routes[]` of `{route, rps, latency_ms}` with `floor_route` (one INSERT) and `bare_route`; the
 *   routes of `/v1/signals/latest` against the floor (target ≥ 0.5×), the heartbeat against the bare route
 *   (target ≥ 0.25×);
 * - quant: `backtest.{command, service}` against `floors.read_window` (the bare read of the same rows), in ms;
 *   the target is 50 ms (`target.max_ms`), at the median for the command and at p95 for the service, as
 *   bench/quant.ts judges them.
 */
import { fmt, listAt, met, numberAt, textAt, type SummaryRow } from './summary-row.js';

export function pipelineRows(json: unknown): SummaryRow[] {
  return listAt(json, 'runs').map((run) => {
    const wallS = numberAt(run, 'wall_ms') / 1000;
    const target = numberAt(run, 'target_s');
    return {
      benchmark: 'pipeline',
      run: '',
      what: textAt(run, 'name') ?? '?',
      figure: `${fmt(wallS, 2)} s`,
      floor: '(none)',
      ratio: null,
      target: `< ${target} s`,
      result: met(wallS < target),
    };
  });
}

export function signalsRows(json: unknown): SummaryRow[] {
  const routes = listAt(json, 'routes').map((r) => ({
    route: textAt(r, 'route') ?? '?',
    rps: numberAt(r, 'rps'),
    p99: numberAt(r, 'latency_ms', 'p99'),
  }));
  const named = (key: string): (typeof routes)[number] => {
    const name = textAt(json, key);
    const found = routes.find((r) => r.route === name);
    if (!found) throw new Error(`no route named by "${key}"`);
    return found;
  };
  const floor = named('floor_route');
  const bare = named('bare_route');
  const text = (r: (typeof routes)[number]): string => `${fmt(r.rps, 0)} req/s, p99 ${fmt(r.p99, 1)} ms`;
  const connections = (json as { load?: { connections?: unknown } }).load?.connections;
  const run = typeof connections === 'number' ? `${connections} conn` : '';
  return routes.map((r) => {
    const heartbeat = r.route.includes('/v1/engine/heartbeat');
    const latest = r.route.includes('/v1/signals/latest');
    const base = heartbeat || r === bare ? bare : floor;
    const min = heartbeat ? 0.25 : latest ? 0.5 : null;
    return {
      benchmark: 'signals',
      run,
      what: r.route,
      figure: text(r),
      floor: `${base === bare ? 'bare route' : '1 INSERT'}: ${text(base)}`,
      ratio: r.rps / base.rps,
      target: min === null ? '' : `>= ${min}x ${base === bare ? 'bare route' : 'floor'} req/s`,
      result: min === null ? '' : met(r.rps >= min * base.rps),
    };
  });
}

export function quantRows(json: unknown): SummaryRow[] {
  const max = numberAt(json, 'target', 'max_ms');
  const read = (stat: 'median_ms' | 'p95_ms'): number => numberAt(json, 'floors', 'read_window', stat);
  const row = (what: string, key: 'command' | 'service', stat: 'median_ms' | 'p95_ms'): SummaryRow => {
    const ms = numberAt(json, 'backtest', key, stat);
    const label = stat === 'median_ms' ? 'median' : 'p95';
    return {
      benchmark: 'quant',
      run: '',
      what: `${what} (${label})`,
      figure: `${fmt(ms, 2)} ms`,
      floor: `read of the window's rows: ${fmt(read(stat), 2)} ms`,
      ratio: ms / read(stat),
      target: `< ${max} ms`,
      result: met(ms < max),
    };
  };
  return [row('backtest, command', 'command', 'median_ms'), row('backtest, service', 'service', 'p95_ms')];
}
