/**
 * The verification code: 6 digits, uniform over 000000-999999 (a chi-square test on the leading digit and on
 * the last), stored as an HMAC-SHA256 under the verification-code key when there is one, else as scrypt with a
 * salt of its own, each over a domain tag, the address in lower case and the code (checked against node:crypto
 * computing the same independently); a stored form no hasher makes (the old plain SHA-256) matches no code.
 */
import { createHash, createHmac, randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeHasher, newVerificationCode, normalizeEmail } from '../../src/signals/verification.js';

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

describe('the stored form of a code', () => {
  const message = (address: string, code: string): string => `tradeseal.signals.verification\n${address}\n${code}`;

  it('with the key: hmac-sha256 of a domain tag, the address in lower case and the code (node:crypto computing the same text apart)', async () => {
    const key = randomBytes(32);
    const hasher = codeHasher(async () => key);
    const expected = createHmac('sha256', key).update(message('ann@example.com', '012345'), 'utf8').digest('hex');
    expect(await hasher.hash('Ann@Example.com', '012345')).toBe(`hmac-sha256:${expected}`);
    const stored = await hasher.hash('ann@example.com', '654321');
    expect(await hasher.matches(stored, 'ANN@example.com', '654321')).toBe(true);
    expect(await hasher.matches(stored, 'ann@example.com', '654320')).toBe(false);
    expect(await hasher.matches(stored, 'bob@example.com', '654321')).toBe(false);
    // Under another key, or with none at all, the form checks nothing.
    expect(await codeHasher(async () => randomBytes(32)).matches(stored, 'ann@example.com', '654321')).toBe(false);
    expect(await codeHasher(null).matches(stored, 'ann@example.com', '654321')).toBe(false);
  });

  it('without: scrypt N=2^16, r=8, p=1 with a fresh 16-byte salt per code (node:crypto computing the same apart)', async () => {
    const hasher = codeHasher(null);
    const [a, b] = [await hasher.hash('Ann@Example.com', '012345'), await hasher.hash('ann@example.com', '012345')];
    const form = /^scrypt:16:8:1:([0-9a-f]{32}):([0-9a-f]{64})$/;
    const [, salt, hash] = form.exec(a)!;
    expect(b).toMatch(form);
    expect(b).not.toBe(a);
    const N = 2 ** 16;
    expect(scryptSync(message('ann@example.com', '012345'), Buffer.from(salt!, 'hex'), 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 }).toString('hex')).toBe(hash);
    expect(await hasher.matches(a, 'ANN@example.com', '012345')).toBe(true);
    expect(await hasher.matches(a, 'ann@example.com', '012346')).toBe(false);
    expect(await hasher.matches(a, 'bob@example.com', '012345')).toBe(false);
    // A hasher with a key still reads the scrypt form of a code made before the provider was set.
    expect(await codeHasher(async () => randomBytes(32)).matches(a, 'ann@example.com', '012345')).toBe(true);
  });

  it('matches nothing in another form: the old plain SHA-256, garbage, or parameters no code was hashed with', async () => {
    const hasher = codeHasher(null);
    const sha = createHash('sha256').update(message('ann@example.com', '012345'), 'utf8').digest('hex');
    const salt = '00'.repeat(16);
    for (const stored of [sha, 'not hex', '', `scrypt:30:8:1:${salt}:${'00'.repeat(32)}`, `scrypt:16:99:1:${salt}:${'00'.repeat(32)}`]) {
      expect(await hasher.matches(stored, 'ann@example.com', '012345'), stored).toBe(false);
    }
  });

  it('normalizeEmail lowers the case', () => {
    expect(normalizeEmail('Ann.Smith@Example.COM')).toBe('ann.smith@example.com');
  });
});
