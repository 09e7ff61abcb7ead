/**
 * Pending e-mail verifications of registration (`signal_verifications`): one per address, the stored form of
 * its code (src/signals/verification.ts: keyed HMAC or scrypt), when it expires, and how many wrong codes were tried. Times are the
 * database's, like the rate window's, so every server agrees on them.
 */
import type { Sql } from 'postgres';
import type { SqlOrTx } from '../../store/transaction.js';

export interface PendingVerification {
  code_hash: string;
  attempts: number;
  expires_at: Date;
  /** `expires_at` has passed, by the database's clock. */
  expired: boolean;
}

/** Stores a new code for `email`, replacing an earlier one (and its count of wrong tries). */
export async function putVerification(sql: Sql, email: string, codeHash: string, ttlMs: number): Promise<{ expires_at: Date }> {
  const [row] = await sql<Array<{ expires_at: Date }>>`
    insert into signal_verifications (email, code_hash, expires_at, attempts, created_at)
    values (${email}, ${codeHash}, now() + make_interval(secs => ${ttlMs / 1000}), 0, now())
    on conflict (email) do update set code_hash = excluded.code_hash, expires_at = excluded.expires_at, attempts = 0, created_at = excluded.created_at
    returning expires_at`;
  return row!;
}

/** Removes the code `codeHash` of `email`, only if it is still the pending one (a later register's code stays). */
export async function dropVerification(sql: Sql, email: string, codeHash: string): Promise<void> {
  await sql`delete from signal_verifications where email = ${email} and code_hash = ${codeHash}`;
}

/** The pending verification of `email` as it is now, without a lock (what verify hashes the code against first). */
export async function peekVerification(sql: Sql, email: string): Promise<PendingVerification | null> {
  const [row] = await sql<PendingVerification[]>`
    select code_hash, attempts, expires_at, expires_at <= now() as expired from signal_verifications where email = ${email}`;
  return row ?? null;
}

/**
 * The pending verification of `email`, its row locked until the transaction ends: concurrent verifications
 * of one address take turns, so a code is used once and every wrong try is counted.
 */
export async function lockVerification(tx: SqlOrTx, email: string): Promise<PendingVerification | null> {
  const [row] = await tx<PendingVerification[]>`
    select code_hash, attempts, expires_at, expires_at <= now() as expired from signal_verifications where email = ${email} for update`;
  return row ?? null;
}

/** Counts a wrong try; returns the tries counted so far. */
export async function countWrongTry(tx: SqlOrTx, email: string): Promise<number> {
  const [row] = await tx<Array<{ attempts: number }>>`
    update signal_verifications set attempts = attempts + 1 where email = ${email} returning attempts`;
  return row?.attempts ?? 0;
}

export async function deleteVerification(tx: SqlOrTx, email: string): Promise<void> {
  await tx`delete from signal_verifications where email = ${email}`;
}

/** At most one registration mail a minute per address. */
export const REGISTRATION_MAIL_INTERVAL_MS = 60_000;

/**
 * Takes the address's registration-mail slot: `{taken}` (the time it was taken, to give it back with
 * `releaseMailSlot` if the mail could not be sent), or `{next}` when a mail went less than a minute ago. One
 * conditional upsert, so of concurrent registers of one address one sends a mail.
 */
// Times in milliseconds, so the time handed back compares equal to the stored one (a JS Date holds no microseconds).
export async function claimMailSlot(sql: Sql, email: string): Promise<{ taken: Date } | { next: Date }> {
  const [taken] = await sql<Array<{ at: Date }>>`
    insert into signal_mail_throttle (email, last_sent_at) values (${email}, date_trunc('milliseconds', clock_timestamp()))
    on conflict (email) do update set last_sent_at = date_trunc('milliseconds', clock_timestamp())
      where signal_mail_throttle.last_sent_at <= clock_timestamp() - make_interval(secs => ${REGISTRATION_MAIL_INTERVAL_MS / 1000})
    returning last_sent_at as at`;
  if (taken) return { taken: taken.at };
  const [row] = await sql<Array<{ next: Date }>>`
    select last_sent_at + make_interval(secs => ${REGISTRATION_MAIL_INTERVAL_MS / 1000}) as next from signal_mail_throttle where email = ${email}`;
  return { next: row?.next ?? new Date(Date.now() + REGISTRATION_MAIL_INTERVAL_MS) };
}

/** Gives back a slot whose mail was not sent (nothing reached the address). */
export async function releaseMailSlot(sql: Sql, email: string, taken: Date): Promise<void> {
  await sql`delete from signal_mail_throttle where email = ${email} and last_sent_at = ${taken}`;
}
