/**
 * The report of bench/hot-agent.ts: per load, the median of its rounds and their spread, the targets judged on
 * the medians, and the IRL Engine's published figure beside them. Pure: rounds in, text and figures out.
 */

export type LoadName = 'floor' | 'engine_many' | 'engine_one' | 'irl_one';

export interface Round {
  load: LoadName;
  rps: number;
  p50_ms: number | null;
  p99_ms: number;
  requests: number;
  /** The IRL script's repeated client_order_ids answered 409 (`irl_one` only). */
  conflicts_409: number;
  /** CPU ms per answer: the server process, PostgreSQL (a throwaway cluster only), wrk and its script. */
  cpu_ms_per_request?: { server: number | null; postgres: number | null; wrk: number | null };
}

/** The IRL Engine's published run (IRL-engine-AX/docs/benchmarks/results.md, "100 Concurrent Agents"). */
export const INCUMBENT = { rps: 2807, p99_ms: 42, where: '4 vCPU, PostgreSQL 16 on the same host, wrk -t4 -c100 -d60s' };

const LABELS: Record<LoadName, string> = {
  floor: 'floor: POST /bench/floor (one INSERT)',
  engine_many: '/engine/authorize, many agents',
  engine_one: '/engine/authorize, 1 agent',
  irl_one: "/irl/authorize, 1 agent (the IRL Engine's script)",
};

/** The loads in the order of round `r`: turned by r, reversed every other round. */
export function roundOrder<T>(loads: readonly T[], r: number): T[] {
  const turned = [...loads.slice(r % loads.length), ...loads.slice(0, r % loads.length)];
  return r % 2 === 1 ? turned.reverse() : turned;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

interface Figure {
  median: number;
  min: number;
  max: number;
}
/** The median of a CPU figure over the rounds that have it; null when none has. */
function cpuMedian(rounds: readonly Round[], key: 'server' | 'postgres' | 'wrk'): number | null {
  const values = rounds.map((r) => r.cpu_ms_per_request?.[key] ?? null).filter((v): v is number => v !== null);
  return values.length === 0 ? null : median(values);
}

const figure = (values: readonly number[]): Figure => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

export interface Target {
  what: string;
  ratio: number;
  /** `at least` or `under` `limit`. */
  rule: 'at least' | 'under';
  limit: number;
  met: boolean;
}

export interface HotAgentSummary {
  loads: Record<
    LoadName,
    { rps: Figure; p99_ms: Figure; conflicts_409: number; cpu_ms: { server: number | null; postgres: number | null; wrk: number | null } }
  >;
  targets: Target[];
  incumbent: typeof INCUMBENT;
}

export function hotAgentReport(
  rounds: readonly (readonly Round[])[],
  run: { machine: string; wrk: string; rounds: number; agents: number },
): { text: string; summary: HotAgentSummary } {
  const of = (load: LoadName): Round[] => rounds.flatMap((r) => r.filter((x) => x.load === load));
  const names: LoadName[] = ['floor', 'engine_many', 'engine_one', 'irl_one'];
  const loads = Object.fromEntries(
    names.map((n) => [
      n,
      {
        rps: figure(of(n).map((r) => r.rps)),
        p99_ms: figure(of(n).map((r) => r.p99_ms)),
        conflicts_409: median(of(n).map((r) => r.conflicts_409)),
        cpu_ms: { server: cpuMedian(of(n), 'server'), postgres: cpuMedian(of(n), 'postgres'), wrk: cpuMedian(of(n), 'wrk') },
      },
    ]),
  ) as HotAgentSummary['loads'];
  const ratio = (a: LoadName, b: LoadName): number => loads[a].rps.median / loads[b].rps.median;
  const p99 = (a: LoadName): number => loads[a].p99_ms.median / loads.floor.p99_ms.median;
  const many = `/engine ${run.agents} agents`;
  const judged: Array<Omit<Target, 'met'>> = [
    { what: `/irl 1 agent over ${many} (req/s)`, ratio: ratio('irl_one', 'engine_many'), rule: 'at least', limit: 0.9 },
    { what: `/engine 1 agent over ${many} (req/s)`, ratio: ratio('engine_one', 'engine_many'), rule: 'at least', limit: 0.9 },
    { what: `${many}: p99 over the floor's p99`, ratio: p99('engine_many'), rule: 'under', limit: 4 },
    { what: "/engine 1 agent: p99 over the floor's p99", ratio: p99('engine_one'), rule: 'under', limit: 4 },
    { what: "/irl 1 agent: p99 over the floor's p99", ratio: p99('irl_one'), rule: 'under', limit: 4 },
  ];
  const targets: Target[] = judged.map((t) => ({ ...t, met: t.rule === 'at least' ? t.ratio >= t.limit : t.ratio < t.limit }));

  const int = (n: number): string => Math.round(n).toLocaleString('en-US');
  const ms = (n: number): string => n.toFixed(1);
  const pad = (s: string, n: number): string => s.padEnd(n);
  const lpad = (s: string, n: number): string => s.padStart(n);
  const lines = [
    `tradeseal, one busy agent against many: ${run.wrk}, ${run.rounds} rounds in turns, medians (min-max)`,
    `machine: ${run.machine}; wrk, the server and PostgreSQL share its cores`,
    `${pad('load', 50)}${lpad('req/s', 7)}  ${pad('(min-max)', 15)}${lpad('p99 ms', 7)}  ${pad('(min-max)', 15)}CPU ms/answer: server, PostgreSQL, wrk`,
    ...names.map((n) => {
      const l = loads[n];
      const label = n === 'engine_many' ? `/engine/authorize, ${run.agents} agents` : LABELS[n];
      const c = (v: number | null): string => (v === null ? '-' : v.toFixed(2));
      const range = `(${ms(l.p99_ms.min)}-${ms(l.p99_ms.max)})`;
      return `${pad(label, 50)}${lpad(int(l.rps.median), 7)}  ${pad(`(${int(l.rps.min)}-${int(l.rps.max)})`, 15)}${lpad(ms(l.p99_ms.median), 7)}  ${pad(range, 15)}${c(l.cpu_ms.server)}, ${c(l.cpu_ms.postgres)}, ${c(l.cpu_ms.wrk)}`;
    }),
    `${pad('IRL Engine, published', 50)}${lpad(int(INCUMBENT.rps), 7)}  ${pad('', 15)}${lpad(ms(INCUMBENT.p99_ms), 7)}  ${INCUMBENT.where}`,
    `the IRL script's repeated client_order_ids answered 409: ${int(loads.irl_one.conflicts_409)} a round (median); every other answer 2xx`,
    '',
    `${pad('target', 50)}${lpad('ratio', 7)}  rule`,
    ...targets.map((t) => `${pad(t.what, 50)}${lpad(t.ratio.toFixed(2), 7)}  ${pad(`${t.rule} ${t.limit}`, 14)}${t.met ? 'MET' : 'NOT MET'}`),
  ];
  return { text: lines.join('\n'), summary: { loads, targets, incumbent: INCUMBENT } };
}
