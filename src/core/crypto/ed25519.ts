/**
 * Ed25519 signatures (RFC 8032 §5.1: pure Ed25519, no context, no prehash) behind one module.
 *
 * A secret key is the RFC 8032 32-byte seed (not libsodium's 64-byte seed || public key); a public key is
 * the 32-byte encoded point; a signature is 64 bytes. Key generation and one-off signing use @noble/ed25519's
 * synchronous API with node:crypto's SHA-512. Verification is on the hot path, so it uses node:crypto
 * (OpenSSL, about 14x faster than noble) with one cached KeyObject per public key, and `verifyAsync` runs it on
 * libuv's thread pool, off the event loop. A service that signs on
 * every request (the signal service's heartbeats) builds a `createSigner` once: node:crypto with the key's
 * KeyObject made once, about 9x faster than noble here; both give the same bytes (RFC 8032 signatures are
 * deterministic, and a test checks it).
 * Arguments are checked at the edge and errors name the argument ("secretKey must be 32 bytes, got 31").
 */
import { createHash, createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import * as ed from '@noble/ed25519';

export const SECRET_KEY_LENGTH = 32;
export const PUBLIC_KEY_LENGTH = 32;
export const SIGNATURE_LENGTH = 64;

// noble v3's synchronous functions need a SHA-512; keep one another module may already have set.
ed.hashes.sha512 ??= (message) => new Uint8Array(createHash('sha512').update(message).digest());

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32-byte key follows (RFC 8410 §4). */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** DER prefix of an Ed25519 PKCS#8 OneAsymmetricKey without the public key; the 32-byte seed follows (RFC 8410 §7). */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object';
  return typeof value;
}

