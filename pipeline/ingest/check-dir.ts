/**
 * Validation of a data directory: reads every catalogue file of `PIPELINE_DATA_DIR` (or another directory)
 * and runs the validator (validate.ts) on each. The loader runs it on a thread of its own while the files load
 * (validate-thread.ts) and returns nothing computed from them unless all pass; `tradeseal pipeline check` runs
 * it alone. A file that cannot be read is a problem of that file, so one
 * check names every missing file and every bad line at once.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CATALOGUE, type SeriesSpec } from './catalogue.js';
import { dataInvalidError, type Problem } from './problems.js';
import type { FileReport } from './validate.js';
import { validateSeriesTextOnce } from './validated.js';

export interface DataFile {
  spec: SeriesSpec;
  path: string;
  /** The file's bytes; null when it cannot be read. */
  bytes: Buffer | null;
  /** The reason it cannot be read (`ENOENT`, …). */
  readError: string | null;
}

/** Reads every file of the catalogue from `dataDir`; a file that cannot be read is kept with its reason. */
export function readDataFiles(dataDir: string, catalogue: readonly SeriesSpec[] = CATALOGUE): Promise<DataFile[]> {
  return Promise.all(
    catalogue.map(async (spec) => {
      const filePath = path.join(dataDir, spec.file);
      try {
        return { spec, path: filePath, bytes: await readFile(filePath), readError: null };
      } catch (e) {
        return { spec, path: filePath, bytes: null, readError: (e as NodeJS.ErrnoException).code ?? 'error' };
      }
    }),
  );
}

/** The report of each file read by `readDataFiles`, in the same order. */
export function validateDataFiles(files: readonly DataFile[]): FileReport[] {
  return files.map(({ spec, path: filePath, bytes, readError }) => {
    if (bytes === null) {
      const problem: Problem = {
        file: spec.file,
        line: 0,
        subject: 'file',
        text: filePath,
        date: null,
        rule: 'unreadable',
        message: `cannot be read (${readError ?? 'error'}); copy the series there (see data/macro/PROVENANCE.md) or refresh it from FRED`,
      };
      return { id: spec.id, file: spec.file, rows: 0, firstDate: null, lastDate: null, problems: [problem] };
    }
    return validateSeriesTextOnce(spec, bytes.toString('utf8'));
  });
}

/** Reads and validates every catalogue file of `dataDir`. */
export async function checkDataDir(dataDir: string, catalogue: readonly SeriesSpec[] = CATALOGUE): Promise<FileReport[]> {
  return validateDataFiles(await readDataFiles(dataDir, catalogue));
}

/** Throws the one `data_invalid` error listing every problem of the reports, if there is any. */
export function assertNoProblems(reports: readonly FileReport[], context?: string): void {
  const problems = reports.flatMap((r) => r.problems);
  if (problems.length > 0) throw dataInvalidError(problems, context);
}
