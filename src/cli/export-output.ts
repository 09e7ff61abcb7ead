/**
 * Where the exporting commands (`signals export`, `signals backtest --format`) put a file: atomically to
 * `--out`, or to standard output, which takes a binary format (Arrow, Parquet) only when it is not a
 * terminal (bytes on a terminal are noise at best, and can drive it at worst).
 */
import path from 'node:path';
import { writeFileAtomically } from '../core/atomic-file.js';
import { validationError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import type { ExportFormat } from '../../pipeline/reports/columnar/formats.js';

/** Refuses a binary format bound for a terminal, before anything is read. */
export function refuseTerminal(format: ExportFormat, out: string | undefined, field = '--format'): void {
  if (format !== 'csv' && out === undefined && process.stdout.isTTY === true) {
    throw validationError([{ field, message: `${format} is a binary format and standard output is a terminal: give --out FILE or redirect standard output` }]);
  }
}

/** Writes to standard output, waiting when the pipe is full; a reader that stops early (`| head`) ends the export quietly. */
export async function toStdout(chunk: string | Uint8Array): Promise<void> {
  if (process.stdout.write(chunk)) return;
  await new Promise<void>((resolve) => {
    process.stdout.once('drain', resolve);
    process.stdout.once('error', () => resolve());
  });
}

/** Writes `--out` atomically; a path that cannot be written (a full disk, say) is a mistake naming --out and the path, not the temporary file. */
export async function writeOut(out: string, write: (append: (chunk: string | Uint8Array) => Promise<void>) => Promise<void>): Promise<void> {
  try {
    await writeFileAtomically(path.resolve(out), write);
  } catch (err) {
    throw fileError(err, { field: '--out', file: out, action: 'write' });
  }
}
