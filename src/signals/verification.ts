/**
 * The e-mail verification code of registration (regime-signal-service.md parts 3 and 8; DECISIONS.md "Regime
 * signal service"): 6 digits drawn uniformly from 000000-999999 by the operating system's CSPRNG, valid 15
 * minutes, five wrong tries invalidate it. Only a SHA-256 of the e-mail and the code is stored: a copy of the
 * table (a backup, a replica, an operator's query) does not show a usable code. (A million codes are quickly
 * tried against a stolen hash; the hash keeps codes out of sight, the 15 minutes and the five tries bound
 * what a guess can do.)
 */
import { randomInt, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../crypto/hash.js';

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

/** The stored form of a code: SHA-256 over a domain tag, the normalized e-mail and the code, as lowercase hex. */
export function codeHash(address: string, code: string): string {
  return sha256Hex(`tradeseal.signals.verification\n${normalizeEmail(address)}\n${code}`);
}

/** Whether `code` is the one whose hash is `stored`, in time that does not depend on where they differ. */
export function codeMatches(stored: string, address: string, code: string): boolean {
  const a = Buffer.from(stored, 'hex');
  const b = Buffer.from(codeHash(address, code), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
