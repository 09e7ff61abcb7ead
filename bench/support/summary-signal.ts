/**
 * The rows of the signal-quality benchmark (bench/signal.ts) in the bench/all.ts table, from the JSON it writes
 * with `--out`: the regime strategy's Sharpe and Calmar ratios against the 200-day moving-average rule's,
 * measured on the same days in the same run (the "floor" column), over the full window and out of sample
 * (`evaluation.windows.{full,out_of_sample}.strategies.{regime,ma200}`). The targets are those of the
 * benchmark's verdict: ahead of the rule over the full window, not behind it out of sample. No ratio: a ratio of
 * two Sharpe ratios means nothing once either is negative. An undefined figure (null) reads n/a and does not
 * meet its target.
 */
import { field, fmt, met, textAt, type SummaryRow } from './summary-row.js';

const FIGURES = [
  ['sharpe', 'Sharpe'],
  ['calmar', 'Calmar'],
] as const;
const WINDOWS = [
  ['full', 'full', '>'],
  ['out_of_sample', 'out-of-sample', '>='],
] as const;

/** A figure of the JSON: a number, or null where the evaluation has none; anything else is a shape error. */
function figureAt(value: unknown, ...keys: string[]): number | null {
  const v = keys.reduce<unknown>((acc, k) => field(acc, k), value);
  if (v === null || (typeof v === 'number' && Number.isFinite(v))) return v;
  throw new Error(`"${keys.join('.')}" is not a number or null`);
}

export function signalRows(json: unknown): SummaryRow[] {
  const windows = field(field(json, 'evaluation'), 'windows');
  return WINDOWS.flatMap(([key, label, op]) => {
    const w = field(windows, key);
    const run = `${label} ${textAt(w, 'first_day') ?? '-'} to ${textAt(w, 'last_day') ?? '-'}`;
    return FIGURES.map(([figure, name]): SummaryRow => {
      const regime = figureAt(w, 'strategies', 'regime', figure);
      const rule = figureAt(w, 'strategies', 'ma200', figure);
      const ok = regime !== null && rule !== null && (op === '>' ? regime > rule : regime >= rule);
      const text = (x: number | null): string => (x === null ? 'n/a' : fmt(x, 3));
      return {
        benchmark: 'signal',
        run,
        what: `regime strategy, ${name}`,
        figure: text(regime),
        floor: `200-day MA rule: ${text(rule)}`,
        ratio: null,
        target: `${op} 200-day MA rule`,
        result: met(ok),
      };
    });
  });
}
