import path from 'node:path';
import { Flags } from '@oclif/core';
import { checkOutputFile } from '../../src/core/file-errors.js';
import { refuseTerminal, toStdout, writeOut } from '../../src/cli/export-output.js';
import { withProgress, type Report } from '../../src/cli/progress.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { callService, remoteFlags, remoteOf, type Remote } from '../../src/cli/signals-client.js';
import { validationError } from '../../src/core/errors.js';
import { exportQuery } from '../../src/signals/inputs.js';
import { exportFile } from '../../src/signals/ops/export-file.js';
import { exportRows, exportSize } from '../../src/signals/store/quant.js';
import { EXPORT_DEFAULT_LIMIT, exportHeader, exportLines } from '../../pipeline/reports/export.js';
import { EXPORT_FORMATS, MEDIA_TYPE, type BinaryFormat, type ExportFormat } from '../../pipeline/reports/columnar/formats.js';

export default class SignalsExport extends TradesealCommand {
  /** The service's export (its tier caps the rows), to a file or standard output; the number of rows written. */
  private async remoteExport(remote: Remote, format: ExportFormat, limit: number | undefined, out: string | undefined): Promise<number | null> {
    const query = { limit };
    const body =
      format === 'csv'
        ? await callService<string>(remote, 'GET', '/v1/export/csv', { query, text: true })
        : await callService<Uint8Array>(remote, 'GET', `/v1/export/${format}`, { query, bytes: MEDIA_TYPE[format] });
    if (out !== undefined) await writeOut(out, (append) => append(body));
    else await toStdout(body);
    // A binary file's rows are not counted here: that would take a reader of the format.
    return typeof body === 'string' ? Math.max(0, body.trim().split('\n').length - 1) : null;
  }

  /** The store's rows in a binary format, built in memory (the whole history is a few hundred kilobytes), to --out or standard output. */
  private async localBinary(
    sql: Parameters<typeof exportFile>[0],
    format: BinaryFormat,
    limit: number,
    total: number,
    out: string | undefined,
  ): Promise<number> {
    if (out === undefined) {
      const { bytes, rows } = await exportFile(sql, limit, format);
      await toStdout(bytes);
      return rows;
    }
    return withProgress(`Exporting ${total} rows to ${out}`, this.jsonEnabled(), async (report) => {
      const { bytes, rows } = await exportFile(sql, limit, format, (done) => report(done, total));
      await writeOut(out, (append) => append(bytes));
      return rows;
    });
  }

  static override storeWork = 'long' as const;
  static override summary = 'Export the published regimes as CSV, Apache Arrow or Parquet, newest first (stdout, or a file with --out)';
  static override description = `Columns, in the interface's order: date, regime, risk_score, equity_exposure (a number: 1, 0.75, 0.25 or 0), prob_expansion, prob_recovery, prob_tightening, prob_risk_off, available_at; one row per published day, newest first, the newest --limit days (default ${EXPORT_DEFAULT_LIMIT}). --format csv (the default) writes numbers in full; arrow (an Apache Arrow IPC file) and parquet write the same rows and columns typed: date a date, regime a string (an Arrow dictionary), the numbers 64-bit floats, available_at a UTC timestamp, null where the CSV has it empty. The binary formats are never written to a terminal: give --out or redirect standard output. --out writes the file atomically (a reader never sees half of it) and shows progress on stderr (plain lines when not a terminal); --json (with --out) answers {rows, file} (rows null for a binary file from --url).`;
  static override examples = [
    '<%= config.bin %> signals export > regimes.csv',
    '<%= config.bin %> signals export --limit 5000 --out regimes.csv',
    '<%= config.bin %> signals export --format parquet --out regimes.parquet',
    '<%= config.bin %> signals export --format arrow > regimes.arrow',
  ];
  static override flags = {
    limit: Flags.string({ summary: `How many days, newest first (default ${EXPORT_DEFAULT_LIMIT})`, helpValue: 'N' }),
    format: Flags.string({ summary: 'csv, arrow (Apache Arrow IPC file) or parquet', options: [...EXPORT_FORMATS], default: 'csv' }),
    out: Flags.string({ summary: 'Write to this file instead of standard output', aliases: ['output'], helpValue: 'FILE' }),
    ...remoteFlags,
  };

  async run(): Promise<{ rows: number | null; file: string | null }> {
    const { flags } = await this.parse(SignalsExport);
    const format = flags.format as ExportFormat;
    const { limit } = checkRequest<{ limit: number }>(exportQuery, flags.limit === undefined ? {} : { limit: flags.limit }, 'querystring');
    refuseTerminal(format, flags.out);
    // With --json, stdout carries the JSON answer, so the rows need a file.
    if (this.jsonEnabled() && flags.out === undefined) {
      throw validationError([{ field: '--json', message: 'needs --out FILE: the rows go to the file, the JSON answer to standard output' }]);
    }
    // A directory that does not exist or cannot be written is said before anything is read.
    if (flags.out !== undefined) await checkOutputFile(flags.out, '--out');
    const remote = await remoteOf(flags, this.settings);
    // Remotely, the service's default (and the key's tier) decide the rows unless --limit is given.
    const written = remote
      ? await this.remoteExport(remote, format, flags.limit === undefined ? undefined : limit, flags.out)
      : await this.withStore(async (store) => {
          const total = await exportSize(store.sql, limit);
          if (format !== 'csv') return this.localBinary(store.sql, format, limit, total, flags.out);
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
          if (out !== undefined)
            await withProgress(`Exporting ${total} rows to ${out}`, this.jsonEnabled(), (report) => writeOut(out, (append) => write(append, report)));
          else await write(toStdout);
          return rows;
        });
    if (flags.out !== undefined) this.logToStderr(written === null ? `wrote ${flags.out}` : `wrote ${written} rows to ${flags.out}`);
    return { rows: written, file: flags.out === undefined ? null : path.resolve(flags.out) };
  }
}
