/**
 * Tables on a terminal fit its width, show ids short and statuses in colour; through a pipe they are whole
 * and plain; `--columns` picks and orders columns; `--csv` is RFC 4180 that csv-parse reads back exactly.
 */
import { parse } from 'csv-parse/sync';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { tableStyle } from '../../src/cli/table-flags.js';
import { renderTable } from '../../src/cli/table.js';
import { fullScreenPossible, terminalOf } from '../../src/cli/terminal.js';
import { TRACE_STATUSES } from '../../src/core/vocabulary.js';

const HEADERS = ['txn_time', 'trace_id', 'agent_id', 'status', 'action', 'asset', 'notional', 'reasoning_hash'];
const uuid = (i: number): string => `${String(i).padStart(8, '0')}-1111-4222-8333-${String(i).padStart(12, '4')}`;
const ROWS = TRACE_STATUSES.map((status, i) => [
  `2026-11-23T08:0${i}:00.000Z`,
  uuid(i),
  uuid(100 + i),
  status,
  'Long',
  i === 3 ? 'Zoë Müller AG, "preferred"' : 'AAPL',
  `${(i + 1) * 19_000.5} USD`,
  `${'ab'.repeat(8)}…`,
]);
const TTY80 = { isTTY: true, columns: 80 };
const ANSI = /\u001b\[[0-9;]*m/g;

describe('terminalOf', () => {
  it('a terminal has its width and colour; a pipe has neither; NO_COLOR, TERM=dumb and FORCE_COLOR are honoured', () => {
    expect(terminalOf(TTY80, {})).toEqual({ width: 80, color: true });
    expect(terminalOf({ isTTY: false }, {})).toEqual({ width: null, color: false });
    expect(terminalOf(TTY80, { NO_COLOR: '1' })).toEqual({ width: 80, color: false });
    expect(terminalOf(TTY80, { NO_COLOR: '' }).color).toBe(true);
    expect(terminalOf(TTY80, { TERM: 'dumb' }).color).toBe(false);
    expect(terminalOf({ isTTY: false }, { FORCE_COLOR: '1' }).color).toBe(true);
    expect(terminalOf({ isTTY: false }, { FORCE_COLOR: '0' }).color).toBe(false);
  });

  it('COLUMNS sets the width, through a pipe too; unset, empty or not a number it is ignored', () => {
    expect(terminalOf({ isTTY: false }, { COLUMNS: '80' })).toEqual({ width: 80, color: false });
    expect(terminalOf(TTY80, { COLUMNS: '132' }).width).toBe(132);
    expect(terminalOf({ isTTY: true, columns: 100 }, { COLUMNS: '' }).width).toBe(100);
    expect(terminalOf({ isTTY: false }, { COLUMNS: 'wide' }).width).toBeNull();
    expect(terminalOf({ isTTY: false }, { COLUMNS: '5' }).width).toBe(20);
  });
});

describe('fullScreenPossible', () => {
  it('needs a terminal on both standard input and output, and no CI job (where ink would draw no frame)', () => {
    const tty = { isTTY: true };
    expect(fullScreenPossible(tty, tty, {})).toBe(true);
    expect(fullScreenPossible({ isTTY: false }, tty, {})).toBe(false);
    expect(fullScreenPossible(tty, {}, {})).toBe(false);
    expect(fullScreenPossible(tty, tty, { CI: 'true' })).toBe(false);
    expect(fullScreenPossible(tty, tty, { CI: '' })).toBe(false);
    expect(fullScreenPossible(tty, tty, { CONTINUOUS_INTEGRATION: '1' })).toBe(false);
    expect(fullScreenPossible(tty, tty, { CI: 'false' })).toBe(true);
    expect(fullScreenPossible(tty, tty, { CI: '0' })).toBe(true);
  });
});

describe('renderTable', () => {
  it('through a pipe: every character, full ids, no colour, aligned', () => {
    const out = renderTable(HEADERS, ROWS, tableStyle({}, terminalOf({ isTTY: false }, {})));
    expect(out).not.toMatch(ANSI);
    for (const row of ROWS) expect(out).toContain(row[1]);
    const lines = out.split('\n');
    expect(lines).toHaveLength(ROWS.length + 2);
    expect(lines[0]!.indexOf('trace_id')).toBe(lines[2]!.indexOf(uuid(0)));
  });

  it('on an 80-column terminal: no line wider than 80, ids short, statuses coloured and the header not', () => {
    const out = renderTable(HEADERS, ROWS, tableStyle({}, terminalOf(TTY80, {})));
    const plain = out.replace(ANSI, '');
    for (const line of plain.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
    expect(plain).toContain('00000000 ');
    expect(plain).not.toContain(uuid(0));
    expect(out).toContain('\u001b[31mDIVERGENT');
    expect(out).toContain('\u001b[32mMATCHED');
    expect(out.split('\n')[0]).not.toMatch(ANSI);
    // A cut cell ends in an ellipsis; the status column, narrow already, is never cut.
    expect(plain).toContain('…');
    for (const s of TRACE_STATUSES) expect(plain).toContain(s);
  });

  it('--full-ids keeps ids whole on a terminal, still within its width', () => {
    const out = renderTable(HEADERS, ROWS, tableStyle({ 'full-ids': true, columns: 'trace_id,status' }, terminalOf(TTY80, { NO_COLOR: '1' })));
    expect(out).toContain(uuid(6));
    expect(out).not.toMatch(ANSI);
  });

  it('a narrow terminal still gets lines no wider than itself', () => {
    const out = renderTable(HEADERS, ROWS, tableStyle({}, terminalOf({ isTTY: true, columns: 30 }, {}))).replace(ANSI, '');
    for (const line of out.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(30);
  });

  it('--columns picks and orders columns, and an unknown one is a usage error naming the columns', () => {
    const out = renderTable(HEADERS, ROWS, tableStyle({ columns: 'status, trace_id' }, terminalOf({ isTTY: false }, {})));
    expect(out.split('\n')[0]).toMatch(/^status\s+trace_id$/);
    expect(out.split('\n')[2]).toMatch(new RegExp(`^PENDING\\s+${uuid(0)}$`));
    let error: { code?: string; message?: string; hint?: string } = {};
    try {
      renderTable(HEADERS, ROWS, tableStyle({ columns: 'status,venue,colour' }));
    } catch (e) {
      error = e as typeof error;
    }
    expect(error.code).toBe('usage_error');
    expect(error.message).toMatch(/unknown columns venue, colour/);
    expect(error.hint).toContain(HEADERS.join(', '));
  });

  it('--csv: header first, values whole (quotes and commas escaped), nothing coloured or cut, even on a terminal', () => {
    const out = renderTable(
      HEADERS,
      [...ROWS, [null, undefined, 'x', 'PENDING', 'Long', 'A', '1', 'h']],
      tableStyle({ csv: true }, terminalOf({ isTTY: true, columns: 40 }, { FORCE_COLOR: '1' })),
    );
    expect(out).not.toMatch(ANSI);
    const records = parse(out) as string[][];
    expect(records[0]).toEqual(HEADERS);
    expect(records.slice(1, -1)).toEqual(ROWS);
    expect(records.at(-1)!.slice(0, 2)).toEqual(['', '']);
  });
});
