/**
 * Test helper: the four corruptions of the bundled data that the pipeline used to publish from, each with
 * the problems the validator must report (line in the corrupted file, the text on it, the rule):
 * - GSPC: 61 trading days of 2007 removed (every fourth);
 * - BAMLH0A0HYM2: 101 weekday rows of 2015 removed (every other one);
 * - DGS10: the rows of 2020-03-10 and 2020-03-11 swapped;
 * - WALCL: the value of 2022-09-14 made negative.
 * The expected problems are derived from the bundled file here, independently of the validator's code.
 */
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RuleId } from '../../../pipeline/ingest/problems.js';

export const DATA_DIR = fileURLToPath(new URL('../../../data/macro/', import.meta.url));

export interface ExpectedProblem {
  line: number;
  text: string;
  rule: RuleId;
  /** A part of the problem's message. */
  says: string;
}

export interface Corruption {
  name: string;
  file: string;
  /** The whole corrupted file. */
  text: string;
  expected: ExpectedProblem[];
}

/** The bundled file's lines, header first, without the final empty string. */
const linesOf = (file: string): string[] => readFileSync(path.join(DATA_DIR, file), 'utf8').trimEnd().split('\n');
const dateOf = (line: string): string => line.slice(0, line.indexOf(','));
const isWeekend = (date: string): boolean => [0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay());

/**
 * Removes the data lines at `removed` (indices into `lines`); each removal must be reported on the next
 * kept line whose date is `expectedNext` (a weekday row; weekend month-end rows are not expected), naming
 * the removed date.
 */
function removeLines(name: string, file: string, lines: string[], removed: number[], word: string, expectedNext: (date: string) => boolean): Corruption {
  const gone = new Set(removed);
  const kept = lines.filter((_, i) => !gone.has(i));
  const lineInKept = new Map(kept.map((l, i) => [dateOf(l), i + 1]));
  const expected = removed.map((i) => {
    let j = i + 1;
    while (gone.has(j) || !expectedNext(dateOf(lines[j] as string))) j++;
    const next = dateOf(lines[j] as string);
    return { line: lineInKept.get(next) as number, text: next, rule: 'gap' as const, says: `no row for the ${word} ${dateOf(lines[i] as string)} before it` };
  });
  return { name, file, text: `${kept.join('\n')}\n`, expected };
}

/** 61 S&P 500 trading days of 2007 removed: the 4th, 8th, 12th, … trading day of the year. */
export function gspcDaysRemoved(): Corruption {
  const lines = linesOf('GSPC.csv');
  const days2007 = lines.flatMap((l, i) => (dateOf(l).startsWith('2007-') ? [i] : []));
  const removed = days2007.filter((_, k) => k % 4 === 3).slice(0, 61);
  return removeLines('61 GSPC trading days of 2007 removed', 'GSPC.csv', lines, removed, 'NYSE trading day', () => true);
}

/** 101 high-yield-spread rows of 2015 removed: every other weekday row, from the year's second. */
export function highYieldRowsRemoved(): Corruption {
  const lines = linesOf('BAMLH0A0HYM2.csv');
  const weekdays2015 = lines.flatMap((l, i) => (i > 0 && dateOf(l).startsWith('2015-') && !isWeekend(dateOf(l)) ? [i] : []));
  const removed = weekdays2015.filter((_, k) => k % 2 === 1).slice(0, 101);
  return removeLines('101 BAMLH0A0HYM2 rows of 2015 removed', 'BAMLH0A0HYM2.csv', lines, removed, 'weekday', (d) => !isWeekend(d));
}

/** The DGS10 rows of 2020-03-10 and 2020-03-11 swapped. */
export function treasuryRowsSwapped(): Corruption {
  const lines = linesOf('DGS10.csv');
  const i = lines.findIndex((l) => dateOf(l) === '2020-03-10');
  const [a, b] = [lines[i] as string, lines[i + 1] as string];
  const swapped = [...lines.slice(0, i), b, a, ...lines.slice(i + 2)];
  return {
    name: 'two DGS10 rows swapped',
    file: 'DGS10.csv',
    text: `${swapped.join('\n')}\n`,
    expected: [{ line: i + 2, text: '2020-03-10', rule: 'date_order', says: `comes after 2020-03-11 (line ${i + 1}); dates must be strictly increasing` }],
  };
}

/** The WALCL value of 2022-09-14 made negative. */
export function balanceSheetNegative(): Corruption {
  const lines = linesOf('WALCL.csv');
  const i = lines.findIndex((l) => dateOf(l) === '2022-09-14');
  const value = `-${(lines[i] as string).slice('2022-09-14,'.length)}`;
  const changed = lines.map((l, k) => (k === i ? `2022-09-14,${value}` : l));
  return {
    name: 'one WALCL value negative',
    file: 'WALCL.csv',
    text: `${changed.join('\n')}\n`,
    expected: [{ line: i + 1, text: value, rule: 'out_of_bounds', says: 'WALCL must be ≥ 0 (a balance sheet is never negative)' }],
  };
}

export const CORRUPTIONS: ReadonlyArray<() => Corruption> = [gspcDaysRemoved, highYieldRowsRemoved, treasuryRowsSwapped, balanceSheetNegative];

export interface DataCopy {
  dir: string;
  remove(): Promise<void>;
}

/** A temporary copy of data/macro with the given corruptions written over their files. */
export async function corruptedCopy(corruptions: readonly Corruption[]): Promise<DataCopy> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-corrupt-'));
  for (const file of (await readdir(DATA_DIR)).filter((f) => f.endsWith('.csv'))) await copyFile(path.join(DATA_DIR, file), path.join(dir, file));
  for (const c of corruptions) await writeFile(path.join(dir, c.file), c.text);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The bundled text of a file. */
export const bundledText = (file: string): Promise<string> => readFile(path.join(DATA_DIR, file), 'utf8');
