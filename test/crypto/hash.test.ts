/**
 * sha256Hex against the FIPS 180-2 Appendix B examples and hashJson against canonical JSON.
 */
import { describe, expect, it } from 'vitest';
import vectors from '../vectors/jcs_vectors.json' with { type: 'json' };
import { canonicalJson } from '../../src/core/crypto/jcs.js';
import { hashJson, sha256Hex } from '../../src/core/crypto/hash.js';

describe('sha256Hex', () => {
  // FIPS 180-2 Appendix B.1 (one block), B.2 (multi-block) and B.3 (one million "a");
  // the empty message is NIST CAVP SHA256ShortMsg.rsp, Len = 0.
  it.each([
    ['FIPS 180-2 B.1 "abc"', 'abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'FIPS 180-2 B.2 two-block message',
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
    ['FIPS 180-2 B.3 one million "a"', 'a'.repeat(1_000_000), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
    ['CAVP empty message', '', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ])('%s', (_name, message, digest) => {
    expect(sha256Hex(message)).toBe(digest);
    expect(sha256Hex(new TextEncoder().encode(message))).toBe(digest);
  });

  it('hashes a string as its UTF-8 bytes', () => {
    expect(sha256Hex('€')).toBe(sha256Hex(new Uint8Array([0xe2, 0x82, 0xac])));
    expect(sha256Hex('€')).not.toBe(sha256Hex(new Uint8Array([0x20, 0xac])));
  });

  it('hashes only the bytes a Uint8Array view covers', () => {
    const backing = new TextEncoder().encode('xxabcxx');
    expect(sha256Hex(backing.subarray(2, 5))).toBe(sha256Hex('abc'));
  });

  it('rejects anything but a string or Uint8Array, naming the argument', () => {
    expect(() => sha256Hex(42 as unknown as string)).toThrow(new TypeError('data must be a string or Uint8Array, got number'));
    expect(() => sha256Hex(null as unknown as string)).toThrow(/data must be a string or Uint8Array, got null/);
  });
});

describe('hashJson', () => {
  it('is the SHA-256 of the canonical JSON text', () => {
    const value = { z: [3, 1.5e21, 'é'], a: { y: null, b: true } };
    expect(hashJson(value)).toBe(sha256Hex(canonicalJson(value)));
    expect(hashJson(value)).toBe(sha256Hex('{"a":{"b":true,"y":null},"z":[3,1.5e+21,"é"]}'));
  });

  it('does not depend on member order, at any depth', () => {
    expect(hashJson({ a: 1, b: { c: 2, d: 3 } })).toBe(hashJson({ b: { d: 3, c: 2 }, a: 1 }));
  });

  it('changes when a value changes, and array order is significant', () => {
    expect(hashJson({ a: 1 })).not.toBe(hashJson({ a: 2 }));
    expect(hashJson([1, 2])).not.toBe(hashJson([2, 1]));
  });

  // RFC 8785, cyberphone/json-canonicalization testdata: each pair carries the SHA-256 of its output.
  it.each(vectors.pairs)('$name hashes to the SHA-256 the vectors give', (pair) => {
    expect(hashJson(JSON.parse(pair.input))).toBe(pair.expected_sha256);
  });

  it('throws the canonicalJson TypeError for a value with no JSON form', () => {
    expect(() => hashJson({ price: Number.NaN })).toThrow(new TypeError('cannot canonicalize: $.price is NaN, which has no JSON form (RFC 8785 §3.2.2.3)'));
  });
});
