/**
 * canonicalJsonOfPlain (src/core/crypto/jcs-plain.ts) gives exactly canonicalJson's text, or its error: on the RFC 8785
 * testdata, on the 1,000 number vectors, on values that are not plain data (handed over whole), and on random plain
 * values with awkward member names and strings.
 */
import { describe, expect, it } from 'vitest';
import vectors from '../vectors/jcs_vectors.json' with { type: 'json' };
import { canonicalJson } from '../../src/core/crypto/jcs.js';
import { canonicalJsonOfPlain } from '../../src/core/crypto/jcs-plain.js';
import { outcome, random } from '../helpers/jcs-outcomes.js';

const AWKWARD = ['', 'a', 'A', 'é', '\u20ac', '\ud83d\ude00', '\ufb33', 'z', '"', '\\', '\n', '\u0000', '1', '10', '2', 'ab', 'aB'];
const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 123.456, 2 ** 53, -(2 ** 31), 5e-324, 1.7976931348623157e308, 333333333.3333333];

function plainValue(next: () => number, depth: number): unknown {
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const kind = depth > 3 ? Math.floor(next() * 4) : Math.floor(next() * 6);
  switch (kind) {
    case 0:
      return pick(AWKWARD) + pick(AWKWARD);
    case 1:
      return pick(NUMBERS);
    case 2:
      return next() < 0.5;
    case 3:
      return null;
    case 4:
      return Array.from({ length: Math.floor(next() * 4) }, () => plainValue(next, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--) out[pick(AWKWARD) + pick(AWKWARD)] = plainValue(next, depth + 1);
      return out;
    }
  }
}

describe('canonicalJsonOfPlain', () => {
  it.each(vectors.pairs)('gives the RFC 8785 text of testdata $name', (pair) => {
    expect(canonicalJsonOfPlain(JSON.parse(pair.input))).toBe(pair.expected);
  });

  it('serialises every one of the 1,000 number vectors as expected', () => {
    const wrong = vectors.numbers.vectors.filter(
      ({ ieee_hex, expected }) => canonicalJsonOfPlain([Buffer.from(ieee_hex.padStart(16, '0'), 'hex').readDoubleBE(0)]) !== `[${expected}]`,
    );
    expect(wrong).toEqual([]);
  });

  it("gives canonicalJson's text for 2,000 random plain values", () => {
    const next = random(27);
    const differ: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const value = plainValue(next, 0);
      if (canonicalJsonOfPlain(value) !== canonicalJson(value)) differ.push(JSON.stringify(value));
    }
    expect(differ).toEqual([]);
  });

  it('hands what is not plain data to canonicalJson whole: the same text, or the same error', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    class Point {
      constructor(readonly x: number) {}
    }
    // eslint-disable-next-line no-sparse-arrays -- an array with a hole is the case under test
    const sparse = [1, , 3];
    const cases: unknown[] = [
      undefined,
      { a: undefined, b: 1 },
      [undefined, 1],
      new Date('2026-11-27T12:00:00.000Z'),
      { at: new Date(0) },
      { n: NaN },
      [Infinity],
      { s: 'lone \ud800 surrogate' },
      { ['\udc00']: 1 },
      sparse,
      cyclic,
      new Point(1),
      { f: () => 1 },
      { b: 1n },
      { toJSON: () => ({ z: 1, a: 2 }) },
      Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
    ];
    for (const value of cases) expect(outcome(canonicalJsonOfPlain, value)).toEqual(outcome(canonicalJson, value));
  });
});
