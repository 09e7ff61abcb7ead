/**
 * The verification code: 6 digits, uniform over 000000-999999 (a chi-square test on the leading digit and on
 * the last), stored as SHA-256 over a domain tag, the address in lower case and the code (checked against
 * node:crypto computing the same text independently), compared in constant time.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeHash, codeMatches, newVerificationCode, normalizeEmail } from '../../src/signals/verification.js';

/** Pearson's chi-square statistic of `counts` against a uniform expectation. */
const chiSquare = (counts: number[], n: number): number => counts.reduce((s, c) => s + (c - n / counts.length) ** 2 / (n / counts.length), 0);

describe('newVerificationCode', () => {
  it('is 6 digits, leading zeros kept, and uniform over its digits', () => {
    const n = 100_000;
    const first = new Array<number>(10).fill(0);
    const last = new Array<number>(10).fill(0);
    let belowHundredThousand = 0;
    let malformed = 0;
    for (let i = 0; i < n; i++) {
      const code = newVerificationCode();
      if (!/^\d{6}$/.test(code)) malformed += 1;
      first[Number(code[0])]! += 1;
      last[Number(code[5])]! += 1;
      if (code.startsWith('0')) belowHundredThousand += 1;
    }
    expect(malformed).toBe(0);
    // 9 degrees of freedom: P(χ² > 44.81) = 1e-6, so a uniform generator fails this about once in a million runs.
    expect(chiSquare(first, n)).toBeLessThan(44.81);
    expect(chiSquare(last, n)).toBeLessThan(44.81);
    expect(belowHundredThousand).toBeGreaterThan(0);
  });
});

describe('codeHash', () => {
  it('is SHA-256 of "tradeseal.signals.verification\\n" + the address in lower case + "\\n" + the code', () => {
    const expected = createHash('sha256').update('tradeseal.signals.verification\nann@example.com\n012345', 'utf8').digest('hex');
    expect(codeHash('Ann@Example.com', '012345')).toBe(expected);
    expect(codeHash('ann@example.com', '012345')).toMatch(/^[0-9a-f]{64}$/);
    expect(codeHash('ann@example.com', '012345')).not.toBe(codeHash('bob@example.com', '012345'));
  });

  it('codeMatches accepts the code of the address only', () => {
    const stored = codeHash('ann@example.com', '654321');
    expect(codeMatches(stored, 'ANN@example.com', '654321')).toBe(true);
    expect(codeMatches(stored, 'ann@example.com', '654320')).toBe(false);
    expect(codeMatches(stored, 'bob@example.com', '654321')).toBe(false);
    expect(codeMatches('not hex', 'ann@example.com', '654321')).toBe(false);
  });

  it('normalizeEmail lowers the case', () => {
    expect(normalizeEmail('Ann.Smith@Example.COM')).toBe('ann.smith@example.com');
  });
});
