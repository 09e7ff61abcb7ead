/**
 * Ed25519 against the RFC 8032 §7.1 vectors, cross-checked with node:crypto (OpenSSL) and @noble/ed25519,
 * plus the argument checks and public key parsing.
 *
 * Vectors: RFC 8032 §7.1 "Test Vectors for Ed25519", transcribed verbatim in test/vectors/ed25519_vectors.json
 * from libtom/libtomcrypt tests/ed25519_test.c (commit 03515d56).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import * as noble from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import vectors from '../vectors/ed25519_vectors.json' with { type: 'json' };
import {
  createSigner,
  fromBase64,
  generateKeyPair,
  parsePublicKey,
  publicKeyFromSecret,
  publicKeyToPem,
  sign,
  toBase64,
  verify,
  verifyAsync,
} from '../../src/core/crypto/ed25519.js';

const fromHex = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

/** node:crypto key objects built independently of the module under test, through JWK (RFC 8037). */
function nodePublicKey(publicKey: Uint8Array): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: base64url(publicKey) }, format: 'jwk' });
}
function nodePrivateKey(seed: Uint8Array, publicKey: Uint8Array): KeyObject {
  return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: base64url(seed), x: base64url(publicKey) }, format: 'jwk' });
}

function flipBit(bytes: Uint8Array, index: number, bit = 0): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[index] = copy[index]! ^ (1 << bit);
  return copy;
}

describe('RFC 8032 §7.1 test vectors', () => {
  it('has all five §7.1 vectors, each message of its stated length', () => {
    expect(vectors.vectors.map((v) => v.name)).toEqual(['TEST 1', 'TEST 2', 'TEST 3', 'TEST 1024', 'TEST SHA(abc)']);
    for (const v of vectors.vectors) expect(v.message.length / 2).toBe(v.message_length);
  });

  describe.each(vectors.vectors)('$name', (v) => {
    const secretKey = fromHex(v.secret_key);
    const publicKey = fromHex(v.public_key);
    const message = fromHex(v.message);
    const signature = fromHex(v.signature);

    it('derives the public key from the secret key', () => {
      expect(toHex(publicKeyFromSecret(secretKey))).toBe(v.public_key);
    });

    it('signs to exactly the expected signature', () => {
      expect(toHex(sign(message, secretKey))).toBe(v.signature);
    });

    it('signs to exactly the expected signature with createSigner (node:crypto) too', () => {
      expect(toHex(createSigner(secretKey)(message))).toBe(v.signature);
    });

    it('is accepted by node:crypto directly, by verify and by verifyAsync (on the thread pool)', async () => {
      expect(nodeVerify(null, message, nodePublicKey(publicKey), signature)).toBe(true);
      expect(verify(signature, message, publicKey)).toBe(true);
      expect(await verifyAsync(signature, message, publicKey)).toBe(true);
    });

    it('rejects a flipped bit in the message, or an extra byte (both verifications)', async () => {
      if (message.length > 0) {
        expect(verify(signature, flipBit(message, 0), publicKey)).toBe(false);
        expect(verify(signature, flipBit(message, message.length - 1, 7), publicKey)).toBe(false);
        expect(await verifyAsync(signature, flipBit(message, 0), publicKey)).toBe(false);
      }
      expect(verify(signature, Uint8Array.from([...message, 0]), publicKey)).toBe(false);
      expect(await verifyAsync(signature, Uint8Array.from([...message, 0]), publicKey)).toBe(false);
    });

    it('rejects a flipped bit in R or in S of the signature (both verifications)', async () => {
      for (const index of [0, 31, 32, 63]) {
        const tampered = flipBit(signature, index);
        expect(verify(tampered, message, publicKey)).toBe(false);
        expect(await verifyAsync(tampered, message, publicKey)).toBe(false);
        expect(nodeVerify(null, message, nodePublicKey(publicKey), tampered)).toBe(false);
      }
      expect(await verifyAsync(signature.subarray(0, 63), message, publicKey)).toBe(false);
    });

    it("rejects the signature under another vector's public key", () => {
      const other = vectors.vectors.find((w) => w.name !== v.name)!;
      expect(verify(signature, message, fromHex(other.public_key))).toBe(false);
    });
  });

  it('plain Ed25519 neither produces nor accepts the RFC 8032 §7.3 Ed25519ph signature', () => {
    const ph = vectors.extra_ed25519ph_7_3;
    const message = fromHex(ph.message);
    expect(toHex(publicKeyFromSecret(fromHex(ph.secret_key)))).toBe(ph.public_key);
    expect(toHex(sign(message, fromHex(ph.secret_key)))).not.toBe(ph.signature);
    expect(verify(fromHex(ph.signature), message, fromHex(ph.public_key))).toBe(false);
  });

  it('verifyAsync answers false, never a rejection, for a public key that is not a curve point', async () => {
    const v = vectors.vectors[0]!;
    // RFC 8032 §5.1.3: y = 2 with the sign bit clear has no x on the curve; noble's decoding says so too.
    const offCurve = new Uint8Array(32);
    offCurve[0] = 2;
    expect(() => noble.Point.fromBytes(offCurve)).toThrow();
    expect(verify(fromHex(v.signature), fromHex(v.message), offCurve)).toBe(false);
    expect(await verifyAsync(fromHex(v.signature), fromHex(v.message), offCurve)).toBe(false);
  });
});

