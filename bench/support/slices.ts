/**
 * Interleaved measurement. This machine's speed drifts by as much as half between minutes (other tenants of the
 * host): two routes measured one after the other, each for its whole time, compare two moments of the machine as
 * much as the two routes. So the routes of one comparison are measured in rounds: each round gives each route one
 * short slice, in an order that is reversed every other round (A B C D, then D C B A: the mirrored order cancels a
 * steady drift within each pair of rounds, and no route is always first). A route's figure pools all of its
 * slices: its requests over its seconds, its latency percentiles over every response of every slice, its CPU over
 * all its requests; nothing is averaged twice.
 *
 * The ratio of two routes is then that of two figures taken across the same minutes; the per-round ratios (the
 * two routes' slices of one round) show how much any one comparison moves, and are reported beside it.
 */
import { percentiles, type LoadResult } from './load.js';
import { cpuUse, type CpuSnapshot, type CpuUse } from './proc.js';

/** The order of the routes in round `round` (0-based): as given in even rounds, reversed in odd ones. */
export function roundOrder<K>(keys: readonly K[], round: number): K[] {
  return round % 2 === 0 ? [...keys] : [...keys].reverse();
}

/** A statement's counters over a stretch of time (pg_stat_statements: calls and execution time). */
export interface StatementCounter {
  query: string;
  calls: number;
  totalMs: number;
}

/** One slice of one route: the load's result and what the server and the machine spent on it. */
export interface Slice {
  result: LoadResult;
  /** 2xx responses the server produced during the slice and its drain. */
  handled: number;
  cpuBefore: CpuSnapshot;
  cpuAfter: CpuSnapshot;
  /** The server's main threads during the slice: ms active and idle, summed over workers. */
  loop: { activeMs: number; idleMs: number };
  /** The slice's statements by query id, or null when the server does not count them. */
  statements: Map<string, StatementCounter> | null;
  note: string | null;
}

/** A route's slices taken as one run. */
export interface PooledRun {
  result: LoadResult;
  handled: number;
  cpu: CpuUse;
  /** The share of the slices' time the server's main threads were busy, or null when unknown. */
  loopBusy: number | null;
  /** Statements summed over the slices (null when any slice has none). */
  statements: Map<string, StatementCounter> | null;
  note: string | null;
  /** Each slice's 2xx req/s, in the order measured. */
  sliceRps: number[];
}

const sum = (values: Array<number | null>): number | null => values.reduce<number | null>((s, v) => (s === null || v === null ? null : s + v), 0);
const delta = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : b - a);

/** The slices' CPU as one stretch: each process group's time summed over the slices (null where any was unknown). */
function pooledCpu(slices: readonly Slice[], handled: number): CpuUse {
  const zero: CpuSnapshot = { server: 0, postgres: 0, loadgen: 0, machine: { busy: 0, total: 0 } };
  const machineBusy = sum(slices.map((s) => (s.cpuBefore.machine && s.cpuAfter.machine ? s.cpuAfter.machine.busy - s.cpuBefore.machine.busy : null)));
  const machineTotal = sum(slices.map((s) => (s.cpuBefore.machine && s.cpuAfter.machine ? s.cpuAfter.machine.total - s.cpuBefore.machine.total : null)));
  const total: CpuSnapshot = {
    server: sum(slices.map((s) => delta(s.cpuBefore.server, s.cpuAfter.server))),
    postgres: sum(slices.map((s) => delta(s.cpuBefore.postgres, s.cpuAfter.postgres))),
    loadgen: sum(slices.map((s) => delta(s.cpuBefore.loadgen, s.cpuAfter.loadgen))),
    machine: machineBusy === null || machineTotal === null ? null : { busy: machineBusy, total: machineTotal },
  };
  return cpuUse(
    {
      ...zero,
      server: total.server === null ? null : 0,
      postgres: total.postgres === null ? null : 0,
      loadgen: total.loadgen === null ? null : 0,
      machine: total.machine === null ? null : zero.machine,
    },
    total,
    handled,
  );
}

function pooledStatements(slices: readonly Slice[]): Map<string, StatementCounter> | null {
  if (slices.some((s) => s.statements === null)) return null;
  const out = new Map<string, StatementCounter>();
  for (const s of slices) {
    for (const [id, c] of s.statements as Map<string, StatementCounter>) {
      const seen = out.get(id);
      out.set(id, seen ? { query: seen.query, calls: seen.calls + c.calls, totalMs: seen.totalMs + c.totalMs } : { ...c });
    }
  }
  return out;
}

/** The slices of one route as one run (at least one slice). */
export function pooled(slices: readonly Slice[]): PooledRun {
  if (slices.length === 0) throw new RangeError('pooled needs at least one slice');
  const results = slices.map((s) => s.result);
  const samples = new Float64Array(results.reduce((n, r) => n + r.samples.length, 0));
  let at = 0;
  for (const r of results) {
    samples.set(r.samples, at);
    at += r.samples.length;
  }
  samples.sort();
  const statusCounts: Record<string, number> = {};
  for (const r of results) for (const [status, n] of Object.entries(r.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + n;
  const seconds = results.reduce((t, r) => t + r.seconds, 0);
  const ok = results.reduce((t, r) => t + r.ok, 0);
  const handled = slices.reduce((t, s) => t + s.handled, 0);
  const active = slices.reduce((t, s) => t + s.loop.activeMs, 0);
  const idle = slices.reduce((t, s) => t + s.loop.idleMs, 0);
  const notes = slices.map((s) => s.note).filter((n): n is string => n !== null);
  const first = results[0] as LoadResult;
  return {
    result: {
      route: first.route,
      seconds,
      responses: results.reduce((t, r) => t + r.responses, 0),
      ok,
      non2xx: results.reduce((t, r) => t + r.non2xx, 0),
      socketErrors: results.reduce((t, r) => t + r.socketErrors, 0),
      statusCounts,
      errorSamples: results.flatMap((r) => r.errorSamples).slice(0, 5),
      rps: seconds > 0 ? ok / seconds : 0,
      latency: percentiles(samples),
      samples,
    },
    handled,
    cpu: pooledCpu(slices, handled),
    loopBusy: active + idle > 0 ? active / (active + idle) : null,
    statements: pooledStatements(slices),
    note: notes.length > 0 ? [...new Set(notes)].join('; ') : null,
    sliceRps: results.map((r) => r.rps),
  };
}

/** The per-round ratios of route `a`'s req/s to route `b`'s (their slices of the same round), in round order. */
export function roundRatios(a: readonly Slice[], b: readonly Slice[]): number[] {
  if (a.length !== b.length) throw new RangeError(`${a.length} slices against ${b.length}: the two routes were not measured in the same rounds`);
  return a.map((s, i) => s.result.rps / (b[i] as Slice).result.rps);
}
