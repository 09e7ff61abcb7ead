/**
 * The flags of every command that prints rows (`--columns`, `--csv`, `--full-ids`, `--wide`), and the table
 * style they make with the command's terminal (./terminal.ts, ./table.ts). On a terminal (or with `COLUMNS`
 * set) a table fits its width, shows ids short and statuses in colour; through a pipe it is printed whole
 * and plain. Commands that print a report of several fixed tables take `--wide` alone (`reportFlags`).
 */
import { Flags } from '@oclif/core';
import type { TableStyle } from './table.js';
import { terminalOf, type Terminal } from './terminal.js';

const wide = Flags.boolean({ summary: 'Print every column whole, ids too, however wide the terminal (as through a pipe)' });

export const tableFlags = {
  columns: Flags.string({ summary: "Only these columns, in this order (comma-separated, as the table's header names them)", helpValue: 'A,B,…' }),
  csv: Flags.boolean({ summary: 'Print the rows as CSV (RFC 4180): header first, every value whole, no colour' }),
  'full-ids': Flags.boolean({ summary: 'Show ids whole (on a terminal a table shows their first 8 characters)' }),
  wide,
};

export const reportFlags = { wide };

export interface TableFlagValues {
  columns?: string;
  csv?: boolean;
  'full-ids'?: boolean;
  wide?: boolean;
}

export function tableStyle(flags: TableFlagValues, terminal: Terminal = terminalOf()): TableStyle {
  return {
    width: flags.csv || flags.wide ? null : terminal.width,
    color: !flags.csv && terminal.color,
    shortIds: terminal.width !== null && !flags['full-ids'] && !flags.csv && !flags.wide,
    columns: flags.columns
      ? flags.columns
          .split(',')
          .map((c) => c.trim())
          .filter((c) => c !== '')
      : null,
    csv: flags.csv === true,
    reveal: '--columns or --wide',
  };
}

/**
 * The style of a report's tables: its terminal's width unless `--wide`; ids and colours as printed. A command
 * without `--wide` names where hidden columns are whole instead (`reveal`).
 */
export function reportStyle(flags: { wide?: boolean }, terminal: Terminal = terminalOf(), reveal = '--wide'): TableStyle {
  return { width: flags.wide ? null : terminal.width, shortIds: !flags.wide && terminal.width !== null, reveal };
}
