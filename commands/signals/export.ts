import path from 'node:path';
import { Flags } from '@oclif/core';
import { writeFileAtomically } from '../../src/atomic-file.js';
import { checkOutputFile, fileError } from '../../src/file-errors.js';
import { withProgress, type Report } from '../../src/cli/progress.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { callService, remoteFlags, remoteOf, type Remote } from '../../src/cli/signals-client.js';
import { validationError } from '../../src/errors.js';
import { exportQuery } from '../../src/signals/inputs.js';
import { exportRows, exportSize } from '../../src/signals/store/quant.js';
import { EXPORT_DEFAULT_LIMIT, exportHeader, exportLines } from '../../pipeline/reports/export.js';

/** Writes to standard output, waiting when the pipe is full; a reader that stops early (`| head`) ends the export quietly. */
async function toStdout(text: string): Promise<void> {
  if (process.stdout.write(text)) return;
  await new Promise<void>((resolve) => {
    process.stdout.once('drain', resolve);
    process.stdout.once('error', () => resolve());
  });
}

/** Writes `--out` atomically; a path that cannot be written (a full disk, say) is a mistake naming --out and the path, not the temporary file. */
async function writeOut(out: string, write: (append: (text: string) => Promise<void>) => Promise<void>): Promise<void> {
  try {
    await writeFileAtomically(path.resolve(out), write);
  } catch (err) {
    throw fileError(err, { field: '--out', file: out, action: 'write' });
  }
}

export default class SignalsExport extends TradesealCommand {
  /** The service's CSV (its tier caps the rows), to a file or standard output; the number of rows written. */
  private async remoteExport(remote: Remote, limit: number | undefined, out: string | undefined): Promise<number> {
    const text = await callService<string>(remote, 'GET', '/v1/export/csv', { query: { limit }, text: true });
    if (out !== undefined) await writeOut(out, (append) => append(text));
    else await toStdout(text);
    return Math.max(0, text.trim().split('\n').length - 1);
  }

  static override summary = 'Export the published regimes as CSV, newest first (stdout, or a file with --out)';
  static override description = `Columns, in the interface's order: date, regime, risk_score, equity_exposure (a number: 1, 0.75, 0.25 or 0), prob_expansion, prob_recovery, prob_tightening, prob_risk_off; one row per published day, newest first, the newest --limit days (default ${EXPORT_DEFAULT_LIMIT}). Numbers are written in full. --out writes the file atomically (a reader never sees half of it) and shows progress on stderr (plain lines when not a terminal); --json (with --out) answers {rows, file}.`;
  static override examples = [
    '<%= config.bin %> signals export > regimes.csv',
    '<%= config.bin %> signals export --limit 5000 --out regimes.csv',
  ];
  static override flags = {
    limit: Flags.string({ summary: `How many days, newest first (default ${EXPORT_DEFAULT_LIMIT})`, helpValue: 'N' }),
    out: Flags.string({ summary: 'Write to this file instead of standard output' }),
    ...remoteFlags,
  };

  async run(): Promise<{ rows: number; file: string | null }> {
    const { flags } = await this.parse(SignalsExport);
    const { limit } = checkRequest<{ limit: number }>(exportQuery, flags.limit === undefined ? {} : { limit: flags.limit }, 'querystring');
    // With --json, stdout carries the JSON answer, so the rows need a file.
    if (this.jsonEnabled() && flags.out === undefined) {
      throw validationError([{ field: '--json', message: 'needs --out FILE: the rows go to the file, the JSON answer to standard output' }]);
    }
    // A directory that does not exist or cannot be written is said before anything is read.
    if (flags.out !== undefined) await checkOutputFile(flags.out, '--out');
    const remote = await remoteOf(flags, this.settings);
    // Remotely, the service's default (and the key's tier) decide the rows unless --limit is given.
    const written = remote ? await this.remoteExport(remote, flags.limit === undefined ? undefined : limit, flags.out) : await this.withStore(async (store) => {
      const total = await exportSize(store.sql, limit);
      let rows = 0;
      const write = async (append: (text: string) => Promise<void>, report: Report = () => {}): Promise<void> => {
        await append(exportHeader());
        await exportRows(store.sql, limit, async (chunk) => {
          await append(exportLines(chunk));
          rows += chunk.length;
          report(rows, total);
        });
      };
      // With --out, progress on stderr (animated on a terminal, plain lines in a pipe or under cron, none with
      // --json); to standard output, the rows alone.
      const out = flags.out;
      if (out !== undefined) await withProgress(`Exporting ${total} rows to ${out}`, this.jsonEnabled(), (report) => writeOut(out, (append) => write(append, report)));
      else await write(toStdout);
      return rows;
    });
    if (flags.out !== undefined) this.logToStderr(`wrote ${written} rows to ${flags.out}`);
    return { rows: written, file: flags.out === undefined ? null : path.resolve(flags.out) };
  }
}
