/**
 * The flags of every command that prints rows (`--columns`, `--csv`, `--full-ids`), and the table style
 * they make with the command's terminal (./terminal.ts, ./table.ts). On a terminal a table fits its width,
 * shows ids short and statuses in colour; through a pipe it is printed whole and plain.
 */
import { Flags } from '@oclif/core';
import type { TableStyle } from './table.js';
import { terminalOf, type Terminal } from './terminal.js';

export const tableFlags = {
  columns: Flags.string({ summary: 'Only these columns, in this order (comma-separated, as the table\'s header names them)', helpValue: 'A,B,…' }),
  csv: Flags.boolean({ summary: 'Print the rows as CSV (RFC 4180): header first, every value whole, no colour' }),
  'full-ids': Flags.boolean({ summary: 'Show ids whole (on a terminal a table shows their first 8 characters)' }),
};

export interface TableFlagValues {
  columns?: string;
  csv?: boolean;
  'full-ids'?: boolean;
}

export function tableStyle(flags: TableFlagValues, terminal: Terminal = terminalOf()): TableStyle {
  return {
    width: flags.csv ? null : terminal.width,
    color: !flags.csv && terminal.color,
    shortIds: terminal.width !== null && !flags['full-ids'] && !flags.csv,
    columns: flags.columns ? flags.columns.split(',').map((c) => c.trim()).filter((c) => c !== '') : null,
    csv: flags.csv === true,
  };
}
