/**
 * The engine benchmark's rows of the bench/all.ts table, from bench/engine.ts's JSON, whatever runs it holds:
 *
 * - `scenarios[]`: one run each, labelled from its `mode` (or `durable`), `workers`, `connections` and
 *   `history_traces`; each holds `routes[]` and names its `floor_route`;
 * - `scale`, when not null: authorize and bind with `history_traces` traces stored against an empty store, measured
 *   in turns: `routes[]` of `{route, history, empty, change_pct}` (history and empty are routes), judged within
 *   ± `max_change_pct`; a file from before holds it as one more scenario, read as the scenarios are;
 * - or, from before the scenarios, one run: top-level `routes[]` and `floor_route`, labelled from `load` and
 *   `database.settings.fsync`;
 * - `single_connection[]`: the service-time runs over one connection, against the floor's.
 *
 * A route is `{route, rps, latency_ms: {p50, p99}}`. The floor of a run is its `floor_route`, else its route
 * named `POST /bench/floor (…)`. Targets (authorize and bind): `targets.routes[route]` names the route each is
 * relative to (`against`) and the least ratio (`min_relative`: authorize ≥ 0.75 × floor-verify, bind ≥ 0.6 ×
 * the floor); a file without it (from before) holds one `targets.min_relative` × the floor for both. Either way
 * p99 < `targets.max_p99_relative` (4) × the floor's p99; over one connection, p99 < `targets.max_service_p99_ms`
 * when the file names it.
 */
import { fmt, listAt, met, numberAt, textAt, type SummaryRow } from './summary-row.js';

const BENCHMARK = 'engine';
const TARGETED = /\/engine\/(authorize|bind)/;

interface Route {
  route: string;
  rps: number;
  p50: number;
  p99: number;
}

function routeOf(value: unknown): Route {
  const route = textAt(value, 'route');
  if (route === null) throw new Error('a route has no "route" name');
  return { route, rps: numberAt(value, 'rps'), p50: numberAt(value, 'latency_ms', 'p50'), p99: numberAt(value, 'latency_ms', 'p99') };
}

function floorOf(routes: readonly Route[], named: string | null): Route {
  const floor = routes.find((r) => (named ? r.route === named : r.route.startsWith('POST /bench/floor (')));
  if (!floor) throw new Error(`no floor route${named ? ` "${named}"` : ''} among the routes`);
  return floor;
}

const optional = (value: unknown, key: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);

function runLabel(run: unknown, top: unknown): string {
  const label = optional(run, 'label');
  if (typeof label === 'string') return label;
  const mode = optional(run, 'mode');
  const durable = optional(run, 'durable');
  const fsync = optional(optional(optional(top, 'database'), 'settings'), 'fsync');
  const modeText =
    typeof mode === 'string'
      ? mode
      : typeof durable === 'boolean'
        ? durable
          ? 'durable'
          : 'non-durable'
        : typeof fsync === 'string'
          ? fsync === 'on'
            ? 'durable'
            : 'non-durable'
          : null;
  const workers = optional(run, 'workers');
  const connections = optional(run, 'connections') ?? optional(optional(top, 'load'), 'connections');
  const history = optional(run, 'history_traces');
  return [
    modeText,
    typeof workers === 'number' ? `${workers} worker${workers === 1 ? '' : 's'}` : null,
    typeof connections === 'number' ? `${connections} conn` : null,
    typeof history === 'number' && history > 0 ? `${history.toLocaleString('en-US')} traces stored` : null,
  ]
    .filter((p): p is string => p !== null)
    .join(', ');
}

const loadText = (r: Route): string => `${fmt(r.rps, 0)} req/s, p99 ${fmt(r.p99, 1)} ms`;

/** What a targeted route's req/s is measured against: a route of the run by name (null: the floor), and the least ratio. */
interface RouteTarget {
  against: string | null;
  minRelative: number;
}

