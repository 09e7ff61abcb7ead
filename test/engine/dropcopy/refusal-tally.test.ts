/**
 * The tally of refused connections (src/engine/dropcopy/refusal-tally.ts): within a window the first refusal of
 * each address and kind is recorded in full and the others counted, and no refusal is neither.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TALLIED_ADDRESSES, RefusalTally } from '../../../src/engine/dropcopy/refusal-tally.js';

const at = (s: number): Date => new Date(Date.UTC(2026, 11, 7, 9, 0, s));

describe('the refusal tally', () => {
  it('records the first of each address and kind in full and counts the rest, per window', () => {
    const tally = new RefusalTally();
    expect(tally.note('203.0.113.9', 'no_logon', at(0))).toBe(true);
    expect(tally.note('::ffff:203.0.113.9', 'no_logon', at(1))).toBe(false);
    expect(tally.note('203.0.113.9', 'no_logon', at(2))).toBe(false);
    expect(tally.note('203.0.113.9', 'not_fix', at(3))).toBe(true);
    expect(tally.note('198.51.100.1', 'no_logon', at(4))).toBe(true);
    expect(tally.drain()).toEqual([{ address: '203.0.113.9', kind: 'no_logon', count: 2, first: at(1), last: at(2) }]);
    expect(tally.note('203.0.113.9', 'no_logon', at(5))).toBe(true);
    expect(tally.drain()).toEqual([]);
  });

  it('counts the addresses beyond MAX_TALLIED_ADDRESSES together, so that a window costs a bounded number of records', () => {
    const tally = new RefusalTally();
    let recorded = 0;
    const total = MAX_TALLIED_ADDRESSES + 500;
    for (let i = 0; i < total; i++) if (tally.note(`10.0.${i >> 8}.${i & 255}`, 'not_allowed', at(0))) recorded += 1;
    const counted = tally.drain();
    expect(recorded).toBe(MAX_TALLIED_ADDRESSES + 1);
    expect(counted).toEqual([expect.objectContaining({ address: '*', kind: 'not_allowed', count: 499 })]);
    expect(recorded + counted.reduce((n, c) => n + c.count, 0)).toBe(total);
  });
});
