/**
 * The busy-agent benchmark's rows of the bench/all.ts table, from bench/hot-agent.ts's JSON: each authorize load
 * (its median req/s and p99 over the rounds) against the floor measured in the same rounds, then each target
 * judged on the medians (`summary.targets[]`: `what`, `ratio`, `rule`, `limit`, `met`).
 */
import { field, fmt, listAt, met, numberAt, textAt, type SummaryRow } from './summary-row.js';

const BENCHMARK = 'hot-agent';
const LOADS: Record<string, string> = {
  engine_many: 'POST /engine/authorize, many agents',
  engine_one: 'POST /engine/authorize, 1 agent',
  irl_one: "POST /irl/authorize, 1 agent (the IRL Engine's script)",
};

export function hotAgentRows(json: unknown): SummaryRow[] {
  const summary = field(json, 'summary');
  const loads = field(summary, 'loads');
  const rps = (name: string): number => numberAt(loads, name, 'rps', 'median');
  const p99 = (name: string): number => numberAt(loads, name, 'p99_ms', 'median');
  const floor = `${fmt(rps('floor'), 0)} req/s, p99 ${fmt(p99('floor'), 1)} ms`;
  const loadRows = Object.entries(LOADS).map(([name, what]): SummaryRow => ({
    benchmark: BENCHMARK,
    run: 'medians of the rounds',
    what,
    figure: `${fmt(rps(name), 0)} req/s, p99 ${fmt(p99(name), 1)} ms`,
    floor,
    ratio: rps(name) / rps('floor'),
    target: '',
    result: '',
  }));
  const targetRows = listAt(summary, 'targets').map((t): SummaryRow => ({
    benchmark: BENCHMARK,
    run: 'targets',
    what: textAt(t, 'what') ?? '?',
    figure: fmt(numberAt(t, 'ratio'), 2),
    floor: '',
    ratio: null,
    target: `${textAt(t, 'rule') ?? '?'} ${numberAt(t, 'limit')}`,
    result: met(field(t, 'met') === true),
  }));
  return [...loadRows, ...targetRows];
}
