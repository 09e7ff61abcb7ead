/**
 * A problem of an input file, as the validator (`validate.ts`) reports it: the file, the line (1-based, the
 * header is line 1), the text on that line, the row's date and the rule broken, in words. A broken rule is
 * data, not an exception; `dataInvalidError` turns a list of problems into the one `data_invalid` error
 * that stops a run, with one entry per problem (the first PROBLEMS_LISTED_PER_FILE of each file).
 */
import { TradesealError, type FieldError } from '../../src/core/errors.js';

/** The rules, as machine-readable ids (tests and `--json` readers key on them). */
export type RuleId =
  | 'unreadable'
  | 'csv_syntax'
  | 'header'
  | 'field_count'
  | 'date_format'
  | 'date_order'
  | 'date_repeated'
  | 'not_a_number'
  | 'out_of_bounds'
  | 'price_order'
  | 'volume'
  | 'gap'
  | 'off_rhythm'
  | 'missing_run';

export interface Problem {
  file: string;
  /** 1-based line number (header = 1); 0 when the problem is the whole file (it cannot be read). */
  line: number;
  /** What on the line breaks the rule: `file`, `header`, `row`, `date`, `value` or a yfinance column. */
  subject: string;
  /** The text as it is in the file. */
  text: string;
  /** The row's date, when the line has a valid one. */
  date: string | null;
  rule: RuleId;
  /** The rule in words, with its reason: `WALCL must be ≥ 0 (a balance sheet is never negative)`. */
  message: string;
}

/** How a rule hands a problem to the validator, which adds the file. */
export type Report = (problem: Omit<Problem, 'file'>) => void;

/** Listed per file in a `data_invalid` error; the rest are counted, so a garbage file cannot flood a terminal. */
export const PROBLEMS_LISTED_PER_FILE = 50;

/** `value "-7234.0" on 2022-09-14: WALCL must be ≥ 0 (…)`. */
export function describeProblem(p: Problem): string {
  const on = p.date !== null && p.subject !== 'date' ? ` on ${p.date}` : '';
  return `${p.subject} ${JSON.stringify(p.text)}${on}: ${p.message}`;
}

/** `GSPC.csv:5000`, or the file alone for a problem of the whole file. */
export const problemField = (p: Problem): string => (p.line > 0 ? `${p.file}:${p.line}` : p.file);

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Problems grouped by file, files in order of first appearance. */
function byFile(problems: readonly Problem[]): Map<string, Problem[]> {
  const files = new Map<string, Problem[]>();
  for (const p of problems) {
    const list = files.get(p.file);
    if (list) list.push(p);
    else files.set(p.file, [p]);
  }
  return files;
}

/** `61 problems in GSPC.csv`, or `3 problems in 2 files: GSPC.csv (2), DGS10.csv (1)`. */
export function summarizeProblems(problems: readonly Problem[]): string {
  const files = byFile(problems);
  const [only] = files.keys();
  if (files.size === 1 && only !== undefined) return `${plural(problems.length, 'problem')} in ${only}`;
  return `${plural(problems.length, 'problem')} in ${files.size} files: ${[...files].map(([f, list]) => `${f} (${list.length})`).join(', ')}`;
}

/** One entry per problem, the first PROBLEMS_LISTED_PER_FILE of each file, then a count of the rest. */
export function problemEntries(problems: readonly Problem[], perFile = PROBLEMS_LISTED_PER_FILE): FieldError[] {
  const entries: FieldError[] = [];
  for (const [file, list] of byFile(problems)) {
    for (const p of list.slice(0, perFile)) entries.push({ field: problemField(p), message: describeProblem(p) });
    if (list.length > perFile) entries.push({ field: file, message: `${plural(list.length - perFile, 'more problem')} not listed (${list.length} in all)` });
  }
  return entries;
}

/**
 * The `data_invalid` error of a non-empty list of problems. `context` opens the detail (what was being
 * checked); the detail then says how many problems in which files.
 */
export function dataInvalidError(problems: readonly Problem[], context = 'input data files break their rules', hint = PIPELINE_HINT): TradesealError {
  return new TradesealError('data_invalid', `${context}: ${summarizeProblems(problems)}`, { errors: problemEntries(problems), hint });
}

const PIPELINE_HINT =
  'fix or re-download the files (data/macro/PROVENANCE.md says where each comes from); `tradeseal pipeline check --data-dir DIR` checks them without running anything';