describe('interoperability between @noble/ed25519 and node:crypto', () => {
  const cases = Array.from({ length: 16 }, (_, i) => ({ i, message: new Uint8Array(randomBytes(i * 37)) }));

  it.each(cases)('random key #$i: each side verifies the other, and both sign identically', ({ message }) => {
    const { secretKey, publicKey } = generateKeyPair();
    const privateKey = nodePrivateKey(secretKey, publicKey);

    const signedByNoble = sign(message, secretKey);
    expect(nodeVerify(null, message, nodePublicKey(publicKey), signedByNoble)).toBe(true);

    const signedByNode = new Uint8Array(nodeSign(null, message, privateKey));
    expect(noble.verify(signedByNode, message, publicKey)).toBe(true);
    expect(verify(signedByNode, message, publicKey)).toBe(true);

    // Ed25519 is deterministic (RFC 8032 §5.1.6), so two correct implementations agree byte for byte.
    expect(toHex(signedByNode)).toBe(toHex(signedByNoble));
    // createSigner (node:crypto from the bare seed) against noble directly, not through `sign`.
    expect(toHex(createSigner(secretKey)(message))).toBe(toHex(noble.sign(message, secretKey)));
  });

  it('node:crypto derives the same public key from a seed, given as PKCS#8 without the public key', () => {
    const { secretKey, publicKey } = generateKeyPair();
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), secretKey]);
    const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    expect(createPublicKey(privateKey).export({ format: 'jwk' }).x).toBe(base64url(publicKey));
  });
});

describe('key generation and argument checks', () => {
  it('generates distinct 32-byte key pairs whose public key matches the secret key', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(a.secretKey).toHaveLength(32);
    expect(a.publicKey).toHaveLength(32);
    expect(toHex(publicKeyFromSecret(a.secretKey))).toBe(toHex(a.publicKey));
    expect(toHex(a.secretKey)).not.toBe(toHex(b.secretKey));
  });

  it('returns false, without throwing, for signatures of the wrong length', () => {
    const { secretKey, publicKey } = generateKeyPair();
    const message = new Uint8Array([1, 2, 3]);
    const signature = sign(message, secretKey);
    expect(signature).toHaveLength(64);
    for (const bad of [new Uint8Array(0), signature.subarray(0, 63), Uint8Array.from([...signature, 0])]) {
      expect(verify(bad, message, publicKey)).toBe(false);
    }
  });

  it('returns false for a 32-byte public key that is not a curve point', () => {
    const { secretKey } = generateKeyPair();
    const message = new Uint8Array([7]);
    expect(verify(sign(message, secretKey), message, new Uint8Array(32).fill(0xff))).toBe(false);
  });

  it('names the argument and the length in errors', () => {
    const message = new Uint8Array(1);
    expect(() => sign(message, new Uint8Array(31))).toThrow(new TypeError('secretKey must be 32 bytes, got 31'));
    expect(() => createSigner(new Uint8Array(31))).toThrow(new TypeError('secretKey must be 32 bytes, got 31'));
    expect(() => createSigner(new Uint8Array(32))('hi' as unknown as Uint8Array)).toThrow(new TypeError('message must be a Uint8Array, got string'));
    expect(() => publicKeyFromSecret(new Uint8Array(64))).toThrow(new TypeError('secretKey must be 32 bytes, got 64'));
    expect(() => sign('hi' as unknown as Uint8Array, new Uint8Array(32))).toThrow(new TypeError('message must be a Uint8Array, got string'));
    expect(() => verify(new Uint8Array(64), message, new Uint8Array(31))).toThrow(new TypeError('publicKey must be 32 bytes, got 31'));
    expect(() => verify([] as unknown as Uint8Array, message, new Uint8Array(32))).toThrow(new TypeError('signature must be a Uint8Array, got Array'));
  });

  it('still verifies a key after more distinct keys than the KeyObject cache holds', () => {
    const { secretKey, publicKey } = generateKeyPair();
    const message = new Uint8Array([42]);
    const signature = sign(message, secretKey);
    expect(verify(signature, message, publicKey)).toBe(true);
    for (let i = 0; i < 1100; i++) verify(signature, message, new Uint8Array(randomBytes(32)));
    expect(verify(signature, message, publicKey)).toBe(true);
    expect(verify(flipBit(signature, 5), message, publicKey)).toBe(false);
  });
});

