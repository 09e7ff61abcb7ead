/**
 * AES-256-GCM sealing (src/core/crypto/aead.ts): the published test vectors opened through `open`, round trips,
 * and every way a sealed value must be refused (another key, other associated data, an altered byte).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AeadOpenError, open, seal } from '../../src/core/crypto/aead.js';

const sealedOf = (nonce: string, ciphertext: string, tag: string): Buffer =>
  Buffer.concat([Buffer.of(1), Buffer.from(nonce, 'hex'), Buffer.from(ciphertext, 'hex'), Buffer.from(tag, 'hex')]);

describe('open: AES-256-GCM test vectors', () => {
  // McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", revised 2005, Appendix B, Test Cases 13 and
  // 14: K = 0^256, IV = 0^96, no associated data.
  it.each([
    ['Test Case 13 (empty plaintext)', '', '', '530f8afbc74536b9a963b4f1c4cb738b'],
    ['Test Case 14 (16 zero bytes)', '00000000000000000000000000000000', 'cea7403d4d606b6e074ec5d3baf39d18', 'd0d1c8a799996bf0265b98b5d48ab919'],
  ])('%s', (_name, plaintext, ciphertext, tag) => {
    const value = sealedOf('000000000000000000000000', ciphertext, tag);
    expect(open(Buffer.alloc(32), value, '').toString('hex')).toBe(plaintext);
  });

  it('refuses the vector with one bit of its tag flipped', () => {
    const value = sealedOf('000000000000000000000000', 'cea7403d4d606b6e074ec5d3baf39d18', 'd0d1c8a799996bf0265b98b5d48ab918');
    expect(() => open(Buffer.alloc(32), value, '')).toThrow(AeadOpenError);
  });
});

describe('seal and open', () => {
  const key = randomBytes(32);
  const text = Buffer.from('{"mifid_decision_maker":"Jane Trader"}', 'utf8');

  it('round-trips, with a fresh 96-bit nonce per value', () => {
    const a = seal(key, text, 'trace 1');
    const b = seal(key, text, 'trace 1');
    expect(open(key, a, 'trace 1').equals(text)).toBe(true);
    expect(a.equals(b)).toBe(false);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    // version ‖ nonce ‖ ciphertext (as long as the plaintext) ‖ tag
    expect(a.length).toBe(1 + 12 + text.length + 16);
    expect(a.includes(text)).toBe(false);
  });

  it('refuses another key, other associated data, and any altered byte', () => {
    const value = seal(key, text, 'trace 1');
    expect(() => open(randomBytes(32), value, 'trace 1')).toThrow(AeadOpenError);
    expect(() => open(key, value, 'trace 2')).toThrow(AeadOpenError);
    for (const i of [0, 1, 13, value.length - 1]) {
      const altered = Buffer.from(value);
      altered[i]! ^= 0x01;
      expect(() => open(key, altered, 'trace 1')).toThrow(AeadOpenError);
    }
    expect(() => open(key, value.subarray(0, 20), 'trace 1')).toThrow(AeadOpenError);
  });

  it('checks the key length at the edge, naming the argument', () => {
    expect(() => seal(randomBytes(16), text, 'x')).toThrow(/key must be 32 bytes, got 16/);
    expect(() => open(randomBytes(31), seal(key, text, 'x'), 'x')).toThrow(/key must be 32 bytes, got 31/);
  });
});