function runRows(run: unknown, top: unknown, targetOf: (route: string) => RouteTarget, maxP99Relative: number): SummaryRow[] {
  const routes = listAt(run, 'routes').map(routeOf);
  const floor = floorOf(routes, textAt(run, 'floor_route'));
  const label = runLabel(run, top);
  return routes.map((r) => {
    const row: SummaryRow = {
      benchmark: BENCHMARK,
      run: label,
      what: r.route,
      figure: loadText(r),
      floor: loadText(floor),
      ratio: r.rps / floor.rps,
      target: '',
      result: '',
    };
    if (!TARGETED.test(r.route)) return row;
    const { against, minRelative } = targetOf(r.route);
    const base = against === null ? floor : routes.find((x) => x.route === against);
    if (!base) throw new Error(`the target of ${r.route} is relative to "${against}", which the run does not hold`);
    const baseName = base === floor ? 'floor' : base.route.replace(/^(GET|POST) \/(bench\/)?/, '').replace(/ \(.*\)$/, '');
    const p99Ratio = r.p99 / floor.p99;
    return {
      ...row,
      figure: `${row.figure} (${fmt(p99Ratio, 2)}x floor p99)`,
      floor: loadText(base),
      ratio: r.rps / base.rps,
      target: `>= ${fmt(minRelative, 2)}x ${baseName} req/s, p99 < ${fmt(maxP99Relative, 0)}x floor p99 (${fmt(maxP99Relative * floor.p99, 1)} ms)`,
      result: met(r.rps >= minRelative * base.rps && p99Ratio < maxP99Relative),
    };
  });
}

function singleRows(list: unknown[], maxServiceP99: number | null): SummaryRow[] {
  if (list.length === 0) return [];
  const routes = list.map(routeOf);
  const floor = floorOf(routes, null);
  const text = (r: Route): string => `p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms`;
  return routes.map((r) => {
    const targeted = TARGETED.test(r.route) && maxServiceP99 !== null;
    return {
      benchmark: BENCHMARK,
      run: '1 connection (service time)',
      what: r.route,
      figure: text(r),
      floor: text(floor),
      ratio: r.p50 / floor.p50,
      target: targeted ? `p99 < ${fmt(maxServiceP99, 0)} ms` : '',
      result: targeted ? met(r.p99 < maxServiceP99) : '',
    };
  });
}

/** Whether `scale` is the comparison of two stores (its routes hold `history` and `empty`), not a scenario of its own. */
const isComparison = (scale: unknown): boolean => listAt(scale, 'routes').some((r) => optional(r, 'history') !== undefined);

function scaleRows(scale: unknown, top: unknown): SummaryRow[] {
  const maxChange = numberAt(scale, 'max_change_pct');
  const label = `${runLabel(scale, top)} vs an empty store, in turns`;
  return listAt(scale, 'routes').map((r) => {
    const history = routeOf(optional(r, 'history'));
    const empty = routeOf(optional(r, 'empty'));
    const change = (history.rps / empty.rps - 1) * 100;
    return {
      benchmark: BENCHMARK,
      run: label,
      what: history.route,
      figure: loadText(history),
      floor: `${loadText(empty)} (empty store)`,
      ratio: history.rps / empty.rps,
      target: `req/s within ±${fmt(maxChange, 0)}% of the empty store's (${change >= 0 ? '+' : ''}${fmt(change, 1)}%)`,
      result: met(Math.abs(change) <= maxChange),
    };
  });
}

export function engineRows(json: unknown): SummaryRow[] {
  const targets = optional(json, 'targets');
  const setting = (key: string, fallback: number | null): number | null => {
    const v = optional(targets, key);
    return typeof v === 'number' ? v : fallback;
  };
  const minRelative = setting('min_relative', 0.5) as number;
  const maxP99Relative = setting('max_p99_relative', 4) as number;
  const perRoute = optional(targets, 'routes');
  const targetOf = (route: string): RouteTarget => {
    const t = optional(perRoute, route);
    if (t === undefined) return { against: null, minRelative };
    const against = optional(t, 'against');
    const min = optional(t, 'min_relative');
    if (typeof against !== 'string' || typeof min !== 'number')
      throw new Error(`targets.routes["${route}"] needs "against" (a route) and "min_relative" (a number)`);
    return { against, minRelative: min };
  };
  const scenarios = optional(json, 'scenarios') ?? optional(json, 'runs');
  const runs: unknown[] = Array.isArray(scenarios) ? [...scenarios] : [json];
  const scale = optional(json, 'scale');
  const hasScale = Array.isArray(scenarios) && scale !== null && scale !== undefined;
  // A file from before the two stores were compared holds the scale run as one more scenario.
  if (hasScale && !isComparison(scale)) runs.push(scale);
  const scaleRuns = hasScale && isComparison(scale) ? scaleRows(scale, json) : [];
  const single = optional(json, 'single_connection');
  return [
    ...runs.flatMap((run) => runRows(run, json, targetOf, maxP99Relative)),
    ...scaleRuns,
    ...(Array.isArray(single) ? singleRows(single, setting('max_service_p99_ms', null)) : []),
  ];
}
