/**
 * Test helper: temporary copies of the bundled data directory with lines changed, dropped or added, to
 * see what a change of the inputs does to the features. When a value may be used is restated here, from the
 * independent statement of the release rules (`../release/reference.ts`, with the bundled GSPC file's dates as
 * the NYSE trading days), rather than taken from the catalogue, so the tests check the catalogue too.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstUsableDay, RELEASE_KIND } from '../release/reference.js';

export const DATA_DIR = fileURLToPath(new URL('../../../data/macro/', import.meta.url));

let tradingDays: Set<string> | null = null;

/** Whether the NYSE traded on `date`: the bundled GSPC file has a row for it. */
export function isTradingDay(date: string): boolean {
  tradingDays ??= new Set(
    readFileSync(path.join(DATA_DIR, 'GSPC.csv'), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.slice(0, 10)),
  );
  return tradingDays.has(date);
}

/** Answers of `usableFrom`, by series and date: a copy of the data directory asks for each of its 100,000 lines. */
const usable = new Map<string, string>();

/** The first trading day whose regime may use an observation of `id` dated `date` (released before its publication). */
export function usableFrom(id: string, date: string): string {
  const key = `${id} ${date}`;
  let day = usable.get(key);
  if (day === undefined) {
    const kind = RELEASE_KIND[id];
    if (kind === undefined) throw new Error(`no release rule restated for ${id}`);
    day = firstUsableDay(kind, date, isTradingDay);
    usable.set(key, day);
  }
  return day;
}

/** Per data line: the line to write instead, or null to drop it. The header is kept as is. */
export type LineEdit = (id: string, date: string, line: string) => string | null;

export interface DataCopy {
  dir: string;
  remove(): Promise<void>;
}

export async function copyDataDir(edit: LineEdit = (_id, _date, line) => line): Promise<DataCopy> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-data-'));
  for (const file of (await readdir(DATA_DIR)).filter((f) => f.endsWith('.csv'))) {
    const id = file.slice(0, -'.csv'.length);
    const lines = (await readFile(path.join(DATA_DIR, file), 'utf8')).trimEnd().split('\n');
    const out = [lines[0] ?? ''];
    for (const line of lines.slice(1)) {
      const edited = edit(id, line.slice(0, line.indexOf(',')), line);
      if (edited !== null) out.push(edited);
    }
    await writeFile(path.join(dir, file), `${out.join('\n')}\n`);
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Multiplies every numeric field but the date and the volume by `factor`; empty fields stay empty. */
export function scaleLine(line: string, factor: number): string {
  const fields = line.split(',');
  return fields.map((f, i) => (i === 0 || i === 5 || f === '' ? f : String(Number(f) * factor))).join(',');
}

/**
 * Every observation that becomes usable after `cut` multiplied by `factor`: those released after the cut's
 * publication instant, whatever their date (the yields of the cut day itself, a week of H.10 rates).
 */
export const perturbAfter =
  (cut: string, factor = 1.5): LineEdit =>
  (id, date, line) =>
    usableFrom(id, date) > cut ? scaleLine(line, factor) : line;

/** Every observation that becomes usable after `cut` removed, whatever its date. */
export const truncateAfter =
  (cut: string): LineEdit =>
  (id, date, line) =>
    usableFrom(id, date) > cut ? null : line;
