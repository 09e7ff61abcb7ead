/**
 * The e-mail verification code of registration (docs/decisions/0019-registration-code.md): 6 digits
 * drawn uniformly from 000000-999999 by the operating system's CSPRNG, valid 15 minutes, five wrong tries
 * invalidate it.
 *
 * A code is stored only in a form a copy of the table (a backup, a replica, an operator's query) cannot be
 * searched with: 10^6 codes are nothing to try against a plain hash (a SHA-256 of the address and the code, the
 * form before, fell to a search of every code in 1 to 2 s on one thread). Two constructions, named in the
 * stored text so a row is always read by the one that made it:
 *
 * - `hmac-sha256:<64 hex>`, with a key-management provider: HMAC-SHA256 (RFC 2104) of the message below under
 *   a 256-bit key kept sealed in the store (`verification_code_key`, ./verification-key.ts). Without the
 *   provider the key cannot be read, and without the key no code can be tested against the hash.
 * - `scrypt:<log2 N>:<r>:<p>:<salt hex>:<32-byte hash hex>`, without one: scrypt (RFC 7914) of the message with a
 *   random 16-byte salt per code, N = 2^16, r = 8, p = 1: 64 MiB a hash. Measured on the 2-core AMD EPYC machine
 *   the tests run on: 180 ms a hash on one core (240 ms while the machine was busy), 93 ms a hash with both cores
 *   at it; all 10^6 codes take 50 core-hours, 26 hours of that machine, about 100 times the code's 15 minutes
 *   (against 1 s for all of them under the plain SHA-256). It needs no configuration and bounds a search; it
 *   does not make one impossible for whoever has a hundred cores to spend within the 15 minutes: a provider does.
 *
 * The message is `tradeseal.signals.verification\n<address in lower case>\n<code>`, so a hash is bound to its
 * address. Each hash costs the server what it costs a searcher: the scrypt form spends about 200 ms of CPU on
 * libuv's thread pool (never the event loop) per register and per verify of a live code, and 64 MiB while it runs.
 */
import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const CODE_DIGITS = 6;
export const CODE_TTL_MS = 15 * 60_000;
export const MAX_WRONG_TRIES = 5;

/** A fresh code: `randomInt` rejects biased draws, so each of the 10^6 codes is equally likely. */
export function newVerificationCode(): string {
  return String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
}

/**
 * Addresses are kept and compared in lower case: the schema admits ASCII addresses only, and a customer who
 * types `Ann@Example.com` once and `ann@example.com` later means one account. (RFC 5321 leaves the local
 * part's case to the receiving host; no mail host in use tells the two apart.)
 */
export const normalizeEmail = (address: string): string => address.trim().toLowerCase();

/** What is hashed: a domain tag, the normalized address and the code. */
export const codeMessage = (address: string, code: string): string => `tradeseal.signals.verification\n${normalizeEmail(address)}\n${code}`;

/** The scrypt parameters of new hashes (see the module comment for their cost). */
export const SCRYPT_PARAMS = Object.freeze({ logN: 16, r: 8, p: 1 });
const SALT_LENGTH = 16;
const HASH_LENGTH = 32;
/** The largest parameters a stored hash may name: a damaged row must not make a verify allocate gigabytes. */
const MAX_LOG_N = 20;
const MAX_R = 16;
const MAX_P = 4;

/** How codes are hashed and checked: keyed (HMAC) when the key exists, scrypt otherwise. */
export interface CodeHasher {
  /** The stored form of a new code. */
  hash(address: string, code: string): Promise<string>;
  /** Whether `code` is the one whose stored form is `stored` (any form this module makes). */
  matches(stored: string, address: string, code: string): Promise<boolean>;
}

/**
 * A hasher: HMAC-SHA256 under the key `hmacKey` gives (the provider's case), scrypt without one. `hmacKey` is
 * asked for only when a code is hashed or an HMAC form checked.
 */
export function codeHasher(hmacKey: (() => Promise<Buffer>) | null): CodeHasher {
  return {
    async hash(address, code) {
      if (hmacKey) return `hmac-sha256:${hmacHex(await hmacKey(), address, code)}`;
      const salt = randomBytes(SALT_LENGTH);
      const { logN, r, p } = SCRYPT_PARAMS;
      return `scrypt:${logN}:${r}:${p}:${salt.toString('hex')}:${(await scryptHash(address, code, salt, logN, r, p)).toString('hex')}`;
    },
    async matches(stored, address, code) {
      const hmac = /^hmac-sha256:([0-9a-f]{64})$/.exec(stored);
      if (hmac) {
        if (!hmacKey) return false;
        return equal(Buffer.from(hmac[1]!, 'hex'), Buffer.from(hmacHex(await hmacKey(), address, code), 'hex'));
      }
      const s = /^scrypt:(\d{1,2}):(\d{1,2}):(\d):([0-9a-f]{32}):([0-9a-f]{64})$/.exec(stored);
      if (!s) return false;
      const [logN, r, p] = [Number(s[1]), Number(s[2]), Number(s[3])];
      if (logN < 1 || logN > MAX_LOG_N || r < 1 || r > MAX_R || p < 1 || p > MAX_P) return false;
      return equal(Buffer.from(s[5]!, 'hex'), await scryptHash(address, code, Buffer.from(s[4]!, 'hex'), logN, r, p));
    },
  };
}

const hmacHex = (key: Buffer, address: string, code: string): string => createHmac('sha256', key).update(codeMessage(address, code), 'utf8').digest('hex');

/** scrypt on libuv's thread pool; `maxmem` twice the 128·N·r bytes it needs (Node's default, 32 MiB, is less). */
function scryptHash(address: string, code: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 2 * 128 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) => scrypt(codeMessage(address, code), salt, HASH_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** Constant-time equality of two digests (false when their lengths differ). */
const equal = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);