describe('parsePublicKey and encodings', () => {
  const vector = vectors.vectors[0]!;
  const publicKey = fromHex(vector.public_key);
  const base64 = Buffer.from(publicKey).toString('base64');
  const nodePem = nodePublicKey(publicKey).export({ type: 'spki', format: 'pem' }) as string;

  it.each([
    ['lowercase hex', vector.public_key],
    ['uppercase hex', vector.public_key.toUpperCase()],
    ['padded base64 (44 characters)', base64],
    ['unpadded base64 (43 characters)', base64.replace(/=$/, '')],
    ['PEM SPKI from node:crypto', nodePem],
    ['PEM with CRLF line ends and surrounding blank lines', `\r\n${nodePem.replace(/\n/g, '\r\n')}\r\n`],
    ['hex with surrounding whitespace', `  ${vector.public_key}\n`],
  ])('accepts %s', (_name, text) => {
    expect(toHex(parsePublicKey(text))).toBe(vector.public_key);
  });

  it('writes the same PEM as node:crypto, and reads it back', () => {
    expect(publicKeyToPem(publicKey)).toBe(nodePem);
    expect(toHex(parsePublicKey(publicKeyToPem(publicKey)))).toBe(vector.public_key);
  });

  it.each([
    ['garbage', 'not a key', /public key must be 64 hex characters, 44 base64 characters \(43 unpadded\) or a PEM "PUBLIC KEY" block; got 9 characters/],
    ['63 hex characters', vector.public_key.slice(1), /got 63 characters/],
    ['base64 of 33 bytes', Buffer.alloc(33, 1).toString('base64'), /public key must be 64 hex characters/],
    ['base64 with nonzero unused bits', `${base64.slice(0, 42)}B=`, /not canonical/],
    [
      'a private key PEM',
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      /must be a "PUBLIC KEY" block, got "PRIVATE KEY"/,
    ],
    [
      'an EC public key PEM',
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string,
      /holds a ec key, expected ed25519/,
    ],
    ['a corrupt PEM body', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n', /public key PEM could not be decoded/],
    ['32 bytes that are not a curve point', 'ff'.repeat(32), /not a valid Ed25519 point/],
  ])('rejects %s with a clear TypeError', (_name, text, message) => {
    expect(() => parsePublicKey(text)).toThrow(TypeError);
    expect(() => parsePublicKey(text)).toThrow(message);
  });

  it('rejects a non-string, naming what it got', () => {
    expect(() => parsePublicKey(publicKey as unknown as string)).toThrow(new TypeError('public key must be a string, got Uint8Array'));
  });

  it('round-trips base64 and rejects what is not canonical standard base64', () => {
    const bytes = new Uint8Array([0xfb, 0xff, 0x00, 0x10]);
    expect(toBase64(bytes)).toBe('+/8AEA==');
    expect(Array.from(fromBase64('+/8AEA=='))).toEqual(Array.from(bytes));
    expect(Array.from(fromBase64('+/8AEA'))).toEqual(Array.from(bytes));
    for (const bad of ['-_8AEA==', '+/8A EA==', '+/8AEB==', '+/8AEA=', 'a']) {
      expect(() => fromBase64(bad), bad).toThrow(/not canonical standard base64/);
    }
  });
});
