/**
 * Test helper: temporary copies of the bundled data directory with lines changed, dropped or added, to
 * see what a change of the inputs does to the features. Publication lags are restated here (H.4.1 weekly
 * series usable the next day) rather than taken from the catalogue, so the tests check the catalogue too.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DATA_DIR = fileURLToPath(new URL('../../../data/macro/', import.meta.url));

const WEEKLY = new Set(['WALCL', 'WTREGEN']);

/** The first day an observation of `id` dated `date` may be used. */
export function usableFrom(id: string, date: string): string {
  if (!WEEKLY.has(id)) return date;
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
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

/** Every observation that becomes usable after `cut` multiplied by `factor`. */
export const perturbAfter = (cut: string, factor = 1.5): LineEdit => (id, date, line) => (usableFrom(id, date) > cut ? scaleLine(line, factor) : line);

/** Every observation that becomes usable after `cut` removed. */
export const truncateAfter = (cut: string): LineEdit => (id, date, line) => (usableFrom(id, date) > cut ? null : line);
