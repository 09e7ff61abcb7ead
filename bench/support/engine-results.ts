/**
 * The engine benchmark's results (bench/engine.ts): its targets, what one scenario, the scale run and the
 * comparison run measured, and a route's slices pooled into one measured run with its statements per request.
 */
import type { LoadResult } from './load.js';
import type { CpuUse } from './proc.js';
import { pooled, type Slice, type StatementCounter } from './slices.js';
import type { CompareKey, CompareLine, CompareSettings } from './compare.js';
import type { ProfileSummary } from './profile.js';

/** Authorize's req/s against floor-verify's (its body, one signature verified, one INSERT: what any authorize must do). */
export const TARGET_AUTHORIZE_RELATIVE = 0.75;
/** Bind's req/s against the 1-INSERT floor's. */
export const TARGET_BIND_RELATIVE = 0.6;
export const FLOOR_NAME = 'POST /bench/floor (1 INSERT)';
export const VERIFY_FLOOR_NAME = 'POST /bench/floor-verify (verify + 1 INSERT)';
/** p99 of authorize and bind against the floor's p99 in the same scenario. */
export const TARGET_P99_RATIO = 4;
/** Resident memory of each serving process under load. */
export const TARGET_RSS_MB = 300;
/** The scale run against the empty store's figures, ± percent. */
export const TARGET_SCALE_PCT = 10;
/** The latency of one request on an idle engine (the service-time runs). */
export const TARGET_SERVICE_P99_MS = 15;

/** How commits are made: durable (fsync, synchronous_commit and full_page_writes on) or not. */
export type Mode = 'durable' | 'non-durable';

/** One statement's share of a route's requests (pg_stat_statements). */
export interface StatementLine {
  query: string;
  calls: number;
  perRequest: number;
  meanMs: number;
  totalMs: number;
}

export interface StatementStats {
  /** Statements (round trips) per 2xx request, background refreshes included. */
  perRequest: number;
  /** Server-side execution time per 2xx request, ms (not counting parse, network, or waiting for a connection). */
  execMsPerRequest: number;
  top: StatementLine[];
}

/** Statements per request, their execution time per request, and the ten most frequent (at least 1 per 100 requests). */
export function statementStats(counters: Map<string, StatementCounter> | null, requests: number): StatementStats | null {
  if (!counters || requests === 0) return null;
  const rows = [...counters.values()].sort((a, b) => b.calls - a.calls || b.totalMs - a.totalMs);
  const calls = rows.reduce((s, r) => s + r.calls, 0);
  const exec = rows.reduce((s, r) => s + r.totalMs, 0);
  return {
    perRequest: calls / requests,
    execMsPerRequest: exec / requests,
    top: rows
      .filter((r) => r.calls / requests >= 0.01)
      .slice(0, 10)
      .map((r) => ({
        query: r.query.replace(/\s+/g, ' ').trim(),
        calls: r.calls,
        perRequest: r.calls / requests,
        meanMs: r.totalMs / r.calls,
        totalMs: r.totalMs,
      })),
  };
}

/** A route's figures over all its slices: the load, its CPU, the main thread's busy share and its SQL. */
export interface Measured {
  route: string;
  result: LoadResult;
  /** 2xx responses the server produced during the run and its drain (the per-request denominators). */
  handled: number;
  cpu: CpuUse;
  /** The share of the run the server's main threads were busy (event-loop utilisation, averaged over workers). */
  loopBusy: number | null;
  statements: StatementStats | null;
  note: string | null;
  /** Each slice's 2xx req/s, in the order measured (one for a route measured in one run). */
  sliceRps: number[];
}

/** A route's slices as one measured run. */
export function measuredOf(route: string, slices: readonly Slice[]): Measured {
  const p = pooled(slices);
  return {
    route,
    result: p.result,
    handled: p.handled,
    cpu: p.cpu,
    loopBusy: p.loopBusy,
    statements: statementStats(p.statements, p.handled),
    note: p.note,
    sliceRps: p.sliceRps,
  };
}

/** One point of the matrix: how commits are made, how many server processes, how many connections. */
export interface Scenario {
  mode: Mode;
  workers: number;
  connections: number;
  /** Store connections of the whole server. */
  pool: number;
}

/** The routes a scenario measures in rounds, in the order of its even rounds (./slices.ts). */
export const ROUND_ROUTES = ['floor', 'verifyFloor', 'authorize', 'bind'] as const;
export type RoundRoute = (typeof ROUND_ROUTES)[number];

export interface ScenarioResult {
  scenario: Scenario;
  settings: Record<string, string>;
  /** The diagnostic routes (noop, floor-5rt): measured in the first scenario only, each in one run. */
  noop: Measured | null;
  roundTrips: Measured | null;
  /** The 1-INSERT floor, authorize's own floor, authorize and bind: each the pool of its slices. */
  floor: Measured;
  verifyFloor: Measured;
  authorize: Measured;
  bind: Measured;
  /** Per round: authorize's req/s over floor-verify's, bind's over the floor's (their slices of that round). */
  roundRatios: { authorize: number[]; bind: number[] };
  /** Peak resident memory of each serving process during the scenario's measured runs (VmHWM), MB. */
  rssPeakMb: number[];
  /** Whether the peak is the scenario's own (reset at its start), not the process's since it started. */
  peakOwn: boolean;
}

/** The scale run: authorize and bind on the store holding the history and on one without, in turns. */
export interface ScaleResult {
  scenario: Scenario;
  /** Traces of history in the store that holds it. */
  history: number;
  stored: { authorize: Measured; bind: Measured };
  empty: { authorize: Measured; bind: Measured };
  /** Per round: the history store's req/s over the empty store's (their slices of that round). */
  roundRatios: { authorize: number[]; bind: number[] };
}

/** The comparison run: the routes on a server of the harness's settings and on one with --compare's, in turns. */
export interface ComparisonResult {
  scenario: Scenario;
  settings: CompareSettings;
  lines: CompareLine[];
  /** Each key's pooled run (its CPU, for the report's table). */
  measured: Record<CompareKey, Measured>;
}

/** A scenario as the report names it: `durable, 1 worker, 50 connections`. */
export const label = (s: Scenario): string => `${s.mode}, ${s.workers} worker${s.workers === 1 ? '' : 's'}, ${s.connections} connections`;

/** A CPU profile of the server during one route's profiled run. */
export interface Profiled {
  route: string;
  file: string;
  /** 2xx responses the profiled process answered during the profiled run. */
  handled: number;
  summary: ProfileSummary;
}

/** Everything one benchmark run measured, for the report. */
export interface Runs {
  throttle: number | null;
  agents: number;
  results: ScenarioResult[];
  scale: ScaleResult | null;
  comparison: ComparisonResult | null;
  /** Floor, authorize and bind over one connection (empty with --no-single). */
  single: LoadResult[];
}
