/**
 * The rows of the live FIX drop-copy benchmark (bench/dropcopy.ts) in the bench/all.ts table, from the JSON it
 * writes with `--out`, each the median of its rounds: reconciled fills/s of a burst (the exchange's first send to
 * the last commit) against the floor of the same rows inserted in batches; the delay from the exchange's send to
 * the committed ORPHAN in a paced stream against a one-row commit, and from the session's receipt; the burst's
 * send -> commit p99 for information; and authorize's throughput with a paced stream against without it.
 */
import { field, fmt, met, numberAt, type SummaryRow } from './summary-row.js';

export function dropcopyRows(json: unknown): SummaryRow[] {
  const median = field(json, 'median');
  const burst = field(median, 'burst');
  const paced = field(median, 'paced');
  const authorize = field(median, 'authorize');
  const run = `durable, median of ${fmt(numberAt(json, 'options', 'rounds'), 0)} rounds`;
  const fillsPerS = numberAt(burst, 'fills_per_s');
  const floorPerS = numberAt(burst, 'floor_rows_per_s');
  const rate = numberAt(paced, 'offered_per_s');
  const sendP50 = numberAt(paced, 'send_p50_ms');
  const sendP99 = numberAt(paced, 'send_p99_ms');
  const floorP99 = numberAt(paced, 'floor_commit_p99_ms');
  const withRps = numberAt(authorize, 'with_rps');
  const withoutRps = numberAt(authorize, 'without_rps');
  const lossPct = numberAt(authorize, 'loss_pct');
  const row = (what: string, figure: string, floor: string, ratio: number | null, target: string, result: SummaryRow['result']): SummaryRow => ({
    benchmark: 'dropcopy',
    run,
    what,
    figure,
    floor,
    ratio,
    target,
    result,
  });
  return [
    row(
      `reconciled fills/s (burst of ${fmt(numberAt(json, 'options', 'fills'), 0)})`,
      `${fmt(fillsPerS, 0)} fills/s`,
      `${fmt(floorPerS, 0)} rows/s inserted`,
      fillsPerS / floorPerS,
      '>= 2,000 fills/s',
      met(fillsPerS >= 2000),
    ),
    row(
      `send -> committed ORPHAN p50/p99 (paced ${fmt(rate, 0)}/s)`,
      `${fmt(sendP50, 0)} / ${fmt(sendP99, 0)} ms`,
      `one-row commit p99 ${fmt(floorP99, 1)} ms`,
      sendP99 / floorP99,
      'p99 < 1,000 ms',
      met(sendP99 < 1000),
    ),
    row(
      'receipt -> committed ORPHAN p50 / p99 (paced)',
      `${fmt(numberAt(paced, 'receipt_p50_ms'), 0)} / ${fmt(numberAt(paced, 'receipt_p99_ms'), 0)} ms`,
      '',
      null,
      'information',
      '',
    ),
    row('send -> committed ORPHAN p99 (burst)', `${fmt(numberAt(burst, 'send_p99_ms'), 0)} ms`, '', null, 'information', ''),
    row(
      `POST /engine/authorize with ${fmt(numberAt(authorize, 'stream_rate'), 0)} fills/s paced`,
      `${fmt(withRps, 0)} req/s`,
      `${fmt(withoutRps, 0)} req/s without`,
      withRps / withoutRps,
      'within 10 %',
      met(lossPct <= 10),
    ),
  ];
}
