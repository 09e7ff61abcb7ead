/**
 * How a table fits a width (src/cli/table-fit.ts, through renderTable): the priority rule, the order in which
 * room is taken (hashes and free text first, then times made compact, then text cut, then columns hidden),
 * numbers right-aligned and never cut, the line naming hidden columns, and `--columns` never hiding one.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { tableStyle } from '../../src/cli/table-flags.js';
import { fitColumns, priorityOf } from '../../src/cli/table-fit.js';
import { renderTable } from '../../src/cli/table.js';

const uuid = (i: number): string => `${String(i).padStart(8, '0')}-1111-4222-8333-${String(i).padStart(12, '4')}`;
const HASH = 'ab'.repeat(32);
const HEADERS = ['txn_time', 'trace_id', 'agent_id', 'status', 'action', 'asset', { name: 'notional', unit: 'currency' }, 'currency', 'reasoning_hash'];
const ROWS = ['PENDING', 'SHADOW_HALTED', 'MATCHED'].map((status, i) => [
  `2026-11-27T14:03:0${i}.123Z`,
  uuid(i),
  uuid(100 + i),
  status,
  'Long',
  'AAPL',
  1_250_000.5 - i * 500_000,
  'USD',
  HASH,
]);
const at = (width: number | null, flags = {}) => renderTable(HEADERS, ROWS, tableStyle(flags, { width, color: false }));
const widest = (text: string): number => Math.max(...text.split('\n').map((l) => stringWidth(l)));

describe('priorityOf, the default rule', () => {
  it.each([
    ['reasoning_hash', 3, ['ab'], 'give-way'],
    ['entry_hash', 0, ['ab'], 'give-way'],
    ['details', 2, ['{}'], 'give-way'],
    ['error', 5, ['x'], 'give-way'],
    ['txn_time', 0, ['2026-11-27T14:03:00.000Z'], 'key'],
    ['agent_id', 2, ['x'], 'key'],
    ['key_prefix', 1, ['rsk_'], 'key'],
    ['status', 3, ['PENDING'], 'keep'],
    ['regime', 1, ['risk_off'], 'keep'],
    ['verification_status', 4, ['Matched'], 'keep'],
    ['created_at', 5, ['2026-11-27T14:03:00.000Z', '-'], 'keep'],
    ['max_notional', 3, ['200000', '1e6'], 'keep'],
    ['last_day', 3, ['2009-03-31'], 'keep'],
    ['name', 1, ['momentum-1'], 'normal'],
    ['allowed_regimes', 4, ['expansion,recovery'], 'normal'],
    ['revoked_at', 6, ['-', '-'], 'normal'],
  ] as const)('%s (column %i, cells %j) is %s', (name, index, values, priority) => {
    expect(priorityOf(name, index, values)).toBe(priority);
  });
});

describe('fitting a listing', () => {
  it('whole when it fits: full instants, hash cut only as far as needed', () => {
    const wide = at(150);
    expect(wide).toContain('2026-11-27T14:03:00.123Z');
    expect(wide).not.toContain('hidden');
    expect(widest(wide)).toBeLessThanOrEqual(150);
  });

  it('at 80: the hash gives way first, then times lose milliseconds and the shared year; the amount stays whole', () => {
    const out = at(80);
    expect(widest(out)).toBeLessThanOrEqual(80);
    expect(out.split('\n')[0]).toMatch(/^txn_time +trace_id +agent_id +status +action +asset +notional$/);
    expect(out).toMatch(/^11-27 14:03:00 +00000000 +00000100 +PENDING +Long +AAPL +1250000\.5 USD$/m);
    // Numbers right-aligned: the amounts end in the same column.
    expect(out).toMatch(/^11-27 14:03:02 .* {3}250000\.5 USD$/m);
    expect(out).toMatch(/^11-27 14:03:01 .* {3}750000\.5 USD$/m);
    expect(out.split('\n').at(-1)).toBe('1 column hidden (reasoning_hash): --columns or --wide');
  });

  it('instants of different years keep the year', () => {
    const rows = ROWS.map((r, i) => [i === 0 ? '2025-12-31T23:59:59.000Z' : r[0], ...r.slice(1)]);
    const out = renderTable(HEADERS, rows, tableStyle({}, { width: 85, color: false }));
    expect(out).toMatch(/^2025-12-31 23:59:59 /m);
    expect(out).toMatch(/^2026-11-27 14:03:01 /m);
  });

  it('narrower still: text is cut, then whole columns hidden, least useful and rightmost first; never the ids or the status', () => {
    const out = at(50);
    expect(widest(out)).toBeLessThanOrEqual(50);
    expect(out.split('\n')[0]).toMatch(/^txn_time +trace_id +agent_id +status/);
    expect(out).toContain('SHADOW_HALTED');
    // The line naming them wraps rather than lose a name.
    expect(out.replace(/\n/g, ' ')).toContain('4 columns hidden (action, asset, notional, reasoning_hash): --columns or --wide');
  });

  it('a number is never cut: a column of numbers is hidden before it would be', () => {
    const fitted = fitColumns(
      [
        { name: 'id', values: ['a'], priority: 'key', uncut: false },
        { name: 'amount', values: ['123456789.25'], priority: 'keep', uncut: false },
      ],
      10,
    );
    expect(fitted.columns.map((c) => c.name)).toEqual(['id']);
    expect(fitted.hidden).toEqual(['amount']);
  });

  it('--columns: the named columns are never hidden, and --wide or no width prints everything whole', () => {
    const picked = at(40, { columns: 'trace_id,reasoning_hash' });
    expect(picked).not.toContain('hidden');
    expect(picked.split('\n')[0]).toMatch(/^trace_id +reasoning_hash$/);
    for (const whole of [at(80, { wide: true }), at(null)]) {
      expect(whole).toContain(HASH);
      expect(whole).toContain(uuid(1));
      expect(whole).toContain('2026-11-27T14:03:01.123Z');
      expect(whole).not.toContain('hidden');
    }
  });

  it('a short id that happens to be all digits is still aligned left, as an id', () => {
    const out = renderTable(
      ['key_id', 'n'],
      [
        [uuid(12345678), 1],
        [uuid(2), 100],
      ],
      tableStyle({}, { width: 80, color: false }),
    ).split('\n');
    expect(out[0]).toBe('key_id      n');
    expect(out[2]).toBe('12345678    1');
    expect(out[3]).toBe('00000002  100');
  });

  it('CSV keeps an amount and its unit in two columns', () => {
    const csv = at(80, { csv: true }).split('\n');
    expect(csv[0]).toBe('txn_time,trace_id,agent_id,status,action,asset,notional,currency,reasoning_hash');
    expect(csv[1]).toContain(',AAPL,1250000.5,USD,');
  });
});
