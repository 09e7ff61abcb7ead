/**
 * canonicalJson against the RFC 8785 test vectors, and its errors for values that have no canonical form.
 *
 * Vectors: RFC 8785, cyberphone/json-canonicalization testdata (commit 19d51d7f), transcribed verbatim in
 * test/vectors/jcs_vectors.json: the six input/output pairs and 1,000 lines of es6testfile100m.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import vectors from '../vectors/jcs_vectors.json' with { type: 'json' };
import { canonicalJson } from '../../src/core/crypto/jcs.js';

/** The IEEE-754 double whose big-endian bit pattern is `hex` (16 hex digits). */
function doubleFromHex(hex: string): number {
  return Buffer.from(hex, 'hex').readDoubleBE(0);
}

describe('canonicalJson: RFC 8785 testdata pairs', () => {
  it('covers all six testdata files', () => {
    expect(vectors.pairs.map((pair) => pair.name)).toEqual(['arrays', 'french', 'structures', 'unicode', 'values', 'weird']);
  });

  it.each(vectors.pairs)('$name canonicalizes to exactly the expected text and UTF-8 bytes', (pair) => {
    const canonical = canonicalJson(JSON.parse(pair.input));
    expect(canonical).toBe(pair.expected);
    expect(Buffer.from(canonical, 'utf8').toString('hex')).toBe(pair.expected_utf8_hex);
  });
});

describe('canonicalJson: RFC 8785 number serialisation (es6testfile100m)', () => {
  const { numbers } = vectors;

  it('holds the 1,000 upstream lines: their SHA-256 equals the digest testdata/README.md publishes', () => {
    expect(numbers.vectors).toHaveLength(1000);
    expect(numbers.count).toBe(1000);
    const lines = numbers.vectors.map(({ ieee_hex, expected }) => `${ieee_hex.replace(/^0+(?=.)/, '')},${expected}\n`);
    expect(createHash('sha256').update(lines.join('')).digest('hex')).toBe(numbers.sha256_of_lines_text);
  });

  it('serialises every one of the 1,000 doubles exactly as expected, alone and inside a structure', () => {
    const mismatches: string[] = [];
    for (const { ieee_hex, expected } of numbers.vectors) {
      const value = doubleFromHex(ieee_hex);
      const alone = canonicalJson(value);
      const nested = canonicalJson({ n: [value] });
      if (alone !== expected || nested !== `{"n":[${expected}]}`) {
        mismatches.push(`${ieee_hex}: expected ${expected}, got ${alone} / ${nested}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('serialises -0 as 0 and the extremes of the double range', () => {
    expect(canonicalJson(-0)).toBe('0');
    expect(canonicalJson(Number.MIN_VALUE)).toBe('5e-324');
    expect(canonicalJson(Number.MAX_VALUE)).toBe('1.7976931348623157e+308');
    expect(canonicalJson(2 ** 53 + 2)).toBe('9007199254740994');
  });
});

describe('canonicalJson: values with no canonical form throw a TypeError naming the problem', () => {
  // eslint-disable-next-line no-sparse-arrays -- an array with a hole is the case under test
  const sparse = [1, , 3];
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;

  it.each([
    ['NaN', Number.NaN, /\$ is NaN.*RFC 8785 §3\.2\.2\.3/],
    ['Infinity', Number.POSITIVE_INFINITY, /\$ is Infinity/],
    ['-Infinity nested', { a: [1, Number.NEGATIVE_INFINITY] }, /\$\.a\[1\] is -Infinity/],
    ['NaN under a non-identifier key', { 'order id': Number.NaN }, /\$\["order id"\] is NaN/],
    ['undefined', undefined, /undefined/],
    ['a bigint', { qty: 10n }, /\$\.qty is a bigint/],
    ['a function member', { f: () => 1 }, /\$\.f is a function/],
    ['a function element', [() => 1], /\$\[0\] is a function/],
    ['a symbol member', { s: Symbol('s') }, /\$\.s is a symbol/],
    ['a sparse array', sparse, /\$\[1\] is a hole in a sparse array/],
    ['a circular reference', circular, /\$\.self is a circular reference/],
    ['a lone surrogate in a string', { s: 'a\uD800b' }, /\$\.s contains a lone UTF-16 surrogate/],
    ['a lone surrogate in a member name', { a: { '\uDC00': 1 } }, /^cannot canonicalize: \$\.a has a member name with a lone UTF-16 surrogate/],
  ])('%s', (_name, value, message) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
    expect(() => canonicalJson(value)).toThrow(message);
  });
});

describe('canonicalJson: JavaScript values JSON can carry', () => {
  it('omits undefined members and writes undefined array elements as null, as JSON.stringify does', () => {
    expect(canonicalJson({ b: undefined, a: [undefined, 1] })).toBe('{"a":[null,1]}');
  });

  it('accepts a well-formed surrogate pair and writes it unescaped', () => {
    expect(canonicalJson({ s: '\uD83D\uDE02' })).toBe('{"s":"\uD83D\uDE02"}');
  });

  it('serialises objects through toJSON, as Date does', () => {
    expect(canonicalJson({ at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) })).toBe('{"at":"2024-01-02T03:04:05.000Z"}');
  });

  it('allows the same object twice when it is not its own ancestor', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ b: shared, a: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});
