/**
 * The one table `npm run bench` (bench/all.ts) prints after every benchmark has run: per benchmark and run, each
 * route or stage with its figure, the floor measured in the same run, the ratio to that floor, and the target
 * where one exists. Pure: the parsed JSON files in, rows out; a benchmark whose file is missing or of another
 * shape gives one row that says so rather than failing the others.
 */
import { renderTable } from '../../src/cli/table.js';
import { dropcopyRows } from './summary-dropcopy.js';
import { engineRows } from './summary-engine.js';
import { hotAgentRows } from './summary-hot-agent.js';
import { pipelineRows, quantRows, signalsRows } from './summary-others.js';
import { signalRows } from './summary-signal.js';
import type { SummaryRow } from './summary-row.js';

export type { SummaryRow };

export type BenchmarkName = 'engine' | 'hot-agent' | 'pipeline' | 'signals' | 'quant' | 'signal' | 'dropcopy';

/** The JSON a benchmark wrote, or why there is none (it failed, or wrote nothing in this run). */
export type BenchmarkOutcome = { json: unknown } | { missing: string };

const ADAPTERS: Record<BenchmarkName, (json: unknown) => SummaryRow[]> = {
  engine: engineRows,
  'hot-agent': hotAgentRows,
  pipeline: pipelineRows,
  signals: signalsRows,
  quant: quantRows,
  signal: signalRows,
  dropcopy: dropcopyRows,
};

/** The rows of every benchmark, in the order given. */
export function summaryRows(outcomes: ReadonlyArray<[BenchmarkName, BenchmarkOutcome]>): SummaryRow[] {
  return outcomes.flatMap(([name, outcome]) => {
    if ('missing' in outcome) return [missingRow(name, outcome.missing)];
    try {
      const rows = ADAPTERS[name](outcome.json);
      return rows.length > 0 ? rows : [missingRow(name, 'its JSON holds no runs')];
    } catch (error) {
      return [missingRow(name, `its JSON is not of the expected shape (${(error as Error).message})`)];
    }
  });
}

const missingRow = (benchmark: string, why: string): SummaryRow => ({
  benchmark,
  run: '',
  what: `no result: ${why}`,
  figure: '',
  floor: '',
  ratio: null,
  target: '',
  result: '',
});

export const SUMMARY_HEADERS = ['benchmark', 'run', 'route / stage', 'figure', 'floor (same run)', 'x floor', 'target', 'result'];

export function summaryCells(rows: readonly SummaryRow[]): string[][] {
  return rows.map((r) => [r.benchmark, r.run, r.what, r.figure, r.floor, r.ratio === null ? '' : `${r.ratio.toFixed(2)}x`, r.target, r.result]);
}

export const renderSummary = (rows: readonly SummaryRow[]): string => renderTable(SUMMARY_HEADERS, summaryCells(rows));