function expectBytes(value: unknown, name: string, length?: number): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array, got ${describe(value)}`);
  if (length !== undefined && value.length !== length) {
    throw new TypeError(`${name} must be ${length} bytes, got ${value.length}`);
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Standard base64 (RFC 4648 §4) of `bytes`, with padding. */
export function toBase64(bytes: Uint8Array): string {
  expectBytes(bytes, 'bytes');
  return asBuffer(bytes).toString('base64');
}

/** Decodes standard base64, padding optional; rejects other characters and non-canonical trailing bits. */
export function fromBase64(text: string): Uint8Array {
  if (typeof text !== 'string') throw new TypeError(`text must be a string, got ${describe(text)}`);
  const decoded = Buffer.from(text, 'base64');
  // Buffer skips characters it does not know and accepts the URL-safe alphabet, so only a text that
  // round-trips (with or without its padding) is standard, canonical base64.
  const canonical = decoded.toString('base64');
  if (text !== canonical && text !== canonical.replace(/=+$/, '')) {
    throw new TypeError('text is not canonical standard base64 (RFC 4648 §4)');
  }
  return new Uint8Array(decoded);
}

/**
 * KeyObjects for verification, by public key. Bounded because verified keys may come from requests;
 * when full, the oldest entry goes (the working set of agent keys is far smaller than the limit).
 */
const KEY_OBJECT_CACHE_LIMIT = 1024;
const keyObjects = new Map<string, KeyObject>();

function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const id = asBuffer(publicKey).toString('base64');
  let keyObject = keyObjects.get(id);
  if (keyObject === undefined) {
    keyObject = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    if (keyObjects.size >= KEY_OBJECT_CACHE_LIMIT) keyObjects.delete(keyObjects.keys().next().value as string);
    keyObjects.set(id, keyObject);
  }
  return keyObject;
}

/** A fresh key pair from the system CSPRNG: `secretKey` is the 32-byte seed. */
export function generateKeyPair(): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const { secretKey, publicKey } = ed.keygen();
  return { secretKey, publicKey };
}

/** The 32-byte public key of a 32-byte secret key (seed), RFC 8032 §5.1.5. */
export function publicKeyFromSecret(secretKey: Uint8Array): Uint8Array {
  expectBytes(secretKey, 'secretKey', SECRET_KEY_LENGTH);
  return ed.getPublicKey(secretKey);
}

/** The deterministic 64-byte signature of `message` (RFC 8032 §5.1.6). */
export function sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  expectBytes(message, 'message');
  expectBytes(secretKey, 'secretKey', SECRET_KEY_LENGTH);
  return ed.sign(message, secretKey);
}

/**
 * A signing function for one secret key, for signing many messages: node:crypto (OpenSSL) with the key's
 * KeyObject built once. Gives exactly the bytes of `sign` (RFC 8032 §5.1.6 is deterministic).
 */
export function createSigner(secretKey: Uint8Array): (message: Uint8Array) => Uint8Array {
  expectBytes(secretKey, 'secretKey', SECRET_KEY_LENGTH);
  const keyObject = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secretKey]), format: 'der', type: 'pkcs8' });
  return (message) => {
    expectBytes(message, 'message');
    return nodeSign(null, message, keyObject);
  };
}

/**
 * Whether `signature` is a valid signature of `message` under `publicKey` (RFC 8032 §5.1.7, via OpenSSL).
 * A signature of the wrong length or a public key that is not a curve point gives false, not an error;
 * arguments that are not byte arrays, or a public key that is not 32 bytes, are programming errors and throw.
 */
export function verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  expectBytes(signature, 'signature');
  expectBytes(message, 'message');
  expectBytes(publicKey, 'publicKey', PUBLIC_KEY_LENGTH);
  if (signature.length !== SIGNATURE_LENGTH) return false;
  try {
    return nodeVerify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
}

/**
 * `verify` off the calling thread: the same check, run by OpenSSL on libuv's thread pool (node:crypto's
 * `verify` with a callback), so that a server's event loop does not spend the ~0.1 ms a verification costs.
 * Resolves to false, never rejects, for a signature that does not verify or cannot be checked.
 */
export function verifyAsync(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
  expectBytes(signature, 'signature');
  expectBytes(message, 'message');
  expectBytes(publicKey, 'publicKey', PUBLIC_KEY_LENGTH);
  if (signature.length !== SIGNATURE_LENGTH) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      nodeVerify(null, message, publicKeyObject(publicKey), signature, (err, ok) => resolve(!err && ok));
    } catch {
      resolve(false);
    }
  });
}

/** The PEM SubjectPublicKeyInfo (`-----BEGIN PUBLIC KEY-----`, RFC 8410 §4) of a 32-byte public key. */
export function publicKeyToPem(publicKey: Uint8Array): string {
  expectBytes(publicKey, 'publicKey', PUBLIC_KEY_LENGTH);
  return publicKeyObject(publicKey).export({ type: 'spki', format: 'pem' }) as string;
}

function publicKeyFromPem(pem: string): Uint8Array {
  const label = /^-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem)?.[1];
  if (label !== 'PUBLIC KEY') {
    throw new TypeError(`public key PEM must be a "PUBLIC KEY" block, got "${label ?? 'an unreadable header'}"`);
  }
  let keyObject: KeyObject;
  try {
    keyObject = createPublicKey(pem);
  } catch (error) {
    throw new TypeError(`public key PEM could not be decoded: ${(error as Error).message}`, { cause: error });
  }
  if (keyObject.asymmetricKeyType !== 'ed25519') {
    throw new TypeError(`public key PEM holds a ${keyObject.asymmetricKeyType ?? 'unknown'} key, expected ed25519`);
  }
  return new Uint8Array(keyObject.export({ type: 'spki', format: 'der' }).subarray(SPKI_PREFIX.length));
}

/**
 * A 32-byte Ed25519 public key from text: 64 hex characters, base64 (44 characters with padding or 43
 * without), or a PEM "PUBLIC KEY" block. The key must decode to a point on the curve (RFC 8032 §5.1.3).
 * @throws {TypeError} naming what was expected when `text` is none of these.
 */
export function parsePublicKey(text: string): Uint8Array {
  if (typeof text !== 'string') throw new TypeError(`public key must be a string, got ${describe(text)}`);
  const trimmed = text.trim();
  let publicKey: Uint8Array;
  if (trimmed.startsWith('-----BEGIN')) publicKey = publicKeyFromPem(trimmed);
  else if (/^[0-9a-fA-F]{64}$/.test(trimmed)) publicKey = new Uint8Array(Buffer.from(trimmed, 'hex'));
  else if (/^[A-Za-z0-9+/]{43}=?$/.test(trimmed)) {
    try {
      publicKey = fromBase64(trimmed);
    } catch {
      throw new TypeError('public key base64 is not canonical: its last character carries nonzero unused bits');
    }
  } else {
    throw new TypeError(
      `public key must be 64 hex characters, 44 base64 characters (43 unpadded) or a PEM "PUBLIC KEY" block; ` + `got ${trimmed.length} characters`,
    );
  }
  try {
    ed.Point.fromBytes(publicKey);
  } catch {
    throw new TypeError('public key is not a valid Ed25519 point (RFC 8032 §5.1.3)');
  }
  return publicKey;
}
