/**
 * The rows of the live FIX drop-copy benchmark (bench/dropcopy.ts) in the bench/all.ts table, from the JSON it
 * writes with `--out`: reconciled fills/s of a burst against the floor of the same rows inserted in batches, the
 * burst's receipt -> ORPHAN delay (and, for information, its delay from the exchange's SendingTime), and
 * authorize's throughput with the steady stream against without it, measured in the same run.
 */
import { field, fmt, met, numberAt, type SummaryRow } from './summary-row.js';

export function dropcopyRows(json: unknown): SummaryRow[] {
  const burst = field(json, 'burst');
  const authorize = field(json, 'authorize');
  const run = `durable, ${fmt(numberAt(json, 'options', 'fills'), 0)} fills`;
  const fillsPerS = numberAt(burst, 'fills_per_s');
  const floorPerS = numberAt(burst, 'floor', 'fills_per_s');
  const p50 = numberAt(burst, 'delay_ms', 'receipt', 'p50');
  const p99 = numberAt(burst, 'delay_ms', 'receipt', 'p99');
  const sentP99 = numberAt(burst, 'delay_ms', 'sending', 'p99');
  const withRps = numberAt(authorize, 'with_stream', 'rps');
  const withoutRps = numberAt(authorize, 'without_stream', 'rps');
  const streamRate = numberAt(authorize, 'with_stream', 'stream_fills_per_s');
  const lossPct = numberAt(authorize, 'loss_pct');
  const row = (what: string, figure: string, floor: string, ratio: number | null, target: string, result: SummaryRow['result']): SummaryRow =>
    ({ benchmark: 'dropcopy', run, what, figure, floor, ratio, target, result });
  return [
    row('reconciled fills/s (burst)', `${fmt(fillsPerS, 0)} fills/s`, `${fmt(floorPerS, 0)} rows/s inserted`, fillsPerS / floorPerS, '>= 2,000 fills/s', met(fillsPerS >= 2000)),
    row('receipt -> ORPHAN p50 / p99 (burst)', `${fmt(p50, 0)} / ${fmt(p99, 0)} ms`, '', null, 'p99 < 1,000 ms', met(p99 < 1000)),
    row('SendingTime (52) -> ORPHAN p99 (burst)', `${fmt(sentP99, 0)} ms`, '', null, 'information', ''),
    row(`POST /engine/authorize with ${fmt(streamRate, 0)} fills/s streaming`, `${fmt(withRps, 0)} req/s`, `${fmt(withoutRps, 0)} req/s without`, withRps / withoutRps,
      'within 10 %', met(lossPct <= 10)),
  ];
}
